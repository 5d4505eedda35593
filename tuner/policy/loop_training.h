// The loop-action environment as a reinforcement-learning environment
// (issue 13): episodes start from a kernel of a dataset as the rules schedule
// it (or from its untuned nest, LoopTune's setting), the reward
// of an action is the GFLOPS it gains divided by the machine's measured peak,
// and every measurement goes through the tuning records, so a program
// measured once (in training, evaluation or search, this run or an earlier
// one) is never measured again.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "tuner/dataset.h"
#include "tuner/env.h"
#include "tuner/measure.h"
#include "tuner/policy/dqn.h"
#include "tuner/records.h"
#include "tuner/space/rules.h"

namespace tirc {

struct PolicyMeasureOptions {
  MeasureOptions measure;                 // the target is taken from rules
  RuleContext rules;                      // the records' keys: target, threads, CPU
  double peak_gflops = 0;                 // the reward's scale (tuner/fma_peak.h)
  std::string strategy = "train-policy";  // the records' strategy column
};

// GFLOPS of kernels' schedules, measured at most once each: one Measurer per
// kernel (its untuned nest measured first, the reference for the result
// check), a cache, and the tuning records when a database is given. One
// measurement runs at a time; safe to call from several threads.
class PolicyMeasurements {
 public:
  PolicyMeasurements(PolicyMeasureOptions options, TuningDatabase* db);
  ~PolicyMeasurements();

  // GFLOPS of the program of s, a schedule of `kernel` (its unscheduled
  // function, named kernel.name in s); 0 when the program failed to compile
  // or run. A cut-off candidate counts with the time of the run that was cut.
  double gflops(const DatasetEntry& kernel, const LoopState& s);

  const PolicyMeasureOptions& options() const { return options_; }
  int64_t measured() const;  // programs timed by this object
  int64_t recalled() const;  // answers from the cache or the records

 private:
  struct PerKernel;
  PolicyMeasureOptions options_;
  TuningDatabase* db_;
  mutable std::mutex mutex_;
  std::map<std::string, std::unique_ptr<PerKernel>> kernels_;
  int64_t measured_ = 0, recalled_ = 0;
};

// Where episodes, evaluations and a policy's rollouts start: the kernel as
// the rules schedule it (tirc's default schedule; the tile actions then move
// the rules' decisions), or its untuned nest.
enum class PolicyStart { rules, plain };

// The untuned state of a kernel: the function alone in a schedule.
LoopState plain_state(const LoopEnv& env, const DatasetEntry& kernel);
// The state a policy starts from: plain_state, or the rules' schedule of the
// same (tuner/auto_schedule.h, decisions from the CPU model of `rules`).
LoopState start_state(const LoopEnv& env, const DatasetEntry& kernel, PolicyStart start,
                      const RuleContext& rules);

class LoopTrainingEnv final : public RlEnvironment {
 public:
  LoopTrainingEnv(std::vector<DatasetEntry> kernels, PolicyMeasurements& measurements,
                  EnvOptions env, PolicyStart start = PolicyStart::rules);
  int observation_size() const override;
  int action_count() const override;
  std::unique_ptr<RlEpisode> begin(std::mt19937_64& rng) override;

 private:
  std::vector<DatasetEntry> kernels_;
  PolicyMeasurements& measurements_;
  LoopEnv env_;
  PolicyStart start_;
};

// A policy's rollout on one kernel, its end measured.
struct PolicyEvaluation {
  std::string kernel;
  double plain_gflops = 0;     // the untuned nest
  double start_gflops = 0;     // where the rollout started (the rules' schedule, or plain)
  double policy_gflops = 0;    // where the rollout ended
  double rollout_seconds = 0;  // the rollout alone (no measurement)
  std::vector<Action> actions;
};

// Rolls the policy out for `steps` actions on each kernel from `start` and
// measures the untuned nest, the start and the result.
std::vector<PolicyEvaluation> evaluate_policy(const LoopPolicy& policy,
                                              const std::vector<DatasetEntry>& kernels,
                                              PolicyMeasurements& measurements, EnvOptions env,
                                              int steps, PolicyStart start = PolicyStart::rules);
// Geometric mean of policy / plain GFLOPS (or policy / start with
// over_start) over the kernels where both are positive (0 when there is none).
double geomean_speedup(const std::vector<PolicyEvaluation>& results, bool over_start = false);

}  // namespace tirc
