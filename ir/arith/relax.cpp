#include "ir/arith/relax.h"

#include "ir/var_use.h"

namespace tirc::arith {

namespace {

Expr bin(ExprKind k, const Expr& a, const Expr& b) {
  return make_binary(k, a, b);
}

class Relaxer {
 public:
  Relaxer(const RelaxDomain& dom, const Analyzer& an) : dom_(dom), an_(an) {}

  std::optional<SymInterval> run(const Expr& e) {
    if (!e) return std::nullopt;
    if (!uses_any(e, [&](const VarNode* v) { return dom_.count(v) > 0; })) return SymInterval{e, e};
    if (++depth_ > 64) return std::nullopt;  // a domain that refers to itself
    auto r = relax(e);
    --depth_;
    if (!r) return r;
    return SymInterval{an_.simplify(r->lo), an_.simplify(r->hi)};
  }

 private:
  std::optional<SymInterval> relax(const Expr& e) {
    DataType t = e.dtype();
    if (auto* v = e.as<VarNode>()) {
      const Range& r = dom_.at(v);
      if (!r.min || !r.extent) return std::nullopt;
      auto lo = run(r.min);
      auto hi = run(
          bin(ExprKind::Sub, bin(ExprKind::Add, r.min, r.extent), make_const(r.min.dtype(), 1)));
      if (!lo || !hi) return std::nullopt;
      if (lo->lo.dtype() != t || hi->hi.dtype() != t) return std::nullopt;
      return SymInterval{lo->lo, hi->hi};
    }
    if (auto* rp = e.as<RampNode>()) {
      auto base = run(rp->base);
      auto stride = as_const_int(rp->stride);
      if (!base || !stride) return std::nullopt;
      int64_t span = *stride * (rp->lanes - 1);
      DataType st = rp->base.dtype();
      return SymInterval{bin(ExprKind::Add, base->lo,
                             make_const(st, static_cast<double>(std::min<int64_t>(0, span)))),
                         bin(ExprKind::Add, base->hi,
                             make_const(st, static_cast<double>(std::max<int64_t>(0, span))))};
    }
    if (auto* bc = e.as<BroadcastNode>()) return run(bc->value);
    if (auto* c = e.as<CastNode>()) {
      if (!c->value.dtype().is_integer() || !t.is_integer()) return std::nullopt;
      auto x = run(c->value);
      if (!x) return std::nullopt;
      return SymInterval{make_cast(t, x->lo), make_cast(t, x->hi)};
    }
    auto* b = e.as<BinaryNode>();
    if (!b) return std::nullopt;
    auto x = run(b->a), y = run(b->b);
    if (!x || !y) return std::nullopt;
    switch (e.kind()) {
      case ExprKind::Add:
        return SymInterval{bin(ExprKind::Add, x->lo, y->lo), bin(ExprKind::Add, x->hi, y->hi)};
      case ExprKind::Sub:
        return SymInterval{bin(ExprKind::Sub, x->lo, y->hi), bin(ExprKind::Sub, x->hi, y->lo)};
      case ExprKind::Mul: {
        const SymInterval* var_side = &*x;
        auto c = as_const_int(y->lo);
        if (!c || !same_point(*y)) {
          c = as_const_int(x->lo);
          if (!c || !same_point(*x)) return std::nullopt;
          var_side = &*y;
        }
        Expr k = make_const(t, static_cast<double>(*c));
        if (*c >= 0)
          return SymInterval{bin(ExprKind::Mul, var_side->lo, k),
                             bin(ExprKind::Mul, var_side->hi, k)};
        return SymInterval{bin(ExprKind::Mul, var_side->hi, k),
                           bin(ExprKind::Mul, var_side->lo, k)};
      }
      case ExprKind::FloorDiv:
      case ExprKind::Div: {
        auto c = as_const_int(b->b);
        if (!c || *c <= 0) return std::nullopt;
        return SymInterval{bin(e.kind(), x->lo, b->b), bin(e.kind(), x->hi, b->b)};
      }
      case ExprKind::FloorMod: {
        auto c = as_const_int(b->b);
        if (!c || *c <= 0) return std::nullopt;
        // Within one period the remainder is monotone; otherwise it may wrap.
        if (an_.can_prove(bin(ExprKind::EQ, floordiv(x->lo, b->b), floordiv(x->hi, b->b))))
          return SymInterval{floormod(x->lo, b->b), floormod(x->hi, b->b)};
        return SymInterval{make_const(t, 0), make_const(t, static_cast<double>(*c - 1))};
      }
      case ExprKind::Min:
        return SymInterval{min(x->lo, y->lo), min(x->hi, y->hi)};
      case ExprKind::Max:
        return SymInterval{max(x->lo, y->lo), max(x->hi, y->hi)};
      default:
        return std::nullopt;
    }
  }

  static bool same_point(const SymInterval& s) {
    auto lo = as_const_int(s.lo), hi = as_const_int(s.hi);
    return lo && hi && *lo == *hi;
  }

  const RelaxDomain& dom_;
  const Analyzer& an_;
  int depth_ = 0;
};

}  // namespace

std::optional<SymInterval> relax_interval(const Expr& index, const RelaxDomain& dom,
                                          const Analyzer& an) {
  try {
    return Relaxer(dom, an).run(an.simplify(index));
  } catch (const Error&) {
    return std::nullopt;  // mixed index types: fall back to the whole extent
  }
}

}  // namespace tirc::arith
