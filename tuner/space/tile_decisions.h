// The sample_perfect_tile decisions of a trace, read and rewritten: what the
// evolutionary search draws again and what the loop environment's tile
// actions move (tuner/env.h). A trace with a decision changed replays on the
// schedule's initial module (Schedule::initial).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "schedule/schedule.h"

namespace tirc {

struct TileDecision {
  size_t instruction = 0;        // its index in the trace
  std::vector<int64_t> factors;  // outermost first; their product is the loop's extent
  int64_t max_innermost = 16;    // the innermost factor's bound (the primitive's default)

  int64_t extent() const;
};

// The trace's sample_perfect_tile instructions that carry a decision, in
// trace order.
std::vector<TileDecision> tile_decisions(const Trace& t);

// t with the decision of instruction `at` (a sample_perfect_tile) replaced.
Trace with_tile_decision(const Trace& t, size_t at, const std::vector<int64_t>& factors);

// The decision with its innermost factor moved to the next divisor of the
// extent above it (grow) or below it (shrink), within max_innermost, the
// outermost factor taking up the rest; nullopt at the end of the range.
std::optional<std::vector<int64_t>> moved_innermost(const TileDecision& d, bool grow);

// Schedule::initial() of sch with t replayed on it: a fresh schedule whose
// trace is t. Throws what the replay throws (a ScheduleError, tirc::Error).
Schedule replay_from_initial(const Schedule& sch, const Trace& t);

}  // namespace tirc
