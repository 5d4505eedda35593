#include "tuner/policy/loop_training.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <unordered_map>

#include "ir/error.h"
#include "schedule/trace.h"
#include "tuner/auto_schedule.h"
#include "tuner/observation.h"
#include "tuner/policy_search.h"
#include "tuner/tune_module.h"

namespace tirc {

struct PolicyMeasurements::PerKernel {
  std::string workload;
  std::unique_ptr<Measurer> measurer;
  std::unordered_map<std::string, double> gflops;  // by candidate key
};

PolicyMeasurements::PolicyMeasurements(PolicyMeasureOptions options, TuningDatabase* db)
    : options_(std::move(options)), db_(db) {
  options_.measure.target = options_.rules.cpu.target;
}

PolicyMeasurements::~PolicyMeasurements() = default;

int64_t PolicyMeasurements::measured() const {
  std::lock_guard lock(mutex_);
  return measured_;
}

int64_t PolicyMeasurements::recalled() const {
  std::lock_guard lock(mutex_);
  return recalled_;
}

double PolicyMeasurements::gflops(const DatasetEntry& kernel, const LoopState& s) {
  std::lock_guard lock(mutex_);
  std::unique_ptr<PerKernel>& k = kernels_[kernel.name];
  if (!k) {
    k = std::make_unique<PerKernel>();
    k->workload = workload_key(kernel.func);
    k->measurer = std::make_unique<Measurer>(kernel.func, options_.measure);
  }
  const std::string target = record_target(options_.rules), cpu = record_cpu(options_.rules);
  const double flops = static_cast<double>(k->measurer->flops());
  auto gflops_of = [&](double seconds, bool usable) {
    return usable && seconds > 0 && flops > 0 ? flops / seconds * 1e-9 : 0.0;
  };
  auto value = [&](const PrimFunc& program, const std::string& trace_json) {
    // The same structural hash keys a kernel and a candidate.
    const std::string candidate = workload_key(program);
    if (auto it = k->gflops.find(candidate); it != k->gflops.end()) {
      ++recalled_;
      return it->second;
    }
    if (db_)
      if (std::optional<TuningRecord> r =
              db_->find_candidate(k->workload, target, cpu, candidate)) {
        ++recalled_;
        return k->gflops[candidate] = gflops_of(r->seconds, std::isfinite(r->seconds));
      }
    Measurement m = k->measurer->measure(program);
    ++measured_;
    const bool usable = m.ok() || m.status == Measurement::Status::cut_off;
    if (db_) {
      TuningRecord r;
      r.workload = k->workload;
      r.target = target;
      r.cpu = cpu;
      r.candidate = candidate;
      r.trace_json = trace_json;
      r.failed = !m.ok();
      r.seconds = usable ? m.seconds : std::numeric_limits<double>::infinity();
      r.gflops = m.ok() ? m.gflops : 0;
      r.strategy = options_.strategy;
      r.note = m.ok() ? "" : to_string(m.status) + ": " + m.message;
      db_->add(r);
    }
    return k->gflops[candidate] = gflops_of(m.seconds, usable);
  };
  // A kernel's untuned nest is valued first: when it is measured (not
  // recalled), it is the result every later program is checked against.
  if (k->measurer->best_seconds() == 0 && k->gflops.empty()) value(kernel.func, Trace().to_json());
  return value(s.program(), s.sch.trace().to_json());
}

LoopState plain_state(const LoopEnv& env, const DatasetEntry& kernel) {
  IRModule m;
  m.add(kernel.name, kernel.func);
  return env.start(Schedule(m), kernel.name);
}

LoopState start_state(const LoopEnv& env, const DatasetEntry& kernel, PolicyStart start,
                      const RuleContext& rules) {
  if (start == PolicyStart::plain) return plain_state(env, kernel);
  IRModule m;
  m.add(kernel.name, kernel.func);
  return env.start(auto_schedule(m, rules).schedule, kernel.name);
}

namespace {

class LoopEpisode final : public RlEpisode {
 public:
  LoopEpisode(const DatasetEntry& kernel, PolicyMeasurements& measurements, const LoopEnv& env,
              PolicyStart start)
      : kernel_(kernel),
        measurements_(measurements),
        env_(env),
        state_(start_state(env, kernel, start, measurements.options().rules)) {
    gflops_ = measurements_.gflops(kernel_, state_);
  }

  std::vector<float> observe(int steps, int length) const override {
    return tirc::observe(state_, env_.options(), steps, length);
  }

  std::vector<bool> legal() const override {
    children_ = env_.children(state_);
    return legal_outputs(*children_);
  }

  bool finished() const override { return stopped_; }

  double act(int action) override {
    if (static_cast<size_t>(action) == policy_stop_index()) {
      stopped_ = true;
      return 0;
    }
    const Action& a = all_actions().at(static_cast<size_t>(action));
    if (!children_) legal();
    for (auto& [b, next] : *children_)
      if (b == a) {
        state_ = std::move(next);
        children_.reset();
        const double before = gflops_;
        gflops_ = measurements_.gflops(kernel_, state_);
        return (gflops_ - before) / measurements_.options().peak_gflops;
      }
    throw Error("the action " + a.name() + " is not legal here (a trainer bug)");
  }

 private:
  const DatasetEntry& kernel_;
  PolicyMeasurements& measurements_;
  const LoopEnv& env_;
  LoopState state_;
  double gflops_ = 0;
  bool stopped_ = false;
  mutable std::optional<std::vector<std::pair<Action, LoopState>>> children_;
};

}  // namespace

LoopTrainingEnv::LoopTrainingEnv(std::vector<DatasetEntry> kernels,
                                 PolicyMeasurements& measurements, EnvOptions env,
                                 PolicyStart start)
    : kernels_(std::move(kernels)), measurements_(measurements), env_(env), start_(start) {
  if (kernels_.empty()) throw Error("training needs at least one kernel");
  if (!(measurements_.options().peak_gflops > 0))
    throw Error("training needs the machine's peak GFLOPS (the reward's scale)");
}

int LoopTrainingEnv::observation_size() const {
  return tirc::observation_size();
}

int LoopTrainingEnv::action_count() const {
  return static_cast<int>(policy_output_names().size());
}

std::unique_ptr<RlEpisode> LoopTrainingEnv::begin(std::mt19937_64& rng) {
  const DatasetEntry& k = kernels_[static_cast<size_t>(rng() % kernels_.size())];
  return std::make_unique<LoopEpisode>(k, measurements_, env_, start_);
}

std::vector<PolicyEvaluation> evaluate_policy(const LoopPolicy& policy,
                                              const std::vector<DatasetEntry>& kernels,
                                              PolicyMeasurements& measurements, EnvOptions env,
                                              int steps, PolicyStart from) {
  const LoopEnv loop_env(env);
  std::vector<PolicyEvaluation> out;
  for (const DatasetEntry& k : kernels) {
    PolicyEvaluation e;
    e.kernel = k.name;
    e.plain_gflops = measurements.gflops(k, plain_state(loop_env, k));
    LoopState start = start_state(loop_env, k, from, measurements.options().rules);
    e.start_gflops = measurements.gflops(k, start);
    const auto t0 = std::chrono::steady_clock::now();
    Rollout r = policy_rollout(loop_env, policy, start, steps);
    e.rollout_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    e.actions = r.actions;
    e.policy_gflops = measurements.gflops(k, r.state);
    out.push_back(std::move(e));
  }
  return out;
}

double geomean_speedup(const std::vector<PolicyEvaluation>& results, bool over_start) {
  double log_sum = 0;
  int n = 0;
  for (const PolicyEvaluation& e : results)
    if (const double base = over_start ? e.start_gflops : e.plain_gflops;
        base > 0 && e.policy_gflops > 0) {
      log_sum += std::log(e.policy_gflops / base);
      ++n;
    }
  return n > 0 ? std::exp(log_sum / n) : 0;
}

}  // namespace tirc
