// The LLVM generator against the interpreter: every example and lit schedule
// result on x86-64 (run here) and AArch64 (run under qemu-aarch64), the
// semantics the C generator pins down, the ABI, and its refusals.
#include <catch2/catch.hpp>
#include <filesystem>

#include "ir/text/parser.h"
#include "lit_schedule_cases.h"
#include "llvm_test_util.h"
#include "schedule/schedule.h"
#include "schedule/trace.h"
#include "semantics_programs.h"

namespace fs = std::filesystem;
using namespace tirc;
using namespace tirc::test;

namespace {

// AArch64 is checked under emulation where the cross tools are installed
// (cmake/install-deps.sh installs them); without them the test says so.
std::vector<LlvmTarget> targets_or_skip_note() {
  std::vector<LlvmTarget> out = runnable_llvm_targets();
  if (!have_aarch64_tools())
    std::cout << "note: aarch64-linux-gnu-gcc or qemu-aarch64 missing: AArch64 not run\n";
  return out;
}

void check_targets(const PrimFunc& reference, const PrimFunc& compiled, bool exact,
                   const std::vector<LlvmTarget>& targets) {
  for (const LlvmTarget& t : targets) {
    INFO("target " << t.name() << " cpu " << t.cpu);
    CHECK(llvm_compile_and_compare(reference, compiled, t, 1, exact).message == "");
  }
}

PrimFunc parse_main(const std::string& body_text) {
  return parse_module("# from tvm.script import tir as T\n\n@T.prim_func\n" + body_text)
      .functions()
      .front()
      .second;
}

}  // namespace

TEST_CASE("LLVM: every example compiles and matches the interpreter", "[llvm][examples]") {
  const std::vector<LlvmTarget> targets = targets_or_skip_note();
  if (targets.empty()) TIRC_SKIP("no LLVM target runs here");
  int functions = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(TIRC_SOURCE_DIR) / "examples")) {
    if (entry.path().extension() != ".tir") continue;
    const std::string text = read_text_file(entry.path());
    const IRModule m = parse_module(text, entry.path().string());
    for (const auto& [name, func] : m.functions()) {
      INFO(entry.path().filename().string() << " function " << name);
      check_targets(func, func, !uses_approximate_math(text), targets);
      ++functions;
    }
  }
  CHECK(functions >= 28);
}

TEST_CASE("LLVM: every lit schedule result compiles and matches the interpreter",
          "[llvm][examples]") {
  const std::vector<LlvmTarget> targets = targets_or_skip_note();
  if (targets.empty()) TIRC_SKIP("no LLVM target runs here");
  int compiled = 0;
  for (const ScheduleResult& r : lit_schedule_results()) {
    INFO(r.what);
    check_targets(r.original, r.scheduled, !uses_approximate_math(r.text), targets);
    ++compiled;
  }
  CHECK(compiled >= 40);
}

TEST_CASE("LLVM: integer division, narrow integers, casts and float16", "[llvm]") {
  const std::vector<LlvmTarget> targets = targets_or_skip_note();
  if (targets.empty()) TIRC_SKIP("no LLVM target runs here");
  for (
      const char* text : {
          kIntegerDivisionProgram,
          kNarrowIntegerProgram,
          kFloat32ArithmeticProgram,
          R"(def main(A: T.Buffer((64,), "float16"), B: T.Buffer((64,), "float16"), C: T.Buffer((64,), "float16"), D: T.Buffer((64,), "bfloat16")):
    for i in range(64):
        C[i] = A[i] + B[i] * T.float16(0.1) + T.floor(A[i] * T.float16(0.7))
        D[i] = T.Cast("bfloat16", A[i] * T.float16(1.37)) / T.bfloat16(3)
)",
      }) {
    INFO(text);
    const PrimFunc f = parse_main(text);
    check_targets(f, f, true, targets);
  }
}
