#include "ir/arith/linear_form.h"

#include "ir/arith/const_fold.h"
#include "ir/arith/expr_equal.h"
#include "ir/arith/int_math.h"

namespace tirc::arith {

static int64_t wrap(DataType t, i128 v) {
  return wrap_signed(t.bits(), v);
}

static int64_t wrapped_mul(DataType t, int64_t a, int64_t b) {
  uint64_t p = static_cast<uint64_t>(a) * static_cast<uint64_t>(b);
  return wrap(t, static_cast<int64_t>(p));
}

LinearForm LinearForm::of_constant(DataType t, int64_t c) {
  LinearForm f(t);
  f.constant = wrap(t, c);
  return f;
}

LinearForm LinearForm::of_term(const Expr& term, int64_t coef) {
  LinearForm f(term.dtype());
  f.add_term(term, coef);
  return f;
}

void LinearForm::add_term(const Expr& term, int64_t coef) {
  coef = wrap(dtype, coef);
  if (coef == 0) return;
  for (size_t i = 0; i < terms.size(); ++i) {
    if (same_expr(terms[i].term, term)) {
      terms[i].coef = wrap(dtype, static_cast<i128>(terms[i].coef) + coef);
      if (terms[i].coef == 0) terms.erase(terms.begin() + static_cast<std::ptrdiff_t>(i));
      return;
    }
  }
  terms.push_back({term, coef});
}

void LinearForm::add_constant(int64_t c) {
  constant = wrap(dtype, static_cast<i128>(constant) + c);
}

void LinearForm::add(const LinearForm& other, int64_t scale) {
  for (const LinearTerm& t : other.terms) add_term(t.term, wrapped_mul(dtype, t.coef, scale));
  add_constant(wrapped_mul(dtype, other.constant, scale));
}

LinearForm LinearForm::scaled(int64_t scale) const {
  LinearForm f(dtype);
  f.add(*this, scale);
  return f;
}

LinearForm decompose(const Expr& e) {
  DataType t = e.dtype();
  if (auto* imm = e.as<IntImmNode>())
    return LinearForm::of_constant(t, wrap(t, math_value(t, imm->value)));
  if (auto* b = e.as<BinaryNode>()) {
    if (e.kind() == ExprKind::Add || e.kind() == ExprKind::Sub) {
      LinearForm f = decompose(b->a);
      f.add(decompose(b->b), e.kind() == ExprKind::Add ? 1 : -1);
      return f;
    }
    if (e.kind() == ExprKind::Mul) {
      if (auto* c = b->b.as<IntImmNode>()) return decompose(b->a).scaled(c->value);
      if (auto* c = b->a.as<IntImmNode>()) return decompose(b->b).scaled(c->value);
    }
  }
  return LinearForm::of_term(e);
}

static Expr binary(ExprKind k, const Expr& a, const Expr& b) {
  return std::make_shared<const BinaryNode>(k, a.dtype(), a, b);
}

static Expr times(const Expr& term, int64_t coef) {
  if (coef == 1) return term;
  return binary(ExprKind::Mul, term, make_int_imm(term.dtype(), coef));
}

// acc +/- |coef| * term, choosing subtraction for a negative coefficient
// (unless negating would overflow: then the coefficient stays as it is).
static Expr append(const Expr& acc, const Expr& term, int64_t coef, DataType t) {
  int64_t neg = wrap(t, -static_cast<i128>(coef));
  if (coef < 0 && neg > 0) return binary(ExprKind::Sub, acc, times(term, neg));
  return binary(ExprKind::Add, acc, times(term, coef));
}

static Expr append_constant(const Expr& acc, int64_t c, DataType t) {
  if (c == 0) return acc;
  int64_t neg = wrap(t, -static_cast<i128>(c));
  if (c < 0 && neg > 0) return binary(ExprKind::Sub, acc, make_int_imm(t, neg));
  return binary(ExprKind::Add, acc, make_int_imm(t, c));
}

Expr emit(const LinearForm& f) {
  DataType t = f.dtype;
  if (f.terms.empty()) return make_int_imm(t, f.constant);
  // Lead with the first positive term so the spelling needs no negation.
  size_t lead = f.terms.size();
  for (size_t i = 0; i < f.terms.size(); ++i)
    if (f.terms[i].coef > 0) {
      lead = i;
      break;
    }
  Expr acc;
  bool constant_used = false;
  if (lead < f.terms.size()) {
    acc = times(f.terms[lead].term, f.terms[lead].coef);
  } else if (f.constant > 0) {
    acc = make_int_imm(t, f.constant);
    constant_used = true;
  } else {
    lead = 0;
    acc = times(f.terms[0].term, f.terms[0].coef);
  }
  for (size_t i = 0; i < f.terms.size(); ++i)
    if (i != lead || constant_used) acc = append(acc, f.terms[i].term, f.terms[i].coef, t);
  if (!constant_used) acc = append_constant(acc, f.constant, t);
  return acc;
}

}  // namespace tirc::arith
