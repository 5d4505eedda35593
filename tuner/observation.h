// What a learned policy sees of a loop-action state: a fixed-length vector
// built from LoopTune's loop features (tuner/features.h) of the function's
// loops in pre-order, plus what those features leave out and a policy needs
// to act well: each loop's kind, which loops the cursor can walk, and how far
// into the episode the state is.
//
// Layout (observation_size() floats):
//   kObservedLoops slots of kObservedLoopWidth, one per loop in pre-order; a
//   function with more loops shows the window of kObservedLoops loops that
//   holds the cursor as near its middle as the ends allow; empty slots are 0.
//   Per slot: the 20 loop features with size and tail as log2(1 + x) / 8
//   (LoopTune feeds them raw; a network trains badly on inputs of 1..256),
//   then vectorized, parallel, unrolled (0/1), then 1 when the loop is one of
//   the loops around the state's block (the ones the cursor walks).
//   Then three numbers for the whole state: the actions taken so far divided
//   by the episode length (capped at 1), 1 when cache_write was taken, and 1
//   when the parallel action can apply at all (more than one thread). Then
//   per tile decision the tile actions move (the first kTileActions of the
//   trace, tuner/env.h) its innermost and outermost factors as
//   log2(1 + x) / 8; 0 where the trace has none.
#pragma once

#include <vector>

#include "tuner/env.h"

namespace tirc {

inline constexpr int kObservedLoops = 16;
inline constexpr int kObservedLoopWidth = 24;
inline constexpr int kObservationGlobals = 3 + 2 * kTileActions;

constexpr int observation_size() {
  return kObservedLoops * kObservedLoopWidth + kObservationGlobals;
}

// The observation of s, `steps` actions into an episode of `episode_length`.
std::vector<float> observe(const LoopState& s, const EnvOptions& env, int steps,
                           int episode_length);

}  // namespace tirc
