// The GPU rule of a contraction (the blocks tile_contraction takes on a CPU,
// any accumulation type): register tiling per thread. For C[i, j] += A[i, k]
// * B[k, j]
//
//   for z in blockIdx.z (one batch loop), by in blockIdx.y, bx in blockIdx.x,
//       ty in threadIdx.y, tx in threadIdx.x:
//     for b (any other batch loop, serial), u in range(1):
//       C_local[ri, rj] = 0                     (unrolled)
//       for k: for ri (unrolled): for rj (unrolled):
//         C_local[ri, rj] += A[i, k] * B[k, j]  (i = (by * ty_n + ty) * ri_n + ri)
//       C[i, j] = C_local[ri, rj]               (unrolled)
//
// C_local is a cache_write in scope "local" whose write-back is computed in
// the unit loop u, with the init decomposed there: u then holds every access
// of C_local, and the lowering's compact-allocations shrinks it to one
// thread's ri_n x rj_n tile allocated at the top of u, inside every
// threadIdx loop, which the CUDA generator makes the thread's own memory and
// LLVM keeps in registers once the unrolled indices are constant. A
// reduction step loads ri_n + rj_n operands for ri_n x rj_n multiply-adds.
//
// The rows are the loop tile_contraction would take for its register tile's
// rows (along which the broadcast operand varies: the output channel of a
// convolution), the columns C's last index (contiguous, along threadIdx.x).
// Tile and block sizes divide the extents exactly (no predicates); where
// they cannot give a register tile the rule declines and bind-gpu-threads
// takes the block.
#include <algorithm>
#include <string>

#include "ir/functor.h"
#include "passes/pipeline.h"
#include "tuner/space/block_nest.h"
#include "tuner/space/contraction.h"
#include "tuner/space/rules.h"

namespace tirc {

namespace {

// The largest divisor of n that is at most `most` (1 when there is none).
int64_t largest_divisor(int64_t n, int64_t most) {
  for (int64_t d = std::min(n, most); d > 1; --d)
    if (n % d == 0) return d;
  return 1;
}

// One output dimension split into blocks x threads x tile.
struct Axis {
  int64_t extent = 1;
  int64_t tile = 1;     // per thread (registers)
  int64_t threads = 1;  // per block
  int64_t blocks() const { return extent / (tile * threads); }
};

Axis axis(int64_t extent, int64_t tile, int64_t most_threads) {
  Axis a{extent, tile, 1};
  a.threads = largest_divisor(extent / tile, most_threads);
  return a;
}

// Tiles as large as the model allows that divide the extents, then as many
// threads as the block takes; with less than a warp of threads, smaller
// tiles (the larger one first) where that gives more threads.
void choose(Axis& rows, Axis& cols, const GpuModel& gpu) {
  rows = axis(rows.extent, largest_divisor(rows.extent, gpu.tile_rows), gpu.block_rows);
  cols = axis(cols.extent, largest_divisor(cols.extent, gpu.tile_columns), gpu.block_columns);
  while (rows.threads * cols.threads < gpu.warp_size) {
    bool shrunk = false;
    for (Axis* a : cols.tile >= rows.tile ? std::vector<Axis*>{&cols, &rows}
                                          : std::vector<Axis*>{&rows, &cols}) {
      if (a->tile == 1) continue;
      const int64_t most = a == &rows ? gpu.block_rows : gpu.block_columns;
      const Axis smaller = axis(a->extent, largest_divisor(a->extent, a->tile - 1), most);
      if (smaller.threads <= a->threads) continue;
      *a = smaller;
      shrunk = true;
      break;
    }
    if (!shrunk) break;
  }
}

struct Split3 {
  LoopRV blocks, threads, tile;
  Axis axis;
};

// [blocks, threads, tile] of `loop` through sample_perfect_tile: the model's
// choice when deciding by the model, a random draw otherwise.
Split3 split3(Schedule& sch, LoopRV loop, const Axis& model, int max_tile, const RuleContext& cx) {
  std::optional<std::vector<int64_t>> decision;
  if (cx.decisions == Decisions::Model)
    decision = std::vector<int64_t>{model.blocks(), model.threads, model.tile};
  const int limit = static_cast<int>(std::max<int64_t>(max_tile, model.tile));
  std::vector<ExprRV> f = sch.sample_perfect_tile(loop, 3, limit, decision);
  std::vector<LoopRV> parts = sch.split(loop, {f[0], f[1], f[2]});
  return {parts[0], parts[1], parts[2], Axis{model.extent, sch.get(f[2]), sch.get(f[1])}};
}

// Whether lowering `f` for the GPU gives an allocation of `elements` in
// scope "local" inside threadIdx loops: the per-thread tile that
// compact-allocations makes of the cache.
bool local_tile_in_threads(const PrimFunc& f, int64_t elements) {
  struct Find : StmtVisitor {
    int64_t elements = 0;
    int thread_loops = 0;
    bool found = false;
    void visit_for(const ForNode* n) override {
      const bool thread =
          n->for_kind == ForKind::ThreadBinding && n->thread_tag.rfind("threadIdx", 0) == 0;
      thread_loops += thread;
      StmtVisitor::visit_for(n);
      thread_loops -= thread;
    }
    void visit_allocate(const AllocateNode* n) override {
      if (thread_loops > 0 && n->scope == "local" && n->extents.size() == 1)
        found |= as_const_int(n->extents[0]).value_or(-1) == elements;
      StmtVisitor::visit_allocate(n);
    }
  } find;
  find.elements = elements;
  find.visit(lower(f, LowerOptions{true})->body);
  return find.found;
}

std::string times(int64_t a, int64_t b) {
  return std::to_string(a) + "x" + std::to_string(b);
}

}  // namespace

RuleOutcome gpu_tile_contraction(Schedule& sch, BlockRV block, const RuleContext& cx) {
  std::optional<BlockNest> nest = describe_nest(sch, block);
  if (!nest) return {false, "a loop extent is not constant"};
  if (std::any_of(nest->loops.begin(), nest->loops.end(),
                  [](const NestLoop& l) { return l.loop->for_kind == ForKind::ThreadBinding; }))
    return {false, "already inside thread-bound loops (another block's binding)"};
  if (!nest->plain || nest->loops.empty()) return {false, "not a plain loop nest"};
  const Block blk = nest->realize->block;  // kept alive while the primitives replace it
  const ContractionUpdate u = contraction_update(*blk, ContractionTypes::any);
  const BufferStoreNode* st = u.store;
  if (!st || st->indices.size() < 2)
    return {false, "not a C[.., i, j] += A * B contraction (or max(C, A))"};
  size_t column_dims = 1;
  int blocked = -1;  // a loop over blocks of columns: a batch loop here
  const int jl = columns_loop(*nest, *st, &column_dims, &blocked);
  if (jl < 0) return {false, "the output's last index is not a loop variable"};
  if (column_dims != 1) return {false, "the output's columns span two indices"};
  int il = loop_for_var(*nest, st->indices[st->indices.size() - 2].get());
  il = rows_loop(*nest, u, jl, il);
  if (il < 0 || il == jl) return {false, "no loop for the register tile's rows"};
  std::vector<int> batch, reduce;
  for (int l = 0; l < static_cast<int>(nest->loops.size()); ++l) {
    if (l == il || l == jl) continue;
    (nest->loops[l].spatial ? batch : reduce).push_back(l);
  }
  if (reduce.empty()) return {false, "no reduction loop"};
  // A register tile pays where an operand is the same for a whole row or
  // column of it (A along j, B along i): one load then feeds several
  // multiply-adds. Where both follow every output element (max pooling, a
  // row's sum of squares) it only takes threads away.
  auto var = [&](int l) { return blk->iter_vars[nest->loops[l].iter].var.get(); };
  bool reuse = false;
  for (const BufferLoadNode* x : {u.a, u.b})
    reuse |= x && (!load_uses(*x, var(il)) || !load_uses(*x, var(jl)));
  if (!reuse) return {false, "no operand is shared along the rows or the columns of a tile"};

  const GpuModel& gpu = cx.gpu;
  Axis rows{nest->loops[il].extent}, cols{nest->loops[jl].extent};
  choose(rows, cols, gpu);
  const std::string shape = times(rows.extent, cols.extent);
  if (rows.tile * cols.tile == 1)
    return {false, "no register tile for a " + shape + " output in blocks of at least " +
                       std::to_string(gpu.warp_size) + " threads"};
  // One batch loop, the longest, is blockIdx.z; the others are serial in each
  // thread (fused into one grid dimension, their quotient and remainder would
  // keep compact-allocations from shrinking the cache).
  int z = -1;
  for (int b : batch)
    if (z < 0 || nest->loops[b].extent > nest->loops[z].extent) z = b;
  if (z >= 0 && nest->loops[z].extent > gpu.max_grid_yz)
    return {false, "a batch loop of more than " + std::to_string(gpu.max_grid_yz) + " blocks"};
  if (rows.blocks() > gpu.max_grid_yz)
    return {false, "more than " + std::to_string(gpu.max_grid_yz) + " blocks of rows"};
  if (cols.blocks() > gpu.max_grid_x)
    return {false, "more than " + std::to_string(gpu.max_grid_x) + " blocks of columns"};

  const BlockRV cache = sch.cache_write(block, 0, "local");
  const Split3 i = split3(sch, nest->loops[il].rv, rows, gpu.tile_rows, cx);
  const Split3 j = split3(sch, nest->loops[jl].rv, cols, gpu.tile_columns, cx);
  if (i.axis.threads * j.axis.threads > gpu.max_threads_per_block ||
      i.axis.blocks() > gpu.max_grid_yz || j.axis.blocks() > gpu.max_grid_x ||
      i.axis.tile * j.axis.tile * st->value.dtype().bytes() > CudaLimits::max_local_bytes)
    return {false, "drew " + times(i.axis.threads, j.axis.threads) + " threads of " +
                       times(i.axis.tile, j.axis.tile) + " tiles, past the limits"};
  std::vector<LoopRV> order, bound;
  if (z >= 0) order.push_back(nest->loops[z].rv);
  for (LoopRV l : {i.blocks, j.blocks, i.threads, j.threads}) order.push_back(l);
  bound = order;
  for (int b : batch)
    if (b != z) order.push_back(nest->loops[b].rv);
  const size_t depth = order.size();  // u's place among the loops
  for (int r : reduce) order.push_back(nest->loops[r].rv);
  order.push_back(i.tile);
  order.push_back(j.tile);
  sch.reorder(order);

  // The unit loop that holds the thread's whole use of the cache.
  const LoopRV unit = sch.add_unit_loop(nest->loops[reduce.front()].rv);
  sch.reverse_compute_at(cache, unit);
  const BlockRV init = sch.decompose_reduction(block, nest->loops[reduce.front()].rv);
  sch.unroll(i.tile);
  sch.unroll(j.tile);
  for (BlockRV b : {init, cache}) {
    const std::vector<LoopRV> loops = sch.get_loops(b);
    for (size_t l = depth + 1; l < loops.size(); ++l) sch.unroll(loops[l]);
  }
  if (z >= 0) sch.bind(bound[0], "blockIdx.z");
  const size_t first = z >= 0 ? 1 : 0;
  sch.bind(bound[first], "blockIdx.y");
  sch.bind(bound[first + 1], "blockIdx.x");
  sch.bind(bound[first + 2], "threadIdx.y");
  sch.bind(bound[first + 3], "threadIdx.x");

  const int64_t tile = i.axis.tile * j.axis.tile;
  if (!local_tile_in_threads(sch.func(sch.resolve(block, "gpu-tile-contraction").func), tile))
    return {false, "the lowering keeps the accumulators out of the threads' own memory"};

  std::string note = "register tile " + times(i.axis.tile, j.axis.tile) + " per thread, " +
                     times(i.axis.threads, j.axis.threads) + " threads per block, " +
                     times(i.axis.blocks(), j.axis.blocks()) + " blocks";
  if (z >= 0 && nest->loops[z].extent > 1)
    note += " x " + std::to_string(nest->loops[z].extent) + " on blockIdx.z";
  note += " over a " + shape + " output";
  int serial = 0;  // other batch loops of more than one iteration
  for (int b : batch) serial += b != z && nest->loops[b].extent > 1;
  if (serial > 0)
    note += ", " + std::to_string(serial) + " batch loop" + (serial > 1 ? "s" : "") +
            " serial in each thread";
  return {true, note};
}

}  // namespace tirc
