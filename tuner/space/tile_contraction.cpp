// Multi-level tiling of contractions for the x86 contraction emitter: the
// register tile (rows x columns of C in vector registers, the columns loop
// vectorized; columns in blocks of E where C is indexed [.., b * E + e])
// innermost, the reduction blocked so a B panel stays in L1, and the outer
// tile loops (with any batch loops; column blocks first where the B panel
// is batch-invariant and larger than half of L2) in parallel. A zero pad of
// an operand is inlined where its guard resolves in the register tile.
#include <algorithm>

#include "codegen/x86/contraction_plan.h"
#include "ir/guarded_load.h"
#include "schedule/analysis.h"
#include "tuner/space/block_nest.h"
#include "tuner/space/contraction.h"
#include "tuner/space/register_tile.h"
#include "tuner/space/rules.h"

namespace tirc {

namespace {

struct Tiled {
  LoopRV outer, inner;
  int64_t outer_extent = 1, inner_extent = 1;
};

// Two factors of `loop` through sample_perfect_tile: the model's [outer,
// inner] when deciding by the model, a random draw otherwise.
Tiled tile(Schedule& sch, LoopRV loop, int64_t extent, int64_t inner, int max_inner,
           const RuleContext& cx) {
  std::optional<std::vector<int64_t>> decision;
  if (cx.decisions == Decisions::Model) decision = std::vector<int64_t>{extent / inner, inner};
  const int limit = static_cast<int>(std::max<int64_t>(max_inner, inner));
  std::vector<ExprRV> f = sch.sample_perfect_tile(loop, 2, limit, decision);
  std::vector<LoopRV> parts = sch.split(loop, {f[0], f[1]});
  return {parts[0], parts[1], sch.get(f[0]), sch.get(f[1])};
}

RuleOutcome tile(Schedule& sch, BlockRV block, const RuleContext& cx, bool inline_pad);

}  // namespace

// With a zero pad before the contraction, first with the pad inlined: its
// guard then resolves per product in the emitter's register tile (border
// tiles take zero vectors) and the padded copy is never made. Kept only
// where the guard can resolve there: otherwise the pad stays a pass.
RuleOutcome tile_contraction(Schedule& sch, BlockRV block, const RuleContext& cx) {
  Schedule trial = sch;
  RuleOutcome inlined;
  try {
    inlined = tile(trial, block, cx, true);
  } catch (const ScheduleError& e) {
    inlined = {false, "pad not inlined: " + e.message()};
  }
  if (inlined.applied) {
    sch = std::move(trial);
    return inlined;
  }
  RuleOutcome o = tile(sch, block, cx, false);
  if (o.applied && !inlined.note.empty()) o.note += " (" + inlined.note + ")";
  return o;
}

namespace {

RuleOutcome tile(Schedule& sch, BlockRV block, const RuleContext& cx, bool inline_pad) {
  std::string inlined;  // the pad's name
  if (inline_pad) {
    std::optional<BlockNest> before = describe_nest(sch, block);
    const ContractionUpdate u =
        before && before->plain ? contraction_update(*before->realize->block) : ContractionUpdate{};
    if (!u.store || !u.b) return {false, ""};
    std::optional<BlockRV> pad = zero_pad_producer(sch, block, u);
    if (!pad) return {false, ""};
    inlined = sch.get(*pad);
    sch.compute_inline(*pad);
  }
  std::optional<BlockNest> nest = describe_nest(sch, block);
  if (!nest || !nest->plain || nest->loops.empty()) return {false, "not a plain loop nest"};
  // The block as it is now, kept alive for the analysis below while the
  // primitives replace it.
  const Block blk = nest->realize->block;
  const ContractionUpdate u = contraction_update(*blk);
  const BufferStoreNode* st = u.store;
  if (!st || st->indices.size() < 2)
    return {false, "not a C[.., i, j] += A * B contraction (or max(C, A))"};
  size_t column_dims = 1;
  int jbl = -1;
  const int jl = columns_loop(*nest, *st, &column_dims, &jbl);
  if (jl < 0) return {false, "the output's last index is not a loop variable"};
  if (st->indices.size() < column_dims + 1) return {false, "no index for the register tile's rows"};
  int il = loop_for_var(*nest, st->indices[st->indices.size() - column_dims - 1].get());
  il = rows_loop(*nest, u, jl, il);
  if (il < 0) return {false, "no loop for the register tile's rows"};
  std::vector<int> batch, reduce;
  for (int l = 0; l < static_cast<int>(nest->loops.size()); ++l) {
    if (l == il || l == jl || l == jbl) continue;
    (nest->loops[l].spatial ? batch : reduce).push_back(l);
  }
  if (reduce.empty()) return {false, "no reduction loop"};
  // The outermost reduction is blocked; the others (a convolution's window)
  // stay whole inside its block, in their order, so every output element
  // still sums in the order written and the emitter unrolls them.
  const NestLoop I = nest->loops[il], J = nest->loops[jl];
  const NestLoop K = nest->loops[reduce.front()];
  int64_t k_total = 1;
  for (int r : reduce) k_total *= nest->loops[r].extent;
  const int64_t window = k_total / K.extent;

  // Blocked columns (E channels per block, jbl's loop over the blocks): the
  // register tile takes a divisor of the block count, the E columns of each
  // block stay whole and innermost.
  const int64_t blocks = jbl >= 0 ? nest->loops[jbl].extent : 1;
  const int64_t columns_total = J.extent * blocks;
  const MatmulTiling t = choose_matmul_tiling(I.extent, columns_total, K.extent, cx.cpu.target,
                                              std::max<int64_t>(cx.cpu.l1d / window, 1));
  Tiled i = tile(sch, I.rv, I.extent, t.rows, 16, cx);
  int64_t tile_blocks = std::max<int64_t>(1, t.columns / J.extent);
  while (blocks % tile_blocks) --tile_blocks;
  Tiled j = jbl >= 0 ? tile(sch, nest->loops[jbl].rv, blocks, tile_blocks, 64 / J.extent + 1, cx)
                     : tile(sch, J.rv, J.extent, t.columns, 64, cx);
  const int64_t tile_columns = jbl >= 0 ? j.inner_extent * J.extent : j.inner_extent;
  Tiled k = tile(sch, K.rv, K.extent, t.kc, 256, cx);

  // Enough outer iterations above the reduction: the batch loops (a
  // convolution's output rows, a depthwise one's channels) when they make a
  // few chunks per thread, else the column blocks join them, then the row
  // blocks. On one thread too the outer loop must have more than one
  // iteration: the producer and the epilogue are computed per iteration of
  // it, on one block's data while it is in cache.
  int64_t chunks = 1;
  for (int b : batch) chunks *= nest->loops[b].extent;
  const int64_t work = chunks * I.extent * columns_total * k_total;
  const bool parallel = cx.cpu.threads > 1 && work >= (int64_t{1} << 16);
  const int64_t wanted = parallel ? 4 * cx.cpu.threads : 2;
  // The column blocks go outside the batch loops when the vector operand
  // (a convolution's weights) is the same for every batch iteration and too
  // big to stay in L2 between them: each block's panel is then read from
  // memory once and reused across the batch (a channels-last convolution's
  // output rows) while in cache.
  const VarNode* jv = blk->iter_vars[J.iter].var.get();
  const BufferLoadNode* vec = !u.b || load_uses(*u.a, jv) ? u.a : u.b;
  bool vec_batch_invariant = !batch.empty();
  for (int b : batch) {
    const int it = nest->loops[b].iter;
    vec_batch_invariant =
        vec_batch_invariant && it >= 0 && !load_uses(*vec, blk->iter_vars[it].var.get());
  }
  const int64_t panel_bytes = k_total * columns_total * int64_t{4};
  const bool columns_first =
      vec_batch_invariant && panel_bytes > cx.cpu.l2 / 2 && j.outer_extent > 1;
  std::vector<LoopRV> prefix;
  if (columns_first) prefix.push_back(j.outer);
  for (int b : batch) prefix.push_back(nest->loops[b].rv);
  const bool columns_outside = columns_first || chunks < wanted || prefix.empty();
  if (columns_outside) {
    if (!columns_first) prefix.push_back(j.outer);
    chunks *= j.outer_extent;
  }
  const bool rows_outside = chunks < wanted && i.outer_extent > 1;
  if (rows_outside) prefix.push_back(i.outer);
  auto guard_uses = [&](int l) {
    const int it = nest->loops[l].iter;
    for (const Expr& g : u.guards)
      if (it >= 0 && uses_var(g, blk->iter_vars[it].var.get())) return true;
    return false;
  };
  int wide = 0;  // prefix loops of more than one iteration
  for (int b : batch) wide += nest->loops[b].extent > 1;
  wide += (columns_outside && j.outer_extent > 1) + (rows_outside && i.outer_extent > 1);
  // Batch loops (output rows) the guard depends on stay out of a fused
  // parallel loop (a quotient partition-loops cannot split): the column
  // blocks alone run in parallel when there are enough of them.
  std::vector<LoopRV> serial_batch;
  bool guarded_batch = false;
  for (int b : batch) guarded_batch = guarded_batch || guard_uses(b);
  if (guarded_batch && wide > 1 && columns_outside && !columns_first && !rows_outside &&
      j.outer_extent >= cx.cpu.threads) {
    for (int b : batch) serial_batch.push_back(nest->loops[b].rv);
    prefix = {j.outer};
    wide = 1;
  }
  if (!u.guards.empty()) {
    // An inlined pad's guard must resolve per product: partition-loops
    // splits the outer loops it depends on (the fused parallel loop only
    // where it is one loop's variable, not a quotient; no loop inside a
    // reduction loop), the emitter fixes the unrolled window and the tile
    // rows; never the vector loop or a counted reduction.
    const int lanes = cx.cpu.target.f32_lanes();
    const int64_t accumulators = i.inner_extent * ((tile_columns + lanes - 1) / lanes);
    const bool window_unrolled = accumulators * window <= PlanLimits{}.max_unrolled_fmas;
    auto has = [](const std::vector<int>& ls, int l) {
      return std::find(ls.begin(), ls.end(), l) != ls.end();
    };
    for (int l = 0; l < static_cast<int>(nest->loops.size()); ++l) {
      if (!guard_uses(l)) continue;
      const char* trouble = nullptr;
      if (l == jl || l == jbl)
        trouble = "its guard varies along the vector loop";
      else if (l == reduce.front() || (has(reduce, l) && !window_unrolled))
        trouble = "its guard depends on a reduction the emitter keeps counted";
      else if ((has(batch, l) || (l == il && rows_outside)) && wide > 1)
        trouble = "its guard depends on a fused parallel loop";
      else if (l == il && !rows_outside && k.outer_extent > 1)
        trouble = "its guard depends on the row blocks, inside the reduction's blocks";
      if (trouble) return {false, std::string("pad not inlined: ") + trouble};
    }
  }
  // A reduction done in one block (k.outer of extent 1) goes inside the
  // window loops, so that the init can sit just before the register tile's
  // reduction: the emitter then starts the accumulators from it instead of
  // making a pass over C first (a depthwise convolution's 9 taps make that
  // pass a large share of the work).
  const bool one_block = k.outer_extent == 1;
  std::vector<LoopRV> order = prefix;
  order.insert(order.end(), serial_batch.begin(), serial_batch.end());
  if (!columns_outside) order.push_back(j.outer);
  if (!one_block) order.push_back(k.outer);
  if (!rows_outside) order.push_back(i.outer);
  order.push_back(k.inner);
  for (int r : reduce)
    if (r != reduce.front()) order.push_back(nest->loops[r].rv);
  if (one_block) order.push_back(k.outer);
  order.push_back(i.inner);
  order.push_back(j.inner);
  if (jbl >= 0) order.push_back(J.rv);
  sch.reorder(order);

  // The init as its own nest just before the reduction: per register tile,
  // or per outer iteration when the reduction is blocked.
  BlockRV init = sch.decompose_reduction(block, one_block ? k.inner : k.outer);
  sch.vectorize(sch.get_loops(init).back());
  sch.vectorize(jbl >= 0 ? J.rv : j.inner);
  std::string note = "register tile " + std::to_string(i.inner_extent) + "x" +
                     std::to_string(tile_columns) + ", k block " + std::to_string(k.inner_extent);
  if (!inlined.empty()) note += ", " + inlined + " inlined (guarded loads)";
  const LoopRV outer = prefix.size() > 1 ? sch.fuse(prefix) : prefix[0];
  if (parallel) {
    sch.parallel(outer);
    note += ", parallel over " + std::to_string(prefix.size()) + " loop(s)";
  }
  // A producer (a pad) and the consumers (an epilogue: bias, activation,
  // residual add) computed per outer iteration, where the data they share
  // with the contraction is still in cache; kept only where the compute-at
  // primitives prove it legal (under a parallel loop: no two iterations
  // write one element) and where it adds no work (a pad whose rows overlap
  // between iterations would be computed again for each).
  const std::string init_name = sch.get(init);
  auto iterations = [&](BlockRV b) {
    std::optional<BlockNest> n = describe_nest(sch, b);
    int64_t count = 1;
    for (const NestLoop& l : n ? n->loops : std::vector<NestLoop>{}) count *= l.extent;
    return n ? count : -1;
  };
  auto fuse_with = [&](BlockRV other, bool producer) {
    const std::string name = sch.get(other);
    if (name == init_name) return;
    const Schedule before = sch;
    const int64_t alone = iterations(other);
    try {
      if (producer)
        sch.compute_at(other, outer);
      else
        sch.reverse_compute_at(other, outer);
      if (alone < 0 || iterations(other) != alone) {
        sch = before;
        return;
      }
      note += std::string(", ") + name + " computed " + (producer ? "before" : "after") +
              " each outer iteration";
    } catch (const ScheduleError&) {
      sch = before;
    }
  };
  for (BlockRV p : sch.get_producers(block)) fuse_with(p, true);
  for (BlockRV c : sch.get_consumers(block)) fuse_with(c, false);
  return {true, note};
}

}  // namespace

}  // namespace tirc
