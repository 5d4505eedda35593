// Interval bounds of integer expressions. Bounds are computed in exact
// arithmetic; when a result could leave its type's range (and so wrap) the
// bound widens to the whole type, which keeps it sound under wrapping.
#pragma once

#include <unordered_map>

#include "ir/arith/analyzer.h"
#include "ir/arith/int_math.h"

namespace tirc::arith {

// Inclusive; lo == -kInf / hi == kInf mean unbounded.
struct Interval {
  static constexpr i128 kInf = static_cast<i128>(1) << 100;
  i128 lo = -kInf;
  i128 hi = kInf;

  static Interval point(i128 v) { return {v, v}; }
  static Interval everything() { return {}; }
  bool is_point() const { return lo == hi && lo > -kInf && hi < kInf; }
  bool bounded_below() const { return lo > -kInf; }
  bool bounded_above() const { return hi < kInf; }
};

using VarBounds = std::unordered_map<const VarNode*, ConstIntBound>;

Interval bound_of(const Expr& e, const VarBounds& vars);
// The interval of a whole type (bool: [0, 1]).
Interval type_interval(DataType t);
ConstIntBound to_const_int_bound(const Interval& iv, DataType t);

}  // namespace tirc::arith
