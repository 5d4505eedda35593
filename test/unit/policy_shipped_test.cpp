// The policy shipped in policies/: it loads, and its rollouts on random
// matmul and conv nests (shapes it never saw), from the rules' schedule (as
// tirc runs it) and from the untuned nest, give states that verify, replay,
// equal the interpreter and compile to code that agrees.
#include <catch2/catch.hpp>

#include <random>

#include "env_int.h"
#include "loop_state_check.h"
#include "rule_context_util.h"
#include "tuner/dataset.h"
#include "tuner/policy/loop_training.h"
#include "tuner/policy/q_network.h"

using namespace tirc;

TEST_CASE("the shipped policy's rollouts on random nests are sound", "[policy][shipped]") {
  const std::string path = std::string(TIRC_SOURCE_DIR) + "/policies/x86-64-avx512-loops.pt";
  PolicyInfo info;
  std::unique_ptr<QNetwork> policy = load_q_network(path, &info);
  CHECK(info.episode_length == policy->episode_length());
  CHECK(info.command.rfind("tirc train-policy", 0) == 0);

  // TIRC_POLICY_NESTS raises the count for a long run.
  const int nests = test::env_int("TIRC_POLICY_NESTS", 8);
  std::mt19937_64 rng(17);
  auto pick = [&](std::initializer_list<int64_t> from) {
    return *(from.begin() + static_cast<std::ptrdiff_t>(rng() % from.size()));
  };
  std::vector<PrimFunc> funcs;
  for (int i = 0; i < nests; ++i) {
    funcs.push_back(matmul_func(
        MatmulShape{pick({8, 12, 16, 24, 40}), pick({8, 16, 20, 32, 48}), pick({4, 8, 12, 32})}));
    funcs.push_back(
        conv_func(ConvShape{pick({2, 4, 8}), pick({4, 8, 16}), pick({4, 6, 7}), pick({1, 3}),
                            i % 2 ? ConvLayout::Nhwc : ConvLayout::Nchw}));
  }
  const LoopEnv env(EnvOptions{.threads = 1});
  const RuleContext rules = test::fixed_rules(Isa::avx512, 1);
  int states = 0;
  for (size_t i = 0; i < funcs.size(); ++i) {
    const PrimFunc& f = funcs[i];
    IRModule m;
    m.add("main", f);
    const PolicyStart from = i % 3 == 2 ? PolicyStart::plain : PolicyStart::rules;
    const LoopState start = start_state(env, DatasetEntry{.name = "main", .func = f}, from, rules);
    const Rollout r = policy_rollout(env, *policy, start, policy->episode_length());
    CHECK(r.actions.size() <= static_cast<size_t>(policy->episode_length()));  // it may stop
    LoopState s = start;
    for (const Action& a : r.actions) {
      std::optional<LoopState> next = env.step(s, a);
      REQUIRE(next);
      s = std::move(*next);
      if (!a.changes_program()) continue;
      test::check_state(m, s, a.name());
      ++states;
    }
  }
  CHECK(states > 0);
}
