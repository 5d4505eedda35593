// The rule of every block on a GPU target: the simple, always-correct CUDA
// schedule. The block's leading data-parallel loops are fused into one loop,
// split into blocks of threads (GpuModel::threads_per_block, or fewer whole
// warps when there is less work; the split's predicate idles the threads
// past the end) and bound to blockIdx.x and threadIdx.x. One thread computes
// one output element: reduction loops and any loops after the first
// reduction stay serial inside it. (Contractions and reductions with long
// rows get gpu_tile_contraction's and gpu_thread_reduction's forms first.)
//
// Two blocks get no kernel of their own here. A pad (`P[..] =
// if_then_else(cond, X[..], c)`, a max pool's -inf border) whose consumers
// are still unscheduled is computed in their loads (compute_inline): the
// consumer tests the border instead of a kernel writing a padded copy. An
// elementwise block with as many iterations as the threads of the producer
// this rule bound (a global average pool's division and flatten after its
// sum) is computed by the same threads after the producer's loops
// (reverse_compute_at): a thread per element either way, one kernel.
#include <algorithm>
#include <string>

#include "tuner/space/block_nest.h"
#include "tuner/space/rules.h"

namespace tirc {

namespace {

// P[..] = if_then_else(cond, X[..], c) with c a constant.
bool is_pad(const BlockNode& b) {
  auto* st = b.body.as<BufferStoreNode>();
  auto* sel = st ? st->value.as<CallNode>() : nullptr;
  return sel && sel->op == "if_then_else" && sel->args.size() == 3 &&
         sel->args[1].as<BufferLoadNode>() &&
         (sel->args[2].as<FloatImmNode>() || sel->args[2].as<IntImmNode>());
}

// The iterations of a block's data-parallel iteration variables, or -1.
int64_t data_parallel_iterations(const BlockNode& b) {
  int64_t work = 1;
  for (const IterVar& iv : b.iter_vars) {
    if (iv.kind != IterKind::DataPar) continue;
    const std::optional<int64_t> extent = as_const_int(iv.dom.extent);
    if (!extent) return -1;
    work *= *extent;
  }
  return work;
}

// The pad `block` computed in its consumers' loads; a note, or "" where it
// has none or one is already scheduled.
std::string inline_pad(Schedule& sch, BlockRV block, const BlockNest& nest) {
  if (!is_pad(*nest.realize->block)) return "";
  const std::vector<BlockRV> consumers = sch.get_consumers(block);
  std::string names;
  for (BlockRV c : consumers) {
    if (thread_bound(sch, c)) return "";
    names += (names.empty() ? "" : ", ") + sch.get(c);
  }
  if (names.empty()) return "";
  const RuleOutcome o = on_copy(sch, [&](Schedule& trial) {
    trial.compute_inline(block);
    return RuleOutcome{true, ""};
  });
  return o.applied ? "a pad, computed in the loads of " + names + " (no kernel of its own)" : "";
}

// `block`, elementwise with `work` iterations, computed after its
// producer's loops in the producer's threads, where one producer is bound
// to as many threads; a note, or "".
std::string follow_producer(Schedule& sch, BlockRV block, int64_t work) {
  for (BlockRV p : sch.get_producers(block)) {
    if (!thread_bound(sch, p)) continue;
    // The producer's own threads, as many as this block's iterations:
    // bind_gpu_threads' blockIdx.x x threadIdx.x over the loops it fused, or
    // gpu_thread_reduction's block per output, whose unit loop holds the
    // output's final sum.
    const std::optional<BlockNest> pn = describe_nest(sch, p);
    if (!pn || pn->loops.size() < 2 || pn->loops[0].loop->thread_tag != "blockIdx.x" ||
        data_parallel_iterations(*pn->realize->block) != work)
      continue;
    const ForNode& second = *pn->loops[1].loop;
    const bool per_thread = second.thread_tag == "threadIdx.x";
    const bool per_block = second.for_kind == ForKind::Serial && is_const_int(second.extent, 1);
    if (!per_thread && !per_block) continue;
    const LoopRV threads = pn->loops[1].rv;
    const std::string name = sch.get(p);
    const RuleOutcome o = on_copy(sch, [&](Schedule& trial) {
      trial.reverse_compute_at(block, threads);
      return RuleOutcome{true, ""};
    });
    if (o.applied)
      return per_thread ? "computed in block " + name + "'s threads, after its loops"
                        : "computed in block " + name + "'s kernel, after each output's sum";
  }
  return "";
}

}  // namespace

RuleOutcome bind_gpu_threads(Schedule& sch, BlockRV block, const RuleContext& cx) {
  std::string why;
  std::optional<BlockNest> nest = unbound_plain_nest(sch, block, &why);
  if (!nest) return {false, why};
  if (std::string note = inline_pad(sch, block, *nest); !note.empty()) return {true, note};
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
  if (lead == nest->loops.size())
    if (std::string note = follow_producer(sch, block, work); !note.empty()) return {true, note};
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
