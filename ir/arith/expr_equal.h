// Deep equality of expressions with variables and buffers compared by
// identity: the notion of "the same term" the simplifier merges on.
#pragma once

#include "ir/expr.h"

namespace tirc::arith {

bool same_expr(const Expr& a, const Expr& b);

}  // namespace tirc::arith
