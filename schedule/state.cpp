#include "schedule/state.h"

#include "ir/functor.h"

namespace tirc {

namespace {

// Depth-first search keeping the path of statements to the current node.
class PathFinder : public StmtVisitor {
 public:
  // Only statements matter; expressions hold no statements.
  explicit PathFinder(std::function<bool(const Stmt&)> match)
      : StmtVisitor(Walk::StatementsOnly), match_(std::move(match)) {}
  std::optional<StmtPath> result;

 protected:
  void visit_stmt(const Stmt& s) override {
    if (!s || result) return;
    path_.push_back(s);
    if (match_(s))
      result = StmtPath{path_};
    else
      StmtVisitor::visit_stmt(s);
    path_.pop_back();
  }
  // A block is on the path below its realize.
  void visit_block_realize(const BlockRealizeNode* n) override { visit(Stmt(n->block)); }

 private:
  std::function<bool(const Stmt&)> match_;
  std::vector<Stmt> path_;
};

std::optional<StmtPath> find_path(const Stmt& body, std::function<bool(const Stmt&)> match) {
  PathFinder f(std::move(match));
  f.visit(body);
  return f.result;
}

class Replacer : public StmtMutator {
 public:
  // Expressions never contain the target; skipping them keeps this cheap.
  Replacer(const StmtNode* target, Stmt replacement)
      : StmtMutator(Walk::StatementsOnly), target_(target), replacement_(std::move(replacement)) {}
  bool found = false;

 protected:
  Stmt mutate_stmt(const Stmt& s) override {
    if (s.get() != target_) return StmtMutator::mutate_stmt(s);
    found = true;
    return replacement_;
  }
  // A realize's block is not a child statement of its own.
  Block mutate_block(const Block& b) override {
    if (b.get() != target_) return StmtMutator::mutate_block(b);
    found = true;
    if (!replacement_.as<BlockNode>())
      throw Error("replace: a block can only be replaced by a block");
    return std::static_pointer_cast<const BlockNode>(replacement_.ptr());
  }

 private:
  const StmtNode* target_;
  Stmt replacement_;
};

class BlockCollector : public StmtVisitor {
 public:
  explicit BlockCollector(bool nested) : nested_(nested) {}
  std::vector<const BlockRealizeNode*> blocks;

 protected:
  void visit_block_realize(const BlockRealizeNode* n) override {
    blocks.push_back(n);
    if (nested_) StmtVisitor::visit_block_realize(n);
  }

 private:
  bool nested_;
};

}  // namespace

std::optional<StmtPath> find_block(const Stmt& body, std::string_view name) {
  return find_path(body, [&](const Stmt& s) {
    auto* r = s.as<BlockRealizeNode>();
    return r && r->block->name == name;
  });
}

std::optional<StmtPath> find_loop(const Stmt& body, const VarNode* var) {
  return find_path(body, [&](const Stmt& s) {
    auto* f = s.as<ForNode>();
    return f && f->loop_var.get() == var;
  });
}

std::vector<const ForNode*> enclosing_loops(const StmtPath& path) {
  std::vector<const ForNode*> loops;
  for (size_t i = path.stmts.size() - 1; i-- > 0;) {
    const Stmt& s = path.stmts[i];
    if (s.as<BlockNode>() || s.as<BlockRealizeNode>()) break;
    if (auto* f = s.as<ForNode>()) loops.insert(loops.begin(), f);
  }
  return loops;
}

const BlockRealizeNode* enclosing_block(const StmtPath& path) {
  for (size_t i = path.stmts.size() - 1; i-- > 0;)
    if (auto* r = path.stmts[i].as<BlockRealizeNode>()) return r;
  return nullptr;
}

Stmt scope_of(const StmtPath& path) {
  for (size_t i = path.stmts.size() - 1; i-- > 0;)
    if (path.stmts[i].as<BlockNode>()) return path.stmts[i];
  return path.stmts.front();
}

Stmt replace_stmt(const Stmt& root, const StmtNode* target, const Stmt& replacement) {
  Replacer r(target, replacement);
  Stmt out = r.mutate(root);
  if (!r.found) throw Error("replace: the statement to replace is not in the function");
  return out;
}

std::vector<const BlockRealizeNode*> collect_blocks(const Stmt& s) {
  BlockCollector c(true);
  c.visit(s);
  return c.blocks;
}

std::vector<const BlockRealizeNode*> child_blocks(const Stmt& s) {
  BlockCollector c(false);
  if (auto* r = s.as<BlockRealizeNode>()) {
    c.visit(r->block->init);
    c.visit(r->block->body);
  } else if (auto* b = s.as<BlockNode>()) {
    c.visit(b->init);
    c.visit(b->body);
  } else {
    c.visit(s);
  }
  return c.blocks;
}

std::vector<const BlockRealizeNode*> outermost_blocks(const Stmt& s) {
  if (auto* r = s.as<BlockRealizeNode>()) return {r};
  return child_blocks(s);
}

Stmt wrap_loops(const std::vector<const ForNode*>& loops, Stmt body) {
  for (size_t i = loops.size(); i-- > 0;) body = with_body(*loops[i], std::move(body));
  return body;
}

}  // namespace tirc
