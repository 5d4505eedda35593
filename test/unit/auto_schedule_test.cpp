// The default schedules (tuner/auto_schedule.h) and random decisions inside
// the same rule space, on the example kernels: every result verifies, is
// equivalent to the plain nest in the race-checking interpreter, and compiles
// on every x86 target this CPU runs to code that equals the interpreter.
// TIRC_AUTO_RANDOM sets the random schedules per program (default 4).
#include <catch2/catch.hpp>
#include <cstdlib>

#include "codegen_test_util.h"
#include "ir/text/parser.h"
#include "ir/verify.h"
#include "tuner/auto_schedule.h"

using namespace tirc;

namespace {

const char* kPrograms[] = {"matmul.tir",   "batch_matmul.tir", "elementwise_chain.tir",
                           "softmax.tir",  "layer_norm.tir",   "bias_add.tir",
                           "transpose.tir", "sum_rows.tir",    "conv2d_nchw.tir",
                           "max_pool2d.tir", "gelu.tir",       "broadcast_add.tir"};

RuleContext context(Isa isa, Decisions decisions) {
  RuleContext cx;
  CpuModel base;
  base.target = Target{isa};
  cx.cpu = parse_cpu_model("l1d=32K,l2=1M,l3=32M,threads=2", base);
  cx.decisions = decisions;
  return cx;
}

// The scheduled module verifies, equals the original (races checked) and
// compiles to code equal to the interpreter.
void check(const IRModule& original, const AutoScheduleResult& r, const std::string& what) {
  INFO(what << "\ntrace:\n" << r.schedule.trace().print());
  std::vector<Diagnostic> diags = verify(r.schedule.mod());
  for (const Diagnostic& d : diags) INFO(d.message);
  CHECK(diags.empty());
  for (const auto& [name, f] : original.functions()) {
    const PrimFunc& scheduled = r.schedule.mod().at(name);
    EquivResult eq = check_equivalent(f, scheduled, EquivOptions{});
    INFO(eq.message);
    CHECK(eq.equal);
    for (const Target& t : available_targets()) {
      GeneratorOptions gen;
      gen.target = t;
      // Within 1e-4: vectorized exp/erf are approximations with documented
      // bounds (codegen/x86/math.h), not the interpreter's libm.
      CodegenCheck c = compile_and_compare(f, scheduled, gen, 7, false);
      INFO(t.name() << ": " << c.message);
      CHECK(c.message.empty());
    }
  }
}

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v ? std::atoi(v) : fallback;
}

}  // namespace

TEST_CASE("default schedules of the example kernels are sound and compile", "[tuner][auto]") {
  for (const char* file : kPrograms) {
    IRModule m = parse_module(read_example(file), file);
    for (Isa isa : {Isa::avx512, Isa::avx2}) {
      AutoScheduleResult r = auto_schedule(m, context(isa, Decisions::Model));
      check(m, r, std::string(file) + " " + Target{isa}.name());
    }
  }
}

TEST_CASE("matmul gets the register-tiled contraction schedule", "[tuner][auto]") {
  IRModule m = parse_module(read_example("matmul.tir"), "matmul.tir");
  AutoScheduleResult r = auto_schedule(m, context(Isa::avx512, Decisions::Model));
  REQUIRE(r.blocks.size() == 1);
  CHECK(r.blocks[0].rule == "tile-contraction");
  const std::string trace = r.schedule.trace().print();
  CHECK(trace.find("sch.sample_perfect_tile(") != std::string::npos);
  CHECK(trace.find("sch.decompose_reduction(") != std::string::npos);
  CHECK(trace.find("sch.parallel(") != std::string::npos);
  // Deterministic: the same input and model give the same schedule.
  AutoScheduleResult again = auto_schedule(m, context(Isa::avx512, Decisions::Model));
  CHECK(again.schedule.trace().print() == trace);
  // The tiled nest goes through the contraction emitter.
  GeneratorOptions gen;
  gen.target = Target{Isa::avx512};
  GeneratorStats stats;
  generate_x86({{"k", lower(r.schedule.mod().at("main"))}}, gen, &stats);
  CHECK(stats.contraction_nests == 1);
}

TEST_CASE("random decisions inside the rule space are sound and compile", "[tuner][auto][random]") {
  const int per_program = env_int("TIRC_AUTO_RANDOM", 4);
  for (const char* file : kPrograms) {
    IRModule m = parse_module(read_example(file), file);
    for (int s = 0; s < per_program; ++s) {
      RuleContext cx = context(s % 2 ? Isa::avx2 : Isa::avx512, Decisions::Random);
      // The schedule's generator draws the decisions: one seed per schedule.
      AutoScheduleResult r = auto_schedule(m, cx, {}, static_cast<uint64_t>(s + 1));
      check(m, r, std::string(file) + " seed " + std::to_string(s + 1));
    }
  }
}
