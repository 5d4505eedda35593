// The lowered form (passes/LOWERED.md) as a check. It lives in ir/ so that
// code on either side of the contract can use it: lower() (passes/) produces
// the form; codegen/ depends on ir/ only.
#pragma once

#include "ir/function.h"

namespace tirc {

// Throws tirc::Error (naming the construct, with its source location when
// known) unless f is in the lowered form of passes/LOWERED.md. The tests of
// lower() call it; the x86 generator does not (generator.h says why).
void check_lowered_form(const PrimFunc& f);

}  // namespace tirc
