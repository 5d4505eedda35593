// The lowered form (passes/LOWERED.md) as a check. It lives in ir/ because
// both sides of the contract use it: lower() (passes/) produces the form and
// the code generators (codegen/, which depend on ir/ only) refuse anything else.
#pragma once

#include "ir/function.h"

namespace tirc {

// Throws tirc::Error (naming the construct, with its source location when
// known) unless f is in the lowered form of passes/LOWERED.md. The x86
// generator calls this on every function it is given.
void check_lowered_form(const PrimFunc& f);

}  // namespace tirc
