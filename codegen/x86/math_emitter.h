// Internal to the vector math emitter (math.cpp, math_exp_log.cpp,
// math_tanh_erf.cpp): the ISA-neutral helpers the kernels are written with.
#pragma once

#include <cstdint>
#include <span>

#include <xbyak/xbyak.h>

#include "codegen/x86/constant_pool.h"
#include "codegen/x86/target.h"

namespace tirc::vecmath {

inline constexpr uint32_t kSignBit = 0x80000000u;
inline constexpr uint32_t kAbsMask = 0x7fffffffu;

// vcmpps predicates (the _CMP_* values of immintrin.h).
inline constexpr uint8_t kCmpLtOQ = 0x11;
inline constexpr uint8_t kCmpLeOQ = 0x12;
inline constexpr uint8_t kCmpNltUQ = 0x15;

// Emits on registers of one width for one ISA. On avx2 every instruction is
// VEX-encodable (registers 0..15); a condition lives in a vector register as
// an all-ones/all-zeros lane mask. On avx512 a condition lives in opmask k7,
// so code that must use registers 16..31 never needs VEX-only instructions
// (vblendvps, vcmpps into a vector).
class Emitter {
 public:
  Emitter(Xbyak::CodeGenerator& code, ConstantPool& pool, Isa isa, int bits)
      : c_(code), pool_(pool), isa_(isa), bits_(bits) {}

  Xbyak::CodeGenerator& code() { return c_; }
  bool evex() const { return isa_ == Isa::avx512; }

  Xbyak::Xmm v(int idx) const {
    if (bits_ == 512) return Xbyak::Zmm(idx);
    if (bits_ == 256) return Xbyak::Ymm(idx);
    return Xbyak::Xmm(idx);
  }
  Xbyak::Address f(float value) { return pool_.splat_f32(value); }
  Xbyak::Address u(uint32_t bits) { return pool_.splat32(bits); }

  void load(int dst, float value) { c_.vmovaps(v(dst), f(value)); }

  // acc = polynomial(x) by Horner's scheme with fused multiply-adds;
  // coefs from the highest degree down to the constant term.
  void horner(int acc, int x, std::span<const float> coefs);

  // dst = (lhs < rhs) ? if_true : dst, lane by lane (ordered: NaN lhs keeps
  // dst). mask_scratch holds the condition on avx2; avx512 uses k7.
  void select_lt(int dst, int lhs, const Xbyak::Address& rhs, int if_true, int mask_scratch);

  // dst = exp(src), with the C library's special cases. dst may equal src;
  // s0 and s1 are clobbered. Shared by exp, tanh, erf and sigmoid.
  void exp(int dst, int src, int s0, int s1);
  // dst = log(src); src is read, not written, and must differ from dst.
  void log(int dst, int src, int s0, int s1);
  void tanh(int dst, int src, int s0, int s1);
  void erf(int dst, int src, int s0, int s1);
  void sigmoid(int dst, int src, int s0, int s1);
  // dst = pow(x, y); dst differs from x and y, which are read, not written.
  void pow(int dst, int x, int y, int s0, int s1, int s2);

 private:
  Xbyak::CodeGenerator& c_;
  ConstantPool& pool_;
  Isa isa_;
  int bits_;
};

}  // namespace tirc::vecmath
