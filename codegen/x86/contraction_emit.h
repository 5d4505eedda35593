// Emits a planned contraction nest (codegen/x86/contraction_plan.h).
#pragma once

#include "codegen/x86/emit_context.h"
#include "ir/stmt.h"

namespace tirc {

// If plan_contraction accepts the nest rooted at `root`, emits it through ctx
// (C tile in vector registers, vfmadd231ps with broadcast or vector operands,
// masked tails) and returns true; otherwise emits nothing and returns false.
bool try_emit_contraction(EmitContext& ctx, const ForNode& root);

}  // namespace tirc
