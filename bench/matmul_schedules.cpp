#include "bench/matmul_schedules.h"

#include <sstream>

namespace tirc {

std::string matmul_tir(int64_t m, int64_t n, int64_t k) {
  std::ostringstream os;
  os << "@T.prim_func\n"
     << "def main(A: T.Buffer((" << m << ", " << k << "), \"float32\"), B: T.Buffer((" << k << ", "
     << n << "), \"float32\"), C: T.Buffer((" << m << ", " << n << "), \"float32\")):\n"
     << "    T.func_attr({\"global_symbol\": \"main\", \"tir.noalias\": T.bool(True)})\n"
     << "    for i, j, k in T.grid(" << m << ", " << n << ", " << k << "):\n"
     << "        with T.block(\"C\"):\n"
     << "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
     << "            T.reads(C[vi, vj], A[vi, vk], B[vk, vj])\n"
     << "            T.writes(C[vi, vj])\n"
     << "            with T.init():\n"
     << "                C[vi, vj] = T.float32(0)\n"
     << "            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]\n";
  return os.str();
}

namespace {

// Packing pays when B's rows are far apart and the whole copy fits the
// generator's stack allocation limit.
bool pack_b(int64_t n, int64_t k, const MatmulTiling& t) {
  return n >= 256 && n % t.columns == 0 && n * k * 4 <= (int64_t{4} << 20);
}

}  // namespace

std::string matmul_schedule(int64_t m, int64_t n, int64_t k, const Target& target, bool parallel) {
  MatmulTiling t = choose_matmul_tiling(m, n, k, target);
  std::ostringstream os;
  os << "b0 = sch.get_block(name=\"C\", func_name=\"main\")\n"
     << "l1, l2, l3 = sch.get_loops(block=b0)\n"
     << "l4, l5 = sch.split(loop=l1, factors=[None, " << t.rows << "], preserve_unit_iters=True)\n"
     << "l6, l7 = sch.split(loop=l2, factors=[None, " << t.columns
     << "], preserve_unit_iters=True)\n"
     << "l8, l9 = sch.split(loop=l3, factors=[None, " << t.kc << "], preserve_unit_iters=True)\n"
     << "sch.reorder(l6, l8, l4, l9, l5, l7)\n"
     // The init nest goes inside j0, so each (parallel) column block zeroes its
     // own part of C just before accumulating into it, with vector stores.
     << "b10 = sch.decompose_reduction(block=b0, loop=l8)\n"
     << "l11, l12, l13, l14 = sch.get_loops(block=b10)\n"
     << "sch.vectorize(loop=l14)\n"
     << "sch.vectorize(loop=l7)\n";
  if (pack_b(n, k, t)) {
    // B's rows are n floats apart: a column panel of it strides across pages and
    // L1 sets. Copy each column block of B once, before its j0 iteration, into a
    // panel-major buffer (B_global[j0, k, j1]) that the FMAs then read contiguously.
    os << "b15 = sch.cache_read(block=b0, read_buffer_index=2, storage_scope=\"global\")\n"
       << "sch.compute_at(block=b15, loop=l6, preserve_unit_loops=True)\n"
       << "sch.transform_layout(block=b0, buffer=(\"read\", 2), index_map=lambda k, j: (j // "
       << t.columns << ", k, j % " << t.columns << "))\n"
       << "l16, l17, l18 = sch.get_loops(block=b15)\n"
       << "sch.vectorize(loop=l18)\n";
  }
  if (parallel) os << "sch.parallel(loop=l6)\n";
  return os.str();
}

}  // namespace tirc
