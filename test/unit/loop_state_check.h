// The soundness check of a loop-action state, shared by the tests of the
// environment's random episodes and of a policy's rollouts.
#pragma once

#include <catch2/catch.hpp>

#include "codegen_test_util.h"
#include "ir/structural.h"
#include "ir/verify.h"
#include "schedule/trace.h"
#include "tuner/env.h"

namespace tirc::test {

// The state's program is sound: it verifies, its trace replays to the same
// program, it equals the original in the interpreter (checking mode: no
// races), and the x86 generator compiles it to code that agrees.
inline void check_state(const IRModule& original, const LoopState& s, const std::string& what) {
  INFO(what << "\ntrace:\n" << s.sch.trace().print());
  std::vector<Diagnostic> diags = verify(s.sch.mod());
  CHECK(diags.empty());
  Schedule replay(original);
  Trace::parse(s.sch.trace().print()).apply_to(replay);
  CHECK(structural_equal(replay.mod().at(s.func), s.program()));
  // Reordered reductions sum in another order: equal within rounding.
  EquivResult eq =
      check_equivalent(original.at(s.func), s.program(), EquivOptions{.rtol = 1e-5, .atol = 1e-6});
  INFO(eq.message);
  CHECK(eq.equal);
  for (const Target& t : available_targets()) {
    GeneratorOptions gen;
    gen.target = t;
    CodegenCheck c = compile_and_compare(original.at(s.func), s.program(), gen, 3, false);
    INFO(t.name() << ": " << c.message);
    CHECK(c.message.empty());
  }
}

}  // namespace tirc::test
