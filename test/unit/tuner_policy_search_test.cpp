// The policy strategies (tuner/policy_search.h) and the observation a policy
// sees (tuner/observation.h), with hand-made policies: rollouts take only
// legal actions, measure nothing (policy: only start and end), and
// apply_policy schedules only contraction kernels.
#include <catch2/catch.hpp>

#include <cmath>

#include "ir/structural.h"
#include "ir/text/parser.h"
#include "tuner/features.h"
#include "tuner/observation.h"
#include "tuner/policy_search.h"
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
}

TEST_CASE("policy measures the start and the end; policy-beam only what it keeps",
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
    CHECK(calls == 2);
    REQUIRE(task.best());
    const Rollout r = policy_rollout(env, *o.policy, start, 5);
    CHECK(structural_equal(task.best()->program(), r.state.program()));
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

TEST_CASE("apply_policy schedules contraction kernels only", "[tuner][policy]") {
  IRModule m = parse_module(kModule);
  CHECK(is_contraction_kernel(m.at("main")));
  CHECK_FALSE(is_contraction_kernel(m.at("relu")));
  Schedule sch(m);
  FixedPreferencePolicy policy;
  const EnvOptions env{.threads = 2};
  std::vector<std::string> applied = apply_policy(sch, policy, env, 4);
  CHECK(applied == std::vector<std::string>{"main"});
  CHECK(structural_equal(sch.mod().at("relu"), m.at("relu")));
  const LoopEnv loop_env(env);
  const Rollout r = policy_rollout(loop_env, policy, loop_env.start(Schedule(m), "main"), 4);
  CHECK(structural_equal(sch.mod().at("main"), r.state.program()));
  Schedule skipped(m);
  CHECK(apply_policy(skipped, policy, env, 4, {"main"}).empty());
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
}
