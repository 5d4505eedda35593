#include "ir/var_use.h"

#include "ir/functor.h"

namespace tirc {

namespace {

class VarCollector : public StmtVisitor {
 public:
  explicit VarCollector(bool with_storage) : with_storage_(with_storage) {}
  VarSet vars;

 protected:
  void visit_var(const VarNode* v) override { vars.insert(v); }
  void visit_load(const BufferLoadNode* n) override {
    add_storage(n->buffer);
    StmtVisitor::visit_load(n);
  }
  void visit_store(const BufferStoreNode* n) override {
    add_storage(n->buffer);
    StmtVisitor::visit_store(n);
  }
  void visit_decl_buffer(const DeclBufferNode* n) override {
    add_storage(n->buffer);
    StmtVisitor::visit_decl_buffer(n);
  }

 private:
  void add_storage(const Buffer& b) {
    if (with_storage_ && b && b->data) vars.insert(b->data.get());
  }
  bool with_storage_;
};

// `in` is not asked again once it said yes.
class AnyVar : public StmtVisitor {
 public:
  explicit AnyVar(const std::function<bool(const VarNode*)>& in) : in_(in) {}
  bool found = false;

 protected:
  void visit_var(const VarNode* v) override { found = found || in_(v); }

 private:
  const std::function<bool(const VarNode*)>& in_;
};

}  // namespace

VarSet vars_of(const Expr& e) {
  VarCollector c(false);
  if (e) c.visit(e);
  return std::move(c.vars);
}

VarSet vars_of(const Stmt& s) {
  VarCollector c(false);
  if (s) c.visit(s);
  return std::move(c.vars);
}

VarSet vars_and_storage_of(const Stmt& s) {
  VarCollector c(true);
  if (s) c.visit(s);
  return std::move(c.vars);
}

bool uses_any(const Expr& e, const std::function<bool(const VarNode*)>& in) {
  if (!e) return false;
  AnyVar a(in);
  a.visit(e);
  return a.found;
}

bool uses_any(const Expr& e, const VarSet& vars) {
  return uses_any(e, [&](const VarNode* v) { return vars.count(v) > 0; });
}

bool uses_var(const Expr& e, const VarNode* v) {
  return v && uses_any(e, [v](const VarNode* u) { return u == v; });
}

bool uses_var(const Stmt& s, const VarNode* v) {
  if (!s || !v) return false;
  const std::function<bool(const VarNode*)> is_v = [v](const VarNode* u) { return u == v; };
  AnyVar a(is_v);
  a.visit(s);
  return a.found;
}

bool has_load(const Expr& e) {
  struct LoadFinder : ExprVisitor {
    bool found = false;
    void visit_load(const BufferLoadNode*) override { found = true; }
  } f;
  if (e) f.visit(e);
  return f.found;
}

namespace {

class Definitions : public StmtVisitor {
 public:
  VarSet defs;

 protected:
  void visit_for(const ForNode* n) override {
    defs.insert(n->loop_var.get());
    StmtVisitor::visit_for(n);
  }
  void visit_block(const BlockNode* n) override {
    for (const IterVar& iv : n->iter_vars) defs.insert(iv.var.get());
    StmtVisitor::visit_block(n);
  }
  void visit_let(const LetStmtNode* n) override {
    defs.insert(n->var.get());
    StmtVisitor::visit_let(n);
  }
  void visit_allocate(const AllocateNode* n) override {
    defs.insert(n->buffer_var.get());
    StmtVisitor::visit_allocate(n);
  }
  void visit_allocate_const(const AllocateConstNode* n) override {
    defs.insert(n->buffer_var.get());
    StmtVisitor::visit_allocate_const(n);
  }
};

}  // namespace

VarSet defined_vars(const Stmt& s) {
  Definitions d;
  if (s) d.visit(s);
  return std::move(d.defs);
}

}  // namespace tirc
