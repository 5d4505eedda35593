#include "passes/pass_util.h"

#include "ir/functor.h"

namespace tirc::passes {

namespace {

class NameCollector : public StmtVisitor {
 public:
  std::unordered_set<std::string>& names;
  explicit NameCollector(std::unordered_set<std::string>& n) : names(n) {}
  void add(const Buffer& b) {
    if (!b) return;
    names.insert(b->name);
    if (b->data) names.insert(b->data->name);
  }

 protected:
  void visit_var(const VarNode* v) override { names.insert(v->name); }
  void visit_load(const BufferLoadNode* n) override {
    add(n->buffer);
    StmtVisitor::visit_load(n);
  }
  void visit_store(const BufferStoreNode* n) override {
    add(n->buffer);
    StmtVisitor::visit_store(n);
  }
  void visit_for(const ForNode* n) override {
    if (n->loop_var) names.insert(n->loop_var->name);
    StmtVisitor::visit_for(n);
  }
  void visit_block(const BlockNode* n) override {
    for (const IterVar& iv : n->iter_vars)
      if (iv.var) names.insert(iv.var->name);
    for (const Buffer& b : n->alloc_buffers) add(b);
    for (const MatchBufferRegion& m : n->match_buffers) add(m.buffer);
    StmtVisitor::visit_block(n);
  }
  void visit_region(const BufferRegion& r) override {
    add(r.buffer);
    StmtVisitor::visit_region(r);
  }
  void visit_let(const LetStmtNode* n) override {
    if (n->var) names.insert(n->var->name);
    StmtVisitor::visit_let(n);
  }
  void visit_allocate(const AllocateNode* n) override {
    if (n->buffer_var) names.insert(n->buffer_var->name);
    StmtVisitor::visit_allocate(n);
  }
  void visit_allocate_const(const AllocateConstNode* n) override {
    if (n->buffer_var) names.insert(n->buffer_var->name);
    StmtVisitor::visit_allocate_const(n);
  }
  void visit_decl_buffer(const DeclBufferNode* n) override {
    add(n->buffer);
    StmtVisitor::visit_decl_buffer(n);
  }
};

int bits_of(DataType t) {
  return t.bits();
}

}  // namespace

NameSet::NameSet(const PrimFunc& f) {
  NameCollector c(used_);
  for (const Param& p : f->params) {
    if (p.var) used_.insert(p.var->name);
    c.add(p.buffer);
  }
  c.visit(f->body);
}

std::string NameSet::fresh(const std::string& base) {
  std::string name = base;
  for (int i = 1; used_.count(name); ++i) name = base + "_" + std::to_string(i);
  used_.insert(name);
  return name;
}

namespace {

class VariableRenewer : public StmtMutator {
 public:
  VariableRenewer(NameSet& names, VarMap& vmap) : names_(names), vmap_(vmap) {}

 protected:
  Expr mutate_var(const Expr& e) override {
    auto it = vmap_.find(e.as<VarNode>());
    return it == vmap_.end() ? e : it->second;
  }

  Stmt mutate_for(const Stmt&, const ForNode* n) override {
    Var v = renew(n->loop_var);
    return with_header(*n, v, mutate(n->min), mutate(n->extent), mutate(n->body));
  }

  Stmt mutate_let(const Stmt&, const LetStmtNode* n) override {
    Expr value = mutate(n->value);  // the new variable is not in scope in its own value
    Var v = renew(n->var);
    auto m = std::make_shared<LetStmtNode>(v, value, mutate(n->body));
    m->loc = n->loc;
    return Stmt(std::move(m));
  }

 private:
  Var renew(const Var& old) {
    Var v = make_var(names_.fresh(old->name), old->dtype);
    vmap_[old.get()] = v;
    return v;
  }

  NameSet& names_;
  VarMap& vmap_;
};

}  // namespace

Stmt with_new_variables(const Stmt& s, NameSet& names, VarMap& vmap) {
  return VariableRenewer(names, vmap).mutate(s);
}

Expr cast_index(const Expr& e, DataType t) {
  if (e.dtype().element_of() == t.element_of()) return e;
  if (auto c = as_const_int(e); c && e.dtype().lanes() == 1) return make_int(*c, t.element_of());
  DataType target = t.element_of();
  if (e.dtype().lanes() > 1) target = target.with_lanes(e.dtype().lanes());
  return make_cast(target, e);
}

namespace {
Expr combine(ExprKind kind, Expr a, Expr b) {
  DataType ta = a.dtype().element_of(), tb = b.dtype().element_of();
  DataType t = bits_of(ta) >= bits_of(tb) ? ta : tb;
  if (as_const_int(a) && a.dtype().lanes() == 1) t = tb;
  if (as_const_int(b) && b.dtype().lanes() == 1 && !(as_const_int(a) && a.dtype().lanes() == 1))
    t = ta;
  a = cast_index(a, t);
  b = cast_index(b, t);
  int la = a.dtype().lanes(), lb = b.dtype().lanes();
  if (la > 1 && lb == 1) b = make_broadcast(b, la);
  if (lb > 1 && la == 1) a = make_broadcast(a, lb);
  return make_binary(kind, a, b);
}
}  // namespace

Expr index_add(const Expr& a, const Expr& b) {
  if (is_const_int(a, 0) && a.dtype().lanes() == 1) return b;
  if (is_const_int(b, 0) && b.dtype().lanes() == 1) return a;
  return combine(ExprKind::Add, a, b);
}

Expr index_mul(const Expr& a, const Expr& b) {
  if (is_const_int(a, 1) && a.dtype().lanes() == 1) return b;
  if (is_const_int(b, 1) && b.dtype().lanes() == 1) return a;
  return combine(ExprKind::Mul, a, b);
}

std::vector<Expr> effective_strides(const Buffer& b) {
  if (!b->strides.empty()) return b->strides;
  std::vector<Expr> out(b->ndim());
  Expr stride = make_int(1, b->shape.empty() ? DataType::int32() : b->shape.back().dtype());
  for (size_t i = b->ndim(); i-- > 0;) {
    out[i] = stride;
    stride = index_mul(stride, b->shape[i]);
  }
  return out;
}

Expr storage_span(const Buffer& b) {
  Expr span = b->elem_offset ? b->elem_offset : make_int(0);
  if (b->strides.empty()) {
    Expr elems = make_int(1);
    for (const Expr& d : b->shape) elems = index_mul(elems, d);
    return index_add(span, elems);
  }
  std::vector<Expr> strides = effective_strides(b);
  for (size_t i = 0; i < b->ndim(); ++i)
    span = index_add(span, index_mul(index_add(b->shape[i], make_int(-1)), strides[i]));
  return index_add(span, make_int(1));
}

}  // namespace tirc::passes
