// The GPU rule of a reduction with few outputs and long rows (a softmax's
// row max and sum, a layer norm's mean, a global pool): one block of threads
// per output, the row shared among its threads. With one thread per output
// (bind_gpu_threads) 128 rows of 768 would be 128 threads summing 768
// elements each, most of the GPU idle. Here, for R[s] += X[s, r]:
//
//   for s in blockIdx.x, u in range(1):
//     R_rf = T.allocate([t], scope="shared")
//     for tr in threadIdx.x (t threads):
//       R_rf[tr] = 0
//       for ro in range(n / t): R_rf[tr] += X[s, ro * t + tr]   (coalesced)
//     R[s] = 0
//     for k in range(t): R[s] += R_rf[k]          (a tree: passes/tree_reductions.cpp)
//
// rfactor makes the partial sums a block of their own, its buffer in scope
// "shared" and the final sum computed after it in the unit loop u (so that
// the lowering places both inside the kernel); the generator puts the barrier
// between them. Leading data-parallel loops are fused into s, trailing
// reduction loops into one of n iterations; t, the threads, is the largest
// power of two up to GpuModel::threads_per_block that divides n.
#include <string>

#include "tuner/space/block_nest.h"
#include "tuner/space/rules.h"

namespace tirc {

RuleOutcome gpu_thread_reduction(Schedule& sch, BlockRV block, const RuleContext& cx) {
  std::string why;
  std::optional<BlockNest> nest = unbound_plain_nest(sch, block, &why);
  if (!nest) return {false, why};
  if (nest->loops.empty()) return {false, "no loops"};
  if (!nest->realize->block->init) return {false, "not a reduction with an init"};
  size_t lead = 0;
  int64_t work = 1, row = 1;
  for (; lead < nest->loops.size() && nest->loops[lead].spatial; ++lead)
    work *= nest->loops[lead].extent;
  for (size_t l = lead; l < nest->loops.size(); ++l) {
    if (nest->loops[l].spatial) return {false, "a data-parallel loop inside the reduction"};
    row *= nest->loops[l].extent;
  }
  if (lead == nest->loops.size()) return {false, "no reduction loop"};
  const GpuModel& gpu = cx.gpu;
  if (work > gpu.reduction_outputs)
    return {false, std::to_string(work) + " outputs are enough threads of their own"};
  if (work > gpu.max_grid_x) return {false, "more outputs than blocks"};
  if (row < 2 * gpu.warp_size)
    return {false, "rows of " + std::to_string(row) + " are too short to share"};
  int64_t threads = 1;
  while (threads * 2 <= gpu.threads_per_block && row % (threads * 2) == 0) threads *= 2;
  if (threads < gpu.warp_size)
    return {false, "no warp of threads divides the rows of " + std::to_string(row)};

  std::vector<LoopRV> spatial, reduce;
  for (size_t l = 0; l < nest->loops.size(); ++l)
    (l < lead ? spatial : reduce).push_back(nest->loops[l].rv);
  const LoopRV r = reduce.size() > 1 ? sch.fuse(reduce) : reduce[0];
  const std::vector<LoopRV> split = sch.split(r, {row / threads, threads});
  const BlockRV rf = sch.rfactor(split[1], 0);
  std::optional<LoopRV> s;
  if (lead > 0) s = lead > 1 ? sch.fuse(spatial) : spatial[0];
  // The partial sums' loops: [s,] ro, tr -> [s,] tr, ro.
  std::vector<LoopRV> loops = sch.get_loops(rf);
  const LoopRV tr = loops.back(), ro = loops[loops.size() - 2];
  sch.reorder({tr, ro});
  if (s) sch.bind(*s, "blockIdx.x");
  sch.bind(tr, "threadIdx.x");
  sch.set_scope(rf, 0, "shared");
  const LoopRV unit = sch.add_unit_loop(tr);
  sch.reverse_compute_at(block, unit);
  sch.decompose_reduction(rf, ro);

  std::string note = "rows of " + std::to_string(row) + " shared by " + std::to_string(threads) +
                     " threads (" + std::to_string(row / threads) + " each), " +
                     std::to_string(work) + (work == 1 ? " block" : " blocks") +
                     ", partial results in shared memory";
  return {true, note};
}

}  // namespace tirc
