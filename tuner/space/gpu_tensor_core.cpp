// The GPU rule of a float16 or bfloat16 matmul with float32 accumulation:
// tensor cores through tensorize (schedule/tensor_intrin.h's mma_* tiles).
// For C[i, j] += float32(A[i, k]) * float32(B[k, j]) with i, j, k multiples
// of 16:
//
//   for by in blockIdx.y, bx in blockIdx.x, wy in threadIdx.z, wx in threadIdx.y:
//     (a warp: the CUDA generator adds the 32 threads along threadIdx.x)
//     mma_fill each of the warp's tm x tn accumulator tiles
//     for ko: for ti, tj: mma_sync(acc[ti, tj], A[.., ko], B[ko, ..])
//     for ti, tj: mma_store(C[..], acc[ti, tj])
//
// The accumulators are a cache_write in scope "wmma.accumulator" computed at
// the warp's loop, which the CUDA generator keeps in the warp's registers. A
// warp takes 2x2 tiles and a block 2x2 warps where the shape divides so,
// fewer where that leaves fewer than GpuModel::fill_blocks blocks. The A and
// B tiles are read from global memory (through the caches): no shared-memory
// staging yet. The tensor intrinsics decide what matches: where tensorize
// refuses (another index order, a transposed operand), the caller restores
// the schedule and gpu-tile-contraction's CUDA-core tiles take the block.
#include <string>

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
  if (nest->loops.size() != 3 || !nest->loops[0].spatial || !nest->loops[1].spatial ||
      nest->loops[2].spatial)
    return {false, "not an i, j, k matmul nest"};
  const int64_t m = nest->loops[0].extent, n = nest->loops[1].extent, k = nest->loops[2].extent;
  if (m % 16 || n % 16 || k % 16) return {false, "the extents are not multiples of 16"};
  Split rows = split_tiles(m / 16), cols = split_tiles(n / 16);
  // Fewer warps per block, then fewer tiles per warp, while that gives more blocks.
  for (Split* s : {&rows, &cols})
    if (rows.blocks() * cols.blocks() < cx.gpu.fill_blocks && s->warps > 1) s->warps = 1;
  for (Split* s : {&rows, &cols})
    if (rows.blocks() * cols.blocks() < cx.gpu.fill_blocks && s->per_warp > 1) s->per_warp = 1;

  const std::string type = *ta == DataType::float16() ? "f16" : "bf16";
  std::vector<LoopRV> i =
      sch.split(nest->loops[0].rv, {rows.blocks(), rows.warps, rows.per_warp, 16});
  std::vector<LoopRV> j =
      sch.split(nest->loops[1].rv, {cols.blocks(), cols.warps, cols.per_warp, 16});
  std::vector<LoopRV> kk = sch.split(nest->loops[2].rv, {k / 16, 16});
  sch.reorder({i[0], j[0], i[1], j[1], kk[0], i[2], j[2], i[3], j[3], kk[1]});
  sch.bind(i[0], "blockIdx.y");
  sch.bind(j[0], "blockIdx.x");
  sch.bind(i[1], "threadIdx.z");
  sch.bind(j[1], "threadIdx.y");
  const BlockRV acc = sch.cache_write(block, 0, "wmma.accumulator");
  sch.reverse_compute_at(acc, j[1]);
  const BlockRV init = sch.decompose_reduction(block, kk[0]);
  sch.tensorize(i[3], "mma_sync_16x16x16_" + type + "_f32");
  // The init's loops: the four bound ones, then tm, tn, 16, 16.
  sch.tensorize(sch.get_loops(init)[6], "mma_fill_16x16_f32");
  const std::vector<LoopRV> out =
      sch.get_loops(acc);  // bound four, then the warp's rows and columns
  std::vector<LoopRV> r = sch.split(out[4], {rows.per_warp, 16});
  std::vector<LoopRV> c = sch.split(out[5], {cols.per_warp, 16});
  sch.reorder({r[0], c[0], r[1], c[1]});
  sch.tensorize(r[1], "mma_store_16x16_f32");
  auto times = [](int64_t a, int64_t b) { return std::to_string(a) + "x" + std::to_string(b); };
  return {true, "tensor cores (" + type +
                    " mma 16x16x16, float32 accumulators): " + times(rows.per_warp, cols.per_warp) +
                    " tiles per warp, " + times(rows.warps, cols.warps) + " warps per block, " +
                    times(rows.blocks(), cols.blocks()) + " blocks over a " + times(m, n) +
                    " output"};
}

}  // namespace tirc
