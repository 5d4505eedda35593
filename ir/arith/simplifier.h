// The rewriting engine behind Analyzer::simplify.
#pragma once

#include "ir/arith/bound.h"
#include "ir/arith/linear_form.h"

namespace tirc::arith {

class Simplifier {
 public:
  explicit Simplifier(const VarBounds& vars) : vars_(vars) {}
  Expr run(const Expr& e);

 private:
  Expr visit_binary(const Expr& e, const BinaryNode* n);
  Expr visit_not(const Expr& e, const NotNode* n);
  Expr visit_cast(const Expr& e, const CastNode* n);
  Expr visit_select(const Expr& e, const SelectNode* n);
  Expr visit_call(const Expr& e, const CallNode* n);

  LinearForm linear_of(const Expr& e);
  LinearForm merge_div_mod_pairs(LinearForm f);
  Expr floor_div_mod(ExprKind kind, const Expr& a, const Expr& b);
  Expr min_max(ExprKind kind, const Expr& a, const Expr& b);
  Expr compare(ExprKind kind, const Expr& a, const Expr& b);
  Expr logic(ExprKind kind, const Expr& a, const Expr& b);

  Interval bound(const Expr& e) const { return bound_of(e, vars_); }
  // Bounds of a - b (both simplified, signed integer).
  Interval difference_bound(const Expr& a, const Expr& b);

  const VarBounds& vars_;
};

bool is_signed_int_scalar(DataType t);

}  // namespace tirc::arith
