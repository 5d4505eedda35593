// float16 / bfloat16 conversions on bit patterns, in 32-bit integer lanes.
// Rounding to nearest even is done by the usual carry trick: adding
// (half an ulp - 1) plus the lowest kept bit and truncating carries exactly
// when the dropped bits are above half, or at half with an odd kept part.
#include "codegen/llvm/llvm_narrow_float.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>

#include <cstdint>
#include <string>

#include "ir/error.h"

namespace tirc::llvm_gen {

namespace {

llvm::Type* element_type(llvm::Type* ty) {
  if (auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(ty)) return vt->getElementType();
  return ty;
}

// Integer helpers on one shape (scalar or vector), i32 lanes.
class Bits {
 public:
  Bits(llvm::IRBuilderBase& b, llvm::Type* shape)
      : b_(b),
        i32_(shape->getWithNewType(b.getInt32Ty())),
        i16_(shape->getWithNewType(b.getInt16Ty())),
        f32_(shape->getWithNewType(b.getFloatTy())) {}

  llvm::Value* c(uint32_t v) { return llvm::ConstantInt::get(i32_, v); }
  llvm::Value* from_float(llvm::Value* x) { return b_.CreateBitCast(x, i32_); }
  llvm::Value* to_float(llvm::Value* v) { return b_.CreateBitCast(v, f32_); }
  llvm::Value* from_i16(llvm::Value* v) { return b_.CreateZExt(v, i32_); }
  llvm::Value* to_i16(llvm::Value* v) { return b_.CreateTrunc(v, i16_); }

  llvm::Value* and_(llvm::Value* v, uint32_t m) { return b_.CreateAnd(v, c(m)); }
  llvm::Value* shr(llvm::Value* v, uint32_t s) { return b_.CreateLShr(v, c(s)); }
  llvm::Value* shl(llvm::Value* v, uint32_t s) { return b_.CreateShl(v, c(s)); }
  llvm::Value* add(llvm::Value* v, uint32_t k) { return b_.CreateAdd(v, c(k)); }
  // Unsigned compares against a constant.
  llvm::Value* ge(llvm::Value* v, uint32_t k) { return b_.CreateICmpUGE(v, c(k)); }
  llvm::Value* gt(llvm::Value* v, uint32_t k) { return b_.CreateICmpUGT(v, c(k)); }
  llvm::Value* eq(llvm::Value* v, uint32_t k) { return b_.CreateICmpEQ(v, c(k)); }
  llvm::Value* select(llvm::Value* cond, uint32_t t, llvm::Value* f) {
    return b_.CreateSelect(cond, c(t), f);
  }

  // v >> s rounded to nearest even, s a value in [1, 31] per lane; v < 2^31
  // so the sum cannot wrap.
  llvm::Value* shr_round_even(llvm::Value* v, llvm::Value* s) {
    llvm::Value* lsb = and_(b_.CreateLShr(v, s), 1);
    llvm::Value* half_minus_one = b_.CreateSub(b_.CreateShl(c(1), b_.CreateSub(s, c(1))), c(1));
    return b_.CreateLShr(b_.CreateAdd(b_.CreateAdd(v, half_minus_one), lsb), s);
  }
  llvm::Value* shr_round_even(llvm::Value* v, uint32_t s) { return shr_round_even(v, c(s)); }

 private:
  llvm::IRBuilderBase& b_;
  llvm::Type* i32_;
  llvm::Type* i16_;
  llvm::Type* f32_;
};

void check_type(llvm::Value* v, bool want_float, const char* fn) {
  llvm::Type* e = element_type(v->getType());
  if (want_float ? !e->isFloatTy() : !e->isIntegerTy(16))
    throw Error(std::string(fn) + ": the argument is not " + (want_float ? "float32" : "i16") +
                " or a vector of it");
}

}  // namespace

// float32 bits: sign | 8-bit exponent (bias 127) | 23-bit mantissa. float16:
// sign | 5-bit exponent (bias 15) | 10-bit mantissa.
llvm::Value* emit_f32_to_f16_bits(llvm::IRBuilderBase& b, llvm::Value* x) {
  check_type(x, true, "emit_f32_to_f16_bits");
  Bits k(b, x->getType());
  llvm::Value* u = k.from_float(x);
  llvm::Value* sign = k.and_(k.shr(u, 16), 0x8000);
  llvm::Value* a = k.and_(u, 0x7fffffff);
  // Normal results (|x| >= 2^-14): rebias the exponent by 127 - 15 and round
  // the mantissa from 23 to 10 bits; a carry out of the mantissa correctly
  // bumps the exponent. Lanes below 2^-14 wrap here, harmlessly: not selected.
  llvm::Value* normal = k.shr_round_even(b.CreateSub(a, k.c(0x38000000u)), 13);
  // Denormal results (E <= 112, E the biased float exponent): the value is
  // mant24 * 2^(E - 150) with the implicit bit made explicit, which in float16
  // denormal units (2^-24) is mant24 >> (126 - E), rounded. From a shift of 25
  // on the value is below half a unit and rounds to 0, so the shift is clamped
  // to [14, 25]; that also keeps it defined on the lanes not selected. A float
  // denormal or zero (E = 0) gets a wrong implicit bit but a shift of 25: 0.
  llvm::Value* e = b.CreateBinaryIntrinsic(llvm::Intrinsic::umin, k.shr(a, 23), k.c(112));
  llvm::Value* shift =
      b.CreateBinaryIntrinsic(llvm::Intrinsic::umin, b.CreateSub(k.c(126), e), k.c(25));
  llvm::Value* mant24 = b.CreateOr(k.and_(a, 0x007fffff), k.c(0x00800000));
  llvm::Value* denormal = k.shr_round_even(mant24, shift);
  llvm::Value* r = b.CreateSelect(k.ge(a, 0x38800000u), normal, denormal);  // 2^-14
  // 65520 = 0x477ff000 is halfway between the largest float16, 65504, and
  // 2^16; it and everything above (inf included) round to inf.
  r = k.select(k.ge(a, 0x477ff000u), 0x7c00, r);
  r = k.select(k.gt(a, 0x7f800000u), 0x7e00, r);  // NaN: quiet, no payload
  return k.to_i16(b.CreateOr(r, sign));
}

// bfloat16 is the top half of a float32: round the low 16 bits away. Denormals
// need nothing special (the same shift), overflow carries into the all-ones
// exponent with a zero mantissa (inf), and inf stays inf.
llvm::Value* emit_f32_to_bf16_bits(llvm::IRBuilderBase& b, llvm::Value* x) {
  check_type(x, true, "emit_f32_to_bf16_bits");
  Bits k(b, x->getType());
  llvm::Value* u = k.from_float(x);
  llvm::Value* top = k.shr(u, 16);
  // The rounded sum may wrap on NaN lanes only (not selected).
  llvm::Value* rounded = k.shr(b.CreateAdd(k.add(u, 0x7fff), k.and_(top, 1)), 16);
  llvm::Value* nan = b.CreateOr(k.and_(top, 0x8000), k.c(0x7fc0));
  llvm::Value* is_nan = k.gt(k.and_(u, 0x7fffffff), 0x7f800000u);
  return k.to_i16(b.CreateSelect(is_nan, nan, rounded));
}

llvm::Value* emit_f16_bits_to_f32(llvm::IRBuilderBase& b, llvm::Value* bits) {
  check_type(bits, false, "emit_f16_bits_to_f32");
  Bits k(b, bits->getType());
  llvm::Value* h = k.from_i16(bits);
  llvm::Value* sign = k.shl(k.and_(h, 0x8000), 16);
  llvm::Value* exp = k.and_(k.shr(h, 10), 0x1f);
  llvm::Value* mant = k.and_(h, 0x3ff);
  // Normal: move exponent and mantissa up 13 bits and rebias by 127 - 15.
  llvm::Value* normal = k.add(k.shl(k.and_(h, 0x7fff), 13), 112u << 23);
  // Denormal: mant * 2^-24. With its leading one at bit p = 31 - clz, it is
  // 1.f * 2^(p - 24): biased exponent 134 - clz, and the bits below the
  // leading one shifted up to the top of the 23-bit mantissa. clz of 0 is
  // defined (32); that lane is the zero case and takes only the sign.
  llvm::Value* clz = b.CreateBinaryIntrinsic(llvm::Intrinsic::ctlz, mant, b.getFalse());
  llvm::Value* norm_mant = k.and_(b.CreateShl(mant, b.CreateSub(clz, k.c(21))), 0x3ff);
  llvm::Value* denormal =
      b.CreateOr(b.CreateShl(b.CreateSub(k.c(134), clz), k.c(23)), k.shl(norm_mant, 13));
  denormal = k.select(k.eq(mant, 0), 0, denormal);
  // All-ones exponent: inf, or a NaN reduced to the quiet NaN without payload.
  llvm::Value* special = k.select(k.eq(mant, 0), 0x7f800000u, k.c(0x7fc00000u));
  llvm::Value* r = b.CreateSelect(k.eq(exp, 0), denormal, normal);
  r = b.CreateSelect(k.eq(exp, 0x1f), special, r);
  return k.to_float(b.CreateOr(r, sign));
}

// bfloat16 is the top half of a float32; only NaN payloads are dropped.
llvm::Value* emit_bf16_bits_to_f32(llvm::IRBuilderBase& b, llvm::Value* bits) {
  check_type(bits, false, "emit_bf16_bits_to_f32");
  Bits k(b, bits->getType());
  llvm::Value* u = k.shl(k.from_i16(bits), 16);
  llvm::Value* is_nan = k.gt(k.and_(u, 0x7fffffff), 0x7f800000u);
  llvm::Value* nan = b.CreateOr(k.and_(u, 0x80000000u), k.c(0x7fc00000u));
  return k.to_float(b.CreateSelect(is_nan, nan, u));
}

}  // namespace tirc::llvm_gen
