#include "bench/matmul_tir.h"

namespace tirc::bench {

std::string matmul_tir(int64_t m, int64_t n, int64_t k) {
  const std::string M = std::to_string(m), N = std::to_string(n), K = std::to_string(k);
  std::string t = "# from tvm.script import tir as T\n\n@T.prim_func\n";
  t += "def main(A: T.Buffer((" + M + ", " + K + "), \"float32\"), B: T.Buffer((" + K + ", " + N +
       "), \"float32\"), C: T.Buffer((" + M + ", " + N + "), \"float32\")):\n";
  t += "    T.func_attr({\"global_symbol\": \"main\", \"tir.noalias\": T.bool(True)})\n";
  t += "    for i, j, k in T.grid(" + M + ", " + N + ", " + K + "):\n";
  t += "        with T.block(\"C\"):\n";
  t += "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n";
  t += "            T.reads(C[vi, vj], A[vi, vk], B[vk, vj])\n";
  t += "            T.writes(C[vi, vj])\n";
  t += "            with T.init():\n";
  t += "                C[vi, vj] = T.float32(0)\n";
  t += "            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]\n";
  return t;
}

}  // namespace tirc::bench
