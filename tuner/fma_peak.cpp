#include "tuner/fma_peak.h"

#include <xbyak/xbyak.h>
#include <xbyak/xbyak_util.h>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

namespace tirc {

namespace {

// More chains than FMA latency x issue width (4 cycles x 2 ports = 8), so the
// loop is bound by throughput, not by the dependency of one chain; zmm has 32
// registers, ymm 16 (two hold the multiplicands).
constexpr int kZmmChains = 24;
constexpr int kYmmChains = 14;
constexpr int kUnroll = 4;

// void kernel(int64_t iterations): kUnroll * kChains FMAs per iteration.
class FmaKernel : public Xbyak::CodeGenerator {
 public:
  explicit FmaKernel(bool zmm) : chains(zmm ? kZmmChains : kYmmChains) {
    const int kChains = chains;
    const Xbyak::Reg64 n = rdi;
    for (int c = 0; c < kChains + 2; ++c) {
      if (zmm)
        vxorps(Xbyak::Zmm(c), Xbyak::Zmm(c), Xbyak::Zmm(c));
      else
        vxorps(Xbyak::Ymm(c), Xbyak::Ymm(c), Xbyak::Ymm(c));
    }
    Xbyak::Label loop;
    L(loop);
    for (int u = 0; u < kUnroll; ++u)
      for (int c = 0; c < kChains; ++c) {
        if (zmm)
          vfmadd231ps(Xbyak::Zmm(c), Xbyak::Zmm(kChains), Xbyak::Zmm(kChains + 1));
        else
          vfmadd231ps(Xbyak::Ymm(c), Xbyak::Ymm(kChains), Xbyak::Ymm(kChains + 1));
      }
    sub(n, 1);
    jnz(loop);
    vzeroupper();
    ret();
  }
  const int chains;
};

}  // namespace

FmaPeak measure_fma_peak(int threads, double seconds) {
  const bool zmm = Xbyak::util::Cpu().has(Xbyak::util::Cpu::tAVX512F);
  FmaKernel kernel(zmm);
  kernel.ready();
  auto fn = kernel.getCode<void (*)(int64_t)>();
  const int lanes = zmm ? 16 : 8;
  const double flops_per_iteration = 2.0 * lanes * kernel.chains * kUnroll;

  // Calibrate: iterations for about 1 ms on one thread. Short rounds, best of
  // many, like the matmul timings: on a shared machine a long round almost
  // always overlaps someone else's work on the same core.
  int64_t iterations = 1 << 8;
  for (;;) {
    auto t0 = std::chrono::steady_clock::now();
    fn(iterations);
    double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (dt > 0.001) break;
    iterations *= 2;
  }
  FmaPeak best;
  best.vector_bits = zmm ? 512 : 256;
  auto start = std::chrono::steady_clock::now();
  int rounds = 0;
  while (rounds < 50 ||
         std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() <
             seconds) {
    auto t0 = std::chrono::steady_clock::now();
    std::vector<std::thread> pool;
    for (int t = 1; t < threads; ++t) pool.emplace_back(fn, iterations);
    fn(iterations);
    for (std::thread& t : pool) t.join();
    double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best.gflops = std::max(
        best.gflops, flops_per_iteration * static_cast<double>(iterations) * threads / dt * 1e-9);
    ++rounds;
  }
  return best;
}

}  // namespace tirc
