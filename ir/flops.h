// Floating-point operations a function performs, counted from its IR: the
// numerator of the GFLOPS a tuner measures (a matmul of M x N x K counts
// 2 * M * N * K).
#pragma once

#include <cstdint>
#include <optional>

#include "ir/function.h"

namespace tirc {

// Per store, the float arithmetic of its value (one per +, -, *, /, min, max
// and math call, two per fma, times the vector lanes), times the iterations
// of the loops around it (both arms of an if count). A block's init counts
// once per point of its spatial domain (times however often the loops cover
// the domain). nullopt when a loop around float arithmetic has a
// non-constant extent.
std::optional<int64_t> count_flops(const PrimFunc& f);

}  // namespace tirc
