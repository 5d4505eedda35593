// Shared helpers for code generator tests: compile a (scheduled) PrimFunc,
// run it through the JIT and compare with the interpreter.
#pragma once

#include <cmath>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "bench/matmul_schedules.h"
#include "codegen/x86/generator.h"
#include "codegen/x86/jit.h"
#include "eval_test_util.h"
#include "ir/eval/interpreter.h"
#include "passes/pipeline.h"
#include "skip.h"

namespace tirc {

inline std::string read_example(const std::string& file) {
  std::ifstream in(std::string(TIRC_SOURCE_DIR) + "/examples/" + file);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The targets this CPU can run; one it lacks is reported skipped by
// test/unit/host_isa_test.cpp. With none at all the test runs nothing, so it
// is reported skipped too.
inline std::vector<Target> available_targets() {
  std::vector<Target> out;
  for (Isa isa : {Isa::avx512, Isa::avx2})
    if (host_supports(Target{isa})) out.push_back(Target{isa});
  if (out.empty()) std::cout << TIRC_SKIP_MARKER "this CPU runs no x86 target of tirc" << std::endl;
  return out;
}

// Programs calling transcendental functions are compared within a tolerance:
// the generators' vector math is accurate to a few ulp, not bit-identical to libm.
inline bool uses_approximate_math(const std::string& text) {
  for (const char* fn : {"T.exp(", "T.log(", "T.tanh(", "T.erf(", "T.sigmoid(", "T.sqrt("})
    if (text.find(fn) != std::string::npos) return true;
  return false;
}

struct CodegenCheck {
  std::string message;  // empty when the compiled code matched
  bool race = false;    // the message is the race checker's
};

// Empty when every array of `got` equals `expected`: bit for bit when
// `exact`, else within 1e-4 relative; otherwise the first difference.
inline std::string compare_outputs(const std::vector<NDArray>& expected,
                                   const std::vector<NDArray>& got, bool exact) {
  for (size_t p = 0; p < expected.size(); ++p) {
    const NDArray& e = expected[p];
    const NDArray& g = got[p];
    if (exact && e.bitwise_equal(g)) continue;
    for (int64_t i = 0; i < e.num_elements(); ++i) {
      const double x = e.get_float(i), y = g.get_float(i);
      const bool same = exact ? (x == y || (std::isnan(x) && std::isnan(y)))
                              : std::fabs(x - y) <= 1e-5 + 1e-4 * std::fabs(x);
      if (!same) {
        std::ostringstream s;
        s << "parameter " << p << " element " << i << ": interpreter " << x << ", compiled " << y;
        return s.str();
      }
    }
  }
  return {};
}

// Runs `reference` in the interpreter and `run_compiled` (code made from
// `lowered`, a lowering of a program with the same parameters) on the same
// random small-integer inputs and compares every buffer: bit for bit when
// `exact`, else within 1e-4 relative. `lowered` first runs in the
// interpreter's checking mode: a race between iterations of its parallel or
// vectorized loops fails the check (code generators may run those iterations
// in any order or at once).
inline CodegenCheck compare_with_interpreter(
    const PrimFunc& reference, const PrimFunc& lowered, uint64_t seed, bool exact,
    const std::function<int(const std::vector<Argument>&)>& run_compiled) {
  try {
    std::vector<NDArray> expected = random_inputs(reference, seed);
    if (std::string race = test::race_on(lowered, expected, RunOptions::checked(seed));
        !race.empty())
      return {"race checker: " + race, true};
    std::vector<NDArray> got = expected;
    std::vector<Argument> expected_args, got_args;
    for (size_t i = 0; i < expected.size(); ++i) {
      expected_args.push_back({&expected[i]});
      got_args.push_back({&got[i]});
    }
    run(reference, expected_args);
    const int rc = run_compiled(got_args);
    if (rc != 0) return {"kernel returned " + std::to_string(rc)};
    return {compare_outputs(expected, got, exact)};
  } catch (const Error& e) {
    return {std::string("error: ") + e.what()};
  }
}

// compare_with_interpreter for `compiled` through lower -> generate_x86 -> JIT.
inline CodegenCheck compile_and_compare(const PrimFunc& reference, const PrimFunc& compiled,
                                        const GeneratorOptions& options, uint64_t seed,
                                        bool exact) {
  try {
    const PrimFunc lowered = lower(compiled);
    const JitModule module(generate_x86({{"kernel", lowered}}, options));
    return compare_with_interpreter(reference, lowered, seed, exact, [&](const auto& args) {
      return call_jit(module, "kernel", compiled, args);
    });
  } catch (const Error& e) {
    return {std::string("error: ") + e.what()};
  }
}

}  // namespace tirc
