// How compile and run schedule a module: a user's --trace script, then the
// best tuning record (--db) of every kernel the script left alone, then a
// learned loop policy (--policy) for the contraction kernels still left,
// then the rules (tuner/auto_schedule.h) for the rest, unless
// --schedule=none.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "codegen/x86/target.h"
#include "ir/function.h"
#include "tuner/auto_schedule.h"

namespace tirc::driver {

struct ScheduleFlags {
  std::string mode = "auto";  // auto | none
  std::string cpu_model;      // fixed cache/thread model (tuner/space/cpu_model.h)
  std::string trace;          // a schedule script applied first
  std::string db;             // tuning records (tuner/records.h) applied next
  std::string policy;         // a loop policy for the contraction kernels left (policy_flags.h)
};

void add_schedule_flags(CLI::App* cmd, ScheduleFlags& flags);

// The rule context for `target`: the host's caches and threads, or the fixed
// model of --cpu-model.
RuleContext rule_context(const ScheduleFlags& flags, const Target& target);

// m scheduled as the flags say; `func` narrows where --trace applies (as in
// `tirc schedule --func`). Logs one line per block at debug level (-v): the
// rule that scheduled it, or why none did.
IRModule schedule_module(const IRModule& m, const ScheduleFlags& flags, const Target& target,
                         const std::string& func = "");

// The per-block report as `-v` prints it.
void log_block_reports(const std::vector<BlockReport>& reports);

}  // namespace tirc::driver
