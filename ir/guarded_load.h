// A load that reads zero where a condition fails: `if_then_else(cond, X[..],
// 0.0)`, what a zero pad inlined into its consumer leaves behind.
#pragma once

#include "ir/expr.h"

namespace tirc {

struct GuardedLoad {
  const BufferLoadNode* load = nullptr;  // null: e is neither form
  Expr guard;                            // null for a plain load
};

// e as a plain load or as a zero-guarded one (the zero a +0.0 of the load's
// type, the condition a scalar bool).
GuardedLoad as_guarded_load(const Expr& e);

}  // namespace tirc
