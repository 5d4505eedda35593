#include "bench/matmul_schedules_fallback.h"

namespace tirc::bench {

std::string fallback_matmul_schedule(int64_t m, int64_t n, int64_t) {
  // Tiles that divide the benchmark's shapes (multiples of 16) keep T.where
  // predicates out of the kernel; other shapes still work, with predicates.
  const int64_t ti = m % 8 == 0 ? 8 : 4, tj = n % 16 == 0 ? 16 : 8;
  std::string s;
  s += "b0 = sch.get_block(name=\"C\", func_name=\"main\")\n";
  s += "l1, l2, l3 = sch.get_loops(block=b0)\n";
  s += "l4, l5 = sch.split(loop=l1, factors=[None, " + std::to_string(ti) +
       "], preserve_unit_iters=True)\n";
  s += "l6, l7 = sch.split(loop=l2, factors=[None, " + std::to_string(tj) +
       "], preserve_unit_iters=True)\n";
  s += "sch.reorder(l4, l6, l3, l5, l7)\n";
  s += "b8 = sch.decompose_reduction(block=b0, loop=l3)\n";
  s += "sch.vectorize(loop=l7)\n";
  s += "sch.parallel(loop=l4)\n";
  return s;
}

}  // namespace tirc::bench
