// A block and the loops around it, as the rules see them: for each loop its
// handle, extent and the block iteration variable it binds.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "schedule/schedule.h"

namespace tirc {

struct NestLoop {
  LoopRV rv;
  const ForNode* loop = nullptr;
  int64_t extent = 0;   // constant extents only (a nest with others is not described)
  int iter = -1;        // the iteration variable whose value is exactly this loop's variable
  bool spatial = true;  // binds only data-parallel iteration variables
};

struct BlockNest {
  const BlockRealizeNode* realize = nullptr;
  std::vector<NestLoop> loops;  // outermost first, up to the enclosing block
  // Every loop binds exactly one iteration variable, directly, and the block
  // has no predicate: the nest as the frontend writes it, before scheduling.
  bool plain = true;
};

// The nest of `block` in sch's current module (its get_loops is recorded in
// the trace, as a rule's lookups are); nullopt when a loop extent is not
// constant. The pointers stay valid until the schedule next changes.
std::optional<BlockNest> describe_nest(Schedule& sch, BlockRV block);

// The nest every GPU rule starts from: described, plain, and not inside
// thread-bound loops (another block's binding); nullopt with the reason in *why.
std::optional<BlockNest> unbound_plain_nest(Schedule& sch, BlockRV block, std::string* why);

// The loops of `b` after its first `depth`, those of more than one iteration
// (a tile's own loops, without the unit ones its region's other dimensions give).
std::vector<LoopRV> loops_below(Schedule& sch, BlockRV b, size_t depth);

// Whether a loop around `block` is bound to a GPU block or thread index.
bool thread_bound(const Schedule& sch, BlockRV block);

// A shared-memory tile's copy, its two loops (rows, columns) fused and split
// over the block's threads (`threads`, outermost first, bound to `tags`)
// with `vec` consecutive columns per thread innermost, vectorized (the CUDA
// generator copies them as one 16-byte load and store where they are
// aligned), the rest of each thread's copies serial between: neighbours
// along the last tag copy neighbouring vectors (coalesced). "" when done;
// why not (the tile does not divide into whole vectors per thread), with
// nothing changed.
std::string copy_in_vectors(Schedule& sch, const std::vector<LoopRV>& loops,
                            const std::vector<int64_t>& threads,
                            const std::vector<std::string>& tags, int64_t vec);

}  // namespace tirc
