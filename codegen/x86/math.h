// Vector implementations of float32 math functions for the x86 emitter.
#pragma once

#include <span>
#include <string_view>

#include <xbyak/xbyak.h>

#include "codegen/x86/constant_pool.h"
#include "codegen/x86/target.h"

namespace tirc {

enum class VecMathFn : unsigned char { exp, log, tanh, erf, sigmoid, sqrt };

// The call names in TIR ("exp", "log", ...); false for anything else.
bool vec_math_fn_from_name(std::string_view name, VecMathFn* fn);

// Documented accuracy over the whole float32 range of inputs (tests check it
// against double-precision references on dense sweeps and special values):
// |got - exact| <= max_abs + max_rel * |exact|. NaN in gives NaN out; the
// behaviour at +-inf, 0 and huge/tiny inputs is that of the C library.
struct MathAccuracy {
  double max_rel;
  double max_abs;
};
MathAccuracy vec_math_accuracy(VecMathFn fn);

// How many scratch vector registers emit_vec_math needs for fn.
int vec_math_scratch_count(VecMathFn fn, Isa isa);

// dst = fn(src) on every float32 lane of registers of `bits` width (128, 256
// or 512; 512 only for avx512). dst may equal src. Clobbers only the given
// scratch vector registers (indices; at least vec_math_scratch_count) and, on
// avx512, opmask registers k6 and k7. Register indices >= 16 need avx512.
void emit_vec_math(Xbyak::CodeGenerator& code, ConstantPool& pool, Isa isa, int bits, VecMathFn fn,
                   int dst, int src, std::span<const int> scratch);

}  // namespace tirc
