// CUDA through the LLVM generator (generate_llvm with an nvptx64 target):
// what an object for `--target cuda` contains, and the device limits the
// generator checks. No LLVM or CUDA headers here.
//
// Each function becomes a host function in an x86-64 object,
//   int <symbol>(CUdeviceptr buffer..., <scalar>..., CUstream stream)
// returning a CUresult (0 on success), that enqueues its kernels on `stream`
// and returns without waiting, and `int <symbol>_packed(void* const* args)`
// (args[i] points at parameter i's CUdeviceptr or scalar; the last one is the
// CUstream itself). Its lowered body runs on the host statement by
// statement: SeqStmt and LetStmt as written, an Allocate as stream-ordered
// device memory (cuMemAllocAsync, freed with cuMemFreeAsync at its end), an
// AllocateConst as the device copy of the module constant, T.call_kernel as a
// call of the callee's host function on the same stream; every other statement
// is one kernel launch. A kernel's grid and block sizes are the extents of the
// thread-bound loops in it (the largest per thread tag; a loop shorter than
// its tag's size is guarded); a statement with none runs on one thread.
//
// Inside a kernel: blockIdx loops enclose the rest (only LetStmts between
// them); a threadIdx loop is never inside another of its tag. Serial loops
// and ifs may enclose threadIdx loops when their ranges and conditions read
// no thread's index (nor a value computed inside threadIdx loops): every
// thread of the block takes them alike. An Allocate inside every threadIdx
// loop is the thread's own (local); one outside every threadIdx loop is the
// block's shared memory, except in scope "local", which each thread has its
// own part of (cuda_thread_local.cpp: refused unless the indices prove that
// no two threads touch one element); elsewhere only scope "local" is taken.
// A store outside some threadIdx loops is made by thread 0 along those axes.
// Where threads share memory, all threads of the block wait at a barrier
// (bar.sync 0): between the statements of a sequence outside some threadIdx
// loops when either runs threadIdx loops or is such a store, and at the end
// of each iteration of a serial loop outside some threadIdx loops that
// encloses threadIdx loops (the next iteration may overwrite what this one
// read). The threads that wait are those along the unbound axes; where that
// is threadIdx.x alone, launched with 32 threads (a tensor-core kernel's warp
// operations inside its threadIdx.y/z loops), they are one warp, which waits
// at bar.warp.sync instead of the whole block. A barrier inside a threadIdx
// loop shorter than the launch (guarded) is refused, as not every thread
// would reach it. The steps of a tree
// reduction that fit in a warp (passes/tree_reductions.cpp's, at block level,
// 16 pairs down to one) run in the block's first warp as warp shuffles with
// the same result and no barriers (cuda_warp_tree.cpp). Warp matrix
// operations (tensor cores, ir/intrinsic.h) run in warps: a kernel with them
// launches exactly 32 threads along threadIdx.x, each operation outside the
// threadIdx.x loops, and an allocation in scope "wmma.accumulator" is each
// warp's registers (moved into its kernel from outside where its uses allow;
// one outside some threadIdx.y/z loops, like a "local" one outside threadIdx
// loops, gives each warp its own part; cuda_mma.cpp says what is proved).
// Shared memory is 128-byte aligned.
//
// The object carries the kernels as PTX and, where tirc was built with the
// toolkit's ptxas and fatbinary, as a cubin for the --mcpu GPU too, both in
// one fat binary (cuda_cubin.h). The first call of any function of the
// object (under a lock) loads it, the driver taking the cubin on that GPU
// and compiling the PTX on any other (or, where the driver refuses the fat
// binary, the PTX kept beside it), into the calling thread's current CUDA context
// (cuModuleLoadData; the caller makes a context current, e.g. with
// cuCtxSetCurrent or the runtime API's cudaSetDevice) and copies the module
// constants to device memory; later calls reuse both. Objects link with -lcuda.
#pragma once

#include <cstdint>

namespace tirc {

// Limits of every GPU the generator targets (sm_70 and later).
struct CudaLimits {
  static constexpr int64_t max_threads_per_block = 1024;
  static constexpr int64_t max_grid_x = 2147483647;
  static constexpr int64_t max_grid_yz = 65535;
  static constexpr int64_t max_block_z = 64;
  static constexpr int64_t max_static_shared_bytes = 48 * 1024;
  // Per allocation of one thread's own (local) memory, far below the hardware's
  // 512 KiB: local memory is slow, and a big per-thread array is a schedule bug.
  static constexpr int64_t max_local_bytes = 16 * 1024;
};

}  // namespace tirc
