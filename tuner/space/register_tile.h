// The register tile of a contraction C[m, n] += A[m, k] * B[k, n] for the
// x86 contraction emitter (codegen/x86/contraction_plan.h): how many rows and
// columns of C stay in vector registers, and the k block kept in L1.
#pragma once

#include <cstdint>

#include "codegen/x86/target.h"

namespace tirc {

struct MatmulTiling {
  int64_t rows = 1;     // i1: rows of the register tile
  int64_t columns = 1;  // j1: columns of the register tile (vectors * lanes, or all of N)
  int64_t kc = 1;       // k1: the k block whose B panel stays in L1
};

// The tile for C[m, n] += A[m, k] * B[k, n] on target: rows x vectors
// accumulators within the register budget, dividing m and n; 2-3 vectors
// wide when n allows (and m has 4 rows or more), then the most
// accumulators, then the most rows, each weighed by the share of lanes used
// (a width that is not a multiple of the lanes ends in a masked vector).
// kc: the largest divisor of k whose kc x columns panel of B fits l1d_bytes;
// all of k when the tile covers every row (nothing reuses the panel).
MatmulTiling choose_matmul_tiling(int64_t m, int64_t n, int64_t k, const Target& target,
                                  int64_t l1d_bytes = 32 * 1024);

}  // namespace tirc
