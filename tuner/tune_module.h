// Tuning every kernel of a module (what `tirc tune` does) and compiling with
// what was found (`tirc compile|run --db`). Kernels are keyed by the
// structural hash of their unscheduled form, so identical kernels are tuned
// once and a record helps every model that has the kernel.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "schedule/schedule.h"
#include "tuner/measure.h"
#include "tuner/records.h"
#include "tuner/report.h"
#include "tuner/search.h"
#include "tuner/space/rules.h"

namespace tirc {

struct TuneModuleOptions {
  RuleContext rules;  // the target, the CPU model and the threads kernels run on
  std::string strategy = "evolutionary";
  // Wall clock for the whole module (measuring the defaults included),
  // shared among the kernels by their share of the default schedules'
  // latency; time a kernel's search leaves unused goes to the next ones.
  double budget_seconds = 60;
  int max_trials = 1 << 30;  // per kernel
  std::string func;          // only this function (empty: every kernel)
  // Search from the plain nest instead of the rule default (or, when the
  // database has a faster record, from that one).
  bool start_plain = false;
  MeasureOptions measure;    // the target is taken from `rules`
  SearchOptions search;      // budget and trials are set per kernel
};

// What one kernel's tuning did, plus which functions share it.
struct KernelTuneResult {
  KernelTuneSummary summary;
  std::vector<std::string> funcs;  // every function with this workload
  std::string trace;               // the best schedule's script (empty: the default stayed best)
};

// The keys of a tuning record.
std::string workload_key(const PrimFunc& f);  // hex structural hash of the unscheduled kernel
std::string record_target(const RuleContext& rules);  // "x86-64-avx512 threads=2"
std::string record_cpu(const RuleContext& rules);     // the processor's name

// Called while a kernel is tuned: its index among the kernels, how many there
// are, and the search so far.
using TuneProgress = std::function<void(size_t kernel, size_t kernels, const std::string& name,
                                        const TuneTask& task, double budget)>;

// Tunes the kernels of m (not its entry functions), recording every
// measurement in db (when given) and reusing those already there.
std::vector<KernelTuneResult> tune_module(const IRModule& m, const TuneModuleOptions& options,
                                          TuningDatabase* db, const TuneProgress& progress = {});

// Applies to sch the best record db holds, for these rules, of each kernel
// as it is now in sch (a kernel a script changed has another workload).
// Returns the functions it scheduled; a record whose trace does not replay
// is left out, with the reason in `skipped`.
std::vector<std::string> apply_records(Schedule& sch, const TuningDatabase& db,
                                       const RuleContext& rules,
                                       std::vector<std::string>* skipped = nullptr);

}  // namespace tirc
