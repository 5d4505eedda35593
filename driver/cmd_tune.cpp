// tirc tune: measure schedules of every kernel of a .tir module or an ONNX
// model and keep the best in a tuning database that `tirc compile|run --db`
// (and tirc_add_model's TUNE_DB) then use.
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

#include "codegen/llvm/generator.h"
#include "driver/commands.h"
#include "driver/model_flags.h"
#include "driver/policy_flags.h"
#include "driver/schedule_flags.h"
#include "driver/session.h"
#include "tuner/fma_peak.h"
#include "tuner/tune_module.h"

namespace tirc::driver {

namespace {

struct TuneOptions {
  ModelOptions model;
  std::string file;
  std::string db;
  std::string budget = "60s";
  std::string strategy = "evolutionary";
  std::string func;
  std::string report;
  std::string target;
  std::string cpu_model;
  std::string start = "default";  // default (the rules' schedule) or plain
  std::string policy;
  int trials = 0;
  int threads = 0;
  int beam_width = 4;
  int depth = 10;
  uint64_t seed = 0;
};

// A one-line progress display on a terminal; nothing when stderr is not one.
class ProgressLine {
 public:
  ProgressLine() : tty_(::isatty(STDERR_FILENO) != 0) {}
  ~ProgressLine() { clear(); }
  void show(size_t kernel, size_t kernels, const std::string& name, const TuneTask& task,
            double budget) {
    if (!tty_) return;
    auto now = std::chrono::steady_clock::now();
    if (shown_ && now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    shown_ = true;
    std::fprintf(stderr, "\r\033[K[%zu/%zu] %s: %d trials, best %.1f GFLOPS, %.1f/%.1f s",
                 kernel + 1, kernels, name.c_str(), task.trials(), task.best_gflops(),
                 task.elapsed(), budget);
    std::fflush(stderr);
  }
  void clear() {
    if (tty_ && shown_) std::fprintf(stderr, "\r\033[K");
    shown_ = false;
  }

 private:
  bool tty_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point last_;
};

int run_tune(const TuneOptions& o) {
  // The kernels must run on the thread count they are tuned for: the
  // runtime and the CPU model both read TIRC_NUM_THREADS.
  if (o.threads > 0) ::setenv("TIRC_NUM_THREADS", std::to_string(o.threads).c_str(), 1);
  const double budget = parse_duration(o.budget, "--budget");
  if (is_llvm_only_target(o.target))
    throw Error("tirc tune measures on this machine, which cannot run " + o.target +
                " code; tune on an " + o.target +
                " machine, or compile with the default schedules");
  const Target target = o.target.empty() ? host_target() : parse_target(o.target);
  if (!host_supports(target))
    throw Error("tirc tune measures on this machine, which cannot run " + target.name());
  ScheduleFlags flags;
  flags.cpu_model = o.cpu_model;

  TuneModuleOptions to;
  to.rules = rule_context(flags, target);
  to.strategy = o.strategy;
  to.budget_seconds = budget;
  if (o.trials > 0) to.max_trials = o.trials;
  to.func = o.func;
  const bool by_policy = o.strategy.rfind("policy", 0) == 0;
  to.start_plain = o.start == "plain";
  to.search.beam_width = o.beam_width;
  to.search.max_depth = o.depth;
  to.search.seed = o.seed;

  if (by_policy) {
    to.search.policy = load_policy(o.policy);
    // Without it, the rules' schedules stay: measured and recorded, no search.
    if (!to.search.policy) to.budget_seconds = 0;
  } else if (!o.policy.empty()) {
    throw Error("--policy is for --strategy policy or policy-beam");
  }

  IRModule m = load_module(o.file, o.model);
  std::optional<TuningDatabase> db;
  if (!o.db.empty()) db.emplace(o.db);
  const double peak = measure_fma_peak(to.rules.cpu.threads, 0.2).gflops;
  spdlog::info("tuning {} with {} for {} on {} ({}), peak {:.1f} GFLOPS", o.file, o.strategy,
               o.budget, record_target(to.rules), record_cpu(to.rules), peak);

  ProgressLine line;
  std::vector<KernelTuneResult> results =
      tune_module(m, to, db ? &*db : nullptr,
                  [&](size_t k, size_t n, const std::string& name, const TuneTask& task, double b) {
                    line.show(k, n, name, task, b);
                  });
  line.clear();

  std::vector<KernelTuneSummary> table;
  for (const KernelTuneResult& r : results) {
    table.push_back(r.summary);
    if (r.funcs.size() > 1) table.back().kernel += " (x" + std::to_string(r.funcs.size()) + ")";
  }
  print_tune_table(std::cout, table);
  std::cout << "peak " << peak << " GFLOPS (" << record_target(to.rules) << ", "
            << record_cpu(to.rules) << ")\n";
  if (db) std::cout << "records: " << db->size() << " in " << o.db << "\n";
  if (!db)
    for (const KernelTuneResult& r : results)
      if (!r.trace.empty())
        std::cout << "# best schedule of " << r.summary.kernel << "\n" << r.trace;
  if (!o.report.empty()) {
    std::ofstream out(o.report);
    if (!out) throw Error("cannot write the report '" + o.report + "'");
    write_tune_report(out, "tirc tune " + std::filesystem::path(o.file).filename().string(),
                      o.strategy + ", " + o.budget + ", " + record_target(to.rules) + ", " +
                          record_cpu(to.rules) + ", peak " + std::to_string(int(peak)) + " GFLOPS",
                      table);
  }
  return kOk;
}

}  // namespace

void add_tune_command(CLI::App& app, int& status) {
  auto opts = std::make_shared<TuneOptions>();
  auto* cmd = app.add_subcommand(
      "tune", "Measure schedules of each kernel and keep the best in a tuning database");
  cmd->add_option("file", opts->file, "Input .tir module or .onnx model")->required();
  cmd->add_option("--db", opts->db,
                  "Tuning database (SQLite; created when missing) to reuse and fill; without it "
                  "the best schedules are printed");
  cmd->add_option("--budget", opts->budget,
                  "Time for the whole module (90s, 10m, 1h), shared among kernels by their "
                  "share of the default latency")
      ->capture_default_str();
  std::vector<std::string> strategies = strategy_names();
  cmd->add_option("--strategy", opts->strategy, "Search strategy")
      ->check(CLI::IsMember(strategies))
      ->capture_default_str();
  cmd->add_option("--trials", opts->trials, "At most N candidates measured per kernel")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--func", opts->func, "Tune only this function");
  cmd->add_option("--threads", opts->threads,
                  "Threads the kernels run on (default: TIRC_NUM_THREADS or every core)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--report", opts->report,
                  "Write an HTML page with the best GFLOPS over time of every kernel");
  cmd->add_option("--start", opts->start,
                  "default: search from the rule schedule (the default); plain: from the "
                  "untransformed nest")
      ->check(CLI::IsMember({"default", "plain"}));
  cmd->add_option("--policy", opts->policy,
                  "The trained loop policy of --strategy policy|policy-beam (tirc train-policy); "
                  "default: the one shipped with tirc")
      ->capture_default_str();
  cmd->add_option("--beam-width", opts->beam_width, "States kept per level by beam search")
      ->check(CLI::Range(2, 16))
      ->capture_default_str();
  cmd->add_option("--depth", opts->depth, "Actions per path for beam and random search")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  cmd->add_option("--seed", opts->seed, "Seed of random choices")->capture_default_str();
  cmd->add_option("--target", opts->target, "x86-64-avx512 or x86-64-avx2 (default: this CPU)");
  cmd->add_option("--cpu-model", opts->cpu_model,
                  "Rule schedules for these caches and threads, e.g. l1d=32K,l2=1M,threads=2");
  add_model_flags(cmd, opts->model);
  cmd->callback([opts, &status] { status = run_tune(*opts); });
}

}  // namespace tirc::driver
