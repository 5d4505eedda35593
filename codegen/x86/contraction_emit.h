// Emits a planned contraction nest (codegen/x86/contraction_plan.h).
#pragma once

#include <string>

#include "codegen/x86/emit_context.h"
#include "ir/stmt.h"

namespace tirc {

// If plan_contraction accepts the nest rooted at `root`, emits it through ctx
// (C tile in vector registers, vfmadd231ps with broadcast or vector operands,
// masked tails) and returns true; otherwise emits nothing, sets *why_not (when
// given) to a short reason and returns false.
bool try_emit_contraction(EmitContext& ctx, const ForNode& root, std::string* why_not = nullptr);

}  // namespace tirc
