// The tuner's strategies on a tiny synthetic space whose best state is known
// by exhaustive enumeration, and the measurement cache.
#include <catch2/catch.hpp>
#include <unordered_set>

#include "ir/functor.h"
#include "ir/structural.h"
#include "ir/text/parser.h"
#include "rule_context_util.h"
#include "schedule/trace.h"
#include "tuner/auto_schedule.h"
#include "tuner/search.h"
#include "tuner_policy_util.h"

using namespace tirc;

namespace {

const char* kMatmul = R"(@T.prim_func
def main(A: T.Buffer((16, 8), "float32"), B: T.Buffer((8, 24), "float32"), C: T.Buffer((16, 24), "float32")):
    for i, j, k in T.grid(16, 24, 8):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)";

// A synthetic "GFLOPS": one point each for a parallel loop, an unrolled
// innermost loop, and a loop of extent 2, plus one; no measurement noise.
// The points add up independently, so even greedy search reaches the top.
Measurement synthetic(const PrimFunc& f) {
  struct Score : StmtVisitor {
    bool parallel = false, two = false, unrolled_inner = false;
    void visit_for(const ForNode* n) override {
      parallel |= n->for_kind == ForKind::Parallel;
      two |= as_const_int(n->extent) == 2;
      bool inner = n->body->kind != StmtKind::For;
      unrolled_inner |= inner && n->for_kind == ForKind::Unrolled;
      StmtVisitor::visit_for(n);
    }
  } s;
  s.visit(f->body);
  Measurement m;
  m.gflops = 1 + s.parallel + s.two + s.unrolled_inner;
  m.seconds = 1 / m.gflops;
  return m;
}

// The best synthetic value within `depth` program-changing actions.
double exhaustive_best(const LoopEnv& env, const LoopState& start, int depth) {
  double best = synthetic(start.program()).gflops;
  std::vector<LoopState> level{start};
  std::unordered_set<size_t> seen{structural_hash(start.program())};
  for (int d = 0; d < depth; ++d) {
    std::vector<LoopState> next;
    for (const LoopState& s : level)
      for (LoopState& n : neighbours(env, s))
        if (seen.insert(structural_hash(n.program())).second) {
          best = std::max(best, synthetic(n.program()).gflops);
          next.push_back(std::move(n));
        }
    level = std::move(next);
  }
  return best;
}

}  // namespace

TEST_CASE("every strategy finds the known best of a small synthetic space", "[tuner][search]") {
  IRModule m = parse_module(kMatmul);
  LoopEnv env(EnvOptions{.threads = 2});
  LoopState start = env.start(Schedule(m), "main");
  const double best = exhaustive_best(env, start, 3);
  CHECK(best == 4);
  for (const std::string& name : strategy_names()) {
    if (name == "evolutionary") continue;  // its space is the rules' (below)
    // A policy does not search: tuner_policy_search_test.cpp has its tests.
    if (name.rfind("policy", 0) == 0) continue;
    INFO("strategy " << name);
    // Random walks need the most trials: a few hundred programs of this
    // space, drawn at random, miss its best for some seeds.
    TuneTask task(env, synthetic,
                  SearchOptions{.budget_seconds = 20, .max_trials = 2000, .max_depth = 3});
    run_strategy(name, task, start);
    CHECK(task.best_gflops() == best);
    REQUIRE(task.best());
    CHECK(synthetic(task.best()->program()).gflops == best);
    CHECK(task.trials() > 0);
    CHECK(!task.curve().empty());
    CHECK(task.curve().back().best_gflops == best);
  }
  CHECK_THROWS_WITH(
      [&] {
        TuneTask task(env, synthetic, SearchOptions{});
        run_strategy("annealing", task, start);
      }(),
      Catch::Contains("unknown strategy 'annealing'"));
}

TEST_CASE("a program measured once is never measured again", "[tuner][search]") {
  IRModule m = parse_module(kMatmul);
  LoopEnv env(EnvOptions{.threads = 2});
  LoopState start = env.start(Schedule(m), "main");
  int calls = 0;
  TuneTask task(
      env,
      [&](const PrimFunc& f) {
        ++calls;
        return synthetic(f);
      },
      SearchOptions{});
  CHECK(task.value(start) == Approx(1.0));
  CHECK(task.value(*env.step(start, *parse_action("down"))) == Approx(1.0));  // the same program
  CHECK(calls == 1);
  CHECK(task.trials() == 1);
  CHECK(task.states_seen() == 2);
}

TEST_CASE("a search stops at its candidate budget and its deadline", "[tuner][search]") {
  IRModule m = parse_module(kMatmul);
  LoopEnv env(EnvOptions{.threads = 2});
  LoopState start = env.start(Schedule(m), "main");
  RuleContext rules;
  rules.cpu = parse_cpu_model("threads=2", CpuModel{});
  const RuleSpace space{m, "main", rules};
  for (const std::string& name : strategy_names()) {
    SearchOptions by_trials_options{.max_trials = 5, .max_depth = 6};
    by_trials_options.policy = std::make_shared<test::FixedPreferencePolicy>();
    TuneTask by_trials(env, synthetic, by_trials_options, space);
    run_strategy(name, by_trials, start);
    CHECK(by_trials.trials() <= 5);
    SearchOptions by_time_options{.budget_seconds = 0};
    by_time_options.policy = by_trials_options.policy;
    TuneTask by_time(env, synthetic, by_time_options, space);
    run_strategy(name, by_time, start);
    CHECK(by_time.trials() == 0);
  }
}

namespace {

// One point per loop of extent 4: the rules' tile decisions decide how many.
Measurement fours(const PrimFunc& f) {
  struct Count : StmtVisitor {
    int n = 0;
    void visit_for(const ForNode* l) override {
      n += as_const_int(l->extent) == 4;
      StmtVisitor::visit_for(l);
    }
  } c;
  c.visit(f->body);
  Measurement m;
  m.gflops = 1 + c.n;
  m.seconds = 1 / m.gflops;
  return m;
}

// Every combination of the trace's tile decisions, replayed: the best value.
double best_over_decisions(const IRModule& plain, const Trace& t, size_t from, Trace prefix) {
  if (from == t.instructions().size()) {
    Schedule sch(plain);
    try {
      prefix.apply_to(sch);
    } catch (const Error&) {
      return 0;
    }
    return fours(sch.mod().at("main")).gflops;
  }
  Instruction inst = t.instructions()[from];
  if (inst.kind != "sample_perfect_tile") {
    prefix.append(inst);
    return best_over_decisions(plain, t, from + 1, prefix);
  }
  int64_t product = 1, n = 0, limit = 0;
  for (auto& [k, v] : inst.keywords) {
    if (k == "decision")
      for (const TraceValue& x : std::get<TraceList>(v.v)) product *= std::get<int64_t>(x.v), ++n;
    if (k == "max_innermost_factor") limit = std::get<int64_t>(v.v);
  }
  REQUIRE(n == 2);
  double best = 0;
  for (int64_t inner = 1; inner <= product; ++inner) {
    if (product % inner || (limit > 0 && inner > limit)) continue;
    for (auto& [k, v] : inst.keywords)
      if (k == "decision")
        v = TraceValue(TraceList{TraceValue(product / inner), TraceValue(inner)});
    Trace next = prefix;
    next.append(inst);
    best = std::max(best, best_over_decisions(plain, t, from + 1, next));
  }
  return best;
}

}  // namespace

TEST_CASE("evolutionary search finds the best of the rule space's decisions", "[tuner][search]") {
  IRModule m = parse_module(kMatmul);
  const RuleContext rules = test::fixed_rules(Isa::avx2, 2);
  Schedule defaults = auto_schedule(m, rules).schedule;
  // The rules' structure depends on some decisions: the decisions of many
  // random draws, each combination replayed.
  double best = best_over_decisions(m, defaults.trace(), 0, Trace());
  RuleContext random = rules;
  random.decisions = Decisions::Random;
  for (uint64_t seed = 1; seed <= 40; ++seed)
    best = std::max(best, best_over_decisions(
                              m, auto_schedule(m, random, {}, seed).schedule.trace(), 0, Trace()));
  CHECK(best > fours(defaults.mod().at("main")).gflops);  // the default is not the best here
  LoopEnv env(EnvOptions{.threads = 2});
  TuneTask task(env, fours,
                // Seed 0 reaches the best within 60 trials.
                SearchOptions{.budget_seconds = 20, .max_trials = 100, .evolve_actions = false},
                RuleSpace{m, "main", rules});
  run_strategy("evolutionary", task, env.start(defaults, "main"));
  CHECK(task.best_gflops() == best);

  TuneTask no_space(env, fours, SearchOptions{});
  CHECK_THROWS_WITH(run_strategy("evolutionary", no_space, env.start(defaults, "main")),
                    Catch::Contains("needs the kernel's rule space"));
}
