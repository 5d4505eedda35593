#include "driver/schedule_flags.h"

#include <spdlog/spdlog.h>

#include <filesystem>

#include "driver/policy_flags.h"
#include "driver/session.h"
#include "schedule/trace.h"
#include "tuner/tune_module.h"

namespace tirc::driver {

void add_schedule_flags(CLI::App* cmd, ScheduleFlags& flags) {
  cmd->add_option("--schedule", flags.mode,
                  "auto: schedule every kernel by the rules (default); none: plain loop nests")
      ->check(CLI::IsMember({"auto", "none"}))
      ->capture_default_str();
  cmd->add_option("--cpu-model", flags.cpu_model,
                  "Schedule for these caches and threads instead of the host's, e.g. "
                  "l1d=32K,l2=1M,l3=32M,threads=2");
  cmd->add_option("--trace", flags.trace,
                  "Apply this schedule script first (the rules leave the functions it changes "
                  "alone)");
  cmd->add_option("--db", flags.db,
                  "Schedule each kernel by its best record in this tuning database (tirc tune); "
                  "the rules schedule kernels it has no record for");
  cmd->add_option("--policy", flags.policy,
                  "Schedule every contraction kernel (no record, no script) with this trained "
                  "loop policy (tirc train-policy), or 'shipped' for the one tirc ships; the "
                  "rules schedule the rest");
}

RuleContext rule_context(const ScheduleFlags& flags, const Target& target) {
  RuleContext cx;
  cx.cpu = host_cpu_model(target);
  if (!flags.cpu_model.empty()) cx.cpu = parse_cpu_model(flags.cpu_model, cx.cpu);
  return cx;
}

void log_block_reports(const std::vector<BlockReport>& reports) {
  for (const BlockReport& r : reports)
    spdlog::debug("schedule {}/{}: {}{}{}", r.func, r.block, r.rule.empty() ? "plain nest" : r.rule,
                  r.note.empty() ? "" : ": ", r.note);
}

IRModule schedule_module(const IRModule& m, const ScheduleFlags& flags, const Target& target,
                         const std::string& func) {
  IRModule scheduled = m;
  std::vector<std::string> by_script;
  if (!flags.trace.empty()) {
    Schedule sch(m);
    Trace::parse(read_file(flags.trace), flags.trace).apply_to(sch, func);
    scheduled = sch.mod();
    for (const auto& [name, f] : scheduled.functions())
      if (f.get() != m.at(name).get()) by_script.push_back(name);
  }
  if (flags.mode == "none") return scheduled;
  const RuleContext cx = rule_context(flags, target);
  if (!flags.db.empty()) {
    if (!std::filesystem::exists(flags.db))
      throw Error("no such tuning database: '" + flags.db + "' (tirc tune --db makes one)");
    Schedule sch(scheduled);
    std::vector<std::string> skipped;
    std::vector<std::string> tuned = apply_records(sch, TuningDatabase(flags.db), cx, &skipped);
    for (const std::string& s : skipped) spdlog::warn("tuning record not applied: {}", s);
    for (const std::string& name : tuned) {
      spdlog::debug("schedule {}: tuning record from {}", name, flags.db);
      by_script.push_back(name);
    }
    scheduled = sch.mod();
  }
  if (!flags.policy.empty()) {
    if (std::shared_ptr<const LoopPolicy> policy = load_policy(flags.policy)) {
      Schedule sch(scheduled);
      for (const std::string& name :
           apply_policy(sch, *policy, cx, policy->episode_length(), by_script)) {
        spdlog::debug("schedule {}: loop policy {}", name, flags.policy);
        by_script.push_back(name);
      }
      scheduled = sch.mod();
    }
  }
  spdlog::debug("schedule rules for {}", cx.cpu.describe());
  AutoScheduleResult result = auto_schedule(scheduled, cx, by_script);
  log_block_reports(result.blocks);
  return result.schedule.mod();
}

}  // namespace tirc::driver
