// tanh, erf and sigmoid: an odd polynomial where the function is near its
// Taylor series, and exp-based formulas where it saturates. Both halves are
// computed on every lane and the result picked by |x|.
#include <array>

#include "codegen/x86/math_emitter.h"

namespace tirc::vecmath {

using Xbyak::util::k7;

namespace {

// Below kTanhSmall, tanh(x) ~= x + x^3 * T(x^2) with T a degree-5 fit of
// (tanh(x) - x) / x^3 in u = x^2 at Chebyshev nodes on [0, 0.55^2]. Above it,
// tanh|x| = (1 - t) / (1 + t) with t = exp(-2|x|) <= 1/3, which cancels
// nothing; that form saturates to 1 on its own as t underflows.
constexpr float kTanhSmall = 0.55f;
constexpr std::array<float, 6> kTanhPoly = {2.526390599e-03f, -8.526332676e-03f,
                                            2.181844972e-02f, -5.396470055e-02f,
                                            1.333332360e-01f, -3.333333433e-01f};

// Below kErfSmall, erf(x) ~= x * P(x^2) with P a degree-7 fit of erf(x)/x in
// u = x^2 on [0, 1]. Above it, erf(a) = 1 - exp(-a^2) * H(a) where
// H(a) = erfc(a) * exp(a^2) is smooth and fitted (degree 10 in a - 2.5) on
// [1, 4]; erfc(4) ~ 1.5e-8 is below half an ulp of 1, so a is clamped to 4.
constexpr float kErfSmall = 1.0f;
constexpr float kErfClamp = 4.0f;
constexpr float kErfCenter = 2.5f;
constexpr std::array<float, 8> kErfPoly = {-9.667044651e-06f, 1.126595889e-04f,  -8.484080317e-04f,
                                           5.221031606e-03f,  -2.686543018e-02f, 1.128378212e-01f,
                                           -3.761263788e-01f, 1.128379226e+00f};
constexpr std::array<float, 11> kErfcScaledPoly = {
    1.611890752e-06f, -6.377862064e-06f, 1.468955725e-05f, -5.362729280e-05f,
    2.123135637e-04f, -7.389278617e-04f, 2.466508653e-03f, -7.999388501e-03f,
    2.493805625e-02f, -7.434759289e-02f, 2.108063698e-01f};

}  // namespace

void Emitter::tanh(int dst, int src, int s0, int s1) {
  auto d = v(dst), x = v(src), a = v(s0), b = v(s1);
  // Saturating half: d = |tanh x| from t = exp(-2|x|) (NaN stays NaN).
  c_.vorps(d, x, u(kSignBit));  // -|x|
  c_.vaddps(d, d, d);
  exp(dst, dst, s0, s1);
  c_.vmovaps(b, f(1.0f));
  c_.vsubps(a, b, d);
  c_.vaddps(d, d, b);
  c_.vdivps(d, a, d);
  // Small half: full relative accuracy near 0.
  c_.vmulps(a, x, x);
  horner(s1, s0, kTanhPoly);
  c_.vmulps(b, b, a);
  c_.vfmadd213ps(b, x, x);
  c_.vandps(a, x, u(kAbsMask));
  select_lt(dst, s0, f(kTanhSmall), s1, s0);
  // The sign of x on both halves; also makes tanh(-0) = -0, which the
  // polynomial alone turns into +0 (x + (+0) for x = -0).
  c_.vandps(a, x, u(kSignBit));
  c_.vorps(d, d, a);
}

void Emitter::erf(int dst, int src, int s0, int s1) {
  auto d = v(dst), x = v(src), a = v(s0), b = v(s1);
  auto clamped_abs = [&] {  // a = min(4, |x|), NaN kept (see exp)
    c_.vandps(a, x, u(kAbsMask));
    c_.vmovaps(b, f(kErfClamp));
    c_.vminps(a, b, a);
  };
  // Saturating half: d = 1 - exp(-a^2) * H(a), with the sign of x.
  clamped_abs();
  c_.vmulps(d, a, a);
  c_.vxorps(d, d, u(kSignBit));
  exp(dst, dst, s0, s1);
  clamped_abs();
  c_.vsubps(a, a, f(kErfCenter));
  horner(s1, s0, kErfcScaledPoly);
  c_.vfnmadd213ps(d, b, f(1.0f));
  c_.vandps(a, x, u(kSignBit));
  c_.vorps(d, d, a);
  // Small half.
  c_.vmulps(a, x, x);
  horner(s1, s0, kErfPoly);
  c_.vmulps(b, b, x);
  c_.vandps(a, x, u(kAbsMask));
  select_lt(dst, s0, f(kErfSmall), s1, s0);
}

// sigmoid(x) = 1 / (1 + t) for x >= 0 and t / (1 + t) for x < 0, with
// t = exp(-|x|) <= 1: nothing overflows, and tiny results keep their
// relative accuracy down to where exp itself turns denormal.
void Emitter::sigmoid(int dst, int src, int s0, int s1) {
  auto d = v(dst), x = v(src), a = v(s0), b = v(s1);
  c_.vorps(d, x, u(kSignBit));
  exp(dst, dst, s0, s1);
  c_.vaddps(a, d, f(1.0f));
  c_.vmovaps(b, f(1.0f));
  if (evex()) {
    c_.vpmovd2m(k7, x);  // sign bits
    c_.vmovaps(b | k7, d);
  } else {
    c_.vblendvps(b, b, d, x);  // blendv selects by each lane's sign bit
  }
  c_.vdivps(d, b, a);
}

}  // namespace tirc::vecmath
