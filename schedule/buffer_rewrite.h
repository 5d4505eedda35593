// Shared machinery of the cache and layout primitives (cache_read,
// cache_write, set_scope, storage_align, transform_layout, reindex): where a
// block sits in its scope, which blocks touch a buffer, swapping one buffer
// for another, and building copy stages.
#pragma once

#include "schedule/analysis.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ir/function.h"
#include "schedule/schedule.h"
#include "schedule/state.h"

namespace tirc {

// A block together with the scope block it is a direct child of.
struct BlockInScope {
  StmtPath path;                    // from the function body to the block's realize
  const BlockRealizeNode* realize;  // the block
  const BlockRealizeNode* scope;    // the nearest enclosing block (the root for top-level)
  std::vector<Stmt> top;            // the statements of the scope's body, in order
  size_t top_index = 0;             // which of `top` contains the block
};

// Refuses (ScheduleError of `primitive`) the root block, which has no scope.
BlockInScope locate_block(const Stmt& body, const std::string& name, const char* primitive);

// The statements of a scope block's body: its SeqStmt's elements or the body.
std::vector<Stmt> top_statements(const BlockNode& scope);
// Which top statement contains the block realize `r` (by identity).
std::optional<size_t> top_index_of(const std::vector<Stmt>& top, const BlockRealizeNode* r);

bool reads_buffer(const BlockNode& b, const Buffer& buf);
bool writes_buffer(const BlockNode& b, const Buffer& buf);

// The buffer at `index` of the block's T.reads or T.writes; refuses an index
// out of range (ScheduleError of `primitive`).
Buffer block_buffer(const BlockNode& blk, BufferIndex index, const char* primitive);

// True when some block of f allocates buf.
bool is_allocated_buffer(const PrimFunc& f, const Buffer& buf);

// s with every reference to `from` (loads, stores, regions, allocations,
// match_buffer sources) replaced by `to`.
Stmt replace_buffer(const Stmt& s, const Buffer& from, const Buffer& to);

// A loop nest `for ax0, ax1, ... in T.grid(extents)` around one block named
// `name` whose spatial iteration variables v0, v1, ... are bound to the loops
// and range over [mins[d], mins[d] + extents[d]). `body` builds the block's
// body from the iteration variables; reads/writes are inferred.
Stmt make_copy_stage(const std::string& name, const std::vector<Expr>& mins,
                     const std::vector<Expr>& extents,
                     const std::function<Stmt(const std::vector<Var>&)>& body);

// The scope block with `stage` inserted before top statement `pos` (pos ==
// top.size() appends) and `alloc` added to its alloc_buffers.
Block insert_stage(const BlockNode& scope, size_t pos, const Stmt& stage, const Buffer& alloc);

// Evaluates an integer expression over variables with known values; nullopt
// when it uses anything else (loads, unknown variables, non-integer types).
std::optional<int64_t> eval_index(const Expr& e, const std::vector<const VarNode*>& vars,
                                  const std::vector<int64_t>& values);

// Calls visit(point) for every point of the box [0, extents) in row-major
// order; stops early (returning false) when visit returns false.
bool for_each_point(const std::vector<int64_t>& extents,
                    const std::function<bool(const std::vector<int64_t>&)>& visit);

// The block with its region entries for `buf` recomputed from its body (the
// other entries keep their order and content).
Block refresh_regions(const Block& b, const Buffer& buf);

}  // namespace tirc
