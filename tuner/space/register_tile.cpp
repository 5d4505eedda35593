#include "tuner/space/register_tile.h"

namespace tirc {

MatmulTiling choose_matmul_tiling(int64_t m, int64_t n, int64_t k, const Target& target,
                                  int64_t l1d_bytes) {
  const int64_t lanes = target.f32_lanes();
  const int64_t budget = target.vector_registers() - 8;
  MatmulTiling best;
  double best_score = -1;
  for (int64_t rows = 1; rows <= budget && rows <= m; ++rows) {
    if (m % rows) continue;
    // Columns: divisors of n (the whole of n included), as long as their
    // vectors fit beside the rows; a width that is not a multiple of the
    // lanes ends in a masked vector and counts for its used share.
    for (int64_t columns = 1; columns <= n; ++columns) {
      if (n % columns) continue;
      const int64_t used = (columns + lanes - 1) / lanes;
      if (rows * used > budget) break;
      const double efficiency = double(columns) / double(used * lanes);
      // Measured (AVX-512, 192..1024): 2-3 vectors wide with as many rows as
      // fit beats wider tiles (8x32: 138 GFLOPS at 256^3, 4x64: 111); then
      // more accumulators, then more rows. With fewer rows than that (a
      // matrix-vector product: each B element is used once, the loads
      // bound it) the widest tile reads B in the longest runs.
      const bool narrow_is_better = m >= 4;
      double score = efficiency * ((narrow_is_better && used >= 2 && used <= 3 ? 1000.0 : 0.0) +
                                   double(rows * used)) +
                     1e-3 * double(rows);
      if (score > best_score) {
        best_score = score;
        best.rows = rows;
        best.columns = columns;
      }
    }
  }
  // The B panel kc x columns should stay in L1, for the next row block to
  // reuse; with a single row block nothing reuses it, and k stays whole.
  best.kc = 1;
  for (int64_t kc = 1; kc <= k; ++kc)
    if (k % kc == 0 && (best.rows == m || kc * best.columns * 4 <= l1d_bytes)) best.kc = kc;
  return best;
}

}  // namespace tirc
