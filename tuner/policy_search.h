// Searching with a learned policy (issue 13): the greedy rollout of a
// Q-network, which measures nothing, and a beam search ranked by its
// Q-values that measures only the states it keeps. The network itself lives
// in tuner/policy/ (LibTorch); this side sees it through LoopPolicy.
#pragma once

#include <string>
#include <vector>

#include "tuner/env.h"
#include "tuner/loop_policy.h"
#include "tuner/search.h"

namespace tirc {

// The policy's output that means "stop" (after all_actions()), and the names
// of its outputs in order (what a policy file records).
size_t policy_stop_index();
std::vector<std::string> policy_output_names();
// Which outputs are legal in a state whose legal children (LoopEnv::children)
// these are: their actions, and stop always.
std::vector<bool> legal_outputs(const std::vector<std::pair<Action, LoopState>>& children);

// The index of the legal action with the highest value; -1 when none is
// legal. Illegal actions are never picked, whatever their value.
int best_legal_action(const std::vector<float>& q, const std::vector<bool>& legal);

struct Rollout {
  LoopState state;              // where the policy ended
  std::vector<Action> actions;  // what it took, in order
  std::vector<LoopState> path;  // the state after each action (path.back() is state)
};

// At most `steps` greedy actions of the policy from `start` (fewer when it
// stops, or when no action is legal): no measurement, no search.
Rollout policy_rollout(const LoopEnv& env, const LoopPolicy& policy, const LoopState& start,
                       int steps);

// The strategies "policy" and "policy-beam" (task.options().policy is
// required). policy: the rollout of task.options().max_depth actions, then
// the start and every program on its path measured (each once: cursor moves
// and revisits are free), the best kept: a step the network misjudged costs
// a measurement, never the result.
// policy-beam: from the start, each level keeps the beam_width children of
// the beam with the highest Q-values and measures them, max_depth levels.
void policy_search(TuneTask& task, const LoopState& start);
void policy_beam_search(TuneTask& task, const LoopState& start);

// Whether f's main block (tuner/env.h main_block) is a reduction: the
// kernels a loop policy schedules in a compile.
bool is_contraction_kernel(const PrimFunc& f);

// Schedules every contraction kernel of sch that is not in `skip` with the
// policy's rollout (`steps` actions, no measurement) from the kernel as the
// rules schedule it with `rules` (tuner/auto_schedule.h: parallel already
// when rules.cpu.threads > 1), each kernel's trace then replayed on sch.
// Returns the functions it scheduled.
std::vector<std::string> apply_policy(Schedule& sch, const LoopPolicy& policy,
                                      const RuleContext& rules, int steps,
                                      const std::vector<std::string>& skip = {});

}  // namespace tirc
