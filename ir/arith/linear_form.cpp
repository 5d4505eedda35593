#include "ir/arith/linear_form.h"

#include "ir/arith/const_fold.h"
#include "ir/arith/expr_equal.h"
#include "ir/arith/int_math.h"
#include "ir/var_use.h"

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

void LinearForm::add_term(const Expr& term, int64_t coef, TermKind kind) {
  coef = wrap(dtype, coef);
  if (!merge_terms) {
    terms.push_back({term, coef, kind});
    return;
  }
  if (coef == 0) return;
  for (size_t i = 0; i < terms.size(); ++i) {
    if (same_expr(terms[i].term, term)) {
      terms[i].coef = wrap(dtype, static_cast<i128>(terms[i].coef) + coef);
      if (terms[i].coef == 0) terms.erase(terms.begin() + static_cast<std::ptrdiff_t>(i));
      return;
    }
  }
  terms.push_back({term, coef, kind});
}

void LinearForm::add_constant(int64_t c) {
  constant = wrap(dtype, static_cast<i128>(constant) + c);
}

void LinearForm::add(const LinearForm& other, int64_t scale) {
  for (const LinearTerm& t : other.terms)
    add_term(t.term, wrapped_mul(dtype, t.coef, scale), t.kind);
  add_constant(wrapped_mul(dtype, other.constant, scale));
}

LinearForm LinearForm::scaled(int64_t scale) const {
  LinearForm f(dtype, merge_terms);
  f.add(*this, scale);
  return f;
}

int64_t LinearForm::coefficient(const VarNode* v) const {
  int64_t sum = 0;
  for (const LinearTerm& t : terms)
    if (t.term.get() == static_cast<const ExprNode*>(v))
      sum = wrap(dtype, static_cast<i128>(sum) + t.coef);
  return sum;
}

bool LinearForm::has_kind(TermKind kind) const {
  for (const LinearTerm& t : terms)
    if (t.kind == kind) return true;
  return false;
}

namespace {

// One reading of an expression under a set of rules (AffineRules in the
// header). Each subexpression's form is built on its own and then added into
// its parent's, so the order of the terms (and where a cancelled term
// reappears) follows the expression's nesting.
class AffineReader {
 public:
  explicit AffineReader(const AffineRules& rules) : rules_(rules) {}

  std::optional<LinearForm> read(const Expr& e) const {
    if (auto* imm = e.as<IntImmNode>()) {
      LinearForm f = empty(e);
      f.add_constant(imm->value);
      return f;
    }
    if (rules_.whole_invariant_subtrees && !uses_interest(e)) return term(e, TermKind::Invariant);
    if (auto* v = e.as<VarNode>())
      return term(e, of_interest(v) ? TermKind::Var : TermKind::Invariant);
    if (auto* cast = e.as<CastNode>(); cast && rules_.look_through_int_casts &&
                                       cast->dtype.is_integer() && cast->value.dtype().is_integer())
      return read(cast->value);
    if (auto* b = e.as<BinaryNode>()) {
      switch (e.kind()) {
        case ExprKind::Add:
        case ExprKind::Sub: {
          std::optional<LinearForm> x = read(b->a), y = read(b->b);
          if (!x || !y) return std::nullopt;
          x->add(*y, e.kind() == ExprKind::Add ? 1 : -1);
          return x;
        }
        case ExprKind::Mul:
          if (auto s = factor(b->a)) return scaled(read(b->b), *s);
          if (auto s = factor(b->b)) return scaled(read(b->a), *s);
          break;
        case ExprKind::FloorDiv:
        case ExprKind::FloorMod:
          if (!rules_.floor_parts) break;
          if (auto d = as_const_int(b->b); d && *d > 0) return term(e, TermKind::Floor);
          return std::nullopt;
        default:
          break;
      }
    }
    if (uses_interest(e)) return std::nullopt;
    return term(e, TermKind::Invariant);
  }

 private:
  bool of_interest(const VarNode* v) const { return rules_.of_interest && rules_.of_interest(v); }

  bool uses_interest(const Expr& e) const {
    return rules_.of_interest && uses_any(e, rules_.of_interest);
  }

  LinearForm empty(const Expr& e) const {
    return LinearForm(rules_.look_through_int_casts ? DataType::int64() : e.dtype(),
                      rules_.merge_terms);
  }

  LinearForm term(const Expr& e, TermKind kind) const {
    LinearForm f = empty(e);
    f.add_term(e, 1, kind);
    return f;
  }

  // The scale a factor contributes: its value when it is a constant, 1 when
  // it is a symbolic factor the rules allow, nullopt when it is no factor.
  std::optional<int64_t> factor(const Expr& e) const {
    if (auto c = as_const_int(e)) return c;
    if (rules_.symbolic_factors && !uses_interest(e)) return int64_t{1};
    return std::nullopt;
  }

  static std::optional<LinearForm> scaled(const std::optional<LinearForm>& f, int64_t scale) {
    if (!f) return std::nullopt;
    return f->scaled(scale);
  }

  const AffineRules& rules_;
};

}  // namespace

std::optional<LinearForm> decompose(const Expr& e, const AffineRules& rules) {
  return AffineReader(rules).read(e);
}

LinearForm decompose(const Expr& e) {
  // Without variables of interest every subexpression can be a term.
  return *decompose(e, AffineRules{});
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
