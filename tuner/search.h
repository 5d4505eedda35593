// Search strategies over the loop-action environment, behind one interface:
// each runs until its deadline or candidate budget and leaves the best state
// it measured in the TuneTask. Measurements are cached by the structural hash
// of the scheduled program, so a state reached twice (or a cursor move, which
// changes no program) costs nothing.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "tuner/env.h"
#include "tuner/measure.h"
#include "tuner/space/rules.h"

namespace tirc {

class LoopPolicy;  // tuner/policy_search.h

struct SearchOptions {
  double budget_seconds = 60;  // wall clock for the whole search
  int max_trials = 1 << 30;    // programs measured (cache hits are free)
  int beam_width = 4;          // beam: states kept per level (or expanded per state, depth first)
  int max_depth = 10;          // beam, random: program-changing actions per path
  uint64_t seed = 0;           // random choices
  // Greedy lookahead 2 expands the best few states of the first level only.
  int lookahead_fanout = 4;
  // Evolutionary: programs measured per generation, and the share of them
  // picked at random instead of by the cost model.
  int batch = 8;
  double epsilon = 0.2;
  // Evolutionary: mutate by loop actions too, not only the rules' decisions.
  bool evolve_actions = true;
  // policy, policy-beam: the trained network (tuner/policy_search.h).
  std::shared_ptr<const LoopPolicy> policy = nullptr;
};

// The rule space of one kernel (what the evolutionary search samples and
// mutates): the unscheduled kernel alone in a module, its name, and the
// rules' context (Decisions::Random is set where drawn).
struct RuleSpace {
  IRModule plain;
  std::string func;
  RuleContext rules;
};

// One point of a search's progress: the best so far after `seconds`.
struct SearchPoint {
  double seconds = 0;  // into the search
  int trials = 0;
  double best_gflops = 0;  // 0 when the kernel's flops are unknown
};

// The measurements of one search: the cache, the best state, the deadline
// and the curve. `evaluate` measures a program (a Measurer, or a synthetic
// cost in tests).
class TuneTask {
 public:
  using Evaluate = std::function<Measurement(const PrimFunc&)>;
  using OnMeasured = std::function<void(const LoopState&, const Measurement&, double seconds)>;

  TuneTask(LoopEnv env, Evaluate evaluate, SearchOptions options,
           std::optional<RuleSpace> space = std::nullopt);

  // How fast the state's program is: runs per second (measured, or recalled
  // from the cache; the ranking GFLOPS would give, also for kernels whose
  // flops are unknown); nullopt when it failed or the budget is spent.
  // Moves the best.
  std::optional<double> value(const LoopState& s);
  // A measurement known from elsewhere (the tuning records) for a program.
  void remember(size_t program_hash, const Measurement& m);
  bool done() const;
  double elapsed() const;

  const LoopEnv& env() const { return env_; }
  const SearchOptions& options() const { return options_; }
  const std::optional<RuleSpace>& space() const { return space_; }
  const std::optional<LoopState>& best() const { return best_; }
  double best_gflops() const { return best_gflops_; }
  double best_seconds() const { return best_seconds_; }
  int trials() const { return trials_; }
  int states_seen() const { return states_; }
  const std::vector<SearchPoint>& curve() const { return curve_; }
  // Called after each new measurement (records, progress bars).
  void on_measured(OnMeasured f) { on_measured_ = std::move(f); }

 private:
  LoopEnv env_;
  Evaluate evaluate_;
  SearchOptions options_;
  std::optional<RuleSpace> space_;
  std::chrono::steady_clock::time_point start_;
  std::unordered_map<size_t, Measurement> cache_;
  std::optional<LoopState> best_;
  double best_gflops_ = 0, best_seconds_ = 0;
  int trials_ = 0, states_ = 0;
  std::vector<SearchPoint> curve_;
  OnMeasured on_measured_;
};

// The states one program-changing action away from s, the cursor first moved
// to any loop (cursor moves change no program, so they cost no measurement).
std::vector<LoopState> neighbours(const LoopEnv& env, const LoopState& s);

// The strategies. Each starts from `start` (measured first).
// Greedy: to the best state within `lookahead` (1 or 2) actions while it
// gains; beam: the options.beam_width best states of each level (breadth
// first), or of each state's children (depth first).
void greedy_search(TuneTask& task, const LoopState& start, int lookahead);
void beam_search(TuneTask& task, const LoopState& start, bool depth_first);
void random_search(TuneTask& task, const LoopState& start);  // random walks of max_depth actions
// MetaSchedule's: samples of the rule space (task.space(), required) evolved
// by redrawing one tile decision or taking one loop action, each generation's
// batch chosen by an XGBoost cost model trained on what was measured, with
// an epsilon of random picks.
void evolutionary_search(TuneTask& task, const LoopState& start);

// "greedy", "greedy2" (lookahead 2), "beam", "beam-dfs", "random",
// "evolutionary", "policy", "policy-beam" (names as `tirc tune --strategy`
// takes them; tuner/policy_search.h has the last two). Throws tirc::Error for another name.
void run_strategy(const std::string& name, TuneTask& task, const LoopState& start);
const std::vector<std::string>& strategy_names();

}  // namespace tirc
