// The GPU the rules' CUDA schedules are chosen for: fixed numbers that hold on
// every NVIDIA GPU since compute capability 3.0, not read from a device (the
// default schedule is the same on every machine, with or without a GPU).
#pragma once

#include <cstdint>

#include "codegen/llvm/cuda.h"

namespace tirc {

struct GpuModel {
  int threads_per_block = 256;  // threads of a block when there is enough work
  int warp_size = 32;           // a smaller block is a whole number of warps
  // The hardware's limits, as the CUDA generator checks them.
  int64_t max_threads_per_block = CudaLimits::max_threads_per_block;
  int64_t max_grid_x = CudaLimits::max_grid_x;
};

}  // namespace tirc
