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
    for (int64_t vectors = 1; rows * vectors <= budget; ++vectors) {
      int64_t columns = vectors * lanes;
      // The whole of a narrow n is one tile row (its last vector masked).
      if (columns >= n)
        columns = n;
      else if (n % columns)
        continue;
      int64_t used = (columns + lanes - 1) / lanes;
      // Measured (AVX-512, 192..1024): 2-3 vectors wide with as many rows as
      // fit beats wider tiles (8x32: 138 GFLOPS at 256^3, 4x64: 111); then
      // more accumulators, then more rows.
      double score =
          (used >= 2 && used <= 3 ? 1000.0 : 0.0) + double(rows * used) + 1e-3 * double(rows);
      if (score > best_score) {
        best_score = score;
        best.rows = rows;
        best.columns = columns;
      }
      if (columns == n) break;
    }
  }
  // The B panel kc x columns should stay in L1.
  best.kc = 1;
  for (int64_t kc = 1; kc <= k; ++kc)
    if (k % kc == 0 && kc * best.columns * 4 <= l1d_bytes) best.kc = kc;
  return best;
}

}  // namespace tirc
