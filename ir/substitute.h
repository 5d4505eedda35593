// Replacing variables by expressions.
#pragma once

#include <unordered_map>

#include "ir/functor.h"

namespace tirc {

using VarMap = std::unordered_map<const VarNode*, Expr>;

Expr substitute(const Expr& e, const VarMap& vmap);
Stmt substitute(const Stmt& s, const VarMap& vmap);

// Copies of the data-parallel iteration variables of a block, for a new block
// over the same spatial domain (an init, a write-back): each under a new
// variable named like the old one plus `suffix`, with its domain, kind and
// thread tag.
struct SpatialIterVars {
  std::vector<IterVar> iter_vars;
  std::vector<size_t> positions;  // of each original in the block's iter_vars
  VarMap map;                     // each original variable to its copy
};
SpatialIterVars copy_spatial_iter_vars(const BlockNode& block, const std::string& suffix = {});

}  // namespace tirc
