// pow(x, y) = exp(y * log|x|) with the sign and special cases of C's powf.
#include <limits>

#include "codegen/x86/math.h"
#include "codegen/x86/math_emitter.h"
#include "ir/error.h"

namespace tirc {

namespace vecmath {

using Xbyak::util::k6;
using Xbyak::util::k7;

namespace {

constexpr uint8_t kCmpEqOQ = 0x00;
constexpr uint8_t kCmpNeqOQ = 0x0c;
constexpr uint8_t kRoundTrunc = 3;  // toward zero, exceptions as the mode says
constexpr float kInf = std::numeric_limits<float>::infinity();

}  // namespace

// The magnitude is exp(y * log|x|); then, in order: the sign of x when y is
// an odd integer (so pow(-0, 3) = -0 and pow(-inf, 3) = -inf); NaN for a
// finite negative x with a non-integral y; 1 for y = +-0, for x = 1 and for
// x = -1 with y = +-inf. Every other special case (x = +-0, +-inf, NaN, y =
// +-inf, overflow, underflow) comes out of exp and log as C defines it.
// An integer test that also holds for +-inf is harmless: an infinite y is
// even (its truncation converts to 0x80000000, bit 0 clear).
void Emitter::pow(int dst, int x, int y, int s0, int s1, int s2) {
  auto d = v(dst), vx = v(x), vy = v(y), a = v(s0), b = v(s1), c = v(s2);
  c_.vandps(c, vx, u(kAbsMask));
  log(dst, s2, s0, s1);
  c_.vmulps(d, d, vy);
  exp(dst, dst, s0, s1);
  if (evex()) {
    c_.vrndscaleps(a, vy, kRoundTrunc);
    c_.vcmpps(k6, a, vy, kCmpEqOQ);  // k6: y is an integer (or infinite)
    c_.vcvttps2dq(a, a);
    c_.vpslld(a, a, 31);
    c_.vandps(a, a, vx);
    c_.vorps(d | k6, d, a);
    c_.vcmpps(k7, vx, f(0.0f), kCmpLtOQ);
    c_.vcmpps(k6 | k7, vx, f(-kInf), kCmpNeqOQ);  // finite negative x, y not integral below
    c_.vrndscaleps(a, vy, kRoundTrunc);
    c_.vcmpps(k7, a, vy, kCmpEqOQ);
    c_.kandnw(k7, k7, k6);
    c_.vmovaps(d | k7, u(0x7fc00000u));
    c_.vandps(c, vx, u(kAbsMask));
    c_.vcmpps(k7, c, f(1.0f), kCmpEqOQ);
    c_.vandps(c, vy, u(kAbsMask));
    c_.vcmpps(k6 | k7, c, f(kInf), kCmpEqOQ);  // |x| = 1 and |y| = inf
    c_.vcmpps(k7, vx, f(1.0f), kCmpEqOQ);
    c_.korw(k6, k6, k7);
    c_.vcmpps(k7, vy, f(0.0f), kCmpEqOQ);
    c_.korw(k6, k6, k7);
    c_.vmovaps(d | k6, f(1.0f));
    return;
  }
  c_.vroundps(a, vy, kRoundTrunc);
  c_.vcmpps(b, a, vy, kCmpEqOQ);  // b: y is an integer (or infinite)
  c_.vcvttps2dq(a, a);
  c_.vpslld(a, a, 31);
  c_.vandps(a, a, b);
  c_.vandps(a, a, vx);
  c_.vorps(d, d, a);
  c_.vcmpps(a, vx, f(0.0f), kCmpLtOQ);
  c_.vcmpps(c, vx, f(-kInf), kCmpNeqOQ);
  c_.vandps(a, a, c);
  c_.vandnps(a, b, a);  // finite negative x, y not integral
  c_.vorps(d, d, a);    // all-ones bits: a NaN
  c_.vandps(c, vx, u(kAbsMask));
  c_.vcmpps(c, c, f(1.0f), kCmpEqOQ);
  c_.vandps(b, vy, u(kAbsMask));
  c_.vcmpps(b, b, f(kInf), kCmpEqOQ);
  c_.vandps(c, c, b);
  c_.vcmpps(b, vx, f(1.0f), kCmpEqOQ);
  c_.vorps(c, c, b);
  c_.vcmpps(b, vy, f(0.0f), kCmpEqOQ);
  c_.vorps(c, c, b);
  c_.vblendvps(d, d, f(1.0f), c);
}

}  // namespace vecmath

namespace {

void check_pow_register(Isa isa, int idx, const char* role) {
  int limit = isa == Isa::avx512 ? 32 : 16;
  if (idx < 0 || idx >= limit)
    throw Error(std::string("emit_vec_pow: ") + role + " register " + std::to_string(idx) +
                " is outside 0.." + std::to_string(limit - 1) + " for this target");
}

}  // namespace

MathAccuracy vec_pow_accuracy(double y_log_x) {
  constexpr double kDenormUlp = 1.4012984643248171e-45;  // 2^-149
  const double z = y_log_x < 0 ? -y_log_x : y_log_x;
  return {2.0e-7 + 1.2e-7 * z, kDenormUlp};
}

void emit_vec_pow(Xbyak::CodeGenerator& code, ConstantPool& pool, Isa isa, int bits, int dst, int x,
                  int y, std::span<const int> scratch) {
  if (bits != 128 && bits != 256 && !(bits == 512 && isa == Isa::avx512))
    throw Error("emit_vec_pow: " + std::to_string(bits) + "-bit registers are not available on " +
                Target{isa}.name());
  check_pow_register(isa, dst, "destination");
  check_pow_register(isa, x, "base");
  check_pow_register(isa, y, "exponent");
  if (scratch.size() < 3)
    throw Error("emit_vec_pow: needs 3 scratch registers, got " + std::to_string(scratch.size()));
  const int regs[6] = {dst, x, y, scratch[0], scratch[1], scratch[2]};
  for (int i = 0; i < 6; ++i) {
    if (i >= 3) check_pow_register(isa, regs[i], "scratch");
    for (int j = (i < 3 ? 3 : 0); j < i; ++j)
      if (regs[i] == regs[j] && !(i < 3 && j < 3))
        throw Error("emit_vec_pow: register " + std::to_string(regs[i]) + " is used twice");
  }
  if (dst == x || dst == y)
    throw Error("emit_vec_pow: the destination must differ from the base and the exponent");
  vecmath::Emitter e(code, pool, isa, bits);
  e.pow(dst, x, y, scratch[0], scratch[1], scratch[2]);
}

}  // namespace tirc
