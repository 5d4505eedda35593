// Helpers shared by the lowering passes (internal to passes/).
#pragma once

#include <string>
#include <unordered_set>
#include <vector>

#include "ir/conjuncts.h"
#include "ir/function.h"
#include "ir/substitute.h"
#include "ir/var_use.h"

namespace tirc::passes {

// Every name a printed function could use (variables, buffers, data handles),
// so passes can give new objects names the printer will not have to change.
class NameSet {
 public:
  explicit NameSet(const PrimFunc& f);
  // `base` when unused, else `base_1`, `base_2`...; the result is then taken.
  std::string fresh(const std::string& base);

 private:
  std::unordered_set<std::string> used_;
};

// A copy of s in which every loop and let variable it defines is a new
// variable (named by `names`) and every use of a variable in `vmap` is
// replaced; the new definitions are added to vmap. For placing a second copy
// of a statement beside the first: the lowered form defines each variable once.
Stmt with_new_variables(const Stmt& s, NameSet& names, VarMap& vmap);

// a + b / a * b for index arithmetic: immediates and scalars are converted to
// the wider integer type, and a scalar meeting a vector is broadcast.
Expr index_add(const Expr& a, const Expr& b);
Expr index_mul(const Expr& a, const Expr& b);
Expr cast_index(const Expr& e, DataType t);

// Strides of b in elements, outermost first (compact row-major when unset).
std::vector<Expr> effective_strides(const Buffer& b);
// Elements from b's storage start to one past its last element.
Expr storage_span(const Buffer& b);

}  // namespace tirc::passes
