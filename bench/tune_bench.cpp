// The tuner on LoopTune's matmul nests (issue 12's table; convolutions with
// --set conv): for a fixed sample of the test split, GFLOPS of the untuned
// nest, of the rule default and of oneDNN, and the best GFLOPS each search
// strategy finds within each time budget; then per strategy and budget the
// geomean speedup over the untuned nest and over the rule default, the ratio
// to oneDNN and to the best any strategy found for the nest, the candidates
// measured and the states explored per second; and the candidate throughput.
//
//   tirc_tune_bench [--quick] [--sample N | --matmul-bench-shapes]
//                   [--set matmul|conv|depthwise]
//                   [--budgets 1,10,60]
//                   [--strategies greedy,greedy2,beam,beam-dfs,random,evolutionary,
//                                 policy,policy-beam] [--policy FILE]
//                   [--threads N] [--start plain|default] [--target NAME] [-v]
//
// --set conv: the test split of the convolution set instead of the matmuls;
// --set depthwise: the depthwise set, in no training set (neither has a
// oneDNN column). --target x86-64-avx2: rules, searches and measurements
// for that target on this machine (a policy trained for AVX-512 then shows
// how it transfers).
//
// --policy: the trained loop policy (tirc train-policy) the policy
// strategies use; "policy" is its greedy rollout, timed without measurement
// in the "rollout" line, whatever the budget.
//
// --matmul-bench-shapes: tirc_matmul_bench's 25 shapes instead of the sample
// (the tuned-matmul target against oneDNN).
//
// Each search starts from the untuned nest (plain, LoopTune's setting) or from
// the rule default (--start default) and runs in its own TuneTask with its own
// Measurer, as `tirc tune` would. The best state a search found is measured
// again, with the same longer budget as the untuned nest and the rule default,
// so that every number in a row is taken the same way (the search's own best
// is the luckiest of many short measurements); that measurement also checks
// its result against the untuned nest's.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <numeric>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench/omp_threads.h"
#include "bench/matmul_shapes.h"
#include "bench/onednn_matmul.h"
#include "codegen/x86/target.h"
#include "ir/error.h"
#include "runtime/tirc_runtime.h"
#include "schedule/schedule.h"
#include "tuner/auto_schedule.h"
#include "tuner/dataset.h"
#include "tuner/env.h"
#include "tuner/fma_peak.h"
#include "tuner/measure.h"
#include "tuner/policy/q_network.h"
#include "tuner/policy_search.h"
#include "tuner/search.h"
#include "tuner/space/cpu_model.h"
#include "tuner/timing.h"

namespace tirc {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

struct Options {
  int sample = 100;
  std::vector<double> budgets{1, 10, 60};
  std::vector<std::string> strategies{"greedy", "greedy2", "beam", "beam-dfs", "random"};
  int threads = 1;
  bool start_default = false;  // --start default: search from the rule schedule
  bool quick = false;
  bool budgets_given = false;
  bool verbose = false;        // -v: each search's best state (its actions) on stderr
  bool bench_shapes = false;   // --matmul-bench-shapes
  std::string set = "matmul";  // --set matmul|conv|depthwise
  std::string target;          // --target NAME (empty: the host's)
  std::string policy;          // --policy FILE: the network of policy, policy-beam
};

// One nest of the run: its kernel, and its matmul shape when oneDNN can run it.
struct Nest {
  std::string name;
  PrimFunc func;
  std::optional<MatmulShape> matmul;
};

// One strategy at one budget on one nest.
struct Run {
  double gflops = NAN;  // the best state found, measured again (NaN: none)
  int trials = 0;       // candidates measured
  int states = 0;       // states valued (cache hits included)
  double seconds = 0;   // the search's wall time
};

struct NestResult {
  double plain = NAN, rules = NAN, onednn = NAN;  // GFLOPS
  std::vector<Run> runs;                          // strategies x budgets, strategy slowest
};

std::string cpu_name() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) {
      size_t colon = line.find(':');
      if (colon != std::string::npos) {
        size_t begin = line.find_first_not_of(' ', colon + 1);
        return begin == std::string::npos ? "" : line.substr(begin);
      }
    }
  return "unknown";
}

std::string fmt(double v, const char* f = "%.1f") {
  if (std::isnan(v)) return "n/a";
  char buf[32];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string budget_label(double b) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%gs", b);
  return buf;
}

// n entries of `all` taken every k-th, in order (all when it has no more).
template <typename T>
std::vector<T> every_kth(const std::vector<T>& all, int n) {
  const size_t want = std::min(static_cast<size_t>(std::max(n, 1)), all.size());
  const size_t step = std::max<size_t>(1, all.size() / std::max<size_t>(want, 1));
  std::vector<T> out;
  for (size_t i = 0; i < all.size() && out.size() < want; i += step) out.push_back(all[i]);
  return out;
}

// n nests of the test split of `shapes` (every k-th, in order).
template <typename T>
std::vector<T> test_sample(const std::vector<T>& shapes, int n) {
  std::vector<T> test;
  for (const T& s : shapes)
    if (in_test_split(s.name())) test.push_back(s);
  return every_kth(test, n);
}

std::vector<Nest> nests(const Options& opt) {
  std::vector<Nest> out;
  const int n = opt.quick ? 3 : opt.sample;
  if (opt.set == "conv") {
    for (const ConvShape& s : test_sample(conv_shapes(), n))
      out.push_back({s.name(), conv_func(s), {}});
    return out;
  }
  if (opt.set == "depthwise") {
    for (const DepthwiseShape& s : every_kth(depthwise_shapes(), n))
      out.push_back({s.name(), depthwise_func(s), {}});
    return out;
  }
  for (const MatmulShape& s :
       opt.bench_shapes ? matmul_bench_shapes(opt.quick) : test_sample(matmul_looptune_shapes(), n))
    out.push_back({s.name(), matmul_func(s), s});
  return out;
}

// oneDNN's GFLOPS, best of many runs.
double onednn_gflops(const MatmulShape& s, bool quick) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> a(static_cast<size_t>(s.m * s.k)), b(static_cast<size_t>(s.k * s.n)),
      c(static_cast<size_t>(s.m * s.n));
  for (float& x : a) x = uniform(rng);
  for (float& x : b) x = uniform(rng);
  OneDnnMatmul mm(s.m, s.n, s.k, a.data(), b.data(), c.data());
  const Budget budget = quick ? Budget{.min_reps = 10, .min_seconds = 0.02, .max_seconds = 0.5}
                              : Budget{.min_reps = 50, .min_seconds = 0.3, .max_seconds = 3};
  return s.flops() / best_seconds([&] { mm.run(); }, budget) * 1e-9;
}

// Measurements that were not ok, by status: how many, and the first message.
struct Failures {
  std::map<Measurement::Status, std::pair<int, std::string>> by_status;
  void add(const Measurement& m, const std::string& where) {
    if (m.ok()) return;
    auto& [count, first] = by_status[m.status];
    if (count++ == 0) first = where + ": " + m.message;
  }
};

// Geometric mean of num[i] / den[i] over the entries where both are known.
std::string geomean(const std::vector<double>& num, const std::vector<double>& den) {
  double log_sum = 0;
  int n = 0;
  for (size_t i = 0; i < num.size(); ++i)
    if (num[i] > 0 && den[i] > 0) {
      log_sum += std::log(num[i] / den[i]);
      ++n;
    }
  return n ? fmt(std::exp(log_sum / n), "%.3f") : "n/a";
}

// States per second that neighbours() produces with no measurement: expand
// breadth first from each start until about `expansions` states are expanded.
void expansion_rate(const LoopEnv& env, const std::vector<LoopState>& starts, int expansions,
                    double& expanded_per_s, double& states_per_s) {
  int expanded = 0;
  long produced = 0;
  auto t0 = Clock::now();
  const int per_start = std::max(1, expansions / static_cast<int>(starts.size()));
  for (const LoopState& start : starts) {
    std::vector<LoopState> queue{start};
    for (size_t i = 0; i < queue.size() && static_cast<int>(i) < per_start; ++i) {
      std::vector<LoopState> next = neighbours(env, queue[i]);
      produced += static_cast<long>(next.size());
      ++expanded;
      for (LoopState& n : next)
        if (static_cast<int>(queue.size()) < per_start) queue.push_back(std::move(n));
    }
  }
  const double dt = seconds_since(t0);
  expanded_per_s = expanded / dt;
  states_per_s = static_cast<double>(produced) / dt;
}

int run(const Options& opt) {
  const std::vector<Nest> shapes = nests(opt);
  const Target target = opt.target.empty() ? host_target() : parse_target(opt.target);
  const FmaPeak peak = measure_fma_peak(opt.threads, opt.quick ? 0.1 : 0.5);
  const CpuModel cpu = host_cpu_model(target);
  const dnnl_version_t* v = dnnl_version();
  std::printf("# CPU: %s\n", cpu_name().c_str());
  std::printf("# target %s; cpu model: %s\n", target.name().c_str(), cpu.describe().c_str());
  std::printf("# threads: %d; measured fp32 FMA peak (%d-bit vectors): %.1f GFLOPS\n", opt.threads,
              peak.vector_bits, peak.gflops);
  std::printf("# oneDNN %d.%d.%d (CPU runtime %s)\n", v->major, v->minor, v->patch,
              v->cpu_runtime == DNNL_RUNTIME_OMP ? "OpenMP" : "not OpenMP");
  std::string budgets, strategies;
  for (double b : opt.budgets) budgets += (budgets.empty() ? "" : ", ") + budget_label(b);
  for (const std::string& s : opt.strategies) strategies += (strategies.empty() ? "" : ", ") + s;
  std::printf("# %zu nests (%s); start: %s; budgets per nest and strategy: %s; strategies: %s\n",
              shapes.size(),
              opt.set == "conv"        ? "of the test split of the convolution set"
              : opt.set == "depthwise" ? "of the depthwise set"
              : opt.bench_shapes       ? "tirc_matmul_bench's shapes"
                                       : "of the test split of LoopTune's matmuls",
              opt.start_default ? "rule default" : "untuned nest", budgets.c_str(),
              strategies.c_str());

  const LoopEnv env(EnvOptions{.threads = opt.threads});
  std::shared_ptr<const LoopPolicy> policy;
  if (!opt.policy.empty()) {
    PolicyInfo info;
    policy = load_q_network(opt.policy, &info);
    std::printf("# policy %s: %s (%lld episodes)\n", opt.policy.c_str(), info.command.c_str(),
                static_cast<long long>(info.episodes));
  }
  // The untuned nest, the rule default and each search's best are measured
  // with this longer budget; the search's candidates with the Measurer's.
  MeasureOptions careful;
  careful.target = target;
  careful.budget = opt.quick ? Budget{.min_reps = 5, .min_seconds = 0.02, .max_seconds = 0.3}
                             : Budget{.min_reps = 10, .min_seconds = 0.1, .max_seconds = 1};
  careful.cutoff_ratio = INFINITY;
  MeasureOptions search_measure;
  search_measure.target = target;

  // The per-nest columns.
  std::vector<std::string> columns;
  for (const std::string& s : opt.strategies)
    for (double b : opt.budgets) columns.push_back(s + "@" + budget_label(b));
  std::printf("\nGFLOPS per nest (searches: the best state found, measured again)\n");
  std::printf("%-14s %8s %8s %8s |", "nest", "untuned", "default", "oneDNN");
  for (const std::string& c : columns) std::printf(" %*s", std::max<int>(9, c.size()), c.c_str());
  std::printf("\n");

  Failures failures;
  std::vector<NestResult> results;
  std::vector<LoopState> starts;  // for the expansion rate
  long total_trials = 0;
  double total_search_seconds = 0;
  std::vector<double> rollout_seconds;  // the policy's rollout per nest
  for (const Nest& nest : shapes) {
    NestResult r;
    const std::string& name = nest.name;
    IRModule mod;
    const PrimFunc& func = nest.func;
    mod.add(name, func);
    const AutoScheduleResult rules = auto_schedule(mod, RuleContext{.cpu = cpu});

    Measurer measurer(func, careful);
    Measurement m = measurer.measure(func);
    failures.add(m, name + " untuned");
    if (m.ok()) r.plain = m.gflops;
    m = measurer.measure(rules.schedule.func(name));
    failures.add(m, name + " default");
    if (m.ok()) r.rules = m.gflops;

    const LoopState start =
        opt.start_default ? env.start(rules.schedule, name) : env.start(Schedule(mod), name);
    if (starts.size() < 4) starts.push_back(start);
    if (policy) {
      const auto t0 = Clock::now();
      const Rollout rollout = policy_rollout(env, *policy, start, policy->episode_length());
      rollout_seconds.push_back(seconds_since(t0));
      if (opt.verbose) {
        std::string actions;
        for (const Action& a : rollout.actions) actions += (actions.empty() ? "" : " ") + a.name();
        std::fprintf(stderr, "%s: policy rollout %.3f s: %s\n", name.c_str(),
                     rollout_seconds.back(), actions.c_str());
      }
    }
    for (const std::string& strategy : opt.strategies)
      for (double budget : opt.budgets) {
        Run run;
        Measurer search_measurer(func, search_measure);
        SearchOptions search{.budget_seconds = budget};
        search.policy = policy;
        TuneTask task(
            env, [&](const PrimFunc& f) { return search_measurer.measure(f); }, search,
            RuleSpace{mod, name, RuleContext{.cpu = cpu}});
        const std::string where = name + " " + strategy + "@" + budget_label(budget);
        task.on_measured(
            [&](const LoopState&, const Measurement& got, double) { failures.add(got, where); });
        try {
          run_strategy(strategy, task, start);
        } catch (const Error& e) {
          std::fprintf(stderr, "%s: the search failed: %s\n", where.c_str(), e.what());
        }
        run.seconds = task.elapsed();
        run.trials = task.trials();
        run.states = task.states_seen();
        total_trials += run.trials;
        total_search_seconds += run.seconds;
        if (task.best()) {
          m = measurer.measure(task.best()->program());
          failures.add(m, where + " best");
          if (m.ok()) run.gflops = m.gflops;
          if (opt.verbose) {
            std::string actions;
            for (const Action& a : task.best()->history)
              if (a.changes_program()) {
                if (!actions.empty()) actions += ' ';
                actions += a.name();
              }
            std::fprintf(stderr, "%s: %s GFLOPS (%.1f in the search), %d trials, %.1f s: %s\n",
                         where.c_str(), fmt(run.gflops).c_str(), task.best_gflops(), run.trials,
                         run.seconds, actions.empty() ? "(the start)" : actions.c_str());
          }
        }
        r.runs.push_back(run);
      }

    // oneDNN's OpenMP workers spin for a while after a call, and so may the
    // last measurement's; let them go idle so they take no core from the next.
    const auto settle = [&] {
      if (opt.threads > 1) std::this_thread::sleep_for(std::chrono::milliseconds(250));
    };
    settle();
    if (nest.matmul) r.onednn = onednn_gflops(*nest.matmul, opt.quick);
    settle();

    std::printf("%-14s %8s %8s %8s |", name.c_str(), fmt(r.plain).c_str(), fmt(r.rules).c_str(),
                fmt(r.onednn).c_str());
    for (size_t i = 0; i < columns.size(); ++i)
      std::printf(" %*s", std::max<int>(9, columns[i].size()), fmt(r.runs[i].gflops).c_str());
    std::printf("\n");
    std::fflush(stdout);
    results.push_back(std::move(r));
  }

  // best: per nest, the fastest of the default and every search's best.
  std::vector<double> plain, rules, onednn, best;
  for (const NestResult& r : results) {
    plain.push_back(r.plain);
    rules.push_back(r.rules);
    onednn.push_back(r.onednn);
    double b = std::isnan(r.rules) ? 0 : r.rules;
    for (const Run& run : r.runs)
      if (!std::isnan(run.gflops)) b = std::max(b, run.gflops);
    best.push_back(b > 0 ? b : NAN);
  }
  std::printf("\nSummary over %zu nests (geomeans; start: %s)\n", results.size(),
              opt.start_default ? "rule default" : "untuned nest");
  std::printf("%-11s %7s | %9s %9s %9s %9s | %7s %7s | %9s %9s\n", "strategy", "budget", "/untuned",
              "/default", "/oneDNN", "/best", ">5%", "failed", "trials", "states/s");
  std::printf("%-11s %7s | %9s %9s %9s %9s | %7s %7s | %9s %9s\n", "untuned", "", "1.000",
              geomean(plain, rules).c_str(), geomean(plain, onednn).c_str(),
              geomean(plain, best).c_str(), "", "", "", "");
  std::printf("%-11s %7s | %9s %9s %9s %9s | %7s %7s | %9s %9s\n", "default", "",
              geomean(rules, plain).c_str(), "1.000", geomean(rules, onednn).c_str(),
              geomean(rules, best).c_str(), "", "", "", "");
  const std::vector<double>& start_gflops = opt.start_default ? rules : plain;
  for (size_t si = 0; si < opt.strategies.size(); ++si)
    for (size_t bi = 0; bi < opt.budgets.size(); ++bi) {
      const size_t col = si * opt.budgets.size() + bi;
      std::vector<double> tuned;
      long trials = 0, states = 0;
      double seconds = 0;
      int improved = 0, failed = 0;
      for (size_t i = 0; i < results.size(); ++i) {
        const Run& run = results[i].runs[col];
        tuned.push_back(run.gflops);
        trials += run.trials;
        states += run.states;
        seconds += run.seconds;
        if (std::isnan(run.gflops)) ++failed;
        if (run.gflops > 1.05 * start_gflops[i]) ++improved;
      }
      const double n = static_cast<double>(std::max<size_t>(results.size(), 1));
      std::printf("%-11s %7s | %9s %9s %9s %9s | %7d %7d | %9s %9s\n", opt.strategies[si].c_str(),
                  budget_label(opt.budgets[bi]).c_str(), geomean(tuned, plain).c_str(),
                  geomean(tuned, rules).c_str(), geomean(tuned, onednn).c_str(),
                  geomean(tuned, best).c_str(), improved, failed, fmt(trials / n).c_str(),
                  fmt(seconds > 0 ? static_cast<double>(states) / seconds : NAN, "%.0f").c_str());
    }
  std::printf(
      "(/best: over the fastest program any strategy at any budget, or the default, found for "
      "the nest; >5%%: nests where the best found beats the start by more than 5%%; failed: "
      "searches with "
      "no measured best; trials: mean candidates measured per nest; states/s: states valued, "
      "cache hits included, per second of search)\n");

  if (!rollout_seconds.empty())
    std::printf("\npolicy rollout (no measurement): mean %.3f s, max %.3f s per nest\n",
                std::accumulate(rollout_seconds.begin(), rollout_seconds.end(), 0.0) /
                    static_cast<double>(rollout_seconds.size()),
                *std::max_element(rollout_seconds.begin(), rollout_seconds.end()));

  double expanded_per_s = 0, states_per_s = 0;
  if (!starts.empty())
    expansion_rate(env, starts, opt.quick ? 60 : 300, expanded_per_s, states_per_s);
  std::printf(
      "\ncandidate throughput: %.1f measured/s (all searches), %.0f states/s without measurement "
      "(neighbours(): %.1f expansions/s)\n",
      total_search_seconds > 0 ? static_cast<double>(total_trials) / total_search_seconds : 0.0,
      states_per_s, expanded_per_s);

  if (failures.by_status.empty()) {
    std::printf("measurements: all ok\n");
  } else {
    std::printf("measurements that were not ok:\n");
    for (const auto& [status, entry] : failures.by_status)
      std::printf("  %-14s %6d  first: %s\n", to_string(status).c_str(), entry.first,
                  entry.second.c_str());
  }
  return 0;
}

template <typename T, typename Parse>
std::vector<T> parse_list(const std::string& list, const char* flag, Parse parse) {
  std::vector<T> out;
  std::stringstream in(list);
  std::string item;
  while (std::getline(in, item, ',')) {
    std::optional<T> v = parse(item);
    if (!v) throw Error(std::string(flag) + ": bad item '" + item + "'");
    out.push_back(*v);
  }
  if (out.empty()) throw Error(std::string(flag) + " expects a comma-separated list");
  return out;
}

int positive_int(const std::string& s, const char* flag) {
  char* end = nullptr;
  long v = std::strtol(s.c_str(), &end, 10);
  if (end == s.c_str() || *end != '\0' || v < 1 || v > 1000000)
    throw Error(std::string(flag) + " expects a positive integer, got '" + s + "'");
  return static_cast<int>(v);
}

}  // namespace
}  // namespace tirc

int main(int argc, char** argv) {
  using namespace tirc;
  const char* usage =
      "usage: %s [--quick] [--sample N | --matmul-bench-shapes] [--set matmul|conv|depthwise] "
      "[--budgets 1,10,60] "
      "[--strategies greedy,greedy2,beam,beam-dfs,random,evolutionary,policy,policy-beam] "
      "[--policy FILE] [--threads N] [--start plain|default] [--target NAME] [-v]\n";
  try {
    Options opt;
    for (int i = 1; i < argc; ++i) {
      std::string a = argv[i];
      const bool has_value = i + 1 < argc;
      if (a == "--quick") {
        opt.quick = true;
      } else if (a == "-v" || a == "--verbose") {
        opt.verbose = true;
      } else if (a == "--policy" && has_value) {
        opt.policy = argv[++i];
      } else if (a == "--matmul-bench-shapes") {
        opt.bench_shapes = true;
      } else if (a == "--set" && has_value) {
        opt.set = argv[++i];
        if (opt.set != "matmul" && opt.set != "conv" && opt.set != "depthwise")
          throw Error("--set expects matmul, conv or depthwise");
      } else if (a == "--target" && has_value) {
        opt.target = argv[++i];
      } else if (a == "--sample" && has_value) {
        opt.sample = positive_int(argv[++i], "--sample");
      } else if (a == "--budgets" && has_value) {
        opt.budgets_given = true;
        opt.budgets = parse_list<double>(argv[++i], "--budgets",
                                         [](const std::string& s) -> std::optional<double> {
                                           char* end = nullptr;
                                           double v = std::strtod(s.c_str(), &end);
                                           if (end == s.c_str() || *end != '\0' || !(v > 0))
                                             return std::nullopt;
                                           return v;
                                         });
      } else if (a == "--strategies" && has_value) {
        opt.strategies = parse_list<std::string>(
            argv[++i], "--strategies", [](const std::string& s) -> std::optional<std::string> {
              const std::vector<std::string>& known = strategy_names();
              if (std::find(known.begin(), known.end(), s) == known.end()) return std::nullopt;
              return s;
            });
      } else if (a == "--threads" && has_value) {
        opt.threads = positive_int(argv[++i], "--threads");
      } else if (a == "--start" && has_value) {
        std::string s = argv[++i];
        if (s != "plain" && s != "default") throw Error("--start expects plain or default");
        opt.start_default = s == "default";
      } else {
        std::fprintf(stderr, usage, argv[0]);
        return 2;
      }
    }
    if (opt.quick && !opt.budgets_given) opt.budgets = {0.5};
    // The runtime's and the CPU model's thread count (host_cpu_model reads
    // TIRC_NUM_THREADS), and oneDNN's (OpenMP).
    setenv("TIRC_NUM_THREADS", std::to_string(opt.threads).c_str(), 1);
    tirc_set_num_threads(opt.threads);
    omp_set_num_threads(opt.threads);
    return run(opt);
  } catch (const tirc::Error& e) {
    std::fprintf(stderr, "%s\n", e.render().c_str());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
