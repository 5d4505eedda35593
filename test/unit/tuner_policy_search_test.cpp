// The policy strategies (tuner/policy_search.h) and the observation a policy
// sees (tuner/observation.h), with hand-made policies: rollouts take only
// legal actions, measure nothing (policy: the start and the programs on its
// path, each once), apply_policy schedules only contraction kernels from
// the rules' schedule, and the tile actions move the rules' decisions.
#include <catch2/catch.hpp>

#include <cmath>
#include <set>

#include "ir/structural.h"
#include "ir/text/parser.h"
#include "rule_context_util.h"
#include "tuner/auto_schedule.h"
#include "tuner/features.h"
#include "tuner/observation.h"
#include "tuner/policy_search.h"
#include "tuner/space/tile_decisions.h"
#include "tuner_policy_util.h"

using namespace tirc;
using tirc::test::FixedPreferencePolicy;

namespace {

const char* kModule = R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((16, 8), "float32"), B: T.Buffer((8, 24), "float32"), C: T.Buffer((16, 24), "float32")):
        for i, j, k in T.grid(16, 24, 8):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.float32(0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

    @T.prim_func
    def relu(X: T.Buffer((16, 24), "float32"), Y: T.Buffer((16, 24), "float32")):
        for i, j in T.grid(16, 24):
            with T.block("Y"):
                vi, vj = T.axis.remap("SS", [i, j])
                Y[vi, vj] = T.max(X[vi, vj], T.float32(0))
)";

RuleContext rule_context(int threads) {
  return test::fixed_rules(Isa::avx512, threads);
}

// The function alone in a module, as the rules schedule it.
Schedule rules_schedule(const IRModule& m, const std::string& func, int threads = 1) {
  IRModule single;
  single.add(func, m.at(func));
  return auto_schedule(single, rule_context(threads)).schedule;
}

Measurement counted(const PrimFunc&, int& calls) {
  ++calls;
  Measurement m;
  m.seconds = 1.0 / calls;  // each new program faster than the last
  m.gflops = calls;
  return m;
}

}  // namespace

TEST_CASE("a rollout takes only legal actions and replays", "[tuner][policy]") {
  IRModule m = parse_module(kModule);
  LoopEnv env(EnvOptions{.threads = 2});
  const LoopState start = env.start(Schedule(m), "main");
  // "up" is worth the most but is illegal with the cursor on the outermost
  // loop; "swap_up" too. The rollout must take the best legal one instead.
  FixedPreferencePolicy policy({{"up", 100}, {"swap_up", 90}, {"split_4", 10}, {"down", 5}});
  Rollout r = policy_rollout(env, policy, start, 6);
  REQUIRE(r.actions.size() == 6);
  CHECK(r.actions[0].name() == "split_4");
  LoopState replayed = start;
  for (const Action& a : r.actions) {
    INFO(a.name());
    std::optional<LoopState> next = env.step(replayed, a);
    REQUIRE(next);
    replayed = std::move(*next);
  }
  CHECK(structural_equal(replayed.program(), r.state.program()));
  CHECK(replayed.cursor == r.state.cursor);
  // The same policy from the same state does the same thing.
  CHECK(policy_rollout(env, policy, start, 6).actions == r.actions);
  CHECK(policy_rollout(env, policy, start, 0).actions.empty());
  // Stopping is always legal and ends the rollout: where it is worth more
  // than every action the policy takes none; after an action worth more it
  // stops next.
  CHECK(policy_output_names().back() == "stop");
  CHECK(policy_stop_index() == all_actions().size());
  const Rollout stopped = policy_rollout(env, FixedPreferencePolicy({{"stop", 1}}), start, 6);
  CHECK(stopped.actions.empty());
  CHECK(stopped.path.empty());
  CHECK(structural_equal(stopped.state.program(), start.program()));
  const Rollout one =
      policy_rollout(env, FixedPreferencePolicy({{"stop", 1}, {"split_4", 2}}), start, 6);
  // split_4 applies to the outer part while it is longer than 4, then the
  // policy stops.
  REQUIRE(!one.actions.empty());
  CHECK(one.actions.size() < 6);
  for (const Action& a : one.actions) CHECK(a.name() == "split_4");
}

TEST_CASE("policy measures the start and each program on its path; policy-beam only what it keeps",
          "[tuner][policy]") {
  IRModule m = parse_module(kModule);
  LoopEnv env(EnvOptions{.threads = 2});
  const LoopState start = env.start(Schedule(m), "main");
  int calls = 0;
  SearchOptions o{.max_depth = 5};
  o.policy = std::make_shared<FixedPreferencePolicy>();
  {
    TuneTask task(
        env, [&](const PrimFunc& f) { return counted(f, calls); }, o);
    run_strategy("policy", task, start);
    const Rollout r = policy_rollout(env, *o.policy, start, 5);
    REQUIRE(r.path.size() == r.actions.size());
    std::set<size_t> programs{structural_hash(start.program())};
    for (const LoopState& s : r.path) programs.insert(structural_hash(s.program()));
    CHECK(r.actions.size() == 5);
    CHECK(programs.size() < 1 + r.actions.size());  // "down" moves the cursor only
    CHECK(calls == static_cast<int>(programs.size()));
    // Each new program measures faster than the last: the best is the last new one.
    REQUIRE(task.best());
    CHECK(structural_equal(task.best()->program(), r.state.program()));
  }
  {
    // A policy whose path only gets slower keeps its start.
    calls = 0;
    TuneTask task(
        env,
        [&](const PrimFunc& f) {
          Measurement got = counted(f, calls);
          got.seconds = calls;
          got.gflops = 1.0 / calls;
          return got;
        },
        o);
    run_strategy("policy", task, start);
    REQUIRE(task.best());
    CHECK(structural_equal(task.best()->program(), start.program()));
  }
  calls = 0;
  o.beam_width = 2;
  o.max_depth = 3;
  {
    TuneTask task(
        env, [&](const PrimFunc& f) { return counted(f, calls); }, o);
    run_strategy("policy-beam", task, start);
    CHECK(calls >= 2);
    CHECK(calls <= 1 + 2 * 3);  // the start, then at most the beam per level
  }
  SearchOptions none{.max_depth = 5};
  TuneTask task(
      env, [&](const PrimFunc& f) { return counted(f, calls); }, none);
  CHECK_THROWS_WITH(run_strategy("policy", task, start), Catch::Contains("--policy"));
}

TEST_CASE("apply_policy schedules contraction kernels only, from the rules' schedule",
          "[tuner][policy]") {
  IRModule m = parse_module(kModule);
  CHECK(is_contraction_kernel(m.at("main")));
  CHECK_FALSE(is_contraction_kernel(m.at("relu")));
  for (int threads : {1, 2}) {
    INFO("threads " << threads);
    Schedule sch(m);
    FixedPreferencePolicy policy({{"grow_tile_2", 9}, {"shrink_tile_0", 8}, {"unroll", 3}});
    std::vector<std::string> applied = apply_policy(sch, policy, rule_context(threads), 4);
    CHECK(applied == std::vector<std::string>{"main"});
    CHECK(structural_equal(sch.mod().at("relu"), m.at("relu")));
    const LoopEnv loop_env(EnvOptions{.threads = 1});
    const Rollout r = policy_rollout(loop_env, policy,
                                     loop_env.start(rules_schedule(m, "main", threads), "main"), 4);
    // k (8) is one block already: grow_tile_2 is illegal, the rows shrink.
    CHECK(r.actions.front().name() == "shrink_tile_0");
    CHECK(structural_equal(sch.mod().at("main"), r.state.program()));
    Schedule skipped(m);
    CHECK(apply_policy(skipped, policy, rule_context(threads), 4, {"main"}).empty());
  }
}

TEST_CASE("tile actions move the rules' decisions and replay the trace", "[tuner][policy]") {
  IRModule m = parse_module(kModule);
  const LoopEnv env(EnvOptions{.threads = 1});
  // The untuned nest has no decision to move.
  const LoopState plain = env.start(Schedule(m), "main");
  for (const char* name : {"grow_tile_0", "shrink_tile_0", "grow_tile_2", "shrink_tile_2"})
    CHECK_FALSE(env.step(plain, *parse_action(name)));

  LoopState s = env.start(rules_schedule(m, "main"), "main");
  const std::vector<TileDecision> before = tile_decisions(s.sch.trace());
  REQUIRE(before.size() >= 3);
  s = *env.step(s, *parse_action("down"));
  const int cursor = s.cursor;
  for (int t = 0; t < kTileActions; ++t)
    for (bool grow : {true, false}) {
      const Action a{.kind = grow ? ActionKind::grow_tile : ActionKind::shrink_tile, .tile = t};
      INFO(a.name());
      const TileDecision& d = before[static_cast<size_t>(t)];
      std::optional<std::vector<int64_t>> want = moved_innermost(d, grow);
      std::optional<LoopState> next = env.step(s, a);
      REQUIRE(next.has_value() == want.has_value());
      if (!next) continue;
      // Only that decision changed, to the next divisor of the loop's extent.
      const std::vector<TileDecision> after = tile_decisions(next->sch.trace());
      REQUIRE(after.size() == before.size());
      for (size_t i = 0; i < after.size(); ++i)
        CHECK(after[i].factors == (i == static_cast<size_t>(t) ? *want : before[i].factors));
      CHECK(want->back() != d.factors.back());
      CHECK((want->back() > d.factors.back()) == grow);
      CHECK(d.extent() % want->back() == 0);
      CHECK(next->cursor == cursor);
      CHECK(next->history.back() == a);
      // The new state is the trace replayed: its program is the rules'
      // program with that decision, and the same computation.
      Schedule replayed(m);
      next->sch.trace().apply_to(replayed);
      CHECK(structural_equal(replayed.mod().at("main"), next->program()));
      CHECK_FALSE(structural_equal(next->program(), s.program()));
    }
  // The innermost factor stops at the decision's bound and at 1.
  TileDecision d{.instruction = 0, .factors = {3, 4}, .max_innermost = 6};
  CHECK(moved_innermost(d, true) == std::vector<int64_t>{2, 6});
  d.factors = {2, 6};
  CHECK_FALSE(moved_innermost(d, true));
  CHECK(moved_innermost(d, false) == std::vector<int64_t>{3, 4});
  d.factors = {12, 1};
  CHECK_FALSE(moved_innermost(d, false));
  d.factors = {2, 3, 2};  // three factors: the middle one stays
  d.max_innermost = 0;
  CHECK(moved_innermost(d, true) == std::vector<int64_t>{1, 3, 4});
  CHECK(moved_innermost(d, false) == std::vector<int64_t>{4, 3, 1});
}

TEST_CASE("the observation marks the cursor, the walked loops and the clock", "[tuner][policy]") {
  IRModule m = parse_module(kModule);
  LoopEnv env(EnvOptions{.threads = 1});
  LoopState s = env.start(Schedule(m), "main");
  s = *env.step(s, *parse_action("down"));     // cursor on j
  s = *env.step(s, *parse_action("split_4"));  // j -> j_0 (cursor), j_1
  std::vector<float> o = observe(s, env.options(), 2, 10);
  REQUIRE(o.size() == static_cast<size_t>(observation_size()));
  auto slot = [&](int loop, int field) {
    return o[static_cast<size_t>(loop * kObservedLoopWidth + field)];
  };
  // Loops in pre-order: i, j_0, j_1, k; the cursor on j_0.
  for (int l = 0; l < 4; ++l) {
    INFO("loop " << l);
    CHECK(slot(l, 0) == (l == 1 ? 1.0f : 0.0f));    // cursor
    CHECK(slot(l, kLoopFeatureCount + 3) == 1.0f);  // around the main block
    CHECK(slot(l, kLoopFeatureCount + 0) == 0.0f);  // not vectorized
  }
  CHECK(slot(0, 1) == Approx(std::log2(17.0) / 8));                    // i: size 16, log-scaled
  CHECK(slot(2, 1) == Approx(std::log2(5.0) / 8));                     // j_1: size 4
  for (int l = 4; l < kObservedLoops; ++l) CHECK(slot(l, 1) == 0.0f);  // empty slots
  const float* g = &o[static_cast<size_t>(kObservedLoops * kObservedLoopWidth)];
  CHECK(g[0] == Approx(0.2));  // 2 of 10 steps
  CHECK(g[1] == 0.0f);         // no cache_write yet
  CHECK(g[2] == 0.0f);         // one thread: no parallel action
  s = *env.step(s, *parse_action("cache_write"));
  o = observe(s, EnvOptions{.threads = 4}, 12, 10);
  g = &o[static_cast<size_t>(kObservedLoops * kObservedLoopWidth)];
  CHECK(g[0] == 1.0f);
  CHECK(g[1] == 1.0f);
  CHECK(g[2] == 1.0f);
  for (int t = 0; t < 2 * kTileActions; ++t) CHECK(g[3 + t] == 0.0f);  // no tile decision

  // The rules' tile decisions: innermost then outermost factor, log-scaled.
  const LoopState ruled = env.start(rules_schedule(m, "main"), "main");
  const std::vector<TileDecision> tiles = tile_decisions(ruled.sch.trace());
  REQUIRE(tiles.size() >= static_cast<size_t>(kTileActions));
  o = observe(ruled, env.options(), 0, 10);
  g = &o[static_cast<size_t>(kObservedLoops * kObservedLoopWidth)];
  for (int t = 0; t < kTileActions; ++t) {
    const TileDecision& d = tiles[static_cast<size_t>(t)];
    CHECK(g[3 + 2 * t] == Approx(std::log2(1.0 + static_cast<double>(d.factors.back())) / 8));
    CHECK(g[4 + 2 * t] == Approx(std::log2(1.0 + static_cast<double>(d.factors.front())) / 8));
  }
}
