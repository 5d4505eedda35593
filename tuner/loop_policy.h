// What a learned loop policy is to the search (tuner/policy_search.h): the
// values of the actions in a state. Apart from the search's headers, and in
// C++17, because the LibTorch module (tuner/policy/torch/) implements it and
// LibTorch 1.13's headers do not compile as C++20 under clang.
#pragma once

#include <vector>

namespace tirc {

// A trained policy: the value of each action (all_actions() order) in a
// state, from its observation (tuner/observation.h), then the value of
// stopping (policy_stop_index()): the rollout ends there. Stopping gains
// nothing and so is worth 0: a greedy policy stops where it values every
// action below that, instead of having to keep moving (LoopTune's agent has
// no such action).
class LoopPolicy {
 public:
  virtual ~LoopPolicy() = default;
  virtual std::vector<float> q_values(const std::vector<float>& observation) const = 0;
  // The actions per episode it was trained with (the observation's clock).
  virtual int episode_length() const = 0;
};

}  // namespace tirc
