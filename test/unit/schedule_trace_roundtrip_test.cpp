// Every lit schedule test (a .tir program with its Inputs/<script>.py) replayed
// through the trace's two serializations: the printed script and JSON. Replaying
// either on the original program must rebuild the same module, and the result
// must be well formed and compute what the original computes.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "ir/eval/interpreter.h"
#include "ir/structural.h"
#include "ir/text/parser.h"
#include "ir/text/printer.h"
#include "ir/verify.h"
#include "lit_schedule_cases.h"
#include "schedule/schedule.h"
#include "schedule/trace.h"

namespace fs = std::filesystem;
using namespace tirc;

namespace {

// Replays `trace` on a fresh schedule of `original` and compares with `expected`.
void check_replay(const Trace& trace, const IRModule& original, const Schedule& expected) {
  Schedule replayed(original);
  trace.apply_to(replayed);
  CHECK(structural_equal(replayed.mod(), expected.mod()));
  CHECK(print_module(replayed.mod()) == print_module(expected.mod()));
  CHECK(replayed.trace().print() == expected.trace().print());
}

}  // namespace

TEST_CASE("every lit schedule script round-trips through its trace", "[schedule][roundtrip]") {
  const std::vector<ScheduleCase> cases = lit_schedule_cases();
  // One or two programs per primitive plus the sampling script.
  REQUIRE(cases.size() >= 47);
  int replayed = 0, equivalence_checked = 0, equivalence_skipped = 0;
  for (const ScheduleCase& c : cases) {
    INFO("program " << c.program.string() << ", script " << c.script.string());
    const IRModule original = parse_module(read_text_file(c.program), c.program.string());
    const Trace script = Trace::parse(read_text_file(c.script), c.script.string());
    Schedule sch(original);
    script.apply_to(sch);
    REQUIRE(!sch.trace().instructions().empty());

    check_replay(Trace::parse(sch.trace().print()), original, sch);
    check_replay(Trace::from_json(sch.trace().to_json()), original, sch);
    ++replayed;

    CHECK(verify(sch.mod()).empty());
    for (const auto& [name, func] : original.functions()) {
      INFO("function " << name);
      const PrimFunc* result = sch.mod().find(name);
      REQUIRE(result != nullptr);
      // transform_layout on a parameter changes the signature: nothing to compare.
      if (!same_param_shapes(func, *result)) {
        ++equivalence_skipped;
        continue;
      }
      EquivResult eq = check_equivalent(func, *result);
      INFO(eq.message);
      CHECK(eq.equal);
      ++equivalence_checked;
    }
  }
  INFO("replayed " << replayed << ", equivalence checked " << equivalence_checked << ", skipped "
                   << equivalence_skipped);
  CHECK(replayed == static_cast<int>(cases.size()));
  CHECK(equivalence_checked + equivalence_skipped >= replayed);
  CHECK(equivalence_checked > equivalence_skipped);
}
