// Inputs and outputs of `tirc eval` and `tirc equiv`.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ir/eval/interpreter.h"

namespace tirc::driver {

// Buffer parameters a function stores to, in parameter order.
std::vector<size_t> output_params(const PrimFunc& f);

// Arguments for f: random buffers (seeded), replaced by DIR/<buffer>.npy where
// such a file exists; scalar parameters from `scalars` (name -> value).
struct Inputs {
  std::vector<NDArray> arrays;  // one per parameter (empty for scalars)
  std::vector<Argument> args;
};
Inputs make_inputs(const PrimFunc& f, uint64_t seed, bool small_ints, const std::string& dir,
                   const std::map<std::string, double>& scalars);

// "float32 (128, 128)"
std::string describe(const NDArray& a);
// 64-bit FNV-1a of the bytes, for a short fingerprint of a result.
uint64_t checksum(const NDArray& a);
// numpy-like nested lists; summarized with "..." past `limit` elements.
std::string format_array(const NDArray& a, int64_t limit = 1000);

}  // namespace tirc::driver
