// exp and log: range reduction to a short interval, a polynomial fitted
// there, and reconstruction by the exponent.
#include <array>
#include <limits>

#include "codegen/math_constants.h"
#include "codegen/x86/math_emitter.h"

namespace tirc::vecmath {

using namespace math_constants;

using Xbyak::util::k7;

namespace {

// vfixupimmps response nibbles for log, per input class (QNaN, SNaN, +-0,
// +1, -inf, +inf, negative, positive): the NaN itself, quieted NaN, -inf,
// +0, default NaN, +inf, default NaN, keep the computed value.
constexpr uint32_t kLogFixup = 0x03538421u;

}  // namespace

void Emitter::horner(int acc, int x, std::span<const float> coefs) {
  c_.vmovaps(v(acc), f(coefs[0]));
  for (size_t i = 1; i < coefs.size(); ++i) c_.vfmadd213ps(v(acc), v(x), f(coefs[i]));
}

void Emitter::select_lt(int dst, int lhs, const Xbyak::Address& rhs, int if_true,
                        int mask_scratch) {
  if (evex()) {
    c_.vcmpps(k7, v(lhs), rhs, kCmpLtOQ);
    c_.vmovaps(v(dst) | k7, v(if_true));
  } else {
    c_.vcmpps(v(mask_scratch), v(lhs), rhs, kCmpLtOQ);
    c_.vblendvps(v(dst), v(dst), v(if_true), v(mask_scratch));
  }
}

// exp(x) = 2^n * e^r with n = round(x / ln2), r = x - n*ln2 (Cody-Waite).
void Emitter::exp(int dst, int src, int s0, int s1) {
  auto d = v(dst), a = v(s0), b = v(s1);
  // min/max return their second operand when either is NaN, so the constant
  // goes first and a NaN x survives the clamp.
  c_.vmovaps(a, f(kExpHi));
  c_.vminps(d, a, v(src));
  c_.vmovaps(a, f(kExpLo));
  c_.vmaxps(d, a, d);
  c_.vmulps(a, d, f(kLog2e));
  c_.vcvtps2dq(b, a);  // round to nearest (default MXCSR)
  c_.vcvtdq2ps(a, b);
  c_.vfnmadd231ps(d, a, f(kLn2Hi));
  c_.vfnmadd231ps(d, a, f(kLn2Lo));  // d = r
  if (evex()) {
    horner(s1, dst, kExpPoly);
    c_.vfmadd213ps(b, d, f(1.0f));
    c_.vfmadd213ps(b, d, f(1.0f));
    // vscalefps applies 2^n with a single rounding, overflowing to inf and
    // underflowing gradually through the denormals like the C library.
    c_.vscalefps(d, b, a);
    return;
  }
  horner(s0, dst, kExpPoly);
  c_.vfmadd213ps(a, d, f(1.0f));
  c_.vfmadd213ps(a, d, f(1.0f));  // a = e^r, b = n as int32
  // 2^n may not be a normal float (n in [-150, 128]): multiply by 2^(n/2)
  // and 2^(n - n/2). The first product is exact, the second rounds once,
  // so overflow gives inf and tiny results round correctly to denormals.
  c_.vpsrad(d, b, 1);
  c_.vpsubd(b, b, d);
  c_.vpaddd(d, d, u(127));
  c_.vpslld(d, d, 23);
  c_.vmulps(a, a, d);
  c_.vpaddd(b, b, u(127));
  c_.vpslld(b, b, 23);
  c_.vmulps(d, a, b);
}

// log(x) = e*ln2 + log1p(m - 1) with x = m * 2^e, m in [sqrt(1/2), sqrt(2)).
void Emitter::log(int dst, int src, int s0, int s1) {
  auto d = v(dst), x = v(src), a = v(s0), b = v(s1);
  // Denormal inputs are scaled by 2^23 first so the exponent field is exact;
  // a holds the exponent correction (-23 or 0).
  if (evex()) {
    c_.vcmpps(k7, x, f(kFltMin), kCmpLtOQ);
    c_.vmovaps(d, x);
    c_.vmulps(d | k7, x, f(kTwo23));
    c_.vmovaps(a | k7 | Xbyak::util::T_z, f(-23.0f));
  } else {
    c_.vcmpps(a, x, f(kFltMin), kCmpLtOQ);
    c_.vmulps(b, x, f(kTwo23));
    c_.vblendvps(d, x, b, a);
    c_.vandps(a, a, f(-23.0f));
  }
  c_.vpsubd(b, d, u(kSqrtHalfBits));  // b = bits - bits(sqrt(1/2))
  c_.vandps(d, b, u(0x007fffffu));
  c_.vpaddd(d, d, u(kSqrtHalfBits));  // d = m
  c_.vpsrad(b, b, 23);
  c_.vcvtdq2ps(b, b);
  c_.vaddps(b, b, a);              // b = e
  c_.vsubps(d, d, f(1.0f));        // d = m - 1, exact (Sterbenz)
  horner(s0, dst, kLogPoly);       // a = Q(f)
  c_.vfmadd213ps(a, d, f(-0.5f));  // a = -1/2 + f*Q
  c_.vmulps(a, a, d);
  c_.vfmadd213ps(a, d, d);  // a = log1p(f)
  c_.vfmadd231ps(a, b, f(kLn2Lo));
  c_.vfmadd231ps(a, b, f(kLn2Hi));
  c_.vmovaps(d, a);
  // Special inputs: zero, negative, inf, NaN.
  if (evex()) {
    c_.vfixupimmps(d, x, u(kLogFixup), 0);
    return;
  }
  c_.vcmpps(a, x, f(std::numeric_limits<float>::infinity()), kCmpNltUQ);
  c_.vblendvps(d, d, x, a);  // +inf -> inf, NaN -> NaN
  c_.vcmpps(a, x, f(0.0f), kCmpLeOQ);
  c_.vblendvps(d, d, f(-std::numeric_limits<float>::infinity()), a);  // +-0 -> -inf
  c_.vcmpps(a, x, f(0.0f), kCmpLtOQ);
  c_.vorps(d, d, a);  // negative -> all-ones bits, a NaN
}

}  // namespace tirc::vecmath
