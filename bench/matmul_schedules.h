// The hand-written matmul schedule the benchmark compares against OpenBLAS and
// oneDNN: a register tile sized for the contraction emitter
// (codegen/x86/contraction_plan.h), a cache block on k, and the init split off.
#pragma once

#include <cstdint>
#include <string>

#include "codegen/x86/target.h"
#include "tuner/space/register_tile.h"

namespace tirc {

// examples/matmul.tir with shapes A[m, k], B[k, n], C[m, n] (block "C", function "main").
std::string matmul_tir(int64_t m, int64_t n, int64_t k);

// A schedule script (schedule/trace.h) for matmul_tir(m, n, k): loops
// j0, k0, i0, k1, i1, j1 with j1 vectorised, the reduction decomposed so the
// init is its own nest, and with `parallel` j0 run in parallel. When n >= 256,
// B is first copied panel by panel into a panel-major buffer (cache_read +
// compute_at + transform_layout) so the FMAs read it contiguously.
std::string matmul_schedule(int64_t m, int64_t n, int64_t k, const Target& target,
                            bool parallel = false);

}  // namespace tirc
