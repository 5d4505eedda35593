// Schedule rules in the MetaSchedule sense: each takes a schedule and one of
// its blocks and transforms the loops around that block, taking its free
// choices (tile sizes) through sample_perfect_tile, so that the trace records
// them as decisions a tuner can re-draw. With Decisions::Model the choices come
// from the CPU model (the default schedule: deterministic, no measurement);
// with Decisions::Random the schedule's random generator draws them inside the
// same space.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "schedule/schedule.h"
#include "tuner/space/cpu_model.h"
#include "tuner/space/gpu_model.h"

namespace tirc {

enum class Decisions { Model, Random };

struct RuleContext {
  CpuModel cpu;       // cpu.target is the target; Isa::cuda selects gpu_rules()
  GpuModel gpu = {};  // for Isa::cuda
  Decisions decisions = Decisions::Model;
};

// What a rule did to a block, for -v and tests.
struct RuleOutcome {
  bool applied = false;
  std::string note;  // what was done, or why the rule did not apply
};

struct ScheduleRule {
  std::string name;
  // Applies to `block` of `sch` when it matches; a ScheduleError from a
  // primitive is left to the caller, which restores the schedule.
  RuleOutcome (*apply)(Schedule& sch, BlockRV block, const RuleContext& cx);
};

// Multi-level tiling of a contraction C[..] = C[..] + A[..] * B[..]: batch and
// outer tile loops (parallel), the reduction blocked for L1, the register tile
// innermost with its column loop vectorized; the init split off and vectorized
// (per register tile when the reduction is one block); a zero pad producer
// inlined where the emitter can resolve its guard per product.
RuleOutcome tile_contraction(Schedule& sch, BlockRV block, const RuleContext& cx);
// Any other block: the leading data-parallel loops fused and run in parallel
// when there is enough work, the innermost loop vectorized when it is
// data-parallel and contiguous in what the block writes.
RuleOutcome parallel_vectorize(Schedule& sch, BlockRV block, const RuleContext& cx);

// For a GPU target (Isa::cuda), a contraction (a block tile_contraction
// would take, in any accumulation type): register tiling per thread. Rows and
// columns of C split into blockIdx.y/x, threadIdx.y/x and a per-thread tile
// (GpuModel::tile_rows x tile_columns, in registers: a "local" cache_write
// with its init and write-back inside the thread loops, its loops unrolled)
// around the serial reduction; the batch loops fused on blockIdx.z (those
// whose product with the longer ones passes the grid's limit serial in each
// thread; one past the limit alone declines). First with the block's operand
// tiles staged in shared memory per step of the reduction (a convolution's steps at each
// window position, its zero pad computed by the copy). Exact divisors only:
// a shape with no register tile is left to bind_gpu_threads. A
// float16/bfloat16 (batch) matmul into float32 gets tensor cores instead
// where gpu_tensor_core applies. Smaller blocks and tiles where there would
// be fewer than GpuModel::fill_blocks blocks; a zero pad producer (a
// convolution's) inlined into the loads where only the register tile applies.
// Where the tiled contraction would still launch fewer than
// GpuModel::fill_threads threads, its reduction summed in parts
// (gpu_split_reduction).
RuleOutcome gpu_tile_contraction(Schedule& sch, BlockRV block, const RuleContext& cx);
// A kernel's launch: blocks and threads per block.
struct Launch {
  int64_t blocks = 1, threads_per_block = 1;
  int64_t threads() const { return blocks * threads_per_block; }
};
// The launch of the kernel `block` is in: the extents of the thread-bound
// loops around it.
Launch launch_of(Schedule& sch, BlockRV block);
// A form of gpu_tile_contraction, applied to `block` under `cx`.
using TileForm = std::function<RuleOutcome(Schedule&, BlockRV, const RuleContext&)>;
// gpu_tile_contraction's split reduction (split-K,
// gpu_split_reduction.cpp): where the contraction `block`, tiled whole,
// launches fewer than GpuModel::fill_threads threads, its longest reduction
// loop split in parts (rfactor), the partial sums tiled by `tiles` with the
// parts as a batch loop, into that many times `whole`'s blocks, then summed
// one thread an output (bind_gpu_threads). Declines with an empty note where
// the reduction is too short to split.
RuleOutcome gpu_split_reduction(Schedule& sch, BlockRV block, const Launch& whole,
                                const RuleContext& cx, const TileForm& tiles);
// gpu_tile_contraction's first form, for a matmul C[i, j] += float32(A[i, k])
// * float32(B[k, j]) of float16 or bfloat16 operands (batch loops before i
// allowed), every extent a multiple of 16: tensor cores (tensorize with the mma_* tensor
// intrinsics), warps of 16x16 accumulator tiles in registers, A and B tiles staged in shared memory
// each k step of 32 where k is several such steps. Declines with an empty note where the block is
// no such update into float32 (no reason worth reporting).
RuleOutcome gpu_tensor_core(Schedule& sch, BlockRV block, const RuleContext& cx);
// For a GPU target (Isa::cuda), a reduction with few outputs and long rows:
// a block of threads per output, each thread summing a strided part of the
// row into shared memory (rfactor), then the parts summed as a tree.
RuleOutcome gpu_thread_reduction(Schedule& sch, BlockRV block, const RuleContext& cx);
// For a GPU target (Isa::cuda), an elementwise block whose producer a GPU rule
// already bound to threads (a convolution's ReLU): computed where the
// producer writes each element (reverse_compute_inline), no kernel of its own.
RuleOutcome gpu_inline_epilogue(Schedule& sch, BlockRV block, const RuleContext& cx);
// For a GPU target (Isa::cuda), any block: its leading data-parallel loops
// fused and split into blocks of threads (blockIdx.x, threadIdx.x; a
// predicate where the threads overshoot), each thread computing one output
// element with the reduction and any later loops serial inside it.
RuleOutcome bind_gpu_threads(Schedule& sch, BlockRV block, const RuleContext& cx);

// One form of a rule tried on a copy of the schedule, kept where it applied;
// a primitive's refusal is a decline with its message
// (gpu_tile_contraction.cpp).
RuleOutcome on_copy(Schedule& sch, const std::function<RuleOutcome(Schedule&)>& form);

// The rules in the order the auto-scheduler tries them on each block; the
// first that applies wins.
const std::vector<ScheduleRule>& default_rules();
// The same for a GPU target.
const std::vector<ScheduleRule>& gpu_rules();

}  // namespace tirc
