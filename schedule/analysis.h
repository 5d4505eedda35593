// Facts about blocks that schedule primitives check before they apply.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ir/function.h"
#include "ir/var_use.h"
#include "schedule/state.h"

namespace tirc {

// Blocks of the same scope (children of the same block, in program order)
// that write a buffer `block` reads (producers) or read a buffer it writes
// (consumers). Uses the blocks' declared T.reads/T.writes.
std::vector<const BlockRealizeNode*> producers_of(const Stmt& scope, const BlockRealizeNode* block);
std::vector<const BlockRealizeNode*> consumers_of(const Stmt& scope, const BlockRealizeNode* block);

// Every iteration variable is data-parallel, the block is the only writer of
// its outputs within the scope, and it does not read what it writes.
bool is_complete_block(const Stmt& scope, const BlockRealizeNode* block);
// Iteration variables are data-parallel or reduce, it has an init (or reads
// its output), reduce variables do not index the output, and it is the only
// writer of its outputs within the scope.
bool is_reduction_block(const Stmt& scope, const BlockRealizeNode* block);

// Whether a block's iteration values are affine in the loop variables of
// `loops` (the loops between the block and its enclosing block). The rule:
// after simplification (with the loops' ranges known), each value is a sum of
// terms `c * x`, `c * floordiv(E, k)` and `c * floormod(E, k)` plus a
// constant, where x is a loop variable, c a coefficient free of loop variables,
// k a positive integer constant and E again such a sum. Variables that are not
// among the loops (outer block iterators, parameters) count as constants. The
// loop variables form disjoint groups: a variable used as a plain term feeds
// exactly one value; a variable used only under floordiv/floormod (a fused
// loop split back into several iterators, `f // 64` and `f % 64`) may feed
// several. Anything else (i * j, min, select, loads) is not affine.
bool is_affine_binding(const BlockRealizeNode* block, const std::vector<const ForNode*>& loops);

// An iteration variable of a block whose bound value uses some loop variable.
struct BoundIterVar {
  const BlockRealizeNode* block;
  const IterVar* iter_var;
};
// The iteration variables of `blocks` that `loop_var` feeds, in block order.
std::vector<BoundIterVar> iter_vars_bound_by(const VarNode* loop_var,
                                             const std::vector<const BlockRealizeNode*>& blocks);

// True when b is one of f's parameters (an input or output the schedule
// must keep).
bool is_param_buffer(const PrimFunc& f, const Buffer& b);

// True when expression e uses variable v.
// Whether two index lists are structurally equal, element by element (a
// load at the very element a store writes).
bool same_indices(const std::vector<Expr>& a, const std::vector<Expr>& b);

// The x of an index pair [x // E, x % E] at dimensions d, d + 1 of b, with E
// b's constant extent at d + 1 (a flattened position written into two
// dimensions, as a convolution over output pixels does): the pair is one
// dimension indexed x. Null when the indices are not such a pair.
Expr split_pair(const Buffer& b, const Expr& at_d, const Expr& at_next, size_t d);

// The conjuncts of a block predicate that use none of the `dropped` loop
// variables (for a block copied out from under those loops: an init).
Expr keep_conjuncts(const Expr& pred, const std::vector<const VarNode*>& dropped);

}  // namespace tirc
