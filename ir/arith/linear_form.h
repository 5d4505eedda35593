// Linear forms of integer expressions: sum of coefficient * term plus a
// constant, with arithmetic modulo 2^bits (exact for +, -, * under
// wrapping). Terms keep the order in which they first appeared.
//
// decompose is the one affine reading of an index in tirc: the simplifier
// and the passes read every non-linear subexpression as a term; the x86
// contraction planner and the schedule's affine-binding check read an index
// relative to the loop variables they care about (AffineRules).
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "ir/expr.h"

namespace tirc::arith {

// What a term stands for, relative to the variables of interest of the
// decomposition that produced it.
enum class TermKind {
  Invariant,  // uses no variable of interest (every term when there are none)
  Var,        // a variable of interest
  Floor,      // floordiv/floormod by a positive constant (AffineRules::floor_parts)
};

struct LinearTerm {
  Expr term;
  int64_t coef;  // wrapped to the form's width as a signed number
  TermKind kind = TermKind::Invariant;
};

struct LinearForm {
  DataType dtype;
  std::vector<LinearTerm> terms;
  int64_t constant = 0;
  // Whether add_term merges a term into an equal one (same_expr) and drops
  // it when its coefficient becomes zero: the arithmetic reading. Without,
  // every occurrence stays a term of its own, in order and zero coefficients
  // included, so that a caller rebuilding the expression from its parts keeps
  // their spelling.
  bool merge_terms = true;

  explicit LinearForm(DataType t, bool merge = true) : dtype(t), merge_terms(merge) {}
  static LinearForm of_constant(DataType t, int64_t c);
  static LinearForm of_term(const Expr& term, int64_t coef = 1);

  bool is_constant() const { return terms.empty(); }
  // this += scale * other
  void add(const LinearForm& other, int64_t scale = 1);
  void add_term(const Expr& term, int64_t coef, TermKind kind = TermKind::Invariant);
  void add_constant(int64_t c);
  LinearForm scaled(int64_t scale) const;
  // The summed coefficient of the variable v (0 when it is no term).
  int64_t coefficient(const VarNode* v) const;
  bool has_kind(TermKind kind) const;
};

// How decompose reads an expression: through +, - and multiplication by a
// factor, down to constants and terms. What it does not read through is a
// term when it uses no variable of interest, and makes the expression not
// affine (nullopt) when it does.
struct AffineRules {
  // The variables whose coefficients the caller wants; none when empty.
  std::function<bool(const VarNode*)> of_interest;
  // A subtree that uses no variable of interest is one Invariant term, not
  // read further (a constant stays a constant).
  bool whole_invariant_subtrees = false;
  // Integer-to-integer casts are read through as if they did not wrap; the
  // coefficients are then 64-bit (the parts may have several widths) instead
  // of the width of each subexpression's type.
  bool look_through_int_casts = false;
  // A factor may be any expression free of the variables of interest
  // (n * i is affine in i); coefficients then count the constant factors only,
  // telling which terms there are rather than their value.
  bool symbolic_factors = false;
  // floordiv/floormod by a positive constant is a Floor term (the caller
  // reads its numerator if it wants to); by anything else it is not affine.
  bool floor_parts = false;
  // LinearForm::merge_terms of the result.
  bool merge_terms = true;
};

// Reads e under rules; nullopt when e uses a variable of interest in a way
// the rules do not read (i * j, floordiv(i, n), a cast without
// look_through_int_casts). Multiplication takes its left operand as the
// factor when both could be.
std::optional<LinearForm> decompose(const Expr& e, const AffineRules& rules);
// Reads an already simplified expression as a linear form without
// simplifying inside its terms: no variables of interest, so every
// subexpression other than +, - and multiplication by a constant is a term.
LinearForm decompose(const Expr& e);
// The natural spelling: `i * 4 + j - 3`, with subtraction for negative
// coefficients and no `* 1` or `+ 0`.
Expr emit(const LinearForm& f);

}  // namespace tirc::arith
