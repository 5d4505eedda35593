#include "driver/kernel_flops.h"

#include "ir/functor.h"

namespace tirc::driver {

namespace {

bool loads(const Expr& e, const Buffer& b) {
  const auto* l = e.as<BufferLoadNode>();
  return l && l->buffer == b;
}

bool is_product(const Expr& e) {
  return e && e.kind() == ExprKind::Mul;
}

// The store accumulates a product into its own buffer: C = C + x * y (either
// operand order). Casts around the product (mixed precision) do not change
// the count.
bool is_multiply_add(const BufferStoreNode& s) {
  const auto* add = s.value.as<BinaryNode>();
  if (!add || s.value.kind() != ExprKind::Add) return false;
  auto strip = [](const Expr& e) {
    const auto* c = e.as<CastNode>();
    return c ? c->value : e;
  };
  return (loads(add->a, s.buffer) && is_product(strip(add->b))) ||
         (loads(add->b, s.buffer) && is_product(strip(add->a)));
}

class MacCounter : public StmtVisitor {
 public:
  double macs = 0;
  bool found = false, unknown = false;

 protected:
  void visit_block(const BlockNode* n) override {
    const auto* store = n->body.as<BufferStoreNode>();
    bool reduces = false;
    for (const IterVar& iv : n->iter_vars) reduces |= iv.kind == IterKind::Reduce;
    if (store && reduces && is_multiply_add(*store)) {
      // The domain of the block's iteration variables is the number of
      // times its body runs, however the loops around it were scheduled.
      double points = 1;
      for (const IterVar& iv : n->iter_vars) {
        auto extent = as_const_int(iv.dom.extent);
        if (!extent) {
          unknown = true;
          return;
        }
        points *= static_cast<double>(*extent);
      }
      macs += points;
      found = true;
    }
    StmtVisitor::visit_block(n);
  }
};

}  // namespace

std::optional<double> contraction_macs(const PrimFunc& f) {
  if (!f || !f->body) return std::nullopt;
  MacCounter counter;
  counter.visit(f->body);
  if (!counter.found || counter.unknown) return std::nullopt;
  return counter.macs;
}

}  // namespace tirc::driver
