// Symbolic interval relaxation: the smallest [lo, hi] an integer index takes
// while some variables range over their domains, as expressions in the
// remaining variables.
#pragma once

#include <optional>
#include <unordered_map>
#include <utility>

#include "ir/arith/analyzer.h"

namespace tirc::arith {

using RelaxDomain = std::unordered_map<const VarNode*, Range>;

struct SymInterval {
  Expr lo, hi;  // inclusive
};

// nullopt when the index uses a relaxed variable in a way the relaxation
// does not understand (the caller then falls back to the whole extent).
std::optional<SymInterval> relax_interval(const Expr& index, const RelaxDomain& dom,
                                          const Analyzer& an);

}  // namespace tirc::arith
