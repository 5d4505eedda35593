// Vector math kernels (codegen/x86/math.h), JIT-run on this CPU and compared
// with double-precision references over dense sweeps and special values.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <xbyak/xbyak.h>
#include <catch2/catch.hpp>

#include "codegen/x86/math.h"
#include "ir/error.h"
#include "skip.h"

namespace {

using namespace tirc;
using Xbyak::util::rdi;
using Xbyak::util::rdx;
using Xbyak::util::rsi;

struct Config {
  Isa isa;
  int bits;
  int dst;
  int src;
  std::vector<int> scratch;
};

std::string describe(VecMathFn fn, const Config& c) {
  static const char* names[] = {"exp", "log", "tanh", "erf", "sigmoid", "sqrt"};
  return std::string(names[static_cast<int>(fn)]) + " " + Target{c.isa}.name() + " " +
         std::to_string(c.bits) + "-bit dst=" + std::to_string(c.dst) +
         " src=" + std::to_string(c.src);
}

Xbyak::Xmm vreg(int bits, int idx) {
  if (bits == 512) return Xbyak::Zmm(idx);
  if (bits == 256) return Xbyak::Ymm(idx);
  return Xbyak::Xmm(idx);
}

bool host_has(Isa isa) {
  return host_supports(Target{isa});
}

// void f(const float* in, float* out, int64_t n): n a multiple of the lanes.
class SweepKernel : public Xbyak::CodeGenerator {
 public:
  SweepKernel(VecMathFn fn, const Config& c) : Xbyak::CodeGenerator(16384), lanes_(c.bits / 32) {
    ConstantPool pool;
    Xbyak::Label loop, done;
    test(rdx, rdx);
    jz(done, T_NEAR);
    L(loop);
    vmovups(vreg(c.bits, c.src), ptr[rdi]);
    emit_vec_math(*this, pool, c.isa, c.bits, fn, c.dst, c.src, c.scratch);
    vmovups(ptr[rsi], vreg(c.bits, c.dst));
    add(rdi, c.bits / 8);
    add(rsi, c.bits / 8);
    sub(rdx, lanes_);
    jnz(loop, T_NEAR);
    L(done);
    vzeroupper();
    ret();
    pool.emit(*this);
  }

  std::vector<float> run(const std::vector<float>& in) const {
    std::vector<float> padded(in);
    while (padded.size() % lanes_ != 0) padded.push_back(0.0f);
    std::vector<float> out(padded.size());
    auto f = getCode<void (*)(const float*, float*, int64_t)>();
    f(padded.data(), out.data(), static_cast<int64_t>(padded.size()));
    out.resize(in.size());
    return out;
  }

 private:
  int lanes_;
};

double reference(VecMathFn fn, double x) {
  switch (fn) {
    case VecMathFn::exp:
      return std::exp(x);
    case VecMathFn::log:
      return std::log(x);
    case VecMathFn::tanh:
      return std::tanh(x);
    case VecMathFn::erf:
      return std::erf(x);
    case VecMathFn::sigmoid:
      return 1.0 / (1.0 + std::exp(-x));
    case VecMathFn::sqrt:
      return std::sqrt(x);
  }
  return 0;
}

float bits_to_float(uint32_t b) {
  return std::bit_cast<float>(b);
}

std::vector<float> special_inputs() {
  constexpr float inf = std::numeric_limits<float>::infinity();
  std::vector<float> v = {0.0f,
                          -0.0f,
                          inf,
                          -inf,
                          std::nanf(""),
                          -std::nanf(""),
                          bits_to_float(0x7f800001u),
                          bits_to_float(0xffc12345u),
                          1.0f,
                          -1.0f,
                          2.0f,
                          0.5f,
                          std::numeric_limits<float>::min(),
                          -std::numeric_limits<float>::min(),
                          std::numeric_limits<float>::max(),
                          -std::numeric_limits<float>::max(),
                          bits_to_float(1u),
                          bits_to_float(0x007fffffu),
                          bits_to_float(0x80000001u),
                          88.0f,
                          88.72f,
                          88.7228f,
                          88.72284f,
                          88.7229f,
                          89.0f,
                          90.0f,
                          100.0f,
                          -87.0f,
                          -87.34f,
                          -88.0f,
                          -100.0f,
                          -103.0f,
                          -103.28f,
                          -103.97f,
                          -103.98f,
                          -104.0f,
                          -105.0f,
                          -150.0f,
                          1e10f,
                          -1e10f,
                          0.55f,
                          -0.55f,
                          3.92f,
                          4.0f,
                          -4.0f,
                          9.0f,
                          1e-30f,
                          -1e-30f,
                          1e-45f};
  for (float edge : {0.55f, 1.0f, 4.0f, 3.92f, 88.7228f, -103.97f, -87.33655f, 1.0f}) {
    float lo = edge, hi = edge;
    for (int i = 0; i < 64; ++i) {
      lo = std::nextafter(lo, -inf);
      hi = std::nextafter(hi, inf);
      v.insert(v.end(), {lo, hi, -lo, -hi});
    }
  }
  return v;
}

// Every 2053rd float bit pattern (all exponents, both signs, NaNs), plus
// linear sweeps of [-100, 100] and [-6, 6] where the piecewise formulas meet.
// TIRC_VECMATH_STRIDE=1 makes the bit-pattern sweep exhaustive (slow).
std::vector<float> dense_inputs() {
  std::vector<float> v = special_inputs();
  uint64_t stride = 2053;
  if (const char* env = std::getenv("TIRC_VECMATH_STRIDE")) stride = std::max(1, std::atoi(env));
  for (uint64_t b = 0; b < (uint64_t{1} << 32); b += stride)
    v.push_back(bits_to_float(uint32_t(b)));
  for (int i = 0; i <= 1000000; ++i) v.push_back(-100.0f + 200.0f * float(i) / 1e6f);
  for (int i = 0; i <= 1000000; ++i) v.push_back(static_cast<float>(-6.0 + 12.0 * i / 1e6));
  std::mt19937 rng(12345);
  for (int i = 0; i < 200000; ++i) v.push_back(bits_to_float(static_cast<uint32_t>(rng())));
  return v;
}

const std::vector<float>& dense() {
  static const std::vector<float> v = dense_inputs();
  return v;
}

struct ErrorStats {
  double max_rel = 0;  // over results with |exact| >= FLT_MIN
  double max_abs = 0;  // over results with |exact| < FLT_MIN
  float worst_x = 0;
  size_t failures = 0;
  std::string first_failure;
};

bool accept(float got, double exact, MathAccuracy acc) {
  if (std::isnan(exact)) return std::isnan(got);
  if (std::isnan(got)) return false;
  if (std::isinf(exact)) return got == exact;
  constexpr double kOverflow = 3.4028235677973366e38;  // (2 - 2^-24) * 2^127 rounds to inf
  if (std::isinf(got))
    return std::signbit(got) == std::signbit(exact) &&
           std::abs(exact) * (1 + acc.max_rel) >= kOverflow;
  return std::abs(got - exact) <= acc.max_abs + acc.max_rel * std::abs(exact);
}

ErrorStats measure(VecMathFn fn, const std::vector<float>& in, const std::vector<float>& out) {
  ErrorStats s;
  MathAccuracy acc = vec_math_accuracy(fn);
  for (size_t i = 0; i < in.size(); ++i) {
    double exact = reference(fn, in[i]);
    float got = out[i];
    if (!accept(got, exact, acc)) {
      if (s.failures++ == 0)
        s.first_failure = "x=" + std::to_string(in[i]) + " (bits " +
                          std::to_string(std::bit_cast<uint32_t>(in[i])) +
                          ") got=" + std::to_string(got) + " exact=" + std::to_string(exact);
      continue;
    }
    if (!std::isfinite(exact) || !std::isfinite(got)) continue;
    double err = std::abs(got - exact);
    if (std::abs(exact) >= std::numeric_limits<float>::min()) {
      if (err / std::abs(exact) > s.max_rel) {
        s.max_rel = err / std::abs(exact);
        s.worst_x = in[i];
      }
    } else {
      s.max_abs = std::max(s.max_abs, err);
    }
  }
  return s;
}

constexpr VecMathFn kAllFns[] = {VecMathFn::exp, VecMathFn::log,     VecMathFn::tanh,
                                 VecMathFn::erf, VecMathFn::sigmoid, VecMathFn::sqrt};

// The configuration swept densely per ISA, and the others, which must give
// the same bits on a smaller input set.
Config primary(Isa isa) {
  return isa == Isa::avx512 ? Config{isa, 512, 20, 20, {31, 17, 29}}
                            : Config{isa, 256, 0, 1, {5, 9, 12}};
}

std::vector<Config> variants(Isa isa) {
  std::vector<Config> out;
  if (isa == Isa::avx2) {
    for (int bits : {128, 256}) {
      out.push_back({isa, bits, 2, 2, {13, 14, 15}});
      out.push_back({isa, bits, 0, 1, {5, 9, 12}});
    }
  } else {
    for (int bits : {128, 256, 512}) {
      out.push_back({isa, bits, 20, 20, {31, 17, 29}});
      out.push_back({isa, bits, 3, 24, {16, 30, 7}});
      out.push_back({isa, bits, 0, 1, {2, 3, 4}});
    }
  }
  return out;
}

void check_accuracy(Isa isa) {
  if (!host_has(isa)) TIRC_SKIP("this CPU lacks " << Target{isa}.name());
  for (VecMathFn fn : kAllFns) {
    Config c = primary(isa);
    SweepKernel kernel(fn, c);
    std::vector<float> out = kernel.run(dense());
    ErrorStats s = measure(fn, dense(), out);
    MathAccuracy acc = vec_math_accuracy(fn);
    INFO(describe(fn, c) << ": " << dense().size() << " inputs, " << s.first_failure);
    CHECK(s.failures == 0);
    WARN(describe(fn, c) << ": measured max_rel " << s.max_rel << " at x=" << s.worst_x
                         << " (bound " << acc.max_rel << "), max_abs on denormal results "
                         << s.max_abs << " (bound " << acc.max_abs << ")");
    // The documented bound is tight: within a factor of two of what is measured.
    CHECK(s.max_rel > acc.max_rel / 2);
  }
}

TEST_CASE("vector math accuracy on avx2", "[vecmath]") {
  check_accuracy(Isa::avx2);
}
TEST_CASE("vector math accuracy on avx512", "[vecmath]") {
  check_accuracy(Isa::avx512);
}

bool same_bits(float a, float b) {
  return std::isnan(a) ? std::isnan(b) : std::bit_cast<uint32_t>(a) == std::bit_cast<uint32_t>(b);
}

// One test case per ISA (below each helper), so a CPU without one reports that
// ISA skipped and still runs the other.
void check_same_bits(Isa isa) {
  if (!host_has(isa)) TIRC_SKIP("this CPU lacks " << Target{isa}.name());
  std::vector<float> in = special_inputs();
  for (uint64_t b = 0; b < (uint64_t{1} << 32); b += 65537)
    in.push_back(bits_to_float(uint32_t(b)));
  for (int i = 0; i <= 20000; ++i) in.push_back(-10.0f + 20.0f * float(i) / 2e4f);
  for (VecMathFn fn : kAllFns) {
    std::vector<float> expected = SweepKernel(fn, primary(isa)).run(in);
    if (isa == Isa::avx512 && host_has(Isa::avx2)) {
      // vscalefps/vfixupimmps on avx512 and the VEX sequences agree exactly.
      std::vector<float> vex = SweepKernel(fn, primary(Isa::avx2)).run(in);
      size_t mismatches = 0;
      for (size_t i = 0; i < in.size(); ++i) mismatches += !same_bits(vex[i], expected[i]);
      INFO(describe(fn, primary(isa)) << " vs avx2");
      CHECK(mismatches == 0);
    }
    for (const Config& c : variants(isa)) {
      std::vector<float> got = SweepKernel(fn, c).run(in);
      size_t mismatches = 0;
      for (size_t i = 0; i < in.size(); ++i) mismatches += !same_bits(got[i], expected[i]);
      INFO(describe(fn, c));
      CHECK(mismatches == 0);
    }
  }
}

TEST_CASE("vector math gives the same bits at every width and register choice on avx2",
          "[vecmath]") {
  check_same_bits(Isa::avx2);
}
TEST_CASE("vector math gives the same bits at every width and register choice on avx512",
          "[vecmath]") {
  check_same_bits(Isa::avx512);
}

// Loads every vector register (and k1..k7 on avx512), emits one call, and
// stores them all back.
class PreserveKernel : public Xbyak::CodeGenerator {
 public:
  PreserveKernel(VecMathFn fn, const Config& c) : Xbyak::CodeGenerator(16384) {
    ConstantPool pool;
    int regs = c.isa == Isa::avx512 ? 32 : 16;
    for (int i = 0; i < regs; ++i) vmovups(vreg(c.bits, i), ptr[rdi + 64 * i]);
    if (c.isa == Isa::avx512)
      for (int k = 1; k < 8; ++k) kmovq(Xbyak::Opmask(k), ptr[rdx + 8 * k]);
    emit_vec_math(*this, pool, c.isa, c.bits, fn, c.dst, c.src, c.scratch);
    for (int i = 0; i < regs; ++i) vmovups(ptr[rsi + 64 * i], vreg(c.bits, i));
    if (c.isa == Isa::avx512)
      for (int k = 1; k < 8; ++k) kmovq(ptr[rdx + 64 + 8 * k], Xbyak::Opmask(k));
    vzeroupper();
    ret();
    pool.emit(*this);
  }
};

void check_preserved_registers(Isa isa) {
  if (!host_has(isa)) TIRC_SKIP("this CPU lacks " << Target{isa}.name());
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> value(-5.0f, 5.0f);
  for (VecMathFn fn : kAllFns) {
    for (const Config& c : variants(isa)) {
      PreserveKernel kernel(fn, c);
      std::vector<float> before(32 * 16), after(32 * 16);
      for (float& x : before) x = value(rng);
      uint64_t masks[16] = {};
      for (int k = 1; k < 8; ++k) masks[k] = 0x0123456789abcdefull * k;
      kernel.getCode<void (*)(const float*, float*, uint64_t*)>()(before.data(), after.data(),
                                                                  masks);
      INFO(describe(fn, c));
      int regs = isa == Isa::avx512 ? 32 : 16, lanes = c.bits / 32;
      for (int r = 0; r < regs; ++r) {
        bool clobbered = r == c.dst;
        for (int s : c.scratch) clobbered = clobbered || s == r;
        if (clobbered) continue;
        INFO("register " << r);
        CHECK(std::memcmp(&before[16 * r], &after[16 * r], 4 * lanes) == 0);
      }
      for (int l = 0; l < lanes; ++l) {
        double exact = reference(fn, before[16 * c.src + l]);
        CHECK(accept(after[16 * c.dst + l], exact, vec_math_accuracy(fn)));
      }
      if (isa == Isa::avx512)
        for (int k = 1; k < 6; ++k) CHECK(masks[8 + k] == 0x0123456789abcdefull * k);
    }
  }
}

TEST_CASE("vector math clobbers only dst and the scratch registers on avx2", "[vecmath]") {
  check_preserved_registers(Isa::avx2);
}
TEST_CASE("vector math clobbers only dst, the scratch registers, k6 and k7 on avx512",
          "[vecmath]") {
  check_preserved_registers(Isa::avx512);
}

void check_special_values(Isa isa) {
  if (!host_has(isa)) TIRC_SKIP("this CPU lacks " << Target{isa}.name());
  constexpr float inf = std::numeric_limits<float>::infinity();
  struct Case {
    VecMathFn fn;
    float x;
    float expected;  // NaN: any NaN
  };
  const float nan = std::nanf("");
  const Case cases[] = {
      {VecMathFn::exp, inf, inf},       {VecMathFn::exp, -inf, 0.0f},
      {VecMathFn::exp, nan, nan},       {VecMathFn::exp, 89.0f, inf},
      {VecMathFn::exp, -110.0f, 0.0f},  {VecMathFn::exp, 0.0f, 1.0f},
      {VecMathFn::exp, -0.0f, 1.0f},    {VecMathFn::log, 0.0f, -inf},
      {VecMathFn::log, -0.0f, -inf},    {VecMathFn::log, -1.0f, nan},
      {VecMathFn::log, -inf, nan},      {VecMathFn::log, inf, inf},
      {VecMathFn::log, nan, nan},       {VecMathFn::log, 1.0f, 0.0f},
      {VecMathFn::tanh, -0.0f, -0.0f},  {VecMathFn::tanh, inf, 1.0f},
      {VecMathFn::tanh, -inf, -1.0f},   {VecMathFn::tanh, 20.0f, 1.0f},
      {VecMathFn::tanh, nan, nan},      {VecMathFn::erf, -0.0f, -0.0f},
      {VecMathFn::erf, inf, 1.0f},      {VecMathFn::erf, -inf, -1.0f},
      {VecMathFn::erf, -5.0f, -1.0f},   {VecMathFn::erf, nan, nan},
      {VecMathFn::sigmoid, inf, 1.0f},  {VecMathFn::sigmoid, -inf, 0.0f},
      {VecMathFn::sigmoid, 0.0f, 0.5f}, {VecMathFn::sigmoid, -0.0f, 0.5f},
      {VecMathFn::sigmoid, nan, nan},   {VecMathFn::sigmoid, -200.0f, 0.0f},
      {VecMathFn::sqrt, -1.0f, nan},    {VecMathFn::sqrt, -0.0f, -0.0f},
      {VecMathFn::sqrt, inf, inf},      {VecMathFn::sqrt, 4.0f, 2.0f},
  };
  for (const Case& k : cases) {
    std::vector<float> got = SweepKernel(k.fn, primary(isa)).run({k.x});
    INFO(describe(k.fn, primary(isa)) << " x=" << k.x << " got=" << got[0]);
    if (std::isnan(k.expected)) {
      CHECK(std::isnan(got[0]));
    } else {
      CHECK(same_bits(got[0], k.expected));
    }
  }
}

TEST_CASE("vector math special values follow the C library on avx2", "[vecmath]") {
  check_special_values(Isa::avx2);
}
TEST_CASE("vector math special values follow the C library on avx512", "[vecmath]") {
  check_special_values(Isa::avx512);
}

TEST_CASE("vector math rejects bad registers and widths", "[vecmath]") {
  Xbyak::CodeGenerator code;
  ConstantPool pool;
  std::vector<int> three = {13, 14, 15};
  CHECK_THROWS_AS(emit_vec_math(code, pool, Isa::avx2, 512, VecMathFn::exp, 0, 1, three), Error);
  CHECK_THROWS_AS(emit_vec_math(code, pool, Isa::avx2, 384, VecMathFn::exp, 0, 1, three), Error);
  CHECK_THROWS_AS(emit_vec_math(code, pool, Isa::avx2, 256, VecMathFn::exp, 16, 1, three), Error);
  std::vector<int> high = {13, 14, 16};
  CHECK_THROWS_AS(emit_vec_math(code, pool, Isa::avx2, 256, VecMathFn::log, 0, 1, high), Error);
  std::vector<int> two = {13, 14};
  CHECK_THROWS_AS(emit_vec_math(code, pool, Isa::avx2, 256, VecMathFn::tanh, 0, 1, two), Error);
  std::vector<int> aliasing = {0, 14, 15};
  CHECK_THROWS_AS(emit_vec_math(code, pool, Isa::avx512, 256, VecMathFn::erf, 0, 1, aliasing),
                  Error);
  std::vector<int> twice = {14, 14, 15};
  CHECK_THROWS_AS(emit_vec_math(code, pool, Isa::avx512, 256, VecMathFn::erf, 0, 1, twice), Error);
  CHECK_THROWS_AS(emit_vec_math(code, pool, Isa::avx512, 512, VecMathFn::sqrt, 32, 1, {}), Error);
  CHECK_NOTHROW(emit_vec_math(code, pool, Isa::avx512, 512, VecMathFn::sqrt, 31, 1, {}));
  CHECK(vec_math_scratch_count(VecMathFn::exp, Isa::avx2) == 2);
  CHECK(vec_math_scratch_count(VecMathFn::sqrt, Isa::avx512) == 0);
}

TEST_CASE("vector math function names", "[vecmath]") {
  VecMathFn fn = VecMathFn::sqrt;
  CHECK(vec_math_fn_from_name("exp", &fn));
  CHECK(fn == VecMathFn::exp);
  CHECK(vec_math_fn_from_name("sigmoid", &fn));
  CHECK(fn == VecMathFn::sigmoid);
  CHECK_FALSE(vec_math_fn_from_name("pow", &fn));
  CHECK_FALSE(vec_math_fn_from_name("", &fn));
  CHECK(fn == VecMathFn::sigmoid);
}

}  // namespace
