// PrimFunc (one kernel) and IRModule (named functions).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "ir/stmt.h"

namespace tirc {

// A parameter: a buffer (passed as a pointer) or a scalar variable.
struct Param {
  Var var;        // the handle variable for a buffer; the scalar itself otherwise
  Buffer buffer;  // null for a scalar parameter
};

struct PrimFuncNode {
  std::vector<Param> params;
  Stmt body;
  Annotations attrs;  // T.func_attr({...})
};
using PrimFunc = std::shared_ptr<const PrimFuncNode>;

PrimFunc make_prim_func(std::vector<Param> params, Stmt body, Annotations attrs = {});
// A copy of f with another body (attrs and params kept).
PrimFunc with_body(const PrimFunc& f, Stmt body);

// Functions in the order they were added; names are unique.
class IRModule {
 public:
  void add(std::string name, PrimFunc func);  // replaces an existing function of that name
  const PrimFunc* find(std::string_view name) const;
  const PrimFunc& at(std::string_view name) const;  // throws Error when absent
  const std::vector<std::pair<std::string, PrimFunc>>& functions() const { return funcs_; }
  size_t size() const { return funcs_.size(); }
  bool empty() const { return funcs_.empty(); }

 private:
  std::vector<std::pair<std::string, PrimFunc>> funcs_;
};

}  // namespace tirc
