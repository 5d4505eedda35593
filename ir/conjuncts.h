// A boolean expression as the list of its `and`-ed parts, and back.
#pragma once

#include <vector>

#include "ir/expr.h"

namespace tirc {

// The conjuncts of a bool expression (`a and b and c` -> {a, b, c}; none for
// true or a null expression).
std::vector<Expr> conjuncts(const Expr& e);
Expr conjunction(const std::vector<Expr>& es);  // true when empty

}  // namespace tirc
