// Shared by the x86 generator tests: compile a PrimFunc for a target, JIT it,
// run it and the interpreter on the same random inputs, compare bit for bit.
#pragma once

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "codegen/x86/generator.h"
#include "codegen/x86/jit.h"
#include "codegen/x86/target.h"
#include "ir/eval/interpreter.h"
#include "ir/text/parser.h"
#include "skip.h"

namespace tirc::x86test {

// The ISAs this CPU runs; one it lacks is reported skipped by
// test/unit/host_isa_test.cpp. With none at all the test runs nothing, so it
// is reported skipped too.
inline std::vector<Target> targets() {
  std::vector<Target> out;
  for (Isa isa : {Isa::avx2, Isa::avx512})
    if (host_supports(Target{isa})) out.push_back(Target{isa});
  if (out.empty()) std::cout << TIRC_SKIP_MARKER "this CPU runs no x86 target of tirc" << std::endl;
  return out;
}

inline PrimFunc parse_func(const std::string& text) {
  IRModule m = parse_module(text);
  return m.functions().front().second;
}

// A TVMScript function header with the given parameter list, then body lines.
inline PrimFunc tir(const std::string& params, const std::string& body) {
  return parse_func("@T.prim_func\ndef main(" + params + "):\n" + body);
}

inline std::string first_difference(const NDArray& a, const NDArray& b) {
  for (int64_t i = 0; i < a.num_elements(); ++i) {
    bool same = a.dtype().is_float()
                    ? (a.get_float(i) == b.get_float(i) ||
                       (a.get_float(i) != a.get_float(i) && b.get_float(i) != b.get_float(i)))
                    : a.get_int(i) == b.get_int(i);
    if (!same) {
      return "element " + std::to_string(i) + ": interpreter " +
             (a.dtype().is_float() ? std::to_string(a.get_float(i))
                                   : std::to_string(a.get_int(i))) +
             ", jit " +
             (a.dtype().is_float() ? std::to_string(b.get_float(i)) : std::to_string(b.get_int(i)));
    }
  }
  return "bits differ";
}

struct RunOptions {
  std::vector<Argument> scalars;  // values of the scalar parameters, in order
  bool small_ints = true;
  int seeds = 2;
  bool contraction_kernels = false;
  // The reference run checks vectorized loops for races (see tirc::RunOptions).
  bool check_vectorized = true;
};

// Compiles f for t and checks the JIT against the interpreter; returns the stats.
inline RunOptions opts(bool small_ints = true, int seeds = 2, std::vector<Argument> scalars = {}) {
  RunOptions o;
  o.small_ints = small_ints;
  o.seeds = seeds;
  o.scalars = std::move(scalars);
  return o;
}

inline GeneratorStats expect_same(const PrimFunc& f, const Target& t, const RunOptions& o = {}) {
  GeneratorStats stats;
  GeneratorOptions go;
  go.target = t;
  go.contraction_kernels = o.contraction_kernels;
  MachineCode mc = generate_x86({{"kernel", f}}, go, &stats);
  JitModule jit(mc);
  for (int seed = 0; seed < o.seeds; ++seed) {
    std::vector<NDArray> ref = random_inputs(f, static_cast<uint64_t>(seed) + 11, o.small_ints);
    std::vector<NDArray> got = ref;
    std::vector<Argument> ref_args, got_args;
    size_t b = 0, s = 0;
    for (const Param& p : f->params) {
      if (p.buffer) {
        ref_args.push_back({&ref[b], 0, 0});
        got_args.push_back({&got[b], 0, 0});
        ++b;
      } else {
        REQUIRE(s < o.scalars.size());
        ref_args.push_back(o.scalars[s]);
        got_args.push_back(o.scalars[s]);
        ++s;
      }
    }
    // Checking mode: the reference run also proves the program race-free.
    tirc::RunOptions checking = tirc::RunOptions::checked(seed);
    checking.check_vectorized = o.check_vectorized;
    run(f, ref_args, checking);
    int rc = call_jit(jit, "kernel", f, got_args);
    INFO("target " << t.name() << ", seed " << seed);
    CHECK(rc == 0);
    for (size_t i = 0; i < ref.size(); ++i) {
      INFO("buffer " << i << ": "
                     << (ref[i].bitwise_equal(got[i]) ? "" : first_difference(ref[i], got[i])));
      CHECK(ref[i].bitwise_equal(got[i]));
    }
  }
  return stats;
}

inline void expect_same_all_targets(const PrimFunc& f, const RunOptions& o = {}) {
  for (const Target& t : targets()) expect_same(f, t, o);
}

}  // namespace tirc::x86test
