// Tuning a module's kernels into the records and compiling from them:
// identical kernels tuned once, every record applied where its workload is.
#include <catch2/catch.hpp>
#include <filesystem>

#include "codegen_test_util.h"
#include "ir/structural.h"
#include "ir/text/parser.h"
#include "schedule/trace.h"
#include "tuner/tune_module.h"

using namespace tirc;

namespace {

// Two identical kernels under different names, and a different one.
const char* kModule = R"(@I.ir_module
class Module:
    @T.prim_func
    def a(A: T.Buffer((32, 32), "float32"), B: T.Buffer((32, 32), "float32"), C: T.Buffer((32, 32), "float32")):
        for i, j, k in T.grid(32, 32, 32):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.float32(0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

    @T.prim_func
    def b(A: T.Buffer((32, 32), "float32"), B: T.Buffer((32, 32), "float32"), C: T.Buffer((32, 32), "float32")):
        for i, j, k in T.grid(32, 32, 32):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.float32(0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

    @T.prim_func
    def relu(A: T.Buffer((64, 48), "float32"), B: T.Buffer((64, 48), "float32")):
        for i, j in T.grid(64, 48):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = T.max(A[vi, vj], T.float32(0))
)";

std::string temp_db(const std::string& name) {
  auto p = std::filesystem::temp_directory_path() /
           ("tirc_tune_module_" + std::to_string(::getpid()) + "_" + name + ".db");
  std::filesystem::remove(p);
  return p.string();
}

}  // namespace

TEST_CASE("tune_module tunes identical kernels once and compiles from the records",
          "[tuner][tune_module]") {
  if (available_targets().empty()) return;
  IRModule m = parse_module(kModule);
  TuneModuleOptions o;
  o.rules.cpu = host_cpu_model(available_targets()[0]);
  o.strategy = "random";
  o.budget_seconds = 2;
  o.max_trials = 5;
  o.measure.budget = Budget{.min_reps = 2, .max_seconds = 0.02};
  const std::string path = temp_db("a");
  {
    TuningDatabase db(path);
    std::vector<KernelTuneResult> r = tune_module(m, o, &db);
    REQUIRE(r.size() == 2);
    CHECK(r[0].funcs == std::vector<std::string>{"a", "b"});
    CHECK(r[1].funcs == std::vector<std::string>{"relu"});
    for (const KernelTuneResult& k : r) {
      CHECK(k.summary.trials <= 5);
      CHECK(k.summary.default_gflops > 0);
      CHECK(k.summary.tuned_gflops >= k.summary.default_gflops);
    }
    // The plain nest and the default are records as well as what was tried.
    CHECK(db.records(workload_key(m.at("a")), record_target(o.rules), record_cpu(o.rules)).size() >=
          2);
    CHECK(db.best(workload_key(m.at("relu")), record_target(o.rules), record_cpu(o.rules)));
  }
  TuningDatabase db(path);
  Schedule sch(m);
  std::vector<std::string> skipped;
  std::vector<std::string> applied = apply_records(sch, db, o.rules, &skipped);
  CHECK(applied == std::vector<std::string>{"a", "b", "relu"});
  CHECK(skipped.empty());
  for (const auto& [name, f] : m.functions()) {
    INFO(name);
    CHECK(check_equivalent(f, sch.mod().at(name), EquivOptions{}).equal);
    GeneratorOptions gen;
    gen.target = o.rules.cpu.target;
    CHECK(compile_and_compare(f, sch.mod().at(name), gen, 1, true).message.empty());
  }
  // Another target or thread count has no records.
  RuleContext other = o.rules;
  other.cpu.threads += 1;
  Schedule untouched(m);
  CHECK(apply_records(untouched, db, other).empty());
  std::filesystem::remove(path);
}

TEST_CASE("tune_module refuses a function it does not have", "[tuner][tune_module]") {
  TuneModuleOptions o;
  o.func = "nope";
  CHECK_THROWS_WITH(tune_module(parse_module(kModule), o, nullptr),
                    Catch::Contains("no kernel named 'nope'"));
}

TEST_CASE("a record whose trace no longer replays is skipped with its reason",
          "[tuner][tune_module]") {
  IRModule m = parse_module(kModule);
  RuleContext rules;
  rules.cpu = parse_cpu_model("threads=2", CpuModel{});
  const std::string path = temp_db("stale");
  TuningDatabase db(path);
  Trace stale = Trace::parse("b0 = sch.get_block(name=\"no_such_block\", func_name=\"relu\")\n");
  TuningRecord r;
  r.workload = workload_key(m.at("relu"));
  r.target = record_target(rules);
  r.cpu = record_cpu(rules);
  r.candidate = "0";
  r.trace_json = stale.to_json();
  r.seconds = 1e-6;
  db.add(r);
  Schedule sch(m);
  std::vector<std::string> skipped;
  CHECK(apply_records(sch, db, rules, &skipped).empty());
  REQUIRE(skipped.size() == 1);
  CHECK(skipped[0].find("relu: ") == 0);
  CHECK(skipped[0].find("no_such_block") != std::string::npos);
  CHECK(structural_equal(sch.mod().at("relu"), m.at("relu")));  // left as it was
  std::filesystem::remove(path);
}
