// tanh, erf and sigmoid: an odd polynomial where the function is near its
// Taylor series, and exp-based formulas where it saturates. Both halves are
// computed on every lane and the result picked by |x|.
#include <array>

#include "codegen/math_constants.h"
#include "codegen/x86/math_emitter.h"

namespace tirc::vecmath {

using namespace math_constants;

using Xbyak::util::k7;

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
