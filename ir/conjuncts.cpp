#include "ir/conjuncts.h"

namespace tirc {

std::vector<Expr> conjuncts(const Expr& e) {
  if (!e || is_const_int(e, 1)) return {};
  if (e.kind() == ExprKind::And) {
    auto* b = e.as<BinaryNode>();
    std::vector<Expr> out = conjuncts(b->a);
    for (Expr& x : conjuncts(b->b)) out.push_back(std::move(x));
    return out;
  }
  return {e};
}

Expr conjunction(const std::vector<Expr>& es) {
  if (es.empty()) return make_bool(true);
  Expr out = es[0];
  for (size_t i = 1; i < es.size(); ++i) out = logical_and(out, es[i]);
  return out;
}

}  // namespace tirc
