// What `tirc tune` shows when it is done: a table on the terminal, and with
// --report one self-contained HTML page with the tuning curve of each kernel
// (inline SVG) and the same table.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace tirc {

// The best GFLOPS found after `seconds` of tuning.
struct TuneCurvePoint {
  double seconds;
  double best_gflops;
};

struct KernelTuneSummary {
  std::string kernel;                             // function name
  double default_gflops = 0;                      // the rule default schedule
  double tuned_gflops = 0;                        // the best schedule found
  double default_seconds = 0, tuned_seconds = 0;  // latency of one run
  int trials = 0;                                 // candidates measured
  double tune_seconds = 0;                        // time spent tuning this kernel
  std::string strategy;
  std::vector<TuneCurvePoint> curve;
};

// tuned / default GFLOPS (or default / tuned latency when a GFLOPS figure is
// missing); 0 when neither ratio is a positive finite number.
double tune_speedup(const KernelTuneSummary& k);

// One HTML page with no external resources: `title` (the model or file name)
// and `subtitle` (target and CPU) as the heading, one small plot of best
// GFLOPS against tuning time per kernel, and the table of print_tune_table
// plus latencies and strategy. Every string is HTML-escaped. Curve points
// with a non-finite or negative time or GFLOPS are left out of the plot.
void write_tune_report(std::ostream& out, const std::string& title, const std::string& subtitle,
                       const std::vector<KernelTuneSummary>& kernels);

// The table for the terminal: a header, one line per kernel (default GFLOPS,
// tuned GFLOPS, speedup, trials, tuning time) and a total line with the
// geometric mean speedup, the trials and the time summed. "-" stands for a
// figure that is missing (not a positive finite number).
void print_tune_table(std::ostream& out, const std::vector<KernelTuneSummary>& kernels);

// The vertices of the step-shaped polyline write_tune_report draws for k, in
// data units (seconds, GFLOPS): the valid points sorted by time, each reached
// by a horizontal then a vertical segment (2n - 1 vertices for n points), then
// a last horizontal one to k.tune_seconds when tuning went on after the last
// improvement. Empty when no point is valid. For tests and other renderers.
std::vector<TuneCurvePoint> tune_curve_steps(const KernelTuneSummary& k);

// A point of a learned policy's training (tirc train-policy --report).
struct TrainingCurvePoint {
  double seconds = 0;
  int64_t episodes = 0;
  double mean_return = 0;  // of the last 100 episodes
  // Geomean over the validation kernels of the rollout's end over its start
  // (0: not measured).
  double validation_speedup = 0;
};

// The policy's rollout on one test kernel.
struct PolicyRolloutRow {
  std::string kernel;
  double plain_gflops = 0, start_gflops = 0, policy_gflops = 0;  // start: where it began
  std::string actions;                                           // "split_16 down vectorize ..."
};

// One HTML page: the learning curve (mean return and validation speedup
// against training time, in minutes), its table, and the kept policy's
// action sequence and speedup on each test kernel. Strings are escaped.
void write_training_report(std::ostream& out, const std::string& title, const std::string& subtitle,
                           const std::vector<TrainingCurvePoint>& curve,
                           const std::vector<PolicyRolloutRow>& rollouts);

}  // namespace tirc
