// Facts about blocks that schedule primitives check before they apply.
#pragma once

#include <vector>

#include "ir/function.h"
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

// The iteration values are affine in the loop variables of `loops` (sums of
// loop variables times constants, plus floordiv/floormod patterns that split
// and fuse produce) and map distinct loop iterations to distinct points.
bool is_affine_binding(const BlockRealizeNode* block, const std::vector<const ForNode*>& loops);

// True when expression e uses variable v.
bool uses_var(const Expr& e, const VarNode* v);
bool uses_var(const Stmt& s, const VarNode* v);

}  // namespace tirc
