// The rule of every block on a GPU target: the simple, always-correct CUDA
// schedule. The block's leading data-parallel loops are fused into one loop,
// split into blocks of threads (GpuModel::threads_per_block, or fewer whole
// warps when there is less work; the split's predicate idles the threads
// past the end) and bound to blockIdx.x and threadIdx.x. One thread computes
// one output element: reduction loops and any loops after the first
// reduction stay serial inside it. (Contractions and reductions with long
// rows get gpu_tile_contraction's and gpu_thread_reduction's forms first.)
#include <algorithm>
#include <string>

#include "tuner/space/block_nest.h"
#include "tuner/space/rules.h"

namespace tirc {

RuleOutcome bind_gpu_threads(Schedule& sch, BlockRV block, const RuleContext& cx) {
  std::string why;
  std::optional<BlockNest> nest = unbound_plain_nest(sch, block, &why);
  if (!nest) return {false, why};
  // The leading data-parallel loops and the iterations they hold.
  size_t lead = 0;
  int64_t work = 1;
  const GpuModel& gpu = cx.gpu;
  const int64_t most = gpu.max_grid_x * gpu.threads_per_block;
  for (; lead < nest->loops.size() && nest->loops[lead].spatial; ++lead) {
    const int64_t extent = nest->loops[lead].extent;
    work = extent > 0 && work > most / extent ? most + 1 : work * extent;  // no overflow
  }
  if (lead == 0) return {false, "no data-parallel outer loop to bind to threads"};
  if (work == 0) return {false, "no iterations"};
  if (work > most)
    return {false, "more than " + std::to_string(gpu.max_grid_x) + " blocks of " +
                       std::to_string(gpu.threads_per_block) + " threads"};
  // Threads per block: the model's, or the work rounded up to whole warps.
  const int64_t warps = (work + gpu.warp_size - 1) / gpu.warp_size;
  const int64_t preferred =
      std::min<int64_t>({gpu.threads_per_block, warps * gpu.warp_size, gpu.max_threads_per_block});
  // The fallback when bind cannot prove the threads apart (a thread count that
  // does not divide the inner loops leaves floordiv/floormod of the fused
  // index it cannot separate): the inner leading loops' own iterations.
  int64_t inner = 1;
  for (size_t l = lead; l-- > 0 && inner * nest->loops[l].extent <= gpu.max_threads_per_block;)
    inner *= nest->loops[l].extent;

  std::vector<LoopRV> fuse;
  for (size_t l = 0; l < lead; ++l) fuse.push_back(nest->loops[l].rv);
  const Schedule before = sch;
  int64_t threads = preferred;
  for (;;) {
    try {
      const LoopRV fused = lead > 1 ? sch.fuse(fuse) : fuse[0];
      const std::vector<LoopRV> split = sch.split(fused, {nullptr, threads});
      sch.bind(split[0], "blockIdx.x");
      sch.bind(split[1], "threadIdx.x");
      break;
    } catch (const ScheduleError&) {
      if (threads == inner || inner <= 1 || work % inner != 0) throw;
      sch = before;
      threads = inner;
    }
  }
  const int64_t blocks = (work + threads - 1) / threads;

  std::string note = lead > 1 ? "fused " + std::to_string(lead) + " loops" : "loop";
  note += " (" + std::to_string(work) + " iterations) into " + std::to_string(blocks) +
          (blocks == 1 ? " block" : " blocks") + " x " + std::to_string(threads) + " threads";
  if (blocks * threads != work)
    note += ", predicated (" + std::to_string(blocks * threads - work) + " threads idle)";
  if (lead < nest->loops.size())
    note += ", " + std::to_string(nest->loops.size() - lead) + " loop" +
            (nest->loops.size() - lead == 1 ? "" : "s") + " serial in each thread";
  return {true, note};
}

const std::vector<ScheduleRule>& gpu_rules() {
  static const std::vector<ScheduleRule> rules = {
      {"gpu-tile-contraction", gpu_tile_contraction},
      {"gpu-thread-reduction", gpu_thread_reduction},
      {"gpu-inline-epilogue", gpu_inline_epilogue},
      {"bind-gpu-threads", bind_gpu_threads},
  };
  return rules;
}

}  // namespace tirc
