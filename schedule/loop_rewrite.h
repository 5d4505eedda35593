// Helpers shared by the loop primitives (split, fuse, reorder, add_unit_loop,
// loop kinds): rewriting block bindings after a loop variable is replaced, and
// the legality facts they check.
#pragma once

#include <string>
#include <vector>

#include "ir/arith/analyzer.h"
#include "ir/substitute.h"
#include "schedule/state.h"

namespace tirc {

// An analyzer that knows the ranges of every loop on the path (the node
// itself included when it is a loop).
Analyzer analyzer_for_path(const StmtPath& path);

// s with variables replaced by vmap; every block binding or predicate that
// changed is simplified with `az` (which learns the ranges of the loops met on
// the way down), so printed indices read `i_0 * 32 + i_1`, not `i_0 * 32 + i_1 * 1`.
Stmt substitute_bindings(const Stmt& s, const VarMap& vmap, Analyzer az);

// Conjoins `pred` to the predicate of each outermost block under s.
Stmt add_block_predicate(const Stmt& s, const Expr& pred);

// True when s holds a store or an evaluation that is not inside a block: such
// statements cannot be guarded by a block predicate.
bool has_stmt_outside_blocks(const Stmt& s);

// The names of the child blocks of the loop statement `loop_stmt` whose
// bindings use the loop variable but are not affine in their loops.
std::vector<std::string> non_affine_blocks_using(const Stmt& func_body, const Stmt& loop_stmt);

// "data-parallel", "reduce", "opaque", "thread".
const char* iter_kind_name(IterKind kind);

}  // namespace tirc
