// The C header declaring the entry points of an emitted object.
#pragma once

#include <string>
#include <vector>

#include "ir/function.h"

namespace tirc {

struct HeaderEntry {
  std::string symbol;  // C symbol of the function (see codegen/x86/generator.h)
  PrimFunc func;       // as written by the user (before lowering): shapes, names, dtypes
};

// A self-contained header (include guard derived from `name`, <stdint.h>,
// extern "C" for C++) declaring `int symbol(<type>* <param>, ...)` for every
// entry, with a comment giving each buffer's dtype and shape, and the
// `_packed` entry points. float16/bfloat16 elements are declared as uint16_t.
// A model's entry function (is_entry) instead gets a comment line per
// parameter, `/*   input 0 "input.1": float32[1, 3, 32, 32] */` (ONNX names from
// its attribute "tirc.io_names", ';'-separated in parameter order; inputs are
// the first "tirc.num_inputs" parameters), and its input buffers are `const T*`.
// An entry whose model had symbolic dimensions ("tirc.io_dims") shows them
// with their values, `float32[batch=2, seq=5, 32]`, after a line listing
// every dim_param's value; other headers do not change.
// With `cuda` (an object for --target cuda, codegen/llvm/cuda.h): buffers are
// CUdeviceptr, every function takes a CUstream last and returns a CUresult,
// <cuda.h> is included; its _packed form takes the stream as its last pointer.
std::string write_c_header(const std::string& name, const std::vector<HeaderEntry>& entries,
                           bool cuda = false);

}  // namespace tirc
