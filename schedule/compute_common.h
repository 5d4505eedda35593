// Helpers shared by compute_at, reverse_compute_at, compute_inline and
// reverse_compute_inline: finding a block's scope, planning the removal of a
// block from where it sits, and small facts about buffers.
#pragma once

#include "schedule/analysis.h"

#include <string>

#include "ir/function.h"
#include "schedule/state.h"

namespace tirc {

// The statement to delete so that the block at `path` disappears together with
// the loops that hold nothing else: the highest For whose only content is the
// block (or the block realize itself). It must sit in a SeqStmt; otherwise the
// block is alone in its scope and throws ScheduleError(primitive, ...).
const StmtNode* removal_root(const StmtPath& path, const std::string& primitive);

// True when `b` is referenced anywhere in s (loads, stores, regions, buffers
// allocated or matched) other than in an alloc_buffers list.
bool buffer_used(const Stmt& s, const Buffer& b);

// s with `b` dropped from the alloc_buffers of the block that allocates it.
Stmt remove_alloc(const Stmt& s, const Buffer& b);

// True when the predicate is absent or the constant true.
bool is_trivial_predicate(const Expr& p);

// True when the block's predicate only keeps its iteration values inside
// their domains, as an inexact split's `i_0 * 5 + i_1 < 16` does: each
// conjunct is `value < N` for one of the block's iteration values with N at
// least the end of that variable's domain. Such a predicate excludes no
// iteration the block means to run, so a primitive that regenerates or
// removes the block's loops may drop it (TVM's compute_inline and compute_at
// do).
bool predicate_only_bounds_domain(const BlockRealizeNode* realize);

}  // namespace tirc
