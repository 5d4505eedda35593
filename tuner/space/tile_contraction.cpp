// Multi-level tiling of contractions for the x86 contraction emitter: the
// register tile (rows x columns of C in vector registers, the columns loop
// vectorized) innermost, the reduction blocked so a B panel stays in L1, and
// the outer tile loops (with any batch loops) in parallel.
#include <algorithm>

#include "tuner/space/block_nest.h"
#include "tuner/space/register_tile.h"
#include "tuner/space/rules.h"

namespace tirc {

namespace {

const BufferLoadNode* load_of(const Expr& e) {
  return e.as<BufferLoadNode>();
}

// C[c] = C[c] + A[a] * B[b] in float32, with an init: the statement the
// contraction emitter keeps in registers.
const BufferStoreNode* contraction_update(const BlockNode& b) {
  auto* st = b.body.as<BufferStoreNode>();
  if (!st || !b.init || !st->value.dtype().is_float() || st->value.dtype().bits() != 32)
    return nullptr;
  auto* add = st->value.as<BinaryNode>();
  if (!add || add->kind != ExprKind::Add) return nullptr;
  for (int side = 0; side < 2; ++side) {
    const Expr& acc = side ? add->b : add->a;
    const Expr& prod = side ? add->a : add->b;
    auto* c = load_of(acc);
    auto* mul = prod.as<BinaryNode>();
    if (!c || c->buffer != st->buffer || !mul || mul->kind != ExprKind::Mul) continue;
    if (!load_of(mul->a) || !load_of(mul->b)) continue;
    if (c->indices.size() != st->indices.size()) continue;
    bool same = true;
    for (size_t i = 0; i < c->indices.size(); ++i) same &= c->indices[i].same_as(st->indices[i]);
    if (same) return st;
  }
  return nullptr;
}

// The loop whose iteration variable is exactly C's index `dim`.
int loop_for_index(const BlockNest& nest, const BufferStoreNode& st, size_t dim) {
  const BlockNode& b = *nest.realize->block;
  for (size_t l = 0; l < nest.loops.size(); ++l) {
    int it = nest.loops[l].iter;
    if (it >= 0 && st.indices[dim].get() == static_cast<const ExprNode*>(b.iter_vars[it].var.get()))
      return static_cast<int>(l);
  }
  return -1;
}

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

}  // namespace

RuleOutcome tile_contraction(Schedule& sch, BlockRV block, const RuleContext& cx) {
  std::optional<BlockNest> nest = describe_nest(sch, block);
  if (!nest || !nest->plain || nest->loops.empty()) return {false, "not a plain loop nest"};
  const BufferStoreNode* st = contraction_update(*nest->realize->block);
  if (!st || st->indices.size() < 2) return {false, "not a C[.., i, j] += A * B contraction"};
  const int jl = loop_for_index(*nest, *st, st->indices.size() - 1);
  const int il = loop_for_index(*nest, *st, st->indices.size() - 2);
  if (jl < 0 || il < 0) return {false, "the output's last two indices are not loop variables"};
  std::vector<int> batch, reduce;
  for (int l = 0; l < static_cast<int>(nest->loops.size()); ++l) {
    if (l == il || l == jl) continue;
    (nest->loops[l].spatial ? batch : reduce).push_back(l);
  }
  if (reduce.empty()) return {false, "no reduction loop"};
  const NestLoop I = nest->loops[il], J = nest->loops[jl];
  const NestLoop K = nest->loops[reduce.back()];
  int64_t k_total = 1;
  for (int r : reduce) k_total *= nest->loops[r].extent;

  const MatmulTiling t =
      choose_matmul_tiling(I.extent, J.extent, K.extent, cx.cpu.target, cx.cpu.l1d);
  Tiled i = tile(sch, I.rv, I.extent, t.rows, 16, cx);
  Tiled j = tile(sch, J.rv, J.extent, t.columns, 64, cx);
  Tiled k = tile(sch, K.rv, K.extent, t.kc, 256, cx);

  // Enough parallel iterations above the reduction: the column blocks (and
  // batches); when those are too few for the threads, the row blocks join
  // them, ahead of the reduction.
  int64_t outer = j.outer_extent;
  for (int b : batch) outer *= nest->loops[b].extent;
  const int64_t work = I.extent * J.extent * k_total;
  const bool parallel = cx.cpu.threads > 1 && work >= (int64_t{1} << 16);
  const bool rows_outside = parallel && outer < 4 * cx.cpu.threads && i.outer_extent > 1;
  std::vector<LoopRV> order, prefix;
  for (int b : batch) prefix.push_back(nest->loops[b].rv);
  prefix.push_back(j.outer);
  if (rows_outside) prefix.push_back(i.outer);
  order = prefix;
  for (int r : reduce)
    if (r != reduce.back()) order.push_back(nest->loops[r].rv);
  order.push_back(k.outer);
  if (!rows_outside) order.push_back(i.outer);
  order.push_back(k.inner);
  order.push_back(i.inner);
  order.push_back(j.inner);
  sch.reorder(order);

  // The init as its own nest just before the reduction, per parallel block.
  const LoopRV first_reduction = order[prefix.size()];
  BlockRV init = sch.decompose_reduction(block, first_reduction);
  sch.vectorize(sch.get_loops(init).back());
  sch.vectorize(j.inner);
  std::string note = "register tile " + std::to_string(i.inner_extent) + "x" +
                     std::to_string(j.inner_extent) + ", k block " + std::to_string(k.inner_extent);
  if (parallel && prefix.size() > 0) {
    LoopRV fused = prefix.size() > 1 ? sch.fuse(prefix) : prefix[0];
    sch.parallel(fused);
    note += ", parallel over " + std::to_string(prefix.size()) + " loop(s)";
  }
  return {true, note};
}

}  // namespace tirc
