// Linear forms of integer expressions: sum of coefficient * term plus a
// constant, with arithmetic modulo 2^bits (exact for +, -, * under
// wrapping). Terms keep the order in which they first appeared.
#pragma once

#include <vector>

#include "ir/expr.h"

namespace tirc::arith {

struct LinearTerm {
  Expr term;
  int64_t coef;  // nonzero, wrapped to the type's width as a signed number
};

struct LinearForm {
  DataType dtype;
  std::vector<LinearTerm> terms;
  int64_t constant = 0;

  explicit LinearForm(DataType t) : dtype(t) {}
  static LinearForm of_constant(DataType t, int64_t c);
  static LinearForm of_term(const Expr& term, int64_t coef = 1);

  bool is_constant() const { return terms.empty(); }
  // this += scale * other
  void add(const LinearForm& other, int64_t scale = 1);
  void add_term(const Expr& term, int64_t coef);
  void add_constant(int64_t c);
  LinearForm scaled(int64_t scale) const;
};

// Reads an already simplified expression as a linear form without
// simplifying inside its terms.
LinearForm decompose(const Expr& e);
// The natural spelling: `i * 4 + j - 3`, with subtraction for negative
// coefficients and no `* 1` or `+ 0`.
Expr emit(const LinearForm& f);

}  // namespace tirc::arith
