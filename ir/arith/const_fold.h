// Constant folding: evaluates one node whose operands are immediates, in
// the node's own type (integers wrap to their width, floats round to their
// precision). Division by zero and out-of-range float-to-int casts are
// left unfolded, so folding never invents a value.
#pragma once

#include "ir/arith/int_math.h"
#include "ir/expr.h"

namespace tirc::arith {

// An integer or bool immediate of type t holding v wrapped to t's width.
Expr make_int_imm(DataType t, i128 v);
// v rounded to the precision of float type t.
double round_to_float(DataType t, double v);
// The folded immediate, or a null Expr when e's operands are not all
// immediates or e cannot be folded exactly.
Expr fold_constant(const Expr& e);

}  // namespace tirc::arith
