#include "ir/arith/simplifier.h"

#include <algorithm>
#include <utility>

#include "ir/arith/const_fold.h"
#include "ir/arith/expr_equal.h"
#include "ir/buffer.h"

namespace tirc::arith {

bool is_signed_int_scalar(DataType t) {
  return t.is_int() && t.is_scalar();
}

static bool is_int_scalar(DataType t) {
  return t.is_integer() && t.is_scalar();
}

static Expr binary(ExprKind k, DataType t, const Expr& a, const Expr& b) {
  return std::make_shared<const BinaryNode>(k, t, a, b);
}

static Expr rebuild_binary(const Expr& e, const BinaryNode* n, const Expr& a, const Expr& b) {
  if (a.same_as(n->a) && b.same_as(n->b)) return e;
  return binary(e.kind(), e.dtype(), a, b);
}

static Expr bool_imm(bool v) {
  return make_int_imm(DataType::boolean(), v ? 1 : 0);
}

Expr Simplifier::run(const Expr& e) {
  if (!e) return e;
  switch (e.kind()) {
    case ExprKind::IntImm:
    case ExprKind::FloatImm:
    case ExprKind::StringImm:
    case ExprKind::Var:
      return e;
    case ExprKind::BufferLoad: {
      auto* n = e.as<BufferLoadNode>();
      std::vector<Expr> idx;
      bool changed = false;
      for (const Expr& i : n->indices) {
        idx.push_back(run(i));
        changed = changed || !idx.back().same_as(i);
      }
      if (!changed) return e;
      return std::make_shared<const BufferLoadNode>(e.dtype(), n->buffer, std::move(idx));
    }
    case ExprKind::Not:
      return visit_not(e, e.as<NotNode>());
    case ExprKind::Cast:
      return visit_cast(e, e.as<CastNode>());
    case ExprKind::Select:
      return visit_select(e, e.as<SelectNode>());
    case ExprKind::Call:
      return visit_call(e, e.as<CallNode>());
    case ExprKind::Ramp: {
      auto* n = e.as<RampNode>();
      Expr base = run(n->base), stride = run(n->stride);
      if (base.same_as(n->base) && stride.same_as(n->stride)) return e;
      return std::make_shared<const RampNode>(e.dtype(), base, stride, n->lanes);
    }
    case ExprKind::Broadcast: {
      auto* n = e.as<BroadcastNode>();
      Expr v = run(n->value);
      if (v.same_as(n->value)) return e;
      return std::make_shared<const BroadcastNode>(e.dtype(), v, n->lanes);
    }
    default:
      return visit_binary(e, e.as<BinaryNode>());
  }
}

// ---- integer linear arithmetic ------------------------------------------------

LinearForm Simplifier::linear_of(const Expr& e) {
  DataType t = e.dtype();
  if (auto* imm = e.as<IntImmNode>())
    return LinearForm::of_constant(t, wrap_signed(t.bits(), math_value(t, imm->value)));
  if (auto* b = e.as<BinaryNode>()) {
    if (e.kind() == ExprKind::Add || e.kind() == ExprKind::Sub) {
      LinearForm f = linear_of(b->a);
      f.add(linear_of(b->b), e.kind() == ExprKind::Add ? 1 : -1);
      return f;
    }
    if (e.kind() == ExprKind::Mul) {
      LinearForm x = linear_of(b->a), y = linear_of(b->b);
      if (y.is_constant()) return x.scaled(y.constant);
      if (x.is_constant()) return y.scaled(x.constant);
      return LinearForm::of_term(binary(ExprKind::Mul, t, emit(x), emit(y)));
    }
  }
  return decompose(run(e));
}

// floordiv(X, d) * d + floormod(X, d) is X: what fuse followed by split
// leaves behind.
LinearForm Simplifier::merge_div_mod_pairs(LinearForm f) {
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = 0; i < f.terms.size() && !changed; ++i) {
      auto* mod = f.terms[i].term.as<BinaryNode>();
      if (!mod || f.terms[i].term.kind() != ExprKind::FloorMod) continue;
      auto d = as_const_int(mod->b);
      if (!d || *d <= 0) continue;
      int64_t c = f.terms[i].coef;
      for (size_t j = 0; j < f.terms.size(); ++j) {
        auto* div = f.terms[j].term.as<BinaryNode>();
        if (!div || f.terms[j].term.kind() != ExprKind::FloorDiv || !is_const_int(div->b, *d))
          continue;
        if (!same_expr(div->a, mod->a)) continue;
        if (static_cast<i128>(f.terms[j].coef) != static_cast<i128>(c) * *d) continue;
        Expr x = mod->a;
        LinearForm rest(f.dtype);
        rest.constant = f.constant;
        for (size_t k = 0; k < f.terms.size(); ++k) {
          if (k == i)
            rest.add(decompose(x), c);
          else if (k != j)
            rest.add_term(f.terms[k].term, f.terms[k].coef);
        }
        f = std::move(rest);
        changed = true;
        break;
      }
    }
  }
  return f;
}

Interval Simplifier::difference_bound(const Expr& a, const Expr& b) {
  LinearForm f = decompose(a);
  f.add(decompose(b), -1);
  return bound(emit(f));
}

// ---- floordiv / floormod ------------------------------------------------------

// f = k * quotient + remainder for k > 0: the terms whose coefficient k
// divides, divided by k, and floor(constant / k) in the quotient; the other
// terms and the constant's remainder (in [0, k)) in the remainder.
static std::pair<LinearForm, LinearForm> split_multiples(const LinearForm& f, int64_t k) {
  LinearForm quotient(f.dtype), remainder(f.dtype);
  for (const LinearTerm& term : f.terms) {
    if (term.coef % k == 0)
      quotient.add_term(term.term, term.coef / k);
    else
      remainder.add_term(term.term, term.coef);
  }
  quotient.add_constant(static_cast<int64_t>(floor_div(f.constant, k)));
  remainder.add_constant(static_cast<int64_t>(floor_mod(f.constant, k)));
  return {std::move(quotient), std::move(remainder)};
}

Expr Simplifier::floor_div_mod(ExprKind kind, const Expr& a, const Expr& b) {
  DataType t = a.dtype();
  bool is_div = kind == ExprKind::FloorDiv;
  Expr plain = binary(kind, t, a, b);
  if (Expr folded = fold_constant(plain)) return folded;
  auto dv = as_const_int(b);
  if (!dv || !is_signed_int_scalar(t)) return plain;
  int64_t d = *dv;
  if (d == 1) return is_div ? a : make_int_imm(t, 0);
  if (d <= 0) return plain;

  // floordiv(floordiv(x, d1), d) = floordiv(x, d1 * d) for positive divisors.
  if (auto* inner = a.as<BinaryNode>()) {
    auto d1 = as_const_int(inner->b);
    if (d1 && *d1 > 0) {
      if (is_div && a.kind() == ExprKind::FloorDiv) {
        i128 prod = static_cast<i128>(*d1) * d;
        if (prod <= type_max(t)) return floor_div_mod(kind, inner->a, make_int_imm(t, prod));
      }
      if (!is_div && a.kind() == ExprKind::FloorMod && *d1 % d == 0)
        return floor_div_mod(kind, inner->a, b);
    }
  }

  // a = d * M + R with the multiples of d collected into M.
  auto [multiple, rest] = split_multiples(decompose(a), d);

  Expr rest_expr = emit(rest);
  Interval rb = bound(rest_expr);
  if (rb.bounded_below() && rb.bounded_above() && floor_div(rb.lo, d) == floor_div(rb.hi, d)) {
    i128 k = floor_div(rb.lo, d);
    if (is_div) {
      multiple.add_constant(static_cast<int64_t>(k));
      return emit(multiple);
    }
    rest.add_constant(static_cast<int64_t>(-k * d));
    return emit(rest);
  }

  // R = c * B + y with c dividing d and 0 <= y < c (a fused loop split, x * c
  // + inner with inner < c): floordiv(R, d) = floordiv(B, d / c) and
  // floormod(R, d) = c * floormod(B, d / c) + y. c: each term's common factor
  // with d, the largest that works.
  {
    std::vector<int64_t> factors;
    for (const LinearTerm& term : rest.terms)
      if (int64_t c = gcd64(term.coef, d); c > 1 && c < d) factors.push_back(c);
    std::sort(factors.rbegin(), factors.rend());
    for (int64_t c : factors) {
      const auto [big, small] = split_multiples(rest, c);
      if (big.terms.empty()) continue;
      Interval sb = bound(emit(small));
      if (!sb.bounded_below() || !sb.bounded_above() || sb.lo < 0 || sb.hi >= c) continue;
      Expr part = floor_div_mod(kind, emit(big), make_int_imm(t, d / c));
      if (is_div) {
        multiple.add_term(part, 1);
        return emit(multiple);
      }
      LinearForm out = LinearForm::of_term(part, c);
      out.add(small);
      return emit(out);
    }
  }

  // Divide the remainder and divisor by their common factor.
  int64_t g = d;
  for (const LinearTerm& term : rest.terms) g = gcd64(g, term.coef);
  g = gcd64(g, rest.constant);
  int64_t rd = d;
  if (g > 1) {
    LinearForm reduced(t);
    for (const LinearTerm& term : rest.terms) reduced.add_term(term.term, term.coef / g);
    reduced.add_constant(rest.constant / g);
    rest = std::move(reduced);
    rd = d / g;
    rest_expr = emit(rest);
  }
  Expr atom = binary(kind, t, rest_expr, make_int_imm(t, rd));
  if (is_div) {
    multiple.add_term(atom, 1);
    return emit(multiple);
  }
  return emit(LinearForm::of_term(atom, g));
}

// ---- min / max / comparisons -------------------------------------------------

Expr Simplifier::min_max(ExprKind kind, const Expr& a, const Expr& b) {
  Expr plain = binary(kind, a.dtype(), a, b);
  if (Expr folded = fold_constant(plain)) return folded;
  if (same_expr(a, b)) return a;
  if (!is_signed_int_scalar(a.dtype())) return plain;
  Interval d = difference_bound(a, b);
  bool a_le_b = d.hi <= 0, b_le_a = d.lo >= 0;
  if (kind == ExprKind::Min) {
    if (a_le_b) return a;
    if (b_le_a) return b;
  } else {
    if (a_le_b) return b;
    if (b_le_a) return a;
  }
  return plain;
}

Expr Simplifier::compare(ExprKind kind, const Expr& a, const Expr& b) {
  Expr plain = binary(kind, DataType::boolean().with_lanes(a.dtype().lanes()), a, b);
  if (Expr folded = fold_constant(plain)) return folded;
  if (!is_signed_int_scalar(a.dtype())) return plain;
  Interval d = difference_bound(a, b);
  switch (kind) {
    case ExprKind::LT:
      if (d.hi < 0) return bool_imm(true);
      if (d.lo >= 0) return bool_imm(false);
      break;
    case ExprKind::LE:
      if (d.hi <= 0) return bool_imm(true);
      if (d.lo > 0) return bool_imm(false);
      break;
    case ExprKind::GT:
      if (d.lo > 0) return bool_imm(true);
      if (d.hi <= 0) return bool_imm(false);
      break;
    case ExprKind::GE:
      if (d.lo >= 0) return bool_imm(true);
      if (d.hi < 0) return bool_imm(false);
      break;
    case ExprKind::EQ:
    case ExprKind::NE: {
      bool eq = kind == ExprKind::EQ;
      if (d.is_point()) return bool_imm((d.lo == 0) == eq);
      if (d.lo > 0 || d.hi < 0) return bool_imm(!eq);
      break;
    }
    default:
      break;
  }
  return plain;
}

Expr Simplifier::logic(ExprKind kind, const Expr& a, const Expr& b) {
  Expr plain = binary(kind, a.dtype(), a, b);
  if (!a.dtype().is_scalar()) return plain;
  if (Expr folded = fold_constant(plain)) return folded;
  auto ca = as_const_int(a), cb = as_const_int(b);
  bool is_and = kind == ExprKind::And;
  // The identity element drops out; the absorbing element wins.
  if (ca) return (*ca != 0) == is_and ? b : a;
  if (cb) return (*cb != 0) == is_and ? a : b;
  if (same_expr(a, b)) return a;
  return plain;
}

Expr Simplifier::visit_binary(const Expr& e, const BinaryNode* n) {
  DataType t = e.dtype();
  ExprKind k = e.kind();
  if (is_int_scalar(t) && (k == ExprKind::Add || k == ExprKind::Sub || k == ExprKind::Mul))
    return emit(merge_div_mod_pairs(linear_of(e)));
  Expr a = run(n->a), b = run(n->b);
  if (!t.is_scalar()) return rebuild_binary(e, n, a, b);
  switch (k) {
    case ExprKind::FloorDiv:
    case ExprKind::FloorMod:
      if (is_int_scalar(t)) return floor_div_mod(k, a, b);
      break;
    case ExprKind::Div:
    case ExprKind::Mod:
      if (is_signed_int_scalar(t)) {
        // Truncation and flooring agree on a nonnegative numerator and a
        // positive divisor.
        auto d = as_const_int(b);
        if (d && *d > 0 && bound(a).lo >= 0)
          return floor_div_mod(k == ExprKind::Div ? ExprKind::FloorDiv : ExprKind::FloorMod, a, b);
      }
      break;
    case ExprKind::Min:
    case ExprKind::Max:
      return min_max(k, a, b);
    case ExprKind::EQ:
    case ExprKind::NE:
    case ExprKind::LT:
    case ExprKind::LE:
    case ExprKind::GT:
    case ExprKind::GE:
      return compare(k, a, b);
    case ExprKind::And:
    case ExprKind::Or:
      return logic(k, a, b);
    default:
      break;
  }
  Expr rebuilt = rebuild_binary(e, n, a, b);
  if (Expr folded = fold_constant(rebuilt)) return folded;
  return rebuilt;
}

Expr Simplifier::visit_not(const Expr& e, const NotNode* n) {
  Expr a = run(n->a);
  if (auto c = as_const_int(a); c && e.dtype().is_scalar()) return bool_imm(*c == 0);
  if (auto* inner = a.as<NotNode>()) return inner->a;
  if (auto* cmp = a.as<BinaryNode>()) {
    ExprKind k = a.kind();
    bool exact_negation = k == ExprKind::EQ || k == ExprKind::NE || cmp->a.dtype().is_integer();
    if (is_comparison(k) && exact_negation)
      return binary(negated_comparison(k), a.dtype(), cmp->a, cmp->b);
  }
  if (a.same_as(n->a)) return e;
  return std::make_shared<const NotNode>(e.dtype(), a);
}

Expr Simplifier::visit_cast(const Expr& e, const CastNode* n) {
  Expr v = run(n->value);
  if (v.dtype() == e.dtype()) return v;
  Expr rebuilt = v.same_as(n->value) ? e : std::make_shared<const CastNode>(e.dtype(), v);
  if (Expr folded = fold_constant(rebuilt)) return folded;
  return rebuilt;
}

Expr Simplifier::visit_select(const Expr& e, const SelectNode* n) {
  Expr c = run(n->cond), tv = run(n->true_value), fv = run(n->false_value);
  if (auto v = as_const_int(c); v && c.dtype().is_scalar()) return *v != 0 ? tv : fv;
  if (same_expr(tv, fv)) return tv;
  if (c.same_as(n->cond) && tv.same_as(n->true_value) && fv.same_as(n->false_value)) return e;
  return std::make_shared<const SelectNode>(e.dtype(), c, tv, fv);
}

Expr Simplifier::visit_call(const Expr& e, const CallNode* n) {
  std::vector<Expr> args;
  bool changed = false;
  for (const Expr& a : n->args) {
    args.push_back(run(a));
    changed = changed || !args.back().same_as(a);
  }
  if (n->op == "if_then_else" && args.size() == 3 && args[0].dtype().is_scalar() &&
      args[1].dtype() == e.dtype() && args[2].dtype() == e.dtype()) {
    if (auto v = as_const_int(args[0])) return *v != 0 ? args[1] : args[2];
  }
  if (!changed) return e;
  return std::make_shared<const CallNode>(e.dtype(), n->op, std::move(args));
}

}  // namespace tirc::arith
