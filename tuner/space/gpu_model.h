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
  // Contractions (gpu_tile_contraction.cpp): each thread keeps a register
  // tile of up to tile_rows x tile_columns accumulators of C (16 registers:
  // 8 loads feed 16 FMAs per reduction step, against 2 loads per FMA with
  // one element per thread), and a block is up to block_rows x block_columns
  // threads (threadIdx.y x threadIdx.x), so a block computes a 64x64 tile of
  // C. Smaller where an extent has no such divisor, so that no thread idles.
  int tile_rows = 4;
  int tile_columns = 4;
  int block_rows = 16;
  int block_columns = 16;
  // Blocks that give every multiprocessor of a large GPU one (A100 108, H100
  // 132): with fewer, a contraction takes smaller blocks and tiles.
  int64_t fill_blocks = 128;
  // Split reductions (gpu_split_reduction.cpp): a contraction whose launch
  // has fewer threads than one warp for each of the 4 schedulers of 128
  // multiprocessors sums its reduction in up to most_reduction_parts parts
  // (powers of two), each at least least_part_reduction products long.
  int64_t fill_threads = 16384;
  int64_t most_reduction_parts = 16;
  int64_t least_part_reduction = 256;
  // Reductions (gpu_reduce.cpp): with at most this many outputs (64 blocks
  // of 256 threads, too few to fill a GPU one thread an output), each output
  // gets a block whose threads share its row.
  int64_t reduction_outputs = 16384;
  // The hardware's limits, as the CUDA generator checks them.
  int64_t max_threads_per_block = CudaLimits::max_threads_per_block;
  int64_t max_grid_x = CudaLimits::max_grid_x;
  int64_t max_grid_yz = CudaLimits::max_grid_yz;
};

}  // namespace tirc
