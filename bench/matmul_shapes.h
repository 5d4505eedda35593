// The matmul benchmark's shapes: five squares and twenty drawn from LoopTune's
// range (64..256 step 16), the same in tirc_matmul_bench and tirc_tune_bench.
#pragma once

#include <random>
#include <vector>

#include "tuner/dataset.h"

namespace tirc {

inline std::vector<MatmulShape> matmul_bench_shapes(bool quick) {
  if (quick) return {{64, 64, 64}, {80, 96, 112}};
  std::vector<MatmulShape> shapes;
  for (int64_t s : {64, 128, 256, 512, 1024}) shapes.push_back({s, s, s});
  std::mt19937 rng(20240607);
  std::uniform_int_distribution<int> pick(0, 12);  // {64, 80, ..., 256}
  for (int i = 0; i < 20; ++i)
    shapes.push_back({64 + 16 * pick(rng), 64 + 16 * pick(rng), 64 + 16 * pick(rng)});
  return shapes;
}

}  // namespace tirc
