// Shared helpers for the reduction/tensorization schedule tests.
#pragma once

#include <catch2/catch.hpp>
#include <string>

#include "ir/eval/interpreter.h"
#include "ir/text/parser.h"
#include "ir/text/printer.h"
#include "ir/verify.h"
#include "schedule/schedule.h"

namespace tirc::test {

inline const PrimFunc& main_of(const Schedule& s) {
  return s.mod().at("main");
}

inline std::string printed(const Schedule& s) {
  return print_func(main_of(s));
}

// The scheduled program is well formed and computes what the original did.
inline void check_valid(const IRModule& before, const Schedule& after) {
  auto diags = verify(main_of(after));
  std::string all;
  for (const Diagnostic& d : diags) all += d.message + "\n";
  INFO(printed(after));
  CHECK(all == "");
  EquivResult eq = check_equivalent(before.at("main"), main_of(after));
  INFO(eq.message);
  CHECK(eq.equal);
}

// Runs `apply` on the schedule, expects a ScheduleError mentioning `needle`,
// and checks the schedule was left exactly as it was.
template <class F>
void check_refused(Schedule& s, F apply, const std::string& needle) {
  const std::string before = printed(s);
  const size_t trace_size = s.trace().size();
  try {
    apply();
    FAIL("expected a ScheduleError containing: " << needle);
  } catch (const ScheduleError& e) {
    INFO(e.what());
    CHECK(std::string(e.what()).find(needle) != std::string::npos);
  }
  CHECK(printed(s) == before);
  CHECK(s.trace().size() == trace_size);
}

}  // namespace tirc::test
