#include "tuner/policy_search.h"

#include <algorithm>
#include <set>

#include "ir/error.h"
#include "ir/eval/interpreter.h"
#include "ir/structural.h"
#include "schedule/state.h"
#include "tuner/auto_schedule.h"
#include "tuner/observation.h"

namespace tirc {

size_t policy_stop_index() {
  return all_actions().size();
}

std::vector<std::string> policy_output_names() {
  std::vector<std::string> out;
  for (const Action& a : all_actions()) out.push_back(a.name());
  out.push_back("stop");
  return out;
}

std::vector<bool> legal_outputs(const std::vector<std::pair<Action, LoopState>>& children) {
  std::vector<bool> legal(policy_stop_index() + 1, false);
  for (const auto& [a, next] : children) legal[action_index(a)] = true;
  legal[policy_stop_index()] = true;
  return legal;
}

int best_legal_action(const std::vector<float>& q, const std::vector<bool>& legal) {
  int best = -1;
  for (size_t a = 0; a < q.size() && a < legal.size(); ++a)
    if (legal[a] && (best < 0 || q[a] > q[static_cast<size_t>(best)])) best = static_cast<int>(a);
  return best;
}

namespace {

// The policy's value of every output in s (all_actions() order, then stop),
// the legal children, and which outputs are legal (stop always is).
struct Scored {
  std::vector<float> q;
  std::vector<std::pair<Action, LoopState>> children;
  std::vector<bool> legal;
};

Scored score(const LoopEnv& env, const LoopPolicy& policy, const LoopState& s, int step) {
  Scored out;
  out.q = policy.q_values(observe(s, env.options(), step, policy.episode_length()));
  out.children = env.children(s);
  out.legal = legal_outputs(out.children);
  return out;
}

const LoopPolicy& policy_of(const TuneTask& task) {
  if (!task.options().policy) throw Error("the policy strategies need a policy (--policy FILE)");
  return *task.options().policy;
}

}  // namespace

Rollout policy_rollout(const LoopEnv& env, const LoopPolicy& policy, const LoopState& start,
                       int steps) {
  Rollout r{start, {}, {}};
  for (int step = 0; step < steps; ++step) {
    Scored s = score(env, policy, r.state, step);
    const int pick = best_legal_action(s.q, s.legal);
    if (pick < 0 || static_cast<size_t>(pick) == policy_stop_index()) break;
    for (auto& [a, next] : s.children)
      if (action_index(a) == static_cast<size_t>(pick)) {
        r.actions.push_back(a);
        r.path.push_back(next);
        r.state = std::move(next);
        break;
      }
  }
  return r;
}

void policy_search(TuneTask& task, const LoopState& start) {
  const LoopPolicy& policy = policy_of(task);
  const Rollout r = policy_rollout(task.env(), policy, start, task.options().max_depth);
  task.value(start);
  for (const LoopState& s : r.path)
    if (!task.done()) task.value(s);
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
                                      const RuleContext& rules, int steps,
                                      const std::vector<std::string>& skip) {
  const LoopEnv env(EnvOptions{.threads = 1});
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
    IRModule single;
    single.add(name, f);
    const LoopState start = env.start(auto_schedule(single, rules).schedule, name);
    policy_rollout(env, policy, start, steps).state.sch.trace().apply_to(sch);
    applied.push_back(name);
  }
  return applied;
}

}  // namespace tirc
