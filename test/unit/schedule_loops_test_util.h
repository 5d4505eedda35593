// Shared helpers for the loop-primitive tests.
#pragma once

#include <catch2/catch.hpp>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>

#include "ir/eval/interpreter.h"
#include "ir/text/parser.h"
#include "ir/text/printer.h"
#include "ir/verify.h"
#include "schedule/schedule.h"

namespace tirc::loops_test {

inline IRModule example(const std::string& name) {
  std::ifstream in(std::string(TIRC_SOURCE_DIR) + "/examples/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_module(ss.str(), name);
}

// The function printed, compared with `expected`; on a mismatch the actual
// text is also written to /tmp/tirc_loops_<name>.txt to ease updating.
inline void expect_print(const Schedule& sch, const std::string& name,
                         const std::string& expected) {
  std::string actual = print_func(sch.mod().at("main"));
  if (actual != expected) std::ofstream("/tmp/tirc_loops_" + name + ".txt") << actual;
  CHECK(actual == expected);
}

// The scheduled function verifies clean and computes what the original did.
inline void expect_sound(const IRModule& original, const Schedule& sch) {
  std::vector<Diagnostic> diags = verify(sch.mod());
  for (const Diagnostic& d : diags) INFO(d.message);
  CHECK(diags.empty());
  EquivResult r = check_equivalent(original.at("main"), sch.mod().at("main"));
  INFO(r.message);
  CHECK(r.equal);
}

// `apply` throws a ScheduleError whose message contains `needle`, and the
// schedule (module and trace) is as it was.
inline void expect_refused(Schedule& sch, const std::function<void()>& apply,
                           const std::string& needle) {
  std::string before = print_module(sch.mod());
  size_t trace_size = sch.trace().size();
  bool thrown = false;
  try {
    apply();
  } catch (const ScheduleError& e) {
    thrown = true;
    INFO(e.what());
    CHECK(std::string(e.what()).find(needle) != std::string::npos);
  }
  CHECK(thrown);
  CHECK(print_module(sch.mod()) == before);
  CHECK(sch.trace().size() == trace_size);
}

}  // namespace tirc::loops_test
