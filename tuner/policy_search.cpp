#include "tuner/policy_search.h"

#include <algorithm>
#include <set>

#include "ir/error.h"
#include "ir/eval/interpreter.h"
#include "ir/structural.h"
#include "schedule/state.h"
#include "tuner/observation.h"

namespace tirc {

int best_legal_action(const std::vector<float>& q, const std::vector<bool>& legal) {
  int best = -1;
  for (size_t a = 0; a < q.size() && a < legal.size(); ++a)
    if (legal[a] && (best < 0 || q[a] > q[static_cast<size_t>(best)])) best = static_cast<int>(a);
  return best;
}

namespace {

// The policy's value of every action in s (all_actions() order), the legal
// children, and which actions are legal.
struct Scored {
  std::vector<float> q;
  std::vector<std::pair<Action, LoopState>> children;
  std::vector<bool> legal;
};

Scored score(const LoopEnv& env, const LoopPolicy& policy, const LoopState& s, int step) {
  Scored out;
  out.q = policy.q_values(observe(s, env.options(), step, policy.episode_length()));
  out.children = env.children(s);
  out.legal.assign(all_actions().size(), false);
  for (const auto& [a, next] : out.children) out.legal[action_index(a)] = true;
  return out;
}

const LoopPolicy& policy_of(const TuneTask& task) {
  if (!task.options().policy) throw Error("the policy strategies need a policy (--policy FILE)");
  return *task.options().policy;
}

}  // namespace

Rollout policy_rollout(const LoopEnv& env, const LoopPolicy& policy, const LoopState& start,
                       int steps) {
  Rollout r{start, {}};
  for (int step = 0; step < steps; ++step) {
    Scored s = score(env, policy, r.state, step);
    const int pick = best_legal_action(s.q, s.legal);
    if (pick < 0) break;
    for (auto& [a, next] : s.children)
      if (action_index(a) == static_cast<size_t>(pick)) {
        r.actions.push_back(a);
        r.state = std::move(next);
        break;
      }
  }
  return r;
}

void policy_search(TuneTask& task, const LoopState& start) {
  const LoopPolicy& policy = policy_of(task);
  task.value(start);
  task.value(policy_rollout(task.env(), policy, start, task.options().max_depth).state);
}

void policy_beam_search(TuneTask& task, const LoopState& start) {
  const LoopPolicy& policy = policy_of(task);
  const size_t width = static_cast<size_t>(std::max(1, task.options().beam_width));
  task.value(start);
  std::vector<LoopState> beam{start};
  for (int depth = 0; depth < task.options().max_depth && !beam.empty() && !task.done(); ++depth) {
    std::vector<std::pair<float, LoopState>> ranked;
    for (const LoopState& s : beam) {
      Scored sc = score(task.env(), policy, s, depth);
      for (auto& [a, next] : sc.children)
        ranked.emplace_back(sc.q[action_index(a)], std::move(next));
    }
    std::stable_sort(ranked.begin(), ranked.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    // The same program with the cursor in the same place is one state.
    std::set<std::pair<size_t, int>> kept;
    beam.clear();
    for (auto& [q, s] : ranked) {
      if (beam.size() >= width) break;
      if (!kept.emplace(structural_hash(s.program()), s.cursor).second) continue;
      task.value(s);
      beam.push_back(std::move(s));
    }
  }
}

bool is_contraction_kernel(const PrimFunc& f) {
  const std::string name = main_block(f);
  for (const BlockRealizeNode* r : collect_blocks(f->body))
    if (r->block->name == name)
      for (const IterVar& iv : r->block->iter_vars)
        if (iv.kind == IterKind::Reduce) return true;
  return false;
}

std::vector<std::string> apply_policy(Schedule& sch, const LoopPolicy& policy,
                                      const EnvOptions& env, int steps,
                                      const std::vector<std::string>& skip, int threads) {
  const LoopEnv loop_env(env);
  EnvOptions parallel_options = env;
  parallel_options.threads = std::max(threads, env.threads);
  const LoopEnv parallel_env(parallel_options);
  std::vector<std::string> applied;
  const IRModule original = sch.mod();
  for (const auto& [name, f] : original.functions()) {
    if (needs_module(f) || std::find(skip.begin(), skip.end(), name) != skip.end()) continue;
    bool contraction = false;
    try {
      contraction = is_contraction_kernel(f);
    } catch (const Error&) {
      continue;  // no block at all
    }
    if (!contraction) continue;
    LoopState end = policy_rollout(loop_env, policy, loop_env.start(sch, name), steps).state;
    if (threads > 1 && env.threads <= 1)
      if (std::optional<LoopState> par = parallel_env.step(end, Action{ActionKind::parallel}))
        end = std::move(*par);
    sch = std::move(end.sch);
    applied.push_back(name);
  }
  return applied;
}

}  // namespace tirc
