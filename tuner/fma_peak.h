// Measured fp32 FMA throughput of this machine: the roofline the matmul
// benchmark reports its results against.
#pragma once

namespace tirc {

struct FmaPeak {
  double gflops = 0;    // all threads together
  int vector_bits = 0;  // 512 (zmm, AVX-512) or 256 (ymm, AVX2)
};

// Runs a JIT-compiled kernel of many independent vfmadd231ps chains on
// `threads` threads at once (each its own copy) for about `seconds`, best of
// several rounds. Uses zmm when the CPU has AVX-512F, else ymm.
FmaPeak measure_fma_peak(int threads, double seconds);

}  // namespace tirc
