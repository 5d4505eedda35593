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

// Programs calling transcendental functions are compared within a tolerance:
// the generator's vector math is accurate to a few ulp, not bit-identical to libm.
bool uses_approximate_math(const std::string& text) {
  for (const char* fn : {"T.exp(", "T.log(", "T.tanh(", "T.erf(", "T.sigmoid(", "T.sqrt("})
    if (text.find(fn) != std::string::npos) return true;
  return false;
}

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
  for (const ScheduleCase& c : lit_schedule_cases()) {
    INFO("program " << c.program.string() << ", script " << c.script.string());
    const std::string text = read_text_file(c.program);
    const IRModule original = parse_module(text, c.program.string());
    Schedule sch(original);
    Trace::parse(read_text_file(c.script), c.script.string()).apply_to(sch);
    for (const auto& [name, func] : original.functions()) {
      const PrimFunc& result = sch.mod().at(name);
      // transform_layout of a parameter changes the signature; bind has no
      // CPU meaning (lowering refuses thread-bound loops).
      if (!same_param_shapes(func, result)) continue;
      if (c.program.filename().string().rfind("bind", 0) == 0) continue;
      INFO("function " << name);
      check_all_targets(func, result, !uses_approximate_math(text));
      ++compiled;
    }
  }
  CHECK(compiled >= 40);
}
