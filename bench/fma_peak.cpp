#include "bench/fma_peak.h"

#include <xbyak/xbyak.h>
#include <xbyak/xbyak_util.h>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

namespace tirc::bench {

namespace {

// More chains than FMA latency x issue width (4 cycles x 2 ports = 8), so the
// loop is bound by throughput, not by the dependency of one chain.
constexpr int kChains = 12;
constexpr int kUnroll = 4;

// void kernel(int64_t iterations): kUnroll * kChains FMAs per iteration.
class FmaKernel : public Xbyak::CodeGenerator {
 public:
  explicit FmaKernel(bool zmm) {
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
};

}  // namespace

FmaPeak measure_fma_peak(int threads, double seconds) {
  const bool zmm = Xbyak::util::Cpu().has(Xbyak::util::Cpu::tAVX512F);
  FmaKernel kernel(zmm);
  kernel.ready();
  auto fn = kernel.getCode<void (*)(int64_t)>();
  const int lanes = zmm ? 16 : 8;
  const double flops_per_iteration = 2.0 * lanes * kChains * kUnroll;

  // Calibrate: iterations for about 20 ms on one thread.
  int64_t iterations = 1 << 16;
  for (;;) {
    auto t0 = std::chrono::steady_clock::now();
    fn(iterations);
    double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (dt > 0.02) break;
    iterations *= 2;
  }
  FmaPeak best;
  best.vector_bits = zmm ? 512 : 256;
  auto start = std::chrono::steady_clock::now();
  int rounds = 0;
  while (rounds < 5 ||
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

}  // namespace tirc::bench
