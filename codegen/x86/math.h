// Vector implementations of float32 math functions for the x86 emitter.
#pragma once

#include <optional>
#include <span>
#include <string_view>

#include <xbyak/xbyak.h>

#include "codegen/x86/constant_pool.h"
#include "codegen/x86/target.h"
#include "ir/intrinsic.h"

namespace tirc {

enum class VecMathFn : unsigned char { exp, log, tanh, erf, sigmoid, sqrt };

// The kernel of an intrinsic (ir/intrinsic.h): exp, log, tanh, erf, sigmoid
// and sqrt; nullopt for any other.
std::optional<VecMathFn> vec_math_fn_of(IntrinsicId id);
// The same by the intrinsic's name ("exp", "log", ...); false for anything else.
bool vec_math_fn_from_name(std::string_view name, VecMathFn* fn);

// Documented accuracy over the whole float32 range of inputs (tests check it
// against double-precision references on dense sweeps and special values):
// |got - exact| <= max_abs + max_rel * |exact|. NaN in gives NaN out; the
// behaviour at +-inf, 0 and huge/tiny inputs is that of the C library.
//
// Method and bounds (the same bits on avx2 and avx512, every width; measured
// = largest relative error seen over ~4.3M inputs per function, see
// test/unit/vecmath_test.cpp; 1 ulp relative is 6e-8..1.2e-7):
//
//   fn       method                                    max_rel   measured  max_abs
//   exp      Cody-Waite n*ln2 reduction, degree-6      1.0e-7    7.7e-8    2^-149
//            polynomial, 2^n by vscalefps / two halves
//   log      x = m*2^e, m in [sqrt(1/2), sqrt(2)),      1.0e-7    8.0e-8    0
//            degree-11 polynomial for log1p(m-1)
//   tanh     |x| < 0.55: odd polynomial (degree 13);   2.0e-7    1.6e-7    0
//            else (1-t)/(1+t), t = exp(-2|x|)
//   erf      |x| < 1: x*P(x^2) (degree 15); else       2.0e-7    1.7e-7    2^-149
//            1 - exp(-x^2)*H(|x|), H fitted on [1, 4]
//   sigmoid  1/(1+t) or t/(1+t), t = exp(-|x|)         2.0e-7    1.7e-7    2^-149
//   sqrt     vsqrtps, correctly rounded                6.0e-8    6.0e-8    0
//
// max_abs = 2^-149 (one denormal ulp) covers results in the denormal range,
// where relative error is not meaningful. Special values: exp(+inf) = inf,
// exp(-inf) = 0, exp(x > 88.72) = inf, exp(x < -103.98) = 0 (denormals in
// between); log(+-0) = -inf, log(x < 0) = NaN, log(+inf) = inf; tanh and erf
// saturate to exactly +-1 and keep -0; sigmoid(+-inf) = 1 / 0 and never
// overflows internally. Polynomials are Chebyshev-node fits (near-minimax)
// derived for this file; the coefficients are in math_exp_log.cpp and
// math_tanh_erf.cpp. Assumes the default MXCSR (round to nearest, no
// FTZ/DAZ), as the C ABI guarantees on entry.
struct MathAccuracy {
  double max_rel;
  double max_abs;
};
MathAccuracy vec_math_accuracy(VecMathFn fn);

// How many scratch vector registers emit_vec_math needs for fn: 0 for sqrt,
// 2 for exp, 3 for the others (the same on both ISAs).
int vec_math_scratch_count(VecMathFn fn, Isa isa);

// dst = fn(src) on every float32 lane of registers of `bits` width (128, 256
// or 512; 512 only for avx512). dst may equal src. Clobbers only the given
// scratch vector registers (indices; at least vec_math_scratch_count) and, on
// avx512, opmask registers k6 and k7 (only k7 is used today). Register
// indices >= 16 need avx512. Only the first vec_math_scratch_count entries of
// scratch are used. Throws tirc::Error for a width or register index the ISA
// lacks, too few scratch registers, or a scratch register that is also dst,
// src or listed twice. Constants come from `pool` (rip-relative splats); the
// caller emits the pool after the code.
void emit_vec_math(Xbyak::CodeGenerator& code, ConstantPool& pool, Isa isa, int bits, VecMathFn fn,
                   int dst, int src, std::span<const int> scratch);

// pow(x, y) on float32 lanes: |x|^y = exp(y * log|x|) with the kernels above,
// then the rules of C's powf: the sign of x when y is an odd integer, NaN for
// a finite negative x and a non-integral y, 1 for y = +-0 (even for a NaN x),
// x = 1 (even for a NaN y) and x = -1 with y = +-inf; x = +-0, +-inf, y = +-inf,
// NaN, overflow to inf and underflow to 0 follow from exp and log exactly as C
// defines them (e.g. pow(-0, -3) = -inf, pow(0.5, inf) = 0, pow(-inf, 0.5) = inf).
// Accuracy: the error of log|x| is multiplied by |y|, so the bound grows with
// z = |y * ln|x||: |got - exact| <= max_abs + max_rel * |exact| with
// max_rel = 2e-7 + 1.2e-7 * z (z <= 103 for any finite nonzero result, so
// at worst ~1.3e-5); vec_pow_accuracy(z) gives it. Same bits on both ISAs.
MathAccuracy vec_pow_accuracy(double y_log_x);

// dst = pow(x, y) on every float32 lane of `bits`-wide registers. dst must
// differ from x and y (x and y may be the same register). Clobbers the first
// 3 scratch registers and, on avx512, k6 and k7. Throws tirc::Error like
// emit_vec_math for bad widths or registers.
void emit_vec_pow(Xbyak::CodeGenerator& code, ConstantPool& pool, Isa isa, int bits, int dst, int x,
                  int y, std::span<const int> scratch);

}  // namespace tirc
