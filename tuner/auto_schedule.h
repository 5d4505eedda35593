// The default schedule of every kernel: the rules of tuner/space applied to
// each block, decisions from the CPU model. No measurement; deterministic for
// a given module and model; milliseconds.
#pragma once

#include <string>
#include <vector>

#include "schedule/schedule.h"
#include "tuner/space/rules.h"

namespace tirc {

// What happened to one block: the rule that scheduled it, or why none did
// (including a rule whose primitive was refused, or whose function the code
// generator then refused: the block fell back to its plain nest).
struct BlockReport {
  std::string func, block, rule, note;
};

struct AutoScheduleResult {
  Schedule schedule;  // the module after the rules, with the trace they recorded
  std::vector<BlockReport> blocks;
};

// Schedules every function of m except `skip` ones, a model's entry (it calls
// its kernels and has nothing to schedule) and functions already scheduled by
// hand (a non-serial loop, or loops that are not the plain nest). The rules
// are tuner/space's CPU rules, or for Isa::cuda its GPU rules. A function whose
// scheduled form the target's generator refuses is kept as it was, with the
// reason in the report.
// `seed` seeds the schedule's generator, which draws Decisions::Random.
AutoScheduleResult auto_schedule(const IRModule& m, const RuleContext& cx,
                                 const std::vector<std::string>& skip = {}, uint64_t seed = 0);

}  // namespace tirc
