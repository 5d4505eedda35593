// A matmul of half-precision operands into float32, the form tensor cores
// take: C[M, N] += float32(A[M, K]) * float32(B[K, N]) with A and B of
// `type`; `b_shape` and `b_index` respell B (a transposed B: "N, K", "vj, vk").
// narrow_batch_matmul puts batch dimensions before M on A and C (and on B
// where `b_batched`; else every batch multiplies the same B, as an ONNX
// MatMul of activations by weights does).
#pragma once

#include <string>
#include <vector>

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

inline IRModule narrow_batch_matmul(const std::vector<int64_t>& batch, int64_t m, int64_t n,
                                    int64_t k, const std::string& type, bool b_batched) {
  std::string dims, vars, loops, kinds;
  for (size_t b = 0; b < batch.size(); ++b) {
    dims += std::to_string(batch[b]) + ", ";
    vars += "vb" + std::to_string(b) + ", ";
    loops += "b" + std::to_string(b) + ", ";
    kinds += "S";
  }
  const std::string M = std::to_string(m), N = std::to_string(n), K = std::to_string(k);
  const std::string t = "\"" + type + "\"";
  return parse_module(
      "@T.prim_func\ndef main(A: T.Buffer((" + dims + M + ", " + K + "), " + t +
          "), B: T.Buffer((" + (b_batched ? dims : "") + K + ", " + N + "), " + t +
          "), C: T.Buffer((" + dims + M + ", " + N + "), \"float32\")):\n    for " + loops +
          "i, j, k in T.grid(" + dims + M + ", " + N + ", " + K +
          "):\n        with T.block(\"C\"):\n            " + vars + "vi, vj, vk = T.axis.remap(\"" +
          kinds + "SSR\", [" + loops + "i, j, k])\n            with T.init():\n                C[" +
          vars + "vi, vj] = T.float32(0)\n            C[" + vars + "vi, vj] = C[" + vars +
          "vi, vj] + T.Cast(\"float32\", A[" + vars + "vi, vk]) * T.Cast(\"float32\", B[" +
          (b_batched ? vars : "") + "vk, vj])\n",
      "bmm16.tir");
}

}  // namespace tirc::test
