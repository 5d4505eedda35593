// A matmul of half-precision operands into float32, the form tensor cores
// take: C[M, N] += float32(A[M, K]) * float32(B[K, N]) with A and B of
// `type`; `b_shape` and `b_index` respell B (a transposed B: "N, K", "vj, vk").
#pragma once

#include <string>

#include "ir/text/parser.h"

namespace tirc::test {

inline IRModule narrow_matmul(int64_t m, int64_t n, int64_t k, const std::string& type,
                              const std::string& b_shape = "",
                              const std::string& b_index = "vk, vj") {
  const std::string M = std::to_string(m), N = std::to_string(n), K = std::to_string(k);
  return parse_module("@T.prim_func\ndef main(A: T.Buffer((" + M + ", " + K + "), \"" + type +
                          "\"), B: T.Buffer((" + (b_shape.empty() ? K + ", " + N : b_shape) +
                          "), \"" + type + "\"), C: T.Buffer((" + M + ", " + N +
                          "), \"float32\")):\n    for i, j, k in T.grid(" + M + ", " + N + ", " +
                          K +
                          "):\n        with T.block(\"C\"):\n            vi, vj, vk = "
                          "T.axis.remap(\"SSR\", [i, j, k])\n"
                          "            with T.init():\n                C[vi, vj] = T.float32(0)\n"
                          "            C[vi, vj] = C[vi, vj] + T.Cast(\"float32\", A[vi, vk]) * "
                          "T.Cast(\"float32\", B[" +
                          b_index + "])\n",
                      "mm16.tir");
}

}  // namespace tirc::test
