// gpu_tile_contraction's split reduction (split-K): a contraction with few
// outputs and a long reduction (ResNet-18's last convolutions: 7x7x512
// outputs, each a sum of 4608 products) launches too few threads to keep a
// GPU busy, whatever its tiles: 3584 threads, against the four warp
// schedulers of each of 132 multiprocessors. Here the reduction's longest
// loop k is split in S parts (rfactor). The partial sums, a contraction of
// their own with one more batch loop, are tiled as any other but into S
// times the blocks (the parts on blockIdx.z with the other batch loops;
// without the factor the larger grid would only buy larger register tiles
// per thread, not more threads). A second kernel adds the parts to the
// block's init (a bias), one thread an output (bind_gpu_threads), and a
// later rule computes the epilogue after that sum in the same threads:
//
//   C_rf[s, i, j] += A[i, s * n + k] * B[s * n + k, j]    (S times the threads)
//   C[i, j] = init[i, j] + sum over s of C_rf[s, i, j]     (one thread an output)
//
// The partial sums cost S times the output in memory, written and read once.
#include <algorithm>
#include <string>

#include "tuner/space/block_nest.h"
#include "tuner/space/rules.h"

namespace tirc {

namespace {

// The parts: the smallest power of two that gives fill_threads threads, each
// part at least least_part_reduction long, at most most_reduction_parts; the
// most there may be where none gives that many; 0 where not even two parts
// are long enough.
int64_t choose_parts(int64_t threads, int64_t loop_extent, int64_t reduction, const GpuModel& gpu) {
  int64_t parts = 0;
  for (int64_t s = 2; s <= gpu.most_reduction_parts; s *= 2) {
    if (loop_extent % s != 0 || reduction / s < gpu.least_part_reduction) break;
    parts = s;
    if (threads * s >= gpu.fill_threads) break;
  }
  return parts;
}

}  // namespace

Launch launch_of(Schedule& sch, BlockRV block) {
  Launch launch;
  const std::optional<BlockNest> nest = describe_nest(sch, block);
  if (!nest) return launch;
  for (const NestLoop& l : nest->loops) {
    if (l.loop->for_kind != ForKind::ThreadBinding) continue;
    (l.loop->thread_tag.rfind("blockIdx", 0) == 0 ? launch.blocks : launch.threads_per_block) *=
        l.extent;
  }
  return launch;
}

RuleOutcome gpu_split_reduction(Schedule& sch, BlockRV block, const Launch& whole,
                                const RuleContext& cx, const TileForm& tiles) {
  const GpuModel& gpu = cx.gpu;
  const int64_t threads = whole.threads();
  if (threads >= gpu.fill_threads)
    return {false, std::to_string(threads) + " threads fill the GPU"};
  std::string why;
  std::optional<BlockNest> nest = unbound_plain_nest(sch, block, &why);
  if (!nest) return {false, why};
  int kl = -1;  // the longest reduction loop
  int64_t reduction = 1;
  for (int l = 0; l < static_cast<int>(nest->loops.size()); ++l) {
    if (nest->loops[l].spatial) continue;
    reduction *= nest->loops[l].extent;
    if (kl < 0 || nest->loops[l].extent > nest->loops[kl].extent) kl = l;
  }
  if (kl < 0) return {false, "no reduction loop"};
  const int64_t extent = nest->loops[kl].extent;
  const int64_t parts = choose_parts(threads, extent, reduction, gpu);
  const std::string loop = nest->loops[kl].loop->loop_var->name;
  // Too short to split: nothing worth reporting.
  if (parts == 0) return {false, ""};
  const std::vector<LoopRV> split = sch.split(nest->loops[kl].rv, {parts, extent / parts});
  const BlockRV rf = sch.rfactor(split[0], 0);
  const std::string rf_name = sch.get(rf);
  RuleContext parts_cx = cx;
  parts_cx.gpu.fill_blocks = std::max(gpu.fill_blocks, whole.blocks * parts);
  const RuleOutcome partial = tiles(sch, rf, parts_cx);
  if (!partial.applied) return {false, "the partial sums (block " + rf_name + "): " + partial.note};
  const int64_t parts_threads = launch_of(sch, rf).threads();
  if (parts_threads <= threads)
    return {false, "the partial sums' tiles run " + std::to_string(parts_threads) +
                       " threads, no more than the whole's"};
  const RuleOutcome sum = bind_gpu_threads(sch, block, cx);
  if (!sum.applied) return {false, "the sum of the parts: " + sum.note};
  return {true, "reduction split in " + std::to_string(parts) + " parts along " + loop + " (" +
                    std::to_string(parts_threads) + " threads, " + std::to_string(threads) +
                    " whole); partial sums (block " + rf_name + "): " + partial.note +
                    "; their sum: " + sum.note};
}

}  // namespace tirc
