// The GPU rule of a float16 or bfloat16 matmul with float32 accumulation:
// tensor cores through tensorize (schedule/tensor_intrin.h's mma_* tiles).
// For C[i, j] += float32(A[i, k]) * float32(B[k, j]) with i, j, k multiples
// of 16, where k is several steps of 32 (TVM's and CUTLASS's form):
//
//   for by in blockIdx.y, bx in blockIdx.x, u in range(1):
//     for wz in threadIdx.z, wy in threadIdx.y:     (a warp: the CUDA generator
//       mma_fill each of its tm x tn tiles          adds 32 threads on threadIdx.x)
//     for ko:
//       for z, y, x (threadIdx): A_shared[..] = A[..]   (the block's rows x 32)
//       for z, y, x (threadIdx): B_shared[..] = B[..]   (32 x the block's columns)
//       for wz, wy: for ki in range(2): for ti, tj:
//         mma_sync(acc[wz, wy, ti, tj], A_shared[.., ki], B_shared[ki, ..])
//     for wz, wy: for ti, tj: mma_store(C[..], acc[wz, wy, ti, tj])
//
// Each A and B element is read from global memory once per block, the copy
// coalesced along threadIdx.x. The accumulators are a cache_write in scope
// "wmma.accumulator" of the block's whole tile, alive across the k loop's
// sibling nests, of which the CUDA generator gives each warp its part in
// registers (cuda_thread_local.cpp proves the warps' parts apart). Where k
// is one step of 32 or no multiple of it, the direct form: the warp's loop
// holds the accumulators, and mma_sync reads A and B from global memory.
//
// A batch matmul (batch loops before i, j, k; B batched or not) runs the
// longest batch loop on blockIdx.z and any other serially in each block,
// around u (or the warp loops of the direct form).
//
// A warp takes 2x2 tiles and a block 2x2 warps where the shape divides so,
// fewer where that leaves fewer than GpuModel::fill_blocks blocks. The tensor
// intrinsics decide what matches: where tensorize refuses (another index
// order, a transposed operand), the caller restores the schedule and
// gpu-tile-contraction's CUDA-core tiles take the block.
#include <string>
#include <vector>

#include "tuner/space/block_nest.h"
#include "tuner/space/contraction.h"
#include "tuner/space/rules.h"

namespace tirc {

namespace {

// Whether e is float32(load of a float16 or bfloat16 buffer); its type.
std::optional<DataType> narrow_operand(const Expr& e) {
  auto* c = e.as<CastNode>();
  auto* l = c ? c->value.as<BufferLoadNode>() : nullptr;
  if (!l || e.dtype() != DataType::float32()) return std::nullopt;
  if (l->dtype != DataType::float16() && l->dtype != DataType::bfloat16()) return std::nullopt;
  return l->dtype;
}

// Tiles per warp and warps per block along one output dimension of `tiles`
// 16-wide tiles: 2 and 2 where they divide, else 1.
struct Split {
  int64_t tiles, per_warp = 1, warps = 1;
  int64_t blocks() const { return tiles / (per_warp * warps); }
};

Split split_tiles(int64_t tiles) {
  Split s{tiles};
  if (tiles % 2 == 0) s.per_warp = 2;
  if ((tiles / s.per_warp) % 2 == 0) s.warps = 2;
  return s;
}

// What both forms take: the nest's loops, the tile splits, the operand type.
struct Plan {
  const BlockNest& nest;
  Split rows, cols;
  int64_t k;
  std::string type;  // "f16" or "bf16"
  const BlockNode& block;
  size_t batch;  // the leading batch loops (nest.loops[batch..] are i, j, k)
  int z;         // the batch loop on blockIdx.z, or -1

  const NestLoop& loop(size_t l) const { return nest.loops[batch + l]; }
  // The grid's loops: z, then by and bx (`i0`, `j0`), then the other batch
  // loops (serial in each block).
  std::vector<LoopRV> grid(LoopRV i0, LoopRV j0) const {
    std::vector<LoopRV> out;
    if (z >= 0) out.push_back(nest.loops[z].rv);
    out.push_back(i0);
    out.push_back(j0);
    for (size_t b = 0; b < batch; ++b)
      if (static_cast<int>(b) != z) out.push_back(nest.loops[b].rv);
    return out;
  }
  void bind_grid(Schedule& sch, LoopRV i0, LoopRV j0) const {
    if (z >= 0) sch.bind(nest.loops[z].rv, "blockIdx.z");
    sch.bind(i0, "blockIdx.y");
    sch.bind(j0, "blockIdx.x");
  }
};

std::vector<LoopRV> concat(std::vector<LoopRV> a, const std::vector<LoopRV>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// The last n loops of `b` (its own tile loops, whatever the grid above).
std::vector<LoopRV> innermost(Schedule& sch, BlockRV b, size_t n) {
  const std::vector<LoopRV> loops = sch.get_loops(b);
  if (loops.size() < n)
    throw ScheduleError("gpu-tensor-core",
                        "block " + sch.get(b) + " has fewer than " + std::to_string(n) + " loops");
  return std::vector<LoopRV>(loops.end() - static_cast<long>(n), loops.end());
}

std::string times(int64_t a, int64_t b) {
  return std::to_string(a) + "x" + std::to_string(b);
}

std::string tiles_note(const Plan& p) {
  return times(p.rows.per_warp, p.cols.per_warp) + " tiles per warp, " +
         times(p.rows.warps, p.cols.warps) + " warps per block, " +
         times(p.rows.blocks(), p.cols.blocks()) + " blocks";
}

// The operand's place in the block's reads (cache_read's index).
std::optional<int> read_index(const BlockNode& block, const Expr& operand) {
  const Buffer& b = operand.as<CastNode>()->value.as<BufferLoadNode>()->buffer;
  for (size_t r = 0; r < block.reads.size(); ++r)
    if (block.reads[r].buffer == b) return static_cast<int>(r);
  return std::nullopt;
}

// [wz, wy, tm, tn, 16, 16] of a nest over the block's (or warp's) rows and
// columns, the warp loops bound; the loop to tensorize (the first 16).
LoopRV warp_tiles(Schedule& sch, LoopRV rows, LoopRV cols, const Plan& p, bool bind) {
  std::vector<LoopRV> r = sch.split(rows, {bind ? p.rows.warps : 1, p.rows.per_warp, 16});
  std::vector<LoopRV> c = sch.split(cols, {bind ? p.cols.warps : 1, p.cols.per_warp, 16});
  sch.reorder({r[0], c[0], r[1], c[1], r[2], c[2]});
  if (bind) {
    sch.bind(r[0], "threadIdx.z");
    sch.bind(c[0], "threadIdx.y");
  }
  return r[2];
}

// The shared-memory form (above).
RuleOutcome shared_form(Schedule& sch, BlockRV block, const Plan& p) {
  constexpr int64_t bk = 32;
  if (p.k % bk != 0 || p.k == bk)
    return {false, "the reduction's " + std::to_string(p.k) +
                       " iterations are not several steps of " + std::to_string(bk)};
  auto* product = p.block.body.as<BufferStoreNode>()->value.as<BinaryNode>()->b.as<BinaryNode>();
  const std::optional<int> ra = read_index(p.block, product->a),
                           rb = read_index(p.block, product->b);
  if (!ra || !rb || *ra == *rb) return {false, "the operands are not two reads"};
  const std::vector<LoopRV> i =
      sch.split(p.loop(0).rv, {p.rows.blocks(), p.rows.warps, p.rows.per_warp, 16});
  const std::vector<LoopRV> j =
      sch.split(p.loop(1).rv, {p.cols.blocks(), p.cols.warps, p.cols.per_warp, 16});
  const std::vector<LoopRV> kk = sch.split(p.loop(2).rv, {p.k / bk, bk / 16, 16});
  const BlockRV acc = sch.cache_write(block, 0, "wmma.accumulator");
  sch.reorder(
      concat(p.grid(i[0], j[0]), {kk[0], i[1], j[1], kk[1], i[2], j[2], i[3], j[3], kk[2]}));
  p.bind_grid(sch, i[0], j[0]);
  sch.bind(i[1], "threadIdx.z");
  sch.bind(j[1], "threadIdx.y");
  const LoopRV unit = sch.add_unit_loop(kk[0]);
  sch.reverse_compute_at(acc, unit);
  const BlockRV init = sch.decompose_reduction(block, kk[0]);
  // Each step the block's threads copy both tiles in 16-byte vectors
  // (copy_in_vectors: neighbouring lanes copy neighbouring vectors), each
  // thread's copies serial inside the thread loops (a serial loop around
  // them would wait at a barrier every iteration).
  for (int r : {*ra, *rb}) {
    const BlockRV copy = sch.cache_read(block, r, "shared");
    sch.compute_at(copy, kk[0]);
    // The copy's own loops: after the grid, the unit loop and ko, those of
    // more than one iteration (a batch dimension of the tile has one).
    const std::vector<LoopRV> loops = loops_below(sch, copy, p.grid(i[0], j[0]).size() + 2);
    if (loops.size() != 2) return {false, "the shared tile of " + sch.get(copy) + " is not 2-D"};
    // 8 float16 or bfloat16 elements: 16 bytes.
    const std::string why = copy_in_vectors(sch, loops, {p.rows.warps, p.cols.warps, 32},
                                            {"threadIdx.z", "threadIdx.y", "threadIdx.x"}, 8);
    if (!why.empty()) return {false, "the shared tile of " + sch.get(copy) + " is " + why};
  }
  sch.tensorize(i[3], "mma_sync_16x16x16_" + p.type + "_f32");
  // The init: the grid, u, then the compute's wz, wy, tm, tn, 16, 16.
  const std::vector<LoopRV> init_loops = innermost(sch, init, 6);
  for (size_t l = 0; l < 2; ++l)
    if (sch.loop_info(init_loops[l]).kind != ForKind::ThreadBinding)
      sch.bind(init_loops[l], l == 0 ? "threadIdx.z" : "threadIdx.y");
  sch.tensorize(init_loops[4], "mma_fill_16x16_f32");
  // The write-back: the grid, u, then the block's rows and columns.
  const std::vector<LoopRV> out = innermost(sch, acc, 2);
  sch.tensorize(warp_tiles(sch, out[0], out[1], p, true), "mma_store_16x16_f32");
  return {true, "tensor cores (" + p.type +
                    " mma 16x16x16, float32 accumulators, shared-memory tiles of " +
                    times(p.rows.warps * p.rows.per_warp * 16, bk) + " and " +
                    times(bk, p.cols.warps * p.cols.per_warp * 16) + "): " + tiles_note(p)};
}

// The direct form: no shared memory, the accumulators at the warp's loop.
RuleOutcome direct_form(Schedule& sch, BlockRV block, const Plan& p) {
  const std::vector<LoopRV> i =
      sch.split(p.loop(0).rv, {p.rows.blocks(), p.rows.warps, p.rows.per_warp, 16});
  const std::vector<LoopRV> j =
      sch.split(p.loop(1).rv, {p.cols.blocks(), p.cols.warps, p.cols.per_warp, 16});
  const std::vector<LoopRV> kk = sch.split(p.loop(2).rv, {p.k / 16, 16});
  sch.reorder(concat(p.grid(i[0], j[0]), {i[1], j[1], kk[0], i[2], j[2], i[3], j[3], kk[1]}));
  p.bind_grid(sch, i[0], j[0]);
  sch.bind(i[1], "threadIdx.z");
  sch.bind(j[1], "threadIdx.y");
  const BlockRV acc = sch.cache_write(block, 0, "wmma.accumulator");
  sch.reverse_compute_at(acc, j[1]);
  const BlockRV init = sch.decompose_reduction(block, kk[0]);
  sch.tensorize(i[3], "mma_sync_16x16x16_" + p.type + "_f32");
  // The init's loops: the grid, the warp's two, then tm, tn, 16, 16.
  sch.tensorize(innermost(sch, init, 2)[0], "mma_fill_16x16_f32");
  // The write-back's: the grid, the warp's two, then its rows and columns.
  const std::vector<LoopRV> out = innermost(sch, acc, 2);
  sch.tensorize(warp_tiles(sch, out[0], out[1], p, false), "mma_store_16x16_f32");
  return {true,
          "tensor cores (" + p.type + " mma 16x16x16, float32 accumulators): " + tiles_note(p)};
}

}  // namespace

RuleOutcome gpu_tensor_core(Schedule& sch, BlockRV block, const RuleContext& cx) {
  // Blocks that are no float16/bfloat16 matmul decline with no note: the
  // CUDA-core forms of gpu-tile-contraction say what they are.
  std::string why;
  std::optional<BlockNest> nest = unbound_plain_nest(sch, block, &why);
  if (!nest) return {false, ""};
  const Block blk = nest->realize->block;
  auto* st = blk->body.as<BufferStoreNode>();
  auto* sum = st ? st->value.as<BinaryNode>() : nullptr;
  auto* product = sum && st->value.kind() == ExprKind::Add ? sum->b.as<BinaryNode>() : nullptr;
  if (!product || sum->b.kind() != ExprKind::Mul || st->buffer->dtype != DataType::float32())
    return {false, ""};
  const std::optional<DataType> ta = narrow_operand(product->a), tb = narrow_operand(product->b);
  if (!ta || !tb || *ta != *tb) return {false, ""};
  const int need = *ta == DataType::bfloat16() ? 80 : 70;
  if (cx.cpu.target.gpu_sm < need)
    return {false, "sm_" + std::to_string(cx.cpu.target.gpu_sm) + " has no " +
                       (need == 80 ? "bfloat16 " : "") + "tensor cores (sm_" +
                       std::to_string(need) + " and later)"};
  // Batch loops, then i, j, k.
  const size_t loops = nest->loops.size();
  bool batch_spatial = true;
  for (size_t b = 0; b + 3 < loops; ++b) batch_spatial &= nest->loops[b].spatial;
  if (loops < 3 || !batch_spatial || !nest->loops[loops - 3].spatial ||
      !nest->loops[loops - 2].spatial || nest->loops[loops - 1].spatial)
    return {false, "not a [batch..,] i, j, k matmul nest"};
  const size_t batch = loops - 3;
  const int64_t m = nest->loops[batch].extent, n = nest->loops[batch + 1].extent,
                k = nest->loops[batch + 2].extent;
  // The longest batch loop is blockIdx.z, the others serial in each block.
  int z = -1;
  int64_t batches = 1;
  for (size_t b = 0; b < batch; ++b) {
    batches *= nest->loops[b].extent;
    if (z < 0 || nest->loops[b].extent > nest->loops[z].extent) z = static_cast<int>(b);
  }
  if (z >= 0 && nest->loops[z].extent > cx.gpu.max_grid_yz)
    return {false, "a batch loop of more than " + std::to_string(cx.gpu.max_grid_yz) + " blocks"};
  if (m % 16 || n % 16 || k % 16) return {false, "the extents are not multiples of 16"};
  Split rows = split_tiles(m / 16), cols = split_tiles(n / 16);
  // Fewer warps per block, then fewer tiles per warp, while that gives more blocks.
  const int64_t grid_z = z >= 0 ? nest->loops[z].extent : 1;
  for (Split* s : {&rows, &cols})
    if (rows.blocks() * cols.blocks() * grid_z < cx.gpu.fill_blocks && s->warps > 1) s->warps = 1;
  for (Split* s : {&rows, &cols})
    if (rows.blocks() * cols.blocks() * grid_z < cx.gpu.fill_blocks && s->per_warp > 1)
      s->per_warp = 1;

  const Plan p{*nest, rows, cols, k, *ta == DataType::float16() ? "f16" : "bf16", *blk, batch, z};
  const RuleOutcome shared =
      on_copy(sch, [&](Schedule& trial) { return shared_form(trial, block, p); });
  const RuleOutcome out = shared.applied ? shared : direct_form(sch, block, p);
  std::string grid;
  if (z >= 0 && grid_z > 1) grid = " x " + std::to_string(grid_z) + " on blockIdx.z";
  if (batches > grid_z)
    grid += ", " + std::to_string(batches / grid_z) + " batches serial in each block";
  return {true, out.note + grid + " over a " + times(m, n) + " output" +
                    (shared.applied ? "" : " (no shared-memory tiles: " + shared.note + ")")};
}

}  // namespace tirc
