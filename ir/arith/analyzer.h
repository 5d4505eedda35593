// Arithmetic analysis for index expressions: constant folding, canonical
// linear forms, floordiv/floormod by constants, and bound-based simplification
// of min/max and comparisons. Variables get bounds from bind().
#pragma once

#include <optional>
#include <unordered_map>

#include "ir/expr.h"

namespace tirc {

// Inclusive integer bounds; nullopt side means unbounded.
struct ConstIntBound {
  std::optional<int64_t> min;
  std::optional<int64_t> max;
  bool is_const() const { return min && max && *min == *max; }
};

class Analyzer {
 public:
  // Declares that var ranges over [range.min, range.min + range.extent).
  void bind(const Var& var, const Range& range);
  // Declares that var ranges over [min, max] (inclusive constants).
  void bind(const Var& var, ConstIntBound bound);

  // An equivalent expression in canonical form (same value for every value of
  // the bound variables within their ranges).
  Expr simplify(const Expr& e) const;
  // Integer bounds of e given the bound variables (unbounded vars: unbounded).
  ConstIntBound const_int_bound(const Expr& e) const;
  // True when cond (bool) holds for every value of the bound variables; false
  // when it cannot be shown.
  bool can_prove(const Expr& cond) const;
  bool can_prove_equal(const Expr& a, const Expr& b) const;

 private:
  std::unordered_map<const VarNode*, ConstIntBound> bounds_;
};

// simplify() with no bound variables.
Expr simplify(const Expr& e);

}  // namespace tirc
