// The individual lowering passes, in pipeline order (lower() in pipeline.h
// runs them all). Each takes and returns a whole PrimFunc; see LOWERED.md.
#pragma once

#include "ir/function.h"

namespace tirc {

// Hoists a reduction block's init into its own loop nest (a "<name>_init"
// block) before the outermost loop that binds a reduction variable, when that
// keeps the program's meaning; otherwise leaves the init in place.
PrimFunc decompose_reductions(const PrimFunc& f);
// Removes blocks: iteration variables become their bound values, T.where an
// IfThenElse, a remaining init a guarded statement, alloc_buffers Allocates.
// Refuses thread-bound loops unless `keep_thread_bindings` (a GPU target).
PrimFunc lower_blocks(const PrimFunc& f, bool keep_thread_bindings = false);
// Rewrites every access to one element offset on a flat buffer sharing the
// original storage; drops DeclBuffer.
PrimFunc flatten_buffers(const PrimFunc& f);
// Simplifies every index, condition and loop bound; drops provably true ifs.
PrimFunc simplify_lowered(const PrimFunc& f);
// Splits a loop whose body is guarded by a condition that holds on part of
// its range into a main part without the guard and head/tail parts that keep
// it; drops iterations where such a guard never holds.
PrimFunc partition_loops(const PrimFunc& f);
// Moves an allocation that one loop's iterations each fill and then read
// into that loop, shrunk to the part one iteration uses.
PrimFunc compact_allocations(const PrimFunc& f);
// GPU kernels: the serial sum of a block's threads' partial results in
// shared memory becomes a tree, half the threads adding a pair each step.
PrimFunc tree_reductions(const PrimFunc& f);
// Lets allocations whose lifetimes do not overlap share storage.
PrimFunc plan_storage(const PrimFunc& f);

}  // namespace tirc
