// Whether distinct iterations of a loop can touch the same element: the
// legality of running them concurrently (parallel, vectorize, bind) and of
// treating a loop as one-to-one onto a block's spatial iterations.
//
// The answer is a proof, not a sample: every index is rewritten in the loop
// variables (block bindings, lets and match_buffer views substituted), split
// into `c * v + rest` for the loop variable v, and two iterations v != v' are
// shown apart when the bounds of `rest - rest'` (inner loop variables of the
// two iterations independent, enclosing variables shared) keep the two
// accessed intervals apart by at least |c|. One separating dimension is
// enough; failing that, the row-major flat offsets are tried (when every
// index is provably in bounds). Whatever cannot be shown is refused. The cost
// is a few simplifications per pair of accesses, independent of the extents.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ir/function.h"
#include "schedule/state.h"

namespace tirc {

// Why two different iterations of the loop at the end of `path` (a path from
// the function body to a For) could write the same element, or one write an
// element another reads; nullopt when that is proved impossible. Storage
// allocated under the loop is private to an iteration and not considered.
// For a loop bound (or, with `thread_tag`, being bound) to blockIdx, neither
// is a buffer in scope "shared": each GPU block has its own. The lowering
// moves such a buffer into the loop only where each iteration writes what it
// reads first (compact-allocations), and the CUDA generator refuses one left
// outside its kernel, so blocks never meet on it.
std::optional<std::string> iteration_conflict(const StmtPath& path,
                                              const std::string& thread_tag = {});

// Why a parallel, vectorized or thread-bound loop of `after` (a function body
// a primitive made from `before`) is not proved free of conflicts, or nullopt.
// A loop that was already unproved in `before` (a user's T.parallel the proof
// cannot show) is not held against the primitive.
std::optional<std::string> concurrent_loop_conflict(const Stmt& before, const Stmt& after);

// Whether distinct iterations of loops[index] (loops: every loop around the
// block, outermost first) give the block distinct values of its spatial
// iteration variables, proved as above. False when the loop feeds none of
// them, or feeds them only partly (`f // 32` of a fused loop without `f % 32`),
// or when it cannot be shown.
bool feeds_injectively(const BlockRealizeNode* block, const std::vector<const ForNode*>& loops,
                       size_t index);

}  // namespace tirc
