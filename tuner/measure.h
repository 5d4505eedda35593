// Measuring a scheduled kernel: compile it with the x86 generator, JIT it, and
// time it on fixed random inputs, best of several runs within a budget. Each
// run happens in a forked worker process, so a candidate that crashes, hangs
// or runs far too long is recorded as failed instead of taking the tuner
// down; its results are checked against the first program measured.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "codegen/x86/target.h"
#include "ir/ndarray.h"
#include "ir/function.h"
#include "tuner/timing.h"

namespace tirc {

struct MeasureOptions {
  Target target;
  // Per candidate: a few runs, about min_seconds, never past max_seconds.
  Budget budget{.min_reps = 3, .min_seconds = 0.02, .max_seconds = 0.3};
  // A candidate whose warm-up run takes longer than cutoff_ratio times the
  // best latency so far is cut off (recorded as slow, not timed further).
  double cutoff_ratio = 10;
  // The worker is killed after this long (a hang, or a kernel far slower than
  // the budget allows for).
  double timeout_seconds = 20;
  // Measure in a forked worker (off only for tests of the measurement itself
  // and for debugging under a debugger).
  bool isolate = true;
  // Compare every candidate's outputs with the first successful candidate's
  // (inputs hold small integers, so a correct schedule agrees bit for bit).
  bool check_results = true;
  uint64_t input_seed = 1;
};

struct Measurement {
  enum class Status { ok, cut_off, compile_error, wrong_result, crashed, timed_out, failed_run };
  Status status = Status::ok;
  double seconds = 0;  // best run (ok), or the run that was cut off
  double gflops = 0;   // count_flops / seconds (ok)
  int reps = 0;
  std::string message;  // why it failed
  bool ok() const { return status == Status::ok; }
};

std::string to_string(Measurement::Status s);

// Measures schedules of one kernel. Inputs are made once from the
// unscheduled function's parameters; every candidate must keep them.
class Measurer {
 public:
  Measurer(const PrimFunc& workload, MeasureOptions options);

  Measurement measure(const PrimFunc& scheduled);

  // Floating-point operations of the workload (count_flops), 0 when unknown.
  int64_t flops() const { return flops_; }
  double best_seconds() const { return best_seconds_; }
  const MeasureOptions& options() const { return options_; }

 private:
  MeasureOptions options_;
  std::vector<NDArray> args_;
  std::vector<NDArray> reference_;  // outputs of the first program that ran
  int64_t flops_ = 0;
  double best_seconds_ = 0;  // 0: none yet
};

}  // namespace tirc
