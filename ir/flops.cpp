#include "ir/flops.h"

#include "ir/functor.h"

namespace tirc {

namespace {

// Float operations of one evaluation of an expression.
class ExprFlops : public ExprVisitor {
 public:
  int64_t flops = 0;

 protected:
  void visit_binary(const BinaryNode* n) override {
    switch (n->kind) {
      case ExprKind::Add:
      case ExprKind::Sub:
      case ExprKind::Mul:
      case ExprKind::Div:
      case ExprKind::Min:
      case ExprKind::Max:
        if (n->dtype.is_float()) flops += n->dtype.lanes();
        break;
      default:
        break;
    }
    ExprVisitor::visit_binary(n);
  }
  void visit_call(const CallNode* n) override {
    if (n->dtype.is_float() && n->op != "if_then_else" && n->op != "reinterpret")
      flops += (n->op == "fma" ? 2 : 1) * n->dtype.lanes();
    ExprVisitor::visit_call(n);
  }
};

int64_t expr_flops(const Expr& e) {
  ExprFlops f;
  if (e) f.visit(e);
  return f.flops;
}

class StmtFlops : public StmtVisitor {
 public:
  int64_t flops = 0;
  bool unknown = false;

 protected:
  void visit_for(const ForNode* n) override {
    const int64_t saved = iterations_;
    auto ext = as_const_int(n->extent);
    if (ext) {
      iterations_ *= *ext;
      StmtVisitor::visit_for(n);
    } else {
      // A non-constant extent matters only if something below computes.
      StmtFlops inner;
      inner.visit(n->body);
      unknown = unknown || inner.flops > 0 || inner.unknown;
    }
    iterations_ = saved;
  }
  void visit_store(const BufferStoreNode* n) override {
    flops += iterations_ * expr_flops(n->value);
  }
  void visit_block_realize(const BlockRealizeNode* n) override {
    const BlockNode& b = *n->block;
    if (b.init) {
      int64_t spatial = 1, all = 1;
      for (const IterVar& iv : b.iter_vars) {
        const int64_t e = as_const_int(iv.dom.extent).value_or(0);
        all *= e;
        if (iv.kind == IterKind::DataPar) spatial *= e;
      }
      StmtFlops init;
      init.visit(b.init);
      if (init.unknown || (init.flops > 0 && all == 0)) unknown = true;
      if (all > 0) flops += init.flops * spatial * iterations_ / all;
    }
    visit(b.body);
  }

 private:
  int64_t iterations_ = 1;
};

}  // namespace

std::optional<int64_t> count_flops(const PrimFunc& f) {
  StmtFlops s;
  s.visit(f->body);
  if (s.unknown) return std::nullopt;
  return s.flops;
}

}  // namespace tirc
