#include "ir/function.h"

namespace tirc {

PrimFunc make_prim_func(std::vector<Param> params, Stmt body, Annotations attrs) {
  auto f = std::make_shared<PrimFuncNode>();
  f->params = std::move(params);
  f->body = std::move(body);
  f->attrs = std::move(attrs);
  return f;
}

PrimFunc with_body(const PrimFunc& f, Stmt body) {
  auto n = std::make_shared<PrimFuncNode>(*f);
  n->body = std::move(body);
  return n;
}

void IRModule::add(std::string name, PrimFunc func) {
  for (auto& [n, f] : funcs_)
    if (n == name) {
      f = std::move(func);
      return;
    }
  funcs_.emplace_back(std::move(name), std::move(func));
}

const PrimFunc* IRModule::find(std::string_view name) const {
  for (auto& [n, f] : funcs_)
    if (n == name) return &f;
  return nullptr;
}

const PrimFunc& IRModule::at(std::string_view name) const {
  if (auto* f = find(name)) return *f;
  throw Error("no function named '" + std::string(name) + "' in the module");
}

}  // namespace tirc
