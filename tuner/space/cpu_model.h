// The machine the default schedules are chosen for: instruction set, cores
// and data cache sizes. Read from the host (cpuinfo), or fixed by the user so
// that schedules (and tests of them) are the same on every machine.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "codegen/x86/target.h"

namespace tirc {

struct CpuModel {
  Target target;
  int threads = 1;                // parallel workers the kernels will run on
  int64_t l1d = 32 * 1024;        // bytes, per core
  int64_t l2 = 1024 * 1024;       // bytes, per core
  int64_t l3 = 32 * 1024 * 1024;  // bytes, shared
  std::string name;               // the processor's name, for reports

  std::string describe() const;  // "x86-64-avx512, 2 threads, L1d 32K, L2 1M, L3 32M"
};

// The host's caches and cores for `target`. Threads: TIRC_NUM_THREADS when set
// (the runtime's thread count), else the online processors.
CpuModel host_cpu_model(const Target& target);

// A fixed model: "l1d=32K,l2=1M,l3=32M,threads=2" (any subset; K/M/G suffixes;
// the rest as in `base`). Throws tirc::Error naming a bad field.
CpuModel parse_cpu_model(std::string_view spec, CpuModel base);

}  // namespace tirc
