#include "schedule/loop_rewrite.h"

#include "ir/functor.h"
#include "schedule/analysis.h"

namespace tirc {

namespace {

class BindingRewriter : public StmtMutator {
 public:
  BindingRewriter(const VarMap& vmap, Analyzer az) : vmap_(vmap), az_(std::move(az)) {}

 protected:
  Expr mutate_var(const Expr& e) override {
    auto it = vmap_.find(e.as<VarNode>());
    return it == vmap_.end() ? e : it->second;
  }
  Stmt mutate_for(const Stmt& s, const ForNode* n) override {
    az_.bind(n->loop_var, Range{n->min, n->extent});
    return StmtMutator::mutate_for(s, n);
  }
  Stmt mutate_block_realize(const Stmt& s, const BlockRealizeNode* n) override {
    bool changed = false;
    std::vector<Expr> values;
    for (const Expr& v : n->iter_values) {
      Expr m = mutate(v);
      if (!m.same_as(v)) {
        m = az_.simplify(m);
        changed = true;
      }
      values.push_back(std::move(m));
    }
    Expr pred = mutate(n->predicate);
    if (!pred.same_as(n->predicate)) {
      pred = az_.simplify(pred);
      changed = true;
    }
    Block b = mutate_block(n->block);
    if (!changed && b == n->block) return s;
    auto r = std::make_shared<BlockRealizeNode>(std::move(values), std::move(pred), std::move(b));
    r->loc = n->loc;
    return r;
  }

 private:
  const VarMap& vmap_;
  Analyzer az_;
};

class PredicateAppender : public StmtMutator {
 public:
  explicit PredicateAppender(Expr pred) : pred_(std::move(pred)) {}

 protected:
  Stmt mutate_block_realize(const Stmt&, const BlockRealizeNode* n) override {
    return with_predicate(*n,
                          is_const_int(n->predicate, 1) ? pred_ : logical_and(n->predicate, pred_));
  }

 private:
  Expr pred_;
};

class OutsideBlockFinder : public StmtVisitor {
 public:
  bool found = false;

 protected:
  void visit_block_realize(const BlockRealizeNode*) override {}
  void visit_store(const BufferStoreNode*) override { found = true; }
  void visit_evaluate(const EvaluateNode* n) override {
    if (!as_const_int(n->value)) found = true;
  }
};

}  // namespace

Analyzer analyzer_for_path(const StmtPath& path) {
  Analyzer az;
  for (const Stmt& s : path.stmts)
    if (auto* f = s.as<ForNode>()) az.bind(f->loop_var, Range{f->min, f->extent});
  return az;
}

Stmt substitute_bindings(const Stmt& s, const VarMap& vmap, Analyzer az) {
  BindingRewriter r(vmap, std::move(az));
  return r.mutate(s);
}

Stmt add_block_predicate(const Stmt& s, const Expr& pred) {
  PredicateAppender a(pred);
  return a.mutate(s);
}

bool has_stmt_outside_blocks(const Stmt& s) {
  OutsideBlockFinder f;
  f.visit(s);
  return f.found;
}

std::vector<std::string> non_affine_blocks_using(const Stmt& func_body, const Stmt& loop_stmt) {
  const ForNode* loop = loop_stmt.as<ForNode>();
  std::vector<std::string> out;
  for (const BlockRealizeNode* r : child_blocks(loop_stmt)) {
    bool used = false;
    for (const Expr& v : r->iter_values) used |= uses_var(v, loop->loop_var.get());
    if (!used) continue;
    std::optional<StmtPath> path = find_block(func_body, r->block->name);
    if (!path || !is_affine_binding(r, enclosing_loops(*path))) out.push_back(r->block->name);
  }
  return out;
}

const char* iter_kind_name(IterKind kind) {
  switch (kind) {
    case IterKind::DataPar:
      return "data-parallel";
    case IterKind::Reduce:
      return "reduce";
    case IterKind::Opaque:
      return "opaque";
    case IterKind::ThreadIndex:
      return "thread";
  }
  return "unknown";
}

}  // namespace tirc
