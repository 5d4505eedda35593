#include "schedule/state.h"

#include "ir/functor.h"

namespace tirc {

namespace {

// Depth-first search keeping the path of statements to the current node.
class PathFinder : public StmtVisitor {
 public:
  explicit PathFinder(std::function<bool(const Stmt&)> match) : match_(std::move(match)) {}
  std::optional<StmtPath> result;

  void search(const Stmt& s) {
    if (!s || result) return;
    path_.push_back(s);
    if (match_(s)) {
      result = StmtPath{path_};
    } else {
      visit(s);
    }
    path_.pop_back();
  }

 protected:
  // Only statements matter; expressions hold no statements.
  void visit_for(const ForNode* n) override { search(n->body); }
  void visit_block(const BlockNode* n) override {
    search(n->init);
    search(n->body);
  }
  void visit_block_realize(const BlockRealizeNode* n) override { search(Stmt(n->block)); }
  void visit_seq(const SeqStmtNode* n) override {
    for (const Stmt& s : n->seq) search(s);
  }
  void visit_if(const IfThenElseNode* n) override {
    search(n->then_case);
    search(n->else_case);
  }
  void visit_let(const LetStmtNode* n) override { search(n->body); }
  void visit_allocate(const AllocateNode* n) override { search(n->body); }
  void visit_allocate_const(const AllocateConstNode* n) override { search(n->body); }
  void visit_decl_buffer(const DeclBufferNode* n) override { search(n->body); }
  void visit_store(const BufferStoreNode*) override {}
  void visit_evaluate(const EvaluateNode*) override {}

 private:
  std::function<bool(const Stmt&)> match_;
  std::vector<Stmt> path_;
};

std::optional<StmtPath> find_path(const Stmt& body, std::function<bool(const Stmt&)> match) {
  PathFinder f(std::move(match));
  f.search(body);
  return f.result;
}

class Replacer : public StmtMutator {
 public:
  Replacer(const StmtNode* target, Stmt replacement)
      : target_(target), replacement_(std::move(replacement)) {}
  bool found = false;

  Stmt mutate_stmt(const Stmt& s) {
    if (s.get() == target_) {
      found = true;
      return replacement_;
    }
    return StmtMutator::mutate(s);
  }

 protected:
  // Expressions never contain the target; skipping them keeps this cheap.
  Expr mutate_imm(const Expr& e) override { return e; }

  Stmt mutate_for(const Stmt& s, const ForNode* n) override {
    Stmt body = mutate_stmt(n->body);
    if (body.same_as(n->body)) return s;
    if (!body) throw Error("replace: a loop body cannot be removed");
    return with_body(*n, body);
  }
  Block mutate_block(const Block& b) override {
    if (b.get() == target_) {
      found = true;
      auto* blk = replacement_.as<BlockNode>();
      if (!blk) throw Error("replace: a block can only be replaced by a block");
      return std::static_pointer_cast<const BlockNode>(replacement_.ptr());
    }
    Stmt init = b->init ? mutate_stmt(b->init) : b->init;
    Stmt body = mutate_stmt(b->body);
    if (init.same_as(b->init) && body.same_as(b->body)) return b;
    auto n = std::make_shared<BlockNode>(*b);
    n->init = init;
    n->body = body ? body : make_evaluate(make_int(0));
    return n;
  }
  Stmt mutate_block_realize(const Stmt& s, const BlockRealizeNode* n) override {
    Block b = mutate_block(n->block);
    if (b == n->block) return s;
    return with_block(*n, b);
  }
  Stmt mutate_seq(const Stmt& s, const SeqStmtNode* n) override {
    std::vector<Stmt> out;
    bool changed = false;
    for (const Stmt& x : n->seq) {
      Stmt y = mutate_stmt(x);
      changed |= !y.same_as(x);
      if (y) out.push_back(y);
    }
    if (!changed) return s;
    if (out.empty()) return make_evaluate(make_int(0));
    return make_seq(std::move(out));
  }
  Stmt mutate_if(const Stmt& s, const IfThenElseNode* n) override {
    Stmt t = mutate_stmt(n->then_case);
    Stmt e = n->else_case ? mutate_stmt(n->else_case) : n->else_case;
    if (t.same_as(n->then_case) && e.same_as(n->else_case)) return s;
    auto r = std::make_shared<IfThenElseNode>(n->cond, t ? t : make_evaluate(make_int(0)), e);
    r->loc = n->loc;
    return r;
  }
  Stmt mutate_let(const Stmt& s, const LetStmtNode* n) override {
    Stmt body = mutate_stmt(n->body);
    if (body.same_as(n->body)) return s;
    auto r =
        std::make_shared<LetStmtNode>(n->var, n->value, body ? body : make_evaluate(make_int(0)));
    r->loc = n->loc;
    return r;
  }
  Stmt mutate_allocate(const Stmt& s, const AllocateNode* n) override {
    Stmt body = mutate_stmt(n->body);
    if (body.same_as(n->body)) return s;
    auto r = std::make_shared<AllocateNode>(n->buffer_var, n->dtype, n->extents, n->scope,
                                            body ? body : make_evaluate(make_int(0)));
    r->loc = n->loc;
    return r;
  }
  Stmt mutate_allocate_const(const Stmt& s, const AllocateConstNode* n) override {
    Stmt body = mutate_stmt(n->body);
    if (body.same_as(n->body)) return s;
    auto r = std::make_shared<AllocateConstNode>(n->buffer_var, n->dtype, n->extents, n->constant,
                                                 body ? body : make_evaluate(make_int(0)));
    r->loc = n->loc;
    return r;
  }
  Stmt mutate_decl_buffer(const Stmt& s, const DeclBufferNode* n) override {
    Stmt body = mutate_stmt(n->body);
    if (body.same_as(n->body)) return s;
    auto r = std::make_shared<DeclBufferNode>(n->buffer, body ? body : make_evaluate(make_int(0)));
    r->loc = n->loc;
    return r;
  }
  Stmt mutate_store(const Stmt& s, const BufferStoreNode*) override { return s; }
  Stmt mutate_evaluate(const Stmt& s, const EvaluateNode*) override { return s; }

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
  Stmt out = r.mutate_stmt(root);
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
