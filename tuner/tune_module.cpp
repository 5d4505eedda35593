#include "tuner/tune_module.h"

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <map>
#include <memory>

#include "ir/error.h"
#include "ir/eval/interpreter.h"
#include "ir/structural.h"
#include "schedule/trace.h"
#include "tuner/auto_schedule.h"

namespace tirc {

namespace {

std::string hex(size_t h) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%016" PRIx64, static_cast<uint64_t>(h));
  return buf;
}

size_t parse_hex(const std::string& s) {
  return static_cast<size_t>(std::stoull(s, nullptr, 16));
}

// A record's trace with its blocks looked up in `func`: a record made for
// one function applies to every function with the same workload.
Trace record_trace(const TuningRecord& r, const std::string& func) {
  const Trace stored = Trace::from_json(r.trace_json);
  Trace out;
  for (Instruction inst : stored.instructions()) {
    if (inst.kind == "get_block")
      for (auto& [key, value] : inst.keywords)
        if (key == "func_name") value = TraceValue(func);
    out.append(std::move(inst));
  }
  return out;
}

Measurement from_record(const TuningRecord& r) {
  Measurement m;
  m.status = r.failed ? Measurement::Status::failed_run : Measurement::Status::ok;
  m.seconds = r.seconds;
  m.gflops = r.gflops;
  m.message = r.note;
  return m;
}

struct Kernel {
  std::string key;
  std::vector<std::string> funcs;  // the first is the one tuned
  PrimFunc plain;
  Schedule defaults{IRModule{}};
  std::unique_ptr<Measurer> measurer;
  Measurement plain_m, default_m;
};

}  // namespace

std::string workload_key(const PrimFunc& f) {
  return hex(structural_hash(f));
}

std::string record_target(const RuleContext& rules) {
  return rules.cpu.target.name() + " threads=" + std::to_string(rules.cpu.threads);
}

std::string record_cpu(const RuleContext& rules) {
  return rules.cpu.name.empty() ? "unknown CPU" : rules.cpu.name;
}

std::vector<KernelTuneResult> tune_module(const IRModule& m, const TuneModuleOptions& options,
                                          TuningDatabase* db, const TuneProgress& progress) {
  const std::string target = record_target(options.rules), cpu = record_cpu(options.rules);
  std::vector<Kernel> kernels;
  std::map<std::string, size_t> by_key;
  for (const auto& [name, f] : m.functions()) {
    if (needs_module(f) || (!options.func.empty() && name != options.func)) continue;
    std::string key = workload_key(f);
    auto [it, fresh] = by_key.emplace(key, kernels.size());
    if (!fresh) {
      kernels[it->second].funcs.push_back(name);
      continue;
    }
    Kernel k;
    k.key = key;
    k.funcs = {name};
    k.plain = f;
    kernels.push_back(std::move(k));
  }
  if (!options.func.empty() && kernels.empty())
    throw Error("no kernel named '" + options.func + "' to tune");

  // The default schedules first: their latency shares out the budget (the
  // whole run's, this phase included).
  const auto begin = std::chrono::steady_clock::now();
  auto left = [&] {
    return options.budget_seconds -
           std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  };
  MeasureOptions mo = options.measure;
  mo.target = options.rules.cpu.target;
  double total_share = 0;
  for (Kernel& k : kernels) {
    IRModule single;
    single.add(k.funcs[0], k.plain);
    k.defaults = auto_schedule(single, options.rules).schedule;
    k.measurer = std::make_unique<Measurer>(k.plain, mo);
    k.plain_m = k.measurer->measure(k.plain);  // the reference results
    k.default_m = k.measurer->measure(k.defaults.func(k.funcs[0]));
    const Measurement& base = k.default_m.ok() ? k.default_m : k.plain_m;
    if (base.ok()) total_share += base.seconds * static_cast<double>(k.funcs.size());
  }

  std::vector<KernelTuneResult> results;
  for (size_t i = 0; i < kernels.size(); ++i) {
    Kernel& k = kernels[i];
    const std::string& fname = k.funcs[0];
    const Measurement& base = k.default_m.ok() ? k.default_m : k.plain_m;
    // Its share of the time left: what a kernel before it did not use (a
    // greedy search that converged) goes to the kernels after it.
    const double weight = base.ok() ? base.seconds * static_cast<double>(k.funcs.size()) : 0;
    SearchOptions so = options.search;
    so.budget_seconds =
        total_share > 0 ? std::max(0.0, left()) * std::min(1.0, weight / total_share) : 0;
    total_share -= weight;
    so.max_trials = options.max_trials;

    LoopEnv env(EnvOptions{.threads = options.rules.cpu.threads});
    IRModule single;
    single.add(fname, k.plain);
    Schedule plain_sch(single);
    LoopState start = env.start(options.start_plain ? plain_sch : k.defaults, fname);
    // A later tune goes on from the best schedule an earlier one found.
    if (std::optional<TuningRecord> prior = db ? db->best(k.key, target, cpu) : std::nullopt;
        prior && !options.start_plain && base.ok() && prior->seconds < base.seconds) {
      try {
        Schedule resumed(single);
        record_trace(*prior, fname).apply_to(resumed);
        start = env.start(std::move(resumed), fname);
      } catch (const Error&) {
        // A record this tirc no longer replays: start from the default.
      }
    }
    TuneTask task(
        env, [&](const PrimFunc& f) { return k.measurer->measure(f); }, so,
        RuleSpace{single, fname, options.rules});
    const size_t plain_hash = structural_hash(k.plain);
    const size_t default_hash = structural_hash(k.defaults.func(fname));
    task.remember(plain_hash, k.plain_m);
    task.remember(default_hash, k.default_m);
    auto record = [&](const std::string& trace_json, const std::string& candidate,
                      const Measurement& meas, double found_after, const std::string& strategy) {
      if (!db) return;
      TuningRecord r;
      r.workload = k.key;
      r.target = target;
      r.cpu = cpu;
      r.candidate = candidate;
      r.trace_json = trace_json;
      r.failed = !meas.ok();
      // A cut-off run's time is a lower bound worth keeping.
      r.seconds = meas.ok() || meas.status == Measurement::Status::cut_off
                      ? meas.seconds
                      : std::numeric_limits<double>::infinity();
      r.gflops = meas.ok() ? meas.gflops : 0;
      r.found_after = found_after;
      r.strategy = strategy;
      r.note = meas.ok() ? "" : to_string(meas.status) + ": " + meas.message;
      db->add(r);
    };
    if (db) {
      for (const TuningRecord& r : db->records(k.key, target, cpu))
        task.remember(parse_hex(r.candidate), from_record(r));
      // The plain nest and the default are records too: a compile with the
      // database then never does worse than the rules.
      if (!db->find_candidate(k.key, target, cpu, hex(plain_hash)))
        record(plain_sch.trace().to_json(), hex(plain_hash), k.plain_m, 0, "plain");
      if (!db->find_candidate(k.key, target, cpu, hex(default_hash)))
        record(k.defaults.trace().to_json(), hex(default_hash), k.default_m, 0, "default");
    }
    task.on_measured([&](const LoopState& s, const Measurement& meas, double seconds) {
      record(s.sch.trace().to_json(), hex(structural_hash(s.program())), meas, seconds,
             options.strategy);
      if (progress) progress(i, kernels.size(), fname, task, so.budget_seconds);
    });
    if (progress) progress(i, kernels.size(), fname, task, so.budget_seconds);
    if (so.budget_seconds > 0) run_strategy(options.strategy, task, start);

    KernelTuneResult out;
    out.funcs = k.funcs;
    KernelTuneSummary& s = out.summary;
    s.kernel = fname;
    s.strategy = options.strategy;
    s.default_gflops = base.ok() ? base.gflops : 0;
    s.default_seconds = base.ok() ? base.seconds : 0;
    s.tuned_gflops = s.default_gflops;
    s.tuned_seconds = s.default_seconds;
    s.trials = task.trials();
    s.tune_seconds = task.elapsed();
    for (const SearchPoint& p : task.curve()) s.curve.push_back({p.seconds, p.best_gflops});
    std::optional<TuningRecord> best = db ? db->best(k.key, target, cpu) : std::nullopt;
    if (best && best->seconds < s.tuned_seconds) {
      s.tuned_seconds = best->seconds;
      s.tuned_gflops = best->gflops;
      out.trace = Trace::from_json(best->trace_json).print();
    } else if (!db && task.best() && task.best_seconds() < s.tuned_seconds) {
      s.tuned_seconds = task.best_seconds();
      s.tuned_gflops = task.best_gflops();
      out.trace = task.best()->sch.trace().print();
    }
    results.push_back(std::move(out));
  }
  return results;
}

std::vector<std::string> apply_records(Schedule& sch, const TuningDatabase& db,
                                       const RuleContext& rules,
                                       std::vector<std::string>* skipped) {
  const std::string target = record_target(rules), cpu = record_cpu(rules);
  std::vector<std::string> applied;
  const IRModule original = sch.mod();
  for (const auto& [name, f] : original.functions()) {
    if (needs_module(f)) continue;
    std::optional<TuningRecord> best = db.best(workload_key(f), target, cpu);
    if (!best) continue;
    Schedule trial = sch;
    try {
      record_trace(*best, name).apply_to(trial);
    } catch (const Error& e) {
      if (skipped) skipped->push_back(name + ": " + e.message());
      continue;
    }
    sch = std::move(trial);
    applied.push_back(name);
  }
  return applied;
}

}  // namespace tirc
