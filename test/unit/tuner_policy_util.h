// A hand-made loop policy for tests of the policy strategies (no network):
// every action has a fixed value, whatever the state.
#pragma once

#include <map>
#include <string>

#include "tuner/env.h"
#include "tuner/policy_search.h"

namespace tirc::test {

class FixedPreferencePolicy final : public LoopPolicy {
 public:
  // Values by output name (tuner/policy_search.h policy_output_names());
  // actions not named are worth 0, and "stop" -1 unless named.
  explicit FixedPreferencePolicy(std::map<std::string, float> values = {{"parallel", 5},
                                                                        {"split_2", 4},
                                                                        {"unroll", 3},
                                                                        {"down", 2}})
      : values_(std::move(values)) {}
  std::vector<float> q_values(const std::vector<float>&) const override {
    std::vector<float> q;
    for (const std::string& name : policy_output_names()) {
      auto it = values_.find(name);
      q.push_back(it != values_.end() ? it->second : name == "stop" ? -1.0f : 0.0f);
    }
    return q;
  }
  int episode_length() const override { return 10; }

 private:
  std::map<std::string, float> values_;
};

}  // namespace tirc::test
