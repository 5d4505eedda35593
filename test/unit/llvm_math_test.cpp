// The LLVM generator's float32 math (codegen/llvm/llvm_math.h) within the
// bounds codegen/x86/math.h documents, and bit for bit what the x86 generator
// computes: a sweep of float32 bit patterns through a vectorized loop and a
// serial one, on x86-64 here and on AArch64 under qemu.
#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <cstring>

#include "codegen/x86/jit.h"
#include "codegen/x86/math.h"
#include "ir/text/parser.h"
#include "llvm_test_util.h"

using namespace tirc;
using namespace tirc::test;

namespace {

// Every `step`-th float32 bit pattern (both signs), plus the special values.
std::vector<float> sweep(uint32_t step) {
  std::vector<float> out;
  for (uint64_t bits = 0; bits <= 0xffffffffu; bits += step)
    out.push_back(std::bit_cast<float>(static_cast<uint32_t>(bits)));
  for (float v : {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 88.72f, 89.0f, -103.9f, -104.0f, 1e-40f,
                  -1e-40f, 1.0f, -1.0f, 0.55f, 4.0f})
    out.push_back(v);
  return out;
}

PrimFunc unary_kernel(const std::string& fn, int64_t n, bool vectorized) {
  const std::string loop = vectorized ? "T.vectorized" : "range";
  return parse_module("# from tvm.script import tir as T\n\n@T.prim_func\ndef main(A: T.Buffer((" +
                      std::to_string(n) + ",), \"float32\"), B: T.Buffer((" + std::to_string(n) +
                      ",), \"float32\")):\n    for i in " + loop + "(" + std::to_string(n) +
                      "):\n        B[i] = T." + fn + "(A[i])\n")
      .functions()
      .front()
      .second;
}

void check_function(const std::string& fn, const LlvmTarget& target, uint32_t step) {
  VecMathFn id;
  REQUIRE(vec_math_fn_from_name(fn, &id));
  const MathAccuracy acc = vec_math_accuracy(id);
  const std::vector<float> inputs = sweep(step);
  const auto n = static_cast<int64_t>(inputs.size());
  for (bool vectorized : {true, false}) {
    INFO(fn << (vectorized ? " vectorized" : " serial") << " on " << target.name() << " "
            << target.cpu << ", " << n << " inputs");
    const PrimFunc f = lower(unary_kernel(fn, n, vectorized));
    NDArray a(DataType::float32(), {n}), b(DataType::float32(), {n});
    std::memcpy(a.data(), inputs.data(), inputs.size() * sizeof(float));
    REQUIRE(run_llvm(f, target, {{&a}, {&b}}) == 0);
    // The x86 generator's result, where it runs here: the same bits (NaN payloads aside).
    std::optional<NDArray> x86;
    if (host_supports(Target{Isa::avx512})) {
      const JitModule jit(generate_x86({{"k", f}}, GeneratorOptions{Target{Isa::avx512}}));
      x86.emplace(DataType::float32(), std::vector<int64_t>{n});
      REQUIRE(call_jit(jit, "k", f, {{&a}, {&*x86}}) == 0);
    }
    const auto* in = reinterpret_cast<const float*>(a.data());
    const auto* out = reinterpret_cast<const float*>(b.data());
    int64_t out_of_bounds = 0, differ_from_x86 = 0;
    for (int64_t k = 0; k < n; ++k) {
      const double x = in[k];
      const double want = id == VecMathFn::sigmoid ? 1.0 / (1.0 + std::exp(-x))
                          : id == VecMathFn::exp   ? std::exp(x)
                          : id == VecMathFn::log   ? std::log(x)
                          : id == VecMathFn::tanh  ? std::tanh(x)
                                                   : std::erf(x);
      const double got = out[k];
      const double wanted = static_cast<float>(want);
      const bool same_special = (std::isnan(got) && std::isnan(wanted)) || got == wanted;
      if (!same_special && !(std::fabs(got - want) <= acc.max_abs + acc.max_rel * std::fabs(want)))
        ++out_of_bounds;
      if (x86) {
        const float other = reinterpret_cast<const float*>(x86->data())[k];
        if (!(std::isnan(other) && std::isnan(out[k])) &&
            std::bit_cast<uint32_t>(other) != std::bit_cast<uint32_t>(out[k]))
          ++differ_from_x86;
      }
    }
    CHECK(out_of_bounds == 0);
    CHECK(differ_from_x86 == 0);
  }
}

}  // namespace

TEST_CASE("LLVM: float32 math within the documented bounds, as the x86 generator computes it",
          "[llvm][vecmath]") {
  const std::vector<LlvmTarget> targets = runnable_llvm_targets();
  if (targets.empty()) TIRC_SKIP("no LLVM target runs here");
  for (const LlvmTarget& t : targets)
    for (const char* fn : {"exp", "log", "tanh", "erf", "sigmoid"})
      // About 1M inputs here, 65K under emulation.
      check_function(fn, t, t.arch == LlvmArch::aarch64 ? 65537 : 4099);
}
