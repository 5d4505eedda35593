#include "ir/arith/analyzer.h"

#include "ir/arith/bound.h"
#include "ir/arith/simplifier.h"

namespace tirc {

void Analyzer::bind(const Var& var, const Range& range) {
  if (!var || !range.min || !range.extent) return;
  arith::Interval lo = arith::bound_of(simplify(range.min), bounds_);
  arith::Interval ext = arith::bound_of(simplify(range.extent), bounds_);
  ConstIntBound b;
  if (lo.bounded_below() && lo.lo >= INT64_MIN && lo.lo <= INT64_MAX)
    b.min = static_cast<int64_t>(lo.lo);
  if (lo.bounded_above() && ext.bounded_above()) {
    arith::i128 hi = lo.hi + ext.hi - 1;
    if (hi >= INT64_MIN && hi <= INT64_MAX) b.max = static_cast<int64_t>(hi);
  }
  // An empty range gives no usable bound.
  if (b.min && b.max && *b.max < *b.min) b = {};
  bounds_[var.get()] = b;
}

void Analyzer::bind(const Var& var, ConstIntBound bound) {
  if (!var) return;
  bounds_[var.get()] = bound;
}

Expr Analyzer::simplify(const Expr& e) const {
  return arith::Simplifier(bounds_).run(e);
}

ConstIntBound Analyzer::const_int_bound(const Expr& e) const {
  if (!e) return {};
  return arith::to_const_int_bound(arith::bound_of(simplify(e), bounds_), e.dtype());
}

bool Analyzer::can_prove(const Expr& cond) const {
  if (!cond || !cond.dtype().is_bool() || !cond.dtype().is_scalar()) return false;
  Expr s = simplify(cond);
  if (auto v = as_const_int(s)) return *v != 0;
  if (auto* b = s.as<BinaryNode>()) {
    if (s.kind() == ExprKind::And) return can_prove(b->a) && can_prove(b->b);
    if (s.kind() == ExprKind::Or) return can_prove(b->a) || can_prove(b->b);
  }
  return false;
}

bool Analyzer::can_prove_equal(const Expr& a, const Expr& b) const {
  if (!a || !b || a.dtype() != b.dtype()) return false;
  if (a.dtype().is_integer() && a.dtype().is_scalar()) {
    Expr d = simplify(make_binary(ExprKind::Sub, a, b));
    return is_const_int(d, 0);
  }
  return can_prove(make_binary(ExprKind::EQ, a, b));
}

Expr simplify(const Expr& e) {
  return Analyzer().simplify(e);
}

}  // namespace tirc
