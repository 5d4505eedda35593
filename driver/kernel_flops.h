// Floating-point work of a kernel for GFLOPS figures: the multiply-adds of its
// contraction blocks (C[..] = C[..] + A[..] * B[..]), counted over each
// block's iteration domain. Other blocks (elementwise, pooling) are not
// counted: their cost is memory traffic, and a flop figure would mislead.
#pragma once

#include <optional>

#include "ir/function.h"

namespace tirc::driver {

// Multiply-adds of f's contraction blocks; nullopt when it has none (or a
// contraction's domain is not constant).
std::optional<double> contraction_macs(const PrimFunc& f);

}  // namespace tirc::driver
