// fp32 matmul C[M, N] = A[M, K] * B[K, N] (row-major) as TIR text, the
// benchmark's input program (the form of examples/matmul.tir).
#pragma once

#include <cstdint>
#include <string>

namespace tirc::bench {

std::string matmul_tir(int64_t m, int64_t n, int64_t k);

}  // namespace tirc::bench
