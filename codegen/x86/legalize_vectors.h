// Splits vector stores wider than the target's registers (a user's 16-lane
// T.Ramp on AVX2, say) into stores of register width, or of single lanes when
// the width does not divide evenly into 16/32/64-byte pieces.
#pragma once

#include "ir/stmt.h"

namespace tirc {

Stmt split_wide_vectors(const Stmt& body, int vector_bytes);

}  // namespace tirc
