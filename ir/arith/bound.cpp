#include "ir/arith/bound.h"

#include <algorithm>

#include "ir/buffer.h"

namespace tirc::arith {

namespace {

constexpr i128 kInf = Interval::kInf;

i128 clamp_inf(i128 v) {
  return v >= kInf ? kInf : (v <= -kInf ? -kInf : v);
}

i128 sat_add(i128 a, i128 b) {
  if (a >= kInf || b >= kInf) return (a <= -kInf || b <= -kInf) ? 0 : kInf;
  if (a <= -kInf || b <= -kInf) return -kInf;
  return clamp_inf(a + b);
}

i128 sat_neg(i128 a) {
  return -a;
}

i128 sat_mul(i128 a, i128 b) {
  if (a == 0 || b == 0) return 0;
  bool neg = (a < 0) != (b < 0);
  i128 ma = a < 0 ? -a : a, mb = b < 0 ? -b : b;
  if (ma >= kInf || mb >= kInf) return neg ? -kInf : kInf;
  // both magnitudes are below 2^100; the product may still overflow i128
  if (ma > kInf / mb) return neg ? -kInf : kInf;
  return clamp_inf(neg ? -(ma * mb) : ma * mb);
}

// Division of possibly infinite a by finite nonzero b.
i128 sat_div(i128 a, i128 b, bool floor) {
  if (a >= kInf || a <= -kInf) return ((a > 0) == (b > 0)) ? kInf : -kInf;
  return floor ? floor_div(a, b) : a / b;
}

Interval hull4(i128 a, i128 b, i128 c, i128 d) {
  return {std::min({a, b, c, d}), std::max({a, b, c, d})};
}

Interval unite(const Interval& x, const Interval& y) {
  return {std::min(x.lo, y.lo), std::max(x.hi, y.hi)};
}

// Clamps to what a value of type t can hold: a result outside means the
// operation may wrap, so anything in the type is possible.
Interval fit(const Interval& iv, DataType t) {
  Interval full = type_interval(t);
  if (iv.lo < full.lo || iv.hi > full.hi) return full;
  return iv;
}

class BoundComputer {
 public:
  explicit BoundComputer(const VarBounds& vars) : vars_(vars) {}

  Interval run(const Expr& e) {
    if (!e) return {};
    DataType t = e.dtype();
    if (!(t.is_integer() || t.is_bool())) return {};
    return fit(compute(e), t.element_of());
  }

 private:
  Interval compute(const Expr& e) {
    DataType t = e.dtype();
    switch (e.kind()) {
      case ExprKind::IntImm:
        return Interval::point(math_value(t, e.as<IntImmNode>()->value));
      case ExprKind::Var: {
        Interval full = type_interval(t);
        auto it = vars_.find(e.as<VarNode>());
        if (it == vars_.end()) return full;
        Interval iv = full;
        if (it->second.min) iv.lo = std::max<i128>(iv.lo, *it->second.min);
        if (it->second.max) iv.hi = std::min<i128>(iv.hi, *it->second.max);
        return iv.lo <= iv.hi ? iv : full;
      }
      case ExprKind::Add: {
        auto* b = e.as<BinaryNode>();
        Interval x = run(b->a), y = run(b->b);
        return {sat_add(x.lo, y.lo), sat_add(x.hi, y.hi)};
      }
      case ExprKind::Sub: {
        auto* b = e.as<BinaryNode>();
        Interval x = run(b->a), y = run(b->b);
        return {sat_add(x.lo, sat_neg(y.hi)), sat_add(x.hi, sat_neg(y.lo))};
      }
      case ExprKind::Mul: {
        auto* b = e.as<BinaryNode>();
        Interval x = run(b->a), y = run(b->b);
        return hull4(sat_mul(x.lo, y.lo), sat_mul(x.lo, y.hi), sat_mul(x.hi, y.lo),
                     sat_mul(x.hi, y.hi));
      }
      case ExprKind::FloorDiv:
      case ExprKind::Div:
        return division(e.as<BinaryNode>(), e.kind() == ExprKind::FloorDiv);
      case ExprKind::FloorMod:
        return floor_modulo(e.as<BinaryNode>());
      case ExprKind::Mod:
        return trunc_modulo(e.as<BinaryNode>());
      case ExprKind::Min: {
        auto* b = e.as<BinaryNode>();
        Interval x = run(b->a), y = run(b->b);
        return {std::min(x.lo, y.lo), std::min(x.hi, y.hi)};
      }
      case ExprKind::Max: {
        auto* b = e.as<BinaryNode>();
        Interval x = run(b->a), y = run(b->b);
        return {std::max(x.lo, y.lo), std::max(x.hi, y.hi)};
      }
      case ExprKind::Select: {
        auto* s = e.as<SelectNode>();
        if (auto c = as_const_int(s->cond)) return run(*c ? s->true_value : s->false_value);
        return unite(run(s->true_value), run(s->false_value));
      }
      case ExprKind::Cast: {
        auto* c = e.as<CastNode>();
        DataType from = c->value.dtype();
        if (from.is_integer() || from.is_bool()) return run(c->value);  // fit() widens on wrap
        return type_interval(t);
      }
      case ExprKind::Ramp: {
        auto* r = e.as<RampNode>();
        Interval base = run(r->base), stride = run(r->stride);
        Interval steps = {0, r->lanes - 1};
        Interval off = hull4(sat_mul(stride.lo, steps.lo), sat_mul(stride.lo, steps.hi),
                             sat_mul(stride.hi, steps.lo), sat_mul(stride.hi, steps.hi));
        return {sat_add(base.lo, off.lo), sat_add(base.hi, off.hi)};
      }
      case ExprKind::Broadcast:
        return run(e.as<BroadcastNode>()->value);
      default:
        return type_interval(t);
    }
  }

  Interval division(const BinaryNode* b, bool floor) {
    Interval x = run(b->a), y = run(b->b);
    if (y.lo <= 0 && y.hi >= 0) {
      // The divisor may be zero or change sign: only |result| <= |a| is known.
      i128 m = std::max(x.hi < 0 ? -x.hi : x.hi, x.lo < 0 ? -x.lo : x.lo);
      m = clamp_inf(m);
      return {-m, m};
    }
    // y has a fixed sign and finite ends are nonzero; infinite ends are
    // approached by a large finite stand-in whose quotient tends to 0 (or -1).
    auto div_end = [&](i128 a, i128 d) -> i128 {
      if (d >= kInf || d <= -kInf) {
        if (a >= kInf || a <= -kInf) return ((a > 0) == (d > 0)) ? kInf : -kInf;
        if (!floor || a == 0) return 0;
        return ((a > 0) == (d > 0)) ? 0 : -1;
      }
      return sat_div(a, d, floor);
    };
    return hull4(div_end(x.lo, y.lo), div_end(x.lo, y.hi), div_end(x.hi, y.lo),
                 div_end(x.hi, y.hi));
  }

  Interval floor_modulo(const BinaryNode* b) {
    Interval x = run(b->a), y = run(b->b);
    if (y.lo > 0) {
      if (y.is_point() && x.bounded_below() && x.bounded_above() &&
          floor_div(x.lo, y.lo) == floor_div(x.hi, y.lo))
        return {floor_mod(x.lo, y.lo), floor_mod(x.hi, y.lo)};
      i128 top = y.hi >= kInf ? kInf : y.hi - 1;
      if (x.lo >= 0) return {0, std::min(x.hi, top)};
      return {0, top};
    }
    if (y.hi < 0) {
      i128 bottom = y.lo <= -kInf ? -kInf : y.lo + 1;
      if (x.hi <= 0) return {std::max(x.lo, bottom), 0};
      return {bottom, 0};
    }
    return {};
  }

  Interval trunc_modulo(const BinaryNode* b) {
    Interval x = run(b->a), y = run(b->b);
    if (y.lo <= 0 && y.hi >= 0) {
      i128 m = std::max(x.hi < 0 ? -x.hi : x.hi, x.lo < 0 ? -x.lo : x.lo);
      return {-m, m};
    }
    i128 top = std::max(y.hi < 0 ? -y.hi : y.hi, y.lo < 0 ? -y.lo : y.lo);
    top = top >= kInf ? kInf : top - 1;
    if (x.lo >= 0) return {0, std::min(x.hi, top)};
    if (x.hi <= 0) return {std::max(x.lo, -top), 0};
    return {std::max(x.lo, -top), std::min(x.hi, top)};
  }

  const VarBounds& vars_;
};

}  // namespace

Interval type_interval(DataType t) {
  if (t.is_bool()) return {0, 1};
  if (!t.is_integer()) return {};
  Interval iv{type_min(t), type_max(t)};
  // int64/uint64 ends are what "unbounded" means for them.
  if (t.bits() >= 64) {
    if (t.is_int()) iv.lo = -kInf;
    iv.hi = kInf;
  }
  return iv;
}

Interval bound_of(const Expr& e, const VarBounds& vars) {
  return BoundComputer(vars).run(e);
}

ConstIntBound to_const_int_bound(const Interval& iv, DataType t) {
  ConstIntBound out;
  Interval full = type_interval(t.element_of());
  bool whole_type_lo = !t.is_uint() && !t.is_bool() && iv.lo <= full.lo;
  bool whole_type_hi = !t.is_bool() && iv.hi >= full.hi && !t.is_uint();
  if (iv.bounded_below() && !whole_type_lo && iv.lo >= INT64_MIN)
    out.min = static_cast<int64_t>(iv.lo);
  if (iv.bounded_above() && !whole_type_hi && iv.hi <= INT64_MAX)
    out.max = static_cast<int64_t>(iv.hi);
  return out;
}

}  // namespace tirc::arith
