// Every example program and every result of the lit schedule tests, compiled
// for each target this CPU runs (with and without the contraction emitter),
// run through the JIT and compared with the interpreter.
#include <catch2/catch.hpp>
#include <filesystem>

#include "codegen_test_util.h"
#include "ir/structural.h"
#include "ir/text/parser.h"
#include "lit_schedule_cases.h"
#include "schedule/schedule.h"
#include "schedule/trace.h"

namespace fs = std::filesystem;
using namespace tirc;

namespace {

void check_all_targets(const PrimFunc& reference, const PrimFunc& compiled, bool exact) {
  for (const Target& target : available_targets()) {
    for (bool contraction : {true, false}) {
      GeneratorOptions options;
      options.target = target;
      options.contraction_kernels = contraction;
      INFO("target " << target.name() << (contraction ? "" : ", no contraction kernels"));
      for (uint64_t seed : {1, 2})
        CHECK(compile_and_compare(reference, compiled, options, seed, exact).message == "");
    }
  }
}

}  // namespace

TEST_CASE("every example compiles and matches the interpreter", "[x86][examples]") {
  int functions = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(TIRC_SOURCE_DIR) / "examples")) {
    if (entry.path().extension() != ".tir") continue;
    const std::string text = read_text_file(entry.path());
    const IRModule m = parse_module(text, entry.path().string());
    for (const auto& [name, func] : m.functions()) {
      INFO(entry.path().filename().string() << " function " << name);
      check_all_targets(func, func, !uses_approximate_math(text));
      ++functions;
    }
  }
  CHECK(functions >= 28);
}

TEST_CASE("every lit schedule result compiles and matches the interpreter", "[x86][examples]") {
  int compiled = 0;
  for (const ScheduleResult& r : lit_schedule_results()) {
    INFO(r.what);
    check_all_targets(r.original, r.scheduled, !uses_approximate_math(r.text));
    ++compiled;
  }
  CHECK(compiled >= 40);
}
