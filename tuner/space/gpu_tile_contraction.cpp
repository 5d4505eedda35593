// The GPU rule of a contraction (the blocks tile_contraction takes on a CPU,
// any accumulation type): register tiling per thread. For C[i, j] += A[i, k]
// * B[k, j]
//
//   for z in blockIdx.z (the batch loops, fused), by in blockIdx.y,
//       bx in blockIdx.x, ty in threadIdx.y, tx in threadIdx.x:
//     for b (batch loops past the grid's limit together, serial), u in range(1):
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
#include <functional>
#include <numeric>
#include <string>
#include <tuple>
#include <utility>
#include <variant>

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

// Fewer blocks than the GPU has multiprocessors leave some of them idle (a
// 256x256 output is 16 blocks of 64x64): while that gives more blocks,
// fewer threads per block (down to two warps; from the rows, so that
// threadIdx.x stays long along the contiguous index), then smaller register
// tiles (the larger first, down to 2), then one-warp blocks.
void fill_gpu(Axis& rows, Axis& cols, int64_t batch, const GpuModel& gpu) {
  auto blocks = [&](const Axis& r, const Axis& c) { return r.blocks() * c.blocks() * batch; };
  auto fewer_threads = [](const Axis& a) { return axis(a.extent, a.tile, a.threads / 2); };
  auto smaller_tile = [](const Axis& a) {
    const int64_t tile = largest_divisor(a.extent, a.tile - 1);
    return tile >= 2 ? axis(a.extent, tile, a.threads) : a;
  };
  while (blocks(rows, cols) < gpu.fill_blocks) {
    const bool rows_first = rows.threads >= cols.threads;
    const bool cols_tile_first = cols.tile >= rows.tile;
    const std::pair<Axis, Axis> options[] = {
        rows_first ? std::pair{fewer_threads(rows), cols} : std::pair{rows, fewer_threads(cols)},
        cols_tile_first ? std::pair{rows, smaller_tile(cols)} : std::pair{smaller_tile(rows), cols},
        cols_tile_first ? std::pair{smaller_tile(rows), cols} : std::pair{rows, smaller_tile(cols)},
        rows_first ? std::pair{fewer_threads(rows), cols} : std::pair{rows, fewer_threads(cols)}};
    const int64_t least_threads[] = {2 * gpu.warp_size, gpu.warp_size, gpu.warp_size,
                                     gpu.warp_size};
    bool grew = false;
    for (size_t o = 0; o < 4 && !grew; ++o) {
      const auto& [r, c] = options[o];
      if (r.threads * c.threads < least_threads[o] || blocks(r, c) <= blocks(rows, cols)) continue;
      rows = r;
      cols = c;
      grew = true;
    }
    if (!grew) return;
  }
}

// The shared-memory form steps through the reduction by a multiple of
// lcm(threadIdx.y, threadIdx.x) (each tile's copy divides over both), which
// a ResNet layer's 56, 28 or 14 rows make 56 or 112 with the choice above.
// This one keeps both thread counts powers of two: per axis the largest
// block tile (tile x threads) with threads a power of two, at most
// `most_tile` x `most_threads`, the more threads on a tie.
Axis power_of_two_axis(int64_t extent, int64_t most_tile, int64_t most_threads) {
  Axis best{extent};
  for (int64_t t = 1; t <= std::min(extent, most_tile); ++t) {
    if (extent % t != 0) continue;
    int64_t n = 1;
    while (n * 2 <= most_threads && (extent / t) % (n * 2) == 0) n *= 2;
    const int64_t size = t * n, best_size = best.tile * best.threads;
    if (size > best_size || (size == best_size && n > best.threads)) best = Axis{extent, t, n};
  }
  return best;
}

// Rows and columns for the shared-memory form with power-of-two threads:
// two warps at least (more columns, along threadIdx.x, where the rows give
// few threads); then, while there are fewer than GpuModel::fill_blocks
// blocks, fewer threads (the axis with more, down to two warps), else the
// smaller-tile step that adds the fewest blocks (keeping two accumulators
// per thread at least), else one-warp blocks.
std::pair<Axis, Axis> power_of_two_threads(int64_t rows_extent, int64_t cols_extent, int64_t batch,
                                           const GpuModel& gpu) {
  Axis rows = power_of_two_axis(rows_extent, 2 * gpu.tile_rows, gpu.block_rows);
  Axis cols = power_of_two_axis(cols_extent, gpu.tile_columns, gpu.block_columns);
  while (rows.threads * cols.threads < 2 * gpu.warp_size &&
         rows.threads * cols.threads * 2 <= gpu.threads_per_block &&
         (cols.extent / cols.tile) % (cols.threads * 2) == 0)
    cols.threads *= 2;
  auto blocks = [&](const Axis& r, const Axis& c) { return r.blocks() * c.blocks() * batch; };
  auto halved = [](Axis a) {
    a.threads /= 2;
    return a;
  };
  auto smaller_tile = [](Axis a) {
    for (int64_t t = a.tile - 1; t >= 1; --t)
      if (a.extent % (t * a.threads) == 0) return Axis{a.extent, t, a.threads};
    return a;
  };
  while (blocks(rows, cols) < gpu.fill_blocks) {
    const int64_t now = blocks(rows, cols), threads = rows.threads * cols.threads;
    Axis& more = rows.threads > cols.threads ? rows : cols;
    if (more.threads > 1 && threads / 2 >= 2 * gpu.warp_size) {
      more = halved(more);
      continue;
    }
    // Register tiles of one element would share nothing between a thread's
    // rows and columns.
    const Axis r = smaller_tile(rows), c = smaller_tile(cols);
    const int64_t by_rows = r.tile * cols.tile > 1 ? blocks(r, cols) : 0;
    const int64_t by_cols = rows.tile * c.tile > 1 ? blocks(rows, c) : 0;
    if (by_rows > now && (by_cols <= now || by_rows <= by_cols)) {
      rows = r;
    } else if (by_cols > now) {
      cols = c;
    } else if (more.threads > 1 && threads / 2 >= gpu.warp_size) {
      more = halved(more);
    } else {
      break;
    }
  }
  return {rows, cols};
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
// scope "local" inside threadIdx loops (`in_threads`: the per-thread tile
// that compact-allocations makes of the cache) or, for shared-memory tiles,
// inside the blockIdx loops (the block's tile, which the generator gives each
// thread its part of), with every "shared" allocation inside them too.
bool local_tile_placed(const PrimFunc& f, int64_t elements, bool in_threads) {
  struct Find : StmtVisitor {
    int64_t elements = 0;
    bool in_threads = true;
    int thread_loops = 0, block_loops = 0;
    bool found = false, shared_outside = false;
    void visit_for(const ForNode* n) override {
      const bool bound = n->for_kind == ForKind::ThreadBinding;
      const bool thread = bound && n->thread_tag.rfind("threadIdx", 0) == 0;
      thread_loops += thread;
      block_loops += bound && !thread;
      StmtVisitor::visit_for(n);
      thread_loops -= thread;
      block_loops -= bound && !thread;
    }
    void visit_allocate(const AllocateNode* n) override {
      if (n->scope == "shared" && block_loops == 0) shared_outside = true;
      if ((in_threads ? thread_loops > 0 : block_loops > 0 && thread_loops == 0) &&
          n->scope == "local" && n->extents.size() == 1)
        found |= as_const_int(n->extents[0]).value_or(-1) == elements;
      StmtVisitor::visit_allocate(n);
    }
  } find;
  find.elements = elements;
  find.in_threads = in_threads;
  find.visit(lower(f, LowerOptions{true})->body);
  return find.found && !find.shared_outside;
}

std::string times(int64_t a, int64_t b) {
  return std::to_string(a) + "x" + std::to_string(b);
}

// The shared-memory form's longest step through the reduction: a step's
// tiles are (rows + columns) x step elements of shared memory.
constexpr int64_t kMostStep = 32;

// The batch loops on blockIdx.z: those of more than one iteration, the
// longest first while their product fits the grid, in the nest's order (the
// order fuse takes them in); the others (whose product with the longer ones
// would not fit) run serially in each thread.
std::vector<int> grid_z_loops(const BlockNest& nest, const std::vector<int>& batch,
                              const GpuModel& gpu) {
  std::vector<int> by_length;
  for (int b : batch)
    if (nest.loops[b].extent > 1) by_length.push_back(b);
  std::stable_sort(by_length.begin(), by_length.end(),
                   [&](int a, int b) { return nest.loops[a].extent > nest.loops[b].extent; });
  std::vector<int> zs;
  int64_t grid = 1;
  for (int b : by_length) {
    if (grid * nest.loops[b].extent > gpu.max_grid_yz) continue;
    grid *= nest.loops[b].extent;
    zs.push_back(b);
  }
  std::sort(zs.begin(), zs.end());
  return zs;
}

int64_t grid_z_extent(const BlockNest& nest, const std::vector<int>& zs) {
  int64_t grid = 1;
  for (int z : zs) grid *= nest.loops[z].extent;
  return grid;
}

// The loops `zs` (adjacent, outermost first) fused into one and bound to
// blockIdx.z. Fusing rather than running all but one serially in each thread:
// a split reduction's parts and a convolution's output rows both give blocks.
void bind_grid_z(Schedule& sch, const BlockNest& nest, const std::vector<int>& zs) {
  if (zs.empty()) return;
  std::vector<LoopRV> loops;
  for (int z : zs) loops.push_back(nest.loops[z].rv);
  sch.bind(loops.size() > 1 ? sch.fuse(loops) : loops[0], "blockIdx.z");
}

bool on_grid_z(const std::vector<int>& zs, int loop) {
  return std::find(zs.begin(), zs.end(), loop) != zs.end();
}

// The end of both forms' notes: the batch loops on blockIdx.z, the output's
// shape, the batch loops serial in each thread.
std::string grid_note(const BlockNest& nest, const std::vector<int>& zs,
                      const std::vector<int>& batch, const std::string& shape) {
  std::string note;
  if (!zs.empty()) note += " x " + std::to_string(grid_z_extent(nest, zs)) + " on blockIdx.z";
  if (zs.size() > 1) note += " (" + std::to_string(zs.size()) + " batch loops fused)";
  note += " over a " + shape + " output";
  int serial = 0;  // other batch loops of more than one iteration
  for (int b : batch) serial += !on_grid_z(zs, b) && nest.loops[b].extent > 1;
  if (serial > 0)
    note += ", " + std::to_string(serial) + " batch loop" + (serial > 1 ? "s" : "") +
            " serial in each thread";
  return note;
}

// What gpu_tile_contraction found in the nest.
struct Found {
  const BlockNest& nest;
  const BlockNode& block;
  const ContractionUpdate& u;
  int il, jl;
  const std::vector<int>& zs;  // the batch loops on blockIdx.z
  const std::vector<int>& batch;
  const std::vector<int>& reduce;
  Axis rows, cols;
  std::optional<BlockRV> pad;  // a zero pad of an operand, to compute in its shared copy
};

// The operand's place in the block's reads (cache_read's index).
int read_index(const BlockNode& block, const Buffer& b) {
  for (size_t r = 0; r < block.reads.size(); ++r)
    if (block.reads[r].buffer == b) return static_cast<int>(r);
  throw ScheduleError("gpu-tile-contraction", "operand " + b->name + " is not among the reads");
}

// [outer, inner] over the block's threads: outer split by `rows` threads
// (threadIdx.y), inner by `cols` (threadIdx.x), each thread's remaining
// iterations inside; the inner threads run along the contiguous index.
// Returns the loops left inside the threads, or a reason.
std::variant<std::vector<LoopRV>, std::string> spread_over_threads(Schedule& sch,
                                                                   const std::vector<LoopRV>& loops,
                                                                   int64_t rows, int64_t cols,
                                                                   bool thread_inner_first) {
  if (loops.size() != 2) return std::to_string(loops.size()) + " loops, not 2";
  const int64_t outer = *sch.loop_info(loops[0]).const_extent;
  const int64_t inner = *sch.loop_info(loops[1]).const_extent;
  if (outer % rows != 0 || inner % cols != 0)
    return "a " + times(outer, inner) + " tile over " + times(rows, cols) + " threads";
  // Threads innermost in the index (coalesced: neighbours along threadIdx.x
  // touch neighbouring elements), or outermost (a thread's own tile).
  std::vector<LoopRV> o = thread_inner_first ? sch.split(loops[0], {outer / rows, rows})
                                             : sch.split(loops[0], {rows, outer / rows});
  std::vector<LoopRV> i = thread_inner_first ? sch.split(loops[1], {inner / cols, cols})
                                             : sch.split(loops[1], {cols, inner / cols});
  const LoopRV ty = thread_inner_first ? o[1] : o[0], tx = thread_inner_first ? i[1] : i[0];
  const LoopRV oy = thread_inner_first ? o[0] : o[1], ox = thread_inner_first ? i[0] : i[1];
  sch.reorder({ty, tx, oy, ox});
  sch.bind(ty, "threadIdx.y");
  sch.bind(tx, "threadIdx.x");
  return std::vector<LoopRV>{oy, ox};
}

// The shared-memory form (TVM's classic GPU matmul): per block, a k loop of
// steps of bk; each step the block's threads copy the A and B tiles it needs
// into shared memory together, wait, and each thread multiplies its
// register tile out of them; the accumulators are one "local" buffer of the
// block's tile alive across the k loop (init before it, write-back after),
// of which the CUDA generator gives each thread its part:
//
//   for by, bx (blockIdx), u in range(1):
//     for ty, tx (threadIdx): C_local[..] = 0                 (unrolled)
//     for ko:
//       for ty, tx: for r: A_shared[..] = A[..]               (coalesced)
//       for ty, tx: for r: B_shared[..] = B[..]
//       for ty, tx: for ki: for ri, rj: C_local[..] += A_shared[..] * B_shared[..]
//     for ty, tx: C[..] = C_local[..]
//
// Each A or B element is then read from global memory once per block rather
// than once per thread row or column. A convolution's other reduction loops
// (the window's r and s) run outside ko, one step per window position and
// channel block, as in TVM's conv2d schedules:
//
//       for r, s, ko: copy the input's pixels x channels tile, the weights'
//                     channels x output channels tile; multiply
//
// so that each step's tiles stay two-dimensional; a zero pad of an operand
// is computed in its copy (the copy tests the border, the conv reads shared
// memory). The steps go along the longest reduction loop that whole steps
// divide. The tiles must be two-dimensional and divide over the threads;
// otherwise the register-only form is used.
RuleOutcome shared_tiles(Schedule& sch, BlockRV block, const Found& f, const RuleContext& cx) {
  if (!f.u.b) return {false, "one operand"};
  const BlockNest& nest = f.nest;
  const GpuModel& gpu = cx.gpu;
  const int ra = read_index(f.block, f.u.a->buffer), rb = read_index(f.block, f.u.b->buffer);
  const BlockRV cache = sch.cache_write(block, 0, "local");
  const Split3 i = split3(sch, nest.loops[f.il].rv, f.rows, gpu.tile_rows, cx);
  const Split3 j = split3(sch, nest.loops[f.jl].rv, f.cols, gpu.tile_columns, cx);
  const int64_t ty_n = i.axis.threads, tx_n = j.axis.threads;
  // The step: a multiple of both thread counts, at least 8.
  int64_t bk = std::lcm(ty_n, tx_n);
  while (bk < 8) bk *= 2;
  if (ty_n * tx_n < gpu.warp_size)
    return {false, times(ty_n, tx_n) + " threads, fewer than a warp"};
  if (bk > kMostStep)
    return {false, "a step of " + std::to_string(bk) + " (" + times(ty_n, tx_n) +
                       " threads) is more than " + std::to_string(kMostStep)};
  int kl = -1;  // the reduction loop of the steps
  for (int r : f.reduce)
    if (nest.loops[r].extent % bk == 0 && (kl < 0 || nest.loops[r].extent > nest.loops[kl].extent))
      kl = r;
  int64_t steps = kl < 0 ? 0 : nest.loops[kl].extent / bk;
  for (int r : f.reduce)
    if (r != kl) steps *= nest.loops[r].extent;
  if (steps < 2) {
    std::string extents;
    for (int r : f.reduce)
      extents += (extents.empty() ? "" : " x ") + std::to_string(nest.loops[r].extent);
    return {false, "the reduction's " + extents + " iterations are not several steps of " +
                       std::to_string(bk)};
  }
  const int64_t k_extent = nest.loops[kl].extent;
  const int64_t bytes = (i.axis.threads * i.axis.tile + j.axis.threads * j.axis.tile) * bk *
                        f.u.store->value.dtype().bytes();
  if (ty_n * tx_n > gpu.max_threads_per_block || i.axis.blocks() > gpu.max_grid_yz ||
      j.axis.blocks() > gpu.max_grid_x || bytes > CudaLimits::max_static_shared_bytes)
    return {false, "drew " + times(ty_n, tx_n) + " threads of " + times(i.axis.tile, j.axis.tile) +
                       " tiles, past the limits"};
  const std::vector<LoopRV> k = sch.split(nest.loops[kl].rv, {k_extent / bk, bk});

  std::vector<LoopRV> order;
  for (int z : f.zs) order.push_back(nest.loops[z].rv);
  order.push_back(i.blocks);
  order.push_back(j.blocks);
  for (int b : f.batch)
    if (!on_grid_z(f.zs, b)) order.push_back(nest.loops[b].rv);
  // The loops once bind_grid_z has fused the grid's z loops into one.
  const size_t fused_away = f.zs.size() > 1 ? f.zs.size() - 1 : 0;
  const size_t depth = order.size() - fused_away;  // the unit loop's place among the loops
  const size_t first_step = order.size();
  for (int r : f.reduce)
    if (r != kl) order.push_back(nest.loops[r].rv);
  const LoopRV outermost_step = order.size() > first_step ? order[first_step] : k[0];
  // The copies' loops: after the unit loop and ko.
  const size_t copy_depth = order.size() - fused_away + 2;
  for (LoopRV l : {k[0], i.threads, j.threads, k[1], i.tile, j.tile}) order.push_back(l);
  sch.reorder(order);
  bind_grid_z(sch, nest, f.zs);
  sch.bind(i.blocks, "blockIdx.y");
  sch.bind(j.blocks, "blockIdx.x");
  sch.bind(i.threads, "threadIdx.y");
  sch.bind(j.threads, "threadIdx.x");
  sch.unroll(k[1]);
  sch.unroll(i.tile);
  sch.unroll(j.tile);

  const LoopRV unit = sch.add_unit_loop(outermost_step);
  sch.reverse_compute_at(cache, unit);
  const BlockRV init = sch.decompose_reduction(block, outermost_step);
  for (int r : {ra, rb}) {
    const BlockRV copy = sch.cache_read(block, r, "shared");
    sch.compute_at(copy, k[0]);
    const std::vector<LoopRV> loops = loops_below(sch, copy, copy_depth);
    // 16-byte vectors where the copy is a plain one (a pad's border test
    // would leave each thread a serial run of scalar copies); else one
    // element per thread, threadIdx.x along the rows.
    const int64_t bytes = (r == ra ? f.u.a : f.u.b)->buffer->dtype.bytes();
    if (!f.pad && 16 % bytes == 0 &&
        copy_in_vectors(sch, loops, {ty_n, tx_n}, {"threadIdx.y", "threadIdx.x"}, 16 / bytes)
            .empty())
      continue;
    auto left = spread_over_threads(sch, loops, ty_n, tx_n, true);
    if (auto* why = std::get_if<std::string>(&left))
      return {false, "the shared tile of " + sch.get(copy) + " is " + *why};
  }
  // The copy now reads the pad's buffer: the pad's guard goes into it.
  if (f.pad) sch.compute_inline(*f.pad);
  // The init has the compute's thread and tile loops (copies; all four, a
  // tile of one element too); the write-back one loop per dimension of the
  // block's tile, split the same way.
  const std::vector<LoopRV> init_loops = sch.get_loops(init);
  if (init_loops.size() != depth + 5) return {false, "the init is not a thread's tile"};
  for (size_t l = 0; l < 4; ++l) {
    const LoopInfo info = sch.loop_info(init_loops[depth + 1 + l]);
    if (l < 2 && info.kind != ForKind::ThreadBinding)
      sch.bind(init_loops[depth + 1 + l], l == 0 ? "threadIdx.y" : "threadIdx.x");
    if (l >= 2 && info.kind != ForKind::Unrolled) sch.unroll(init_loops[depth + 1 + l]);
  }
  auto left = spread_over_threads(sch, loops_below(sch, cache, depth + 1), ty_n, tx_n, false);
  if (auto* why = std::get_if<std::string>(&left))
    return {false, "the write-back of the accumulators is " + *why};
  for (LoopRV l : std::get<std::vector<LoopRV>>(left)) sch.unroll(l);

  const int64_t tile = i.axis.threads * i.axis.tile * j.axis.threads * j.axis.tile;
  if (!local_tile_placed(sch.func(sch.resolve(block, "gpu-tile-contraction").func), tile, false))
    return {false, "the lowering keeps the tiles out of the kernel"};
  std::string note = "shared-memory tiles of " + times(i.axis.threads * i.axis.tile, bk) + " and " +
                     times(bk, j.axis.threads * j.axis.tile) + ", register tile " +
                     times(i.axis.tile, j.axis.tile) + " per thread, " + times(ty_n, tx_n) +
                     " threads per block, " + times(i.axis.blocks(), j.axis.blocks()) + " blocks";
  return {true, note + grid_note(nest, f.zs, f.batch, times(f.rows.extent, f.cols.extent))};
}

// Which of the two forms tile() may take.
enum class Forms { shared, registers, both };

// The shared-memory form (with `pad` computed in its copy), then the
// register-only form, as `forms` allows; `no_shared` is why the shared form
// was not taken when the caller already tried it.
RuleOutcome tile(Schedule& sch, BlockRV block, const RuleContext& cx, Forms forms,
                 std::optional<BlockRV> pad = std::nullopt, std::string no_shared = "") {
  std::string why;
  std::optional<BlockNest> nest = unbound_plain_nest(sch, block, &why);
  if (!nest) return {false, why};
  if (nest->loops.empty()) return {false, "not a plain loop nest"};
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
  // A block of less than a warp leaves the rest of the warp idle (a 1x1000
  // GEMV would be 25 blocks of 10 threads): one element per thread instead.
  if (rows.tile * cols.tile == 1 || rows.threads * cols.threads < gpu.warp_size)
    return {false, "no register tile for a " + shape + " output in blocks of at least " +
                       std::to_string(gpu.warp_size) + " threads"};
  // A batch loop past the grid's limit would be that many serial steps in
  // each thread: left to bind_gpu_threads.
  for (int b : batch)
    if (nest->loops[b].extent > gpu.max_grid_yz)
      return {false, "a batch loop of more than " + std::to_string(gpu.max_grid_yz) + " blocks"};
  const std::vector<int> zs = grid_z_loops(*nest, batch, gpu);
  const int64_t grid_z = grid_z_extent(*nest, zs);
  fill_gpu(rows, cols, grid_z, gpu);
  if (rows.blocks() > gpu.max_grid_yz)
    return {false, "more than " + std::to_string(gpu.max_grid_yz) + " blocks of rows"};
  if (cols.blocks() > gpu.max_grid_x)
    return {false, "more than " + std::to_string(gpu.max_grid_x) + " blocks of columns"};

  if (forms != Forms::registers) {
    // Power-of-two threads where the choice above would make the reduction's
    // step more than 32 (under Decisions::Random the draw decides, as below).
    auto [shared_rows, shared_cols] = std::pair{rows, cols};
    if (std::lcm(rows.threads, cols.threads) > kMostStep)
      std::tie(shared_rows, shared_cols) =
          power_of_two_threads(rows.extent, cols.extent, grid_z, gpu);
    const RuleOutcome shared = on_copy(sch, [&](Schedule& trial) {
      return shared_tiles(
          trial, block,
          Found{*nest, *blk, u, il, jl, zs, batch, reduce, shared_rows, shared_cols, pad}, cx);
    });
    if (shared.applied || forms == Forms::shared) return shared;
    no_shared = shared.note;
  }
  const BlockRV cache = sch.cache_write(block, 0, "local");
  const Split3 i = split3(sch, nest->loops[il].rv, rows, gpu.tile_rows, cx);
  const Split3 j = split3(sch, nest->loops[jl].rv, cols, gpu.tile_columns, cx);
  if (i.axis.threads * j.axis.threads > gpu.max_threads_per_block ||
      i.axis.blocks() > gpu.max_grid_yz || j.axis.blocks() > gpu.max_grid_x ||
      i.axis.tile * j.axis.tile * st->value.dtype().bytes() > CudaLimits::max_local_bytes)
    return {false, "drew " + times(i.axis.threads, j.axis.threads) + " threads of " +
                       times(i.axis.tile, j.axis.tile) + " tiles, past the limits"};
  std::vector<LoopRV> order, bound;
  for (int z : zs) order.push_back(nest->loops[z].rv);
  for (LoopRV l : {i.blocks, j.blocks, i.threads, j.threads}) {
    order.push_back(l);
    bound.push_back(l);
  }
  for (int b : batch)
    if (!on_grid_z(zs, b)) order.push_back(nest->loops[b].rv);
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
  bind_grid_z(sch, *nest, zs);
  sch.bind(bound[0], "blockIdx.y");
  sch.bind(bound[1], "blockIdx.x");
  sch.bind(bound[2], "threadIdx.y");
  sch.bind(bound[3], "threadIdx.x");

  const int64_t tile = i.axis.tile * j.axis.tile;
  if (!local_tile_placed(sch.func(sch.resolve(block, "gpu-tile-contraction").func), tile, true))
    return {false, "the lowering keeps the accumulators out of the threads' own memory"};

  std::string note = "register tile " + times(i.axis.tile, j.axis.tile) + " per thread, " +
                     times(i.axis.threads, j.axis.threads) + " threads per block, " +
                     times(i.axis.blocks(), j.axis.blocks()) + " blocks";
  return {true, note + grid_note(*nest, zs, batch, shape) +
                    " (no shared-memory tiles: " + no_shared + ")"};
}

}  // namespace

// With a zero pad before the contraction (a convolution's), the pad's kernel
// and padded copy go: the shared-memory form computes the pad in its copy of
// the tile, the register-only form in the threads' loads. As it is where
// neither applies.
namespace {

// The CUDA-core forms: shared-memory and register tiles, or register tiles
// alone, a zero pad producer computed in them where that keeps them.
RuleOutcome cuda_core_tiles(Schedule& sch, BlockRV block, const RuleContext& cx) {
  std::optional<BlockNest> nest = describe_nest(sch, block);
  const ContractionUpdate u = nest && nest->plain
                                  ? contraction_update(*nest->realize->block, ContractionTypes::any)
                                  : ContractionUpdate{};
  if (std::optional<BlockRV> pad = u.store ? zero_pad_producer(sch, block, u) : std::nullopt) {
    const std::string name = sch.get(*pad);
    const RuleOutcome shared =
        on_copy(sch, [&](Schedule& trial) { return tile(trial, block, cx, Forms::shared, pad); });
    if (shared.applied)
      return {true, shared.note + " (its zero pad, block " + name + ", computed in the copy)"};
    const RuleOutcome inlined = on_copy(sch, [&](Schedule& trial) {
      trial.compute_inline(*pad);
      return tile(trial, block, cx, Forms::registers, std::nullopt, shared.note);
    });
    if (inlined.applied)
      return {true, inlined.note + " (inlined its zero pad, block " + name + ")"};
  }
  return tile(sch, block, cx, Forms::both);
}

}  // namespace

RuleOutcome on_copy(Schedule& sch, const std::function<RuleOutcome(Schedule&)>& form) {
  Schedule trial = sch;
  RuleOutcome out;
  try {
    out = form(trial);
  } catch (const ScheduleError& e) {
    out = {false, e.message()};
  }
  if (out.applied) sch = std::move(trial);
  return out;
}

RuleOutcome gpu_tile_contraction(Schedule& sch, BlockRV block, const RuleContext& cx) {
  // A float16/bfloat16 matmul: tensor cores first (gpu_tensor_core.cpp).
  const RuleOutcome tc =
      on_copy(sch, [&](Schedule& trial) { return gpu_tensor_core(trial, block, cx); });
  if (tc.applied) return tc;
  const std::string no_tensor_cores = tc.note.empty() ? "" : " (no tensor cores: " + tc.note + ")";
  Schedule whole = sch;
  RuleOutcome out = cuda_core_tiles(whole, block, cx);
  if (!out.applied) return out;
  // Too few threads for the GPU: the reduction in parts, where it is long.
  const Launch launch = launch_of(whole, block);
  if (launch.threads() < cx.gpu.fill_threads) {
    const RuleOutcome split = on_copy(sch, [&](Schedule& trial) {
      return gpu_split_reduction(trial, block, launch, cx, cuda_core_tiles);
    });
    if (split.applied) return {true, split.note + no_tensor_cores};
    if (!split.note.empty()) out.note += " (reduction not split: " + split.note + ")";
  }
  sch = std::move(whole);
  out.note += no_tensor_cores;
  return out;
}

}  // namespace tirc
