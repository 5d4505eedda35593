// Which variables an expression or statement mentions: the one walk behind
// every "does this use X" question (schedule legality, bound relaxation,
// lowering, loop invariance in the code generators, closures of outlined
// loops).
#pragma once

#include <functional>
#include <unordered_set>

#include "ir/stmt.h"

namespace tirc {

using VarSet = std::unordered_set<const VarNode*>;

// Every variable e (or s) mentions: loop and iteration variables, scalar
// parameters, lets, and the variables inside buffer shapes and regions. A null
// e gives the empty set.
VarSet vars_of(const Expr& e);
VarSet vars_of(const Stmt& s);
// The same plus the storage variable of every buffer s loads, stores or
// declares: what a statement needs in scope to run (the closure of an
// outlined parallel loop, the live range of an allocation).
VarSet vars_and_storage_of(const Stmt& s);

// Every variable a statement of s defines: loop and iteration variables,
// lets, allocations (not the variables a match_buffer binds).
VarSet defined_vars(const Stmt& s);

bool uses_var(const Expr& e, const VarNode* v);
bool uses_var(const Stmt& s, const VarNode* v);
// Whether e mentions a variable for which `in` is true.
bool uses_any(const Expr& e, const std::function<bool(const VarNode*)>& in);
bool uses_any(const Expr& e, const VarSet& vars);
// Whether e reads a buffer (an index that does is not affine in the loops).
bool has_load(const Expr& e);

}  // namespace tirc
