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

SpatialIterVars copy_spatial_iter_vars(const BlockNode& block, const std::string& suffix) {
  SpatialIterVars out;
  for (size_t i = 0; i < block.iter_vars.size(); ++i) {
    const IterVar& iv = block.iter_vars[i];
    if (iv.kind != IterKind::DataPar) continue;
    IterVar copy = iv;
    copy.var = make_var(iv.var->name + suffix, iv.var->dtype);
    out.map[iv.var.get()] = copy.var;
    out.iter_vars.push_back(std::move(copy));
    out.positions.push_back(i);
  }
  return out;
}

}  // namespace tirc
