// Navigating and rewriting function bodies: shared by every primitive.
#pragma once

#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "ir/function.h"

namespace tirc {

// The statements from a function body down to one node: front() is the body,
// back() the node itself.
struct StmtPath {
  std::vector<Stmt> stmts;
  const Stmt& node() const { return stmts.back(); }
};

// The BlockRealize of the block with this name.
std::optional<StmtPath> find_block(const Stmt& body, std::string_view name);
// The For whose loop variable is `var`.
std::optional<StmtPath> find_loop(const Stmt& body, const VarNode* var);

// The loops between the nearest enclosing block (exclusive) and the path's
// node (exclusive), outermost first.
std::vector<const ForNode*> enclosing_loops(const StmtPath& path);
// The BlockRealize of the nearest block strictly above the path's node; null
// when there is none.
const BlockRealizeNode* enclosing_block(const StmtPath& path);

// The statement whose child blocks form the scope of the node at `path`: the
// nearest enclosing Block, else the function body.
Stmt scope_of(const StmtPath& path);

// A copy of `root` where the node `target` (by identity) is `replacement`. An
// empty replacement removes target as StmtMutator removes a statement: from
// its SeqStmt, as `T.evaluate(0)` for another body, an error for a loop's
// body. Everything off the path is shared.
Stmt replace_stmt(const Stmt& root, const StmtNode* target, const Stmt& replacement);

// Block realizes under s in program order; nested ones after their parent.
std::vector<const BlockRealizeNode*> collect_blocks(const Stmt& s);
// The block realizes directly under s (not inside another block). When s is
// itself a block (realize), its children: the blocks in its body.
std::vector<const BlockRealizeNode*> child_blocks(const Stmt& s);
// The outermost block realizes of s: s itself when it is a block realize,
// else child_blocks(s). For a statement in a sequence, the blocks it holds.
std::vector<const BlockRealizeNode*> outermost_blocks(const Stmt& s);

// The For nest `loops` (outermost first, as written) rebuilt around body.
Stmt wrap_loops(const std::vector<const ForNode*>& loops, Stmt body);

}  // namespace tirc
