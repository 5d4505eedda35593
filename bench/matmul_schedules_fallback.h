// TEMPORARY: a simple hand schedule for the matmul benchmark, used until the
// contraction engineer's bench/matmul_schedules.h lands; then the benchmark
// switches to that and this file goes away.
#pragma once

#include <cstdint>
#include <string>

namespace tirc::bench {

// A schedule trace script for matmul_tir(m, n, k): 8x16 register tiles (the
// j tile vectorized), the reduction loop between the tile loops and the tile,
// initialization split off, the outer row-tile loop parallel.
std::string fallback_matmul_schedule(int64_t m, int64_t n, int64_t k);

}  // namespace tirc::bench
