// The x86 generator's float32 math (codegen/x86/math_exp_log.cpp,
// math_tanh_erf.cpp, math_pow.cpp) as LLVM IR. Each function below follows its
// x86 counterpart operation by operation, with the same constants and the same
// fused multiply-adds, so every rounding happens at the same place and the
// results are the same bits. Where an x86 instruction and the obvious LLVM
// operation disagree on some input, the IR spells out the x86 behaviour:
//
// - vminps/vmaxps return their second operand when either is NaN, while
//   llvm.minnum returns the number: min and max are fcmp + select here.
// - vcvtps2dq gives 0x80000000 for NaN and out-of-range lanes, while fptosi
//   gives poison there: exp rounds with a shifter constant instead, and pow
//   converts only lanes known to be in range.
// - NaN results: where the x86 code makes a new NaN (log of a negative, pow of
//   a negative base with a non-integral exponent) its two ISAs differ already
//   (all-ones bits on avx2, 0xffc00000 or 0x7fc00000 on avx512); this uses the
//   avx512 ones. A NaN input comes out as a NaN; its payload is not promised.
#include "codegen/llvm/llvm_math.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>

#include <array>
#include <bit>
#include <cstdint>
#include <limits>
#include <span>
#include <string>

#include "codegen/math_constants.h"
#include "ir/error.h"

namespace tirc::llvm_gen {

// The kernels' constants are the x86 generator's (codegen/math_constants.h).
using namespace math_constants;

namespace {

// 1.5 * 2^23: adding it to |t| < 2^22 leaves round-to-nearest-even(t) in the
// low mantissa bits (the sum's ulp is 1, and the constant is even, so ties go
// to the even integer exactly as vcvtps2dq rounds under the default MXCSR).
constexpr float kRoundShifter = 12582912.0f;

// pow: at or above 2^24 every float is an even integer, so the integer and
// parity tests only need to convert smaller ones (which fptosi does exactly).
constexpr float kTwo24 = 16777216.0f;

constexpr uint32_t kSignBit = 0x80000000u;
constexpr uint32_t kQuietNanIndefinite = 0xffc00000u;  // x86's "default NaN"
constexpr uint32_t kQuietNan = 0x7fc00000u;
constexpr float kInf = std::numeric_limits<float>::infinity();

// Builds the kernels for one float type (scalar or vector) with one builder.
// Helpers take and return float-typed values unless named for integers.
class MathBuilder {
 public:
  MathBuilder(llvm::IRBuilderBase& b, llvm::Type* float_ty)
      : b_(b), fty_(float_ty), ity_(float_ty->getWithNewType(b.getInt32Ty())) {}

  llvm::Value* exp(llvm::Value* x);
  llvm::Value* log(llvm::Value* x);
  llvm::Value* tanh(llvm::Value* x);
  llvm::Value* erf(llvm::Value* x);
  llvm::Value* sigmoid(llvm::Value* x);
  llvm::Value* pow(llvm::Value* x, llvm::Value* y);

 private:
  // Splat constants of the float and the i32 shape.
  llvm::Value* f(float v) { return llvm::ConstantFP::get(fty_, static_cast<double>(v)); }
  llvm::Value* u(uint32_t v) { return llvm::ConstantInt::get(ity_, v); }
  llvm::Value* f_bits(uint32_t v) { return b_.CreateBitCast(u(v), fty_); }

  llvm::Value* to_int(llvm::Value* v) { return b_.CreateBitCast(v, ity_); }
  llvm::Value* to_float(llvm::Value* v) { return b_.CreateBitCast(v, fty_); }

  llvm::Value* fma(llvm::Value* a, llvm::Value* m, llvm::Value* c) {
    return b_.CreateIntrinsic(llvm::Intrinsic::fma, {fty_}, {a, m, c});
  }
  llvm::Value* fabs(llvm::Value* v) { return b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, v); }

  // a = coefs[0]; a = a * x + coefs[i] fused, highest degree first, as the
  // x86 horner() does with vfmadd213ps.
  llvm::Value* horner(llvm::Value* x, std::span<const float> coefs) {
    llvm::Value* acc = f(coefs[0]);
    for (size_t i = 1; i < coefs.size(); ++i) acc = fma(acc, x, f(coefs[i]));
    return acc;
  }

  // vminps(c, v) / vmaxps(c, v) with the constant first: (c < v) ? c : v, so
  // a NaN v comes through (ordered compare: false for NaN).
  llvm::Value* min_const_first(float c, llvm::Value* v) {
    return b_.CreateSelect(b_.CreateFCmpOLT(f(c), v), f(c), v);
  }
  llvm::Value* max_const_first(float c, llvm::Value* v) {
    return b_.CreateSelect(b_.CreateFCmpOGT(f(c), v), f(c), v);
  }

  // The sign bit of x copied onto v by OR (the x86 vandps + vorps): v's own
  // sign bit stays set if it was.
  llvm::Value* or_sign_of(llvm::Value* v, llvm::Value* x) {
    return to_float(b_.CreateOr(to_int(v), b_.CreateAnd(to_int(x), u(kSignBit))));
  }
  // -|x| by setting the sign bit (vorps with the sign mask).
  llvm::Value* neg_abs(llvm::Value* x) { return to_float(b_.CreateOr(to_int(x), u(kSignBit))); }

  llvm::IRBuilderBase& b_;
  llvm::Type* fty_;
  llvm::Type* ity_;
};

// exp(x) = 2^n * e^r, n = round(x / ln2), r = x - n*ln2 (Cody-Waite).
llvm::Value* MathBuilder::exp(llvm::Value* x) {
  llvm::Value* d = min_const_first(kExpHi, x);
  d = max_const_first(kExpLo, d);
  llvm::Value* t = b_.CreateFMul(d, f(kLog2e));
  // Round t to an integer (n as float, exact) and its int32 value. NaN lanes
  // give some integer instead of poison; their result is NaN anyway, as e^r
  // is NaN there.
  llvm::Value* shifted = b_.CreateFAdd(t, f(kRoundShifter));
  llvm::Value* n = b_.CreateFSub(shifted, f(kRoundShifter));
  llvm::Value* ni = b_.CreateSub(to_int(shifted), u(std::bit_cast<uint32_t>(kRoundShifter)));
  // r = d - n*ln2hi - n*ln2lo, each step fused (vfnmadd231ps).
  llvm::Value* r = fma(n, f(-kLn2Hi), d);
  r = fma(n, f(-kLn2Lo), r);
  llvm::Value* p = horner(r, kExpPoly);
  p = fma(p, r, f(1.0f));
  p = fma(p, r, f(1.0f));  // e^r
  // 2^n in two halves 2^(n>>1) and 2^(n - (n>>1)), both normal for n in
  // [-150, 128]: the first product is exact, the second rounds once, so the
  // result equals vscalefps's single rounding, overflowing to inf and going
  // gradually to denormals and zero (this is the x86 avx2 sequence).
  llvm::Value* half = b_.CreateAShr(ni, u(1));
  llvm::Value* rest = b_.CreateSub(ni, half);
  llvm::Value* scale1 = to_float(b_.CreateShl(b_.CreateAdd(half, u(127)), u(23)));
  llvm::Value* scale2 = to_float(b_.CreateShl(b_.CreateAdd(rest, u(127)), u(23)));
  return b_.CreateFMul(b_.CreateFMul(p, scale1), scale2);
}

// log(x) = e*ln2 + log1p(m - 1), x = m * 2^e, m in [sqrt(1/2), sqrt(2)).
llvm::Value* MathBuilder::log(llvm::Value* x) {
  // Denormals (and zero and negatives, fixed up at the end) are scaled by
  // 2^23 first so the exponent field is exact; corr undoes the scaling.
  llvm::Value* tiny = b_.CreateFCmpOLT(x, f(kFltMin));
  llvm::Value* xs = b_.CreateSelect(tiny, b_.CreateFMul(x, f(kTwo23)), x);
  llvm::Value* corr = b_.CreateSelect(tiny, f(-23.0f), f(0.0f));
  // Subtracting the bits of sqrt(1/2) makes the exponent field
  // floor(log2(x / sqrt(1/2))); the mantissa with sqrt(1/2)'s bits added back
  // is m.
  llvm::Value* k = b_.CreateSub(to_int(xs), u(kSqrtHalfBits));
  llvm::Value* m = to_float(b_.CreateAdd(b_.CreateAnd(k, u(0x007fffffu)), u(kSqrtHalfBits)));
  llvm::Value* e = b_.CreateSIToFP(b_.CreateAShr(k, u(23)), fty_);
  e = b_.CreateFAdd(e, corr);
  llvm::Value* fr = b_.CreateFSub(m, f(1.0f));  // exact (Sterbenz)
  llvm::Value* q = horner(fr, kLogPoly);
  q = fma(q, fr, f(-0.5f));
  q = b_.CreateFMul(q, fr);
  q = fma(q, fr, fr);  // log1p(f)
  q = fma(e, f(kLn2Lo), q);
  q = fma(e, f(kLn2Hi), q);
  // Special inputs, in the x86 order: +inf and NaN give x itself, +-0 gives
  // -inf, anything negative (-inf included) a NaN.
  q = b_.CreateSelect(b_.CreateFCmpUGE(x, f(kInf)), x, q);
  q = b_.CreateSelect(b_.CreateFCmpOLE(x, f(0.0f)), f(-kInf), q);
  return b_.CreateSelect(b_.CreateFCmpOLT(x, f(0.0f)), f_bits(kQuietNanIndefinite), q);
}

// Both halves on every lane, picked by |x|; the sign of x goes on at the end
// (which also turns tanh(-0) into -0, as the polynomial gives +0 there).
llvm::Value* MathBuilder::tanh(llvm::Value* x) {
  llvm::Value* na = neg_abs(x);
  llvm::Value* t = exp(b_.CreateFAdd(na, na));  // exp(-2|x|) <= 1
  llvm::Value* big = b_.CreateFDiv(b_.CreateFSub(f(1.0f), t), b_.CreateFAdd(t, f(1.0f)));
  llvm::Value* sq = b_.CreateFMul(x, x);
  llvm::Value* p = b_.CreateFMul(horner(sq, kTanhPoly), sq);
  llvm::Value* small = fma(p, x, x);
  llvm::Value* r = b_.CreateSelect(b_.CreateFCmpOLT(fabs(x), f(kTanhSmall)), small, big);
  return or_sign_of(r, x);
}

llvm::Value* MathBuilder::erf(llvm::Value* x) {
  llvm::Value* ax = fabs(x);
  llvm::Value* a = min_const_first(kErfClamp, ax);  // NaN kept
  // Saturating half: 1 - exp(-a^2) * H(a) (vfnmadd213ps), with x's sign.
  llvm::Value* ex = exp(b_.CreateFNeg(b_.CreateFMul(a, a)));
  llvm::Value* h = horner(b_.CreateFSub(a, f(kErfCenter)), kErfcScaledPoly);
  llvm::Value* big = or_sign_of(fma(b_.CreateFNeg(ex), h, f(1.0f)), x);
  // Small half: x * P(x^2).
  llvm::Value* sq = b_.CreateFMul(x, x);
  llvm::Value* small = b_.CreateFMul(horner(sq, kErfPoly), x);
  return b_.CreateSelect(b_.CreateFCmpOLT(ax, f(kErfSmall)), small, big);
}

// 1 / (1 + t) for x >= 0 and t / (1 + t) for x < 0 (by the sign bit, so -0
// and negative NaNs take the second), t = exp(-|x|) <= 1: nothing overflows.
llvm::Value* MathBuilder::sigmoid(llvm::Value* x) {
  llvm::Value* t = exp(neg_abs(x));
  llvm::Value* den = b_.CreateFAdd(t, f(1.0f));
  llvm::Value* negative = b_.CreateICmpSLT(to_int(x), u(0));
  llvm::Value* num = b_.CreateSelect(negative, t, f(1.0f));
  return b_.CreateFDiv(num, den);
}

// |x|^y = exp(y * log|x|), then C's special cases in the order of the x86
// avx512 sequence: x's sign for an odd integral y, NaN for a finite negative
// x with a non-integral y, 1 for y = +-0, x = 1, and |x| = 1 with |y| = inf.
// Everything else (zeros, infinities, NaN, overflow, underflow) comes out of
// exp and log as C defines it.
llvm::Value* MathBuilder::pow(llvm::Value* x, llvm::Value* y) {
  llvm::Value* ax = fabs(x);
  llvm::Value* d = exp(b_.CreateFMul(log(ax), y));
  // x86 tests trunc(y) == y and takes the parity from vcvttps2dq(trunc(y)),
  // which is 0x80000000 (even) from 2^31 up and for infinities. Here fptosi
  // does both where it is exact and defined, |y| < 2^24 (NaN excluded); from
  // 2^24 up every float, and inf, is an even integer. No llvm.trunc, which a
  // target without a rounding instruction (x86-64 before SSE4.1) would turn
  // into a call to truncf.
  llvm::Value* in_range = b_.CreateFCmpOLT(fabs(y), f(kTwo24));
  llvm::Value* yi = b_.CreateFPToSI(b_.CreateSelect(in_range, y, f(0.0f)), ity_);
  llvm::Value* integral = b_.CreateSelect(in_range, b_.CreateFCmpOEQ(b_.CreateSIToFP(yi, fty_), y),
                                          b_.CreateFCmpORD(y, y));
  llvm::Value* odd_sign = b_.CreateAnd(b_.CreateShl(yi, u(31)), to_int(x));
  d = b_.CreateSelect(integral, to_float(b_.CreateOr(to_int(d), odd_sign)), d);
  llvm::Value* finite_negative =
      b_.CreateAnd(b_.CreateFCmpOLT(x, f(0.0f)), b_.CreateFCmpONE(x, f(-kInf)));
  d = b_.CreateSelect(b_.CreateAnd(finite_negative, b_.CreateNot(integral)), f_bits(kQuietNan), d);
  llvm::Value* one =
      b_.CreateAnd(b_.CreateFCmpOEQ(ax, f(1.0f)), b_.CreateFCmpOEQ(fabs(y), f(kInf)));
  one = b_.CreateOr(one, b_.CreateFCmpOEQ(x, f(1.0f)));
  one = b_.CreateOr(one, b_.CreateFCmpOEQ(y, f(0.0f)));
  return b_.CreateSelect(one, f(1.0f), d);
}

bool is_f32_or_vector(llvm::Type* ty) {
  if (auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(ty)) ty = vt->getElementType();
  return ty->isFloatTy();
}

}  // namespace

bool has_f32_math(IntrinsicId id) {
  switch (id) {
    case IntrinsicId::Exp:
    case IntrinsicId::Log:
    case IntrinsicId::Tanh:
    case IntrinsicId::Erf:
    case IntrinsicId::Sigmoid:
    case IntrinsicId::Pow:
      return true;
    default:
      return false;
  }
}

llvm::Value* emit_f32_math(llvm::IRBuilderBase& b, IntrinsicId id, llvm::Value* x) {
  if (!is_f32_or_vector(x->getType()))
    throw Error("emit_f32_math: the argument is not float32 or a vector of float32");
  // The roundings must be exactly the ones written: no reassociation,
  // contraction or NaN assumptions, and no !fpmath accuracy relaxation of the
  // divisions, from the caller's defaults (the guard restores them).
  llvm::IRBuilderBase::FastMathFlagGuard guard(b);
  b.clearFastMathFlags();
  b.setDefaultFPMathTag(nullptr);
  MathBuilder m(b, x->getType());
  switch (id) {
    case IntrinsicId::Exp:
      return m.exp(x);
    case IntrinsicId::Log:
      return m.log(x);
    case IntrinsicId::Tanh:
      return m.tanh(x);
    case IntrinsicId::Erf:
      return m.erf(x);
    case IntrinsicId::Sigmoid:
      return m.sigmoid(x);
    default:
      break;
  }
  std::string name = std::to_string(static_cast<int>(id));
  for (const Intrinsic& in : intrinsics())
    if (in.id == id) name = std::string(in.name);
  throw Error("emit_f32_math: no float32 kernel for " + name +
              (id == IntrinsicId::Pow ? " (use emit_f32_pow)" : ""));
}

llvm::Value* emit_f32_pow(llvm::IRBuilderBase& b, llvm::Value* x, llvm::Value* y) {
  if (!is_f32_or_vector(x->getType()) || x->getType() != y->getType())
    throw Error("emit_f32_pow: the arguments are not both float32 or the same vector of float32");
  llvm::IRBuilderBase::FastMathFlagGuard guard(b);  // as in emit_f32_math
  b.clearFastMathFlags();
  b.setDefaultFPMathTag(nullptr);
  return MathBuilder(b, x->getType()).pow(x, y);
}

}  // namespace tirc::llvm_gen
