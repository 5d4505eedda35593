// Replacing variables by expressions.
#pragma once

#include <unordered_map>

#include "ir/functor.h"

namespace tirc {

using VarMap = std::unordered_map<const VarNode*, Expr>;

Expr substitute(const Expr& e, const VarMap& vmap);
Stmt substitute(const Stmt& s, const VarMap& vmap);

}  // namespace tirc
