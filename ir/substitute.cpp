#include "ir/substitute.h"

namespace tirc {

namespace {
class Substituter : public StmtMutator {
 public:
  explicit Substituter(const VarMap& vmap) : vmap_(vmap) {}

 protected:
  Expr mutate_var(const Expr& e) override {
    auto it = vmap_.find(e.as<VarNode>());
    return it == vmap_.end() ? e : it->second;
  }

 private:
  const VarMap& vmap_;
};
}  // namespace

Expr substitute(const Expr& e, const VarMap& vmap) {
  if (vmap.empty()) return e;
  return Substituter(vmap).mutate(e);
}

Stmt substitute(const Stmt& s, const VarMap& vmap) {
  if (vmap.empty()) return s;
  return Substituter(vmap).mutate(s);
}

}  // namespace tirc
