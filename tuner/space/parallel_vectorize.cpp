// The rule for every block that is not a contraction (elementwise chains,
// reductions such as softmax and pooling, layout changes): the leading
// data-parallel loops fused into one parallel loop with enough iterations for
// the threads, and the innermost loop vectorized when it is data-parallel and
// the block's write is contiguous along it. A reduction whose write is
// contiguous along a data-parallel loop (pooling: out[.., oh, ow] over a
// window) gets that loop moved below the reduction loops and vectorized:
// each lane accumulates its own element in the order written, so the result
// is the plain nest's, bit for bit; the init is split off and vectorized.
// A copy whose write is contiguous only along a loop of a few elements (a
// channels-last copy of a 3-channel image) is vectorized on AVX-512 along a
// long loop its read is contiguous in instead, the store scattered.
#include <algorithm>

#include "ir/arith/linear_form.h"
#include "ir/functor.h"
#include "schedule/analysis.h"
#include "tuner/space/block_nest.h"
#include "tuner/space/rules.h"

namespace tirc {

namespace {

// Whether an access of `buffer` at `indices` moves by one element along loop
// `l`: its last index (or the v of a flattened pair [.., v // E, v % E]) is
// affine in the block's iteration variables, and they in the loops, with a
// total coefficient of 1 on l's variable.
bool contiguous_access(const BlockNest& nest, const NestLoop& l, const Buffer& buffer,
                       const std::vector<Expr>& indices) {
  const BlockRealizeNode& r = *nest.realize;
  if (indices.empty()) return false;
  // Trailing dimensions of extent 1 (a pooled [n, c, 1, 1]) do not move.
  size_t n = indices.size();
  while (n >= 2 && is_const_int(buffer->shape[n - 1], 1)) --n;
  Expr last = indices[n - 1];
  if (Expr v = n >= 2 ? split_pair(buffer, indices[n - 2], last, n - 2) : Expr()) last = v;
  const VarNode* lv = l.loop->loop_var.get();
  // l's coefficient in e, or nullopt when e uses it other than linearly.
  auto coefficient = [lv](const Expr& e) -> std::optional<int64_t> {
    int64_t coef = 0;
    for (const arith::LinearTerm& t : arith::decompose(e).terms) {
      if (t.term.get() == static_cast<const ExprNode*>(lv))
        coef += t.coef;
      else if (uses_var(t.term, lv))
        return std::nullopt;
    }
    return coef;
  };
  int64_t coef = 0;
  for (const arith::LinearTerm& t : arith::decompose(last).terms) {
    size_t k = 0;
    while (k < r.block->iter_vars.size() &&
           t.term.get() != static_cast<const ExprNode*>(r.block->iter_vars[k].var.get()))
      ++k;
    if (k == r.block->iter_vars.size()) {
      if (uses_var(t.term, lv)) return false;
      continue;
    }
    std::optional<int64_t> c = coefficient(r.iter_values[k]);
    if (!c) return false;
    coef += t.coef * *c;
  }
  return coef == 1;
}

bool contiguous_write(const BlockNest& nest, const NestLoop& l) {
  auto* st = nest.realize->block->body.as<BufferStoreNode>();
  return st && contiguous_access(nest, l, st->buffer, st->indices);
}

// Whether some load of the block's stored value is contiguous along `l`.
bool contiguous_read(const BlockNest& nest, const NestLoop& l) {
  auto* st = nest.realize->block->body.as<BufferStoreNode>();
  if (!st) return false;
  struct Loads : ExprVisitor {
    std::vector<const BufferLoadNode*> found;
    void visit_load(const BufferLoadNode* n) override {
      found.push_back(n);
      ExprVisitor::visit_load(n);
    }
  } loads;
  loads.visit(st->value);
  return std::any_of(loads.found.begin(), loads.found.end(), [&](const BufferLoadNode* ld) {
    return contiguous_access(nest, l, ld->buffer, ld->indices);
  });
}

// The nest's loops in this order.
void reorder(Schedule& sch, const std::vector<NestLoop>& order) {
  std::vector<LoopRV> rvs;
  for (const NestLoop& l : order) rvs.push_back(l.rv);
  sch.reorder(rvs);
}

}  // namespace

// For a reduction block: the data-parallel loop the write is contiguous
// along, moved below the reduction loops, and the init split off before
// the first reduction loop and vectorized. Returns the new order of the
// nest's loops (the vector loop last), or nothing when the block is not
// such a reduction.
std::optional<std::vector<NestLoop>> vector_reduction_order(Schedule& sch, BlockRV block,
                                                            const BlockNest& nest) {
  const std::vector<NestLoop>& loops = nest.loops;
  if (loops.back().spatial || !nest.realize->block->init) return std::nullopt;
  int vec = -1;
  for (int l = static_cast<int>(loops.size()) - 1; l >= 0 && vec < 0; --l)
    if (loops[l].spatial && loops[l].extent > 1 && contiguous_write(nest, loops[l])) vec = l;
  if (vec < 0) return std::nullopt;
  // Every reduction loop must lie below every other data-parallel loop, so
  // the order is: spatial loops (without the vector one), reductions, vector.
  std::vector<NestLoop> order;
  bool seen_reduction = false;
  for (int l = 0; l < static_cast<int>(loops.size()); ++l) {
    if (l == vec) continue;
    if (!loops[l].spatial)
      seen_reduction = true;
    else if (seen_reduction)
      return std::nullopt;
    order.push_back(loops[l]);
  }
  order.push_back(loops[vec]);
  reorder(sch, order);
  const auto first_reduction =
      std::find_if(order.begin(), order.end(), [](const NestLoop& l) { return !l.spatial; });
  BlockRV init = sch.decompose_reduction(block, first_reduction->rv);
  sch.vectorize(sch.get_loops(init).back());
  return order;
}

RuleOutcome parallel_vectorize(Schedule& sch, BlockRV block, const RuleContext& cx) {
  std::optional<BlockNest> nest = describe_nest(sch, block);
  if (!nest || nest->loops.empty()) return {false, "no loops with constant extents"};
  std::vector<NestLoop> loops = nest->loops;
  int64_t work = 1;
  for (const NestLoop& l : loops) work *= l.extent;

  // Each step is kept or refused on its own (a refused primitive changes
  // nothing), so a loop the proof cannot show parallel still gets vectorized.
  std::string note, refused;
  bool vector = false;
  if (nest->plain) {
    const Schedule before = sch;
    try {
      if (std::optional<std::vector<NestLoop>> order = vector_reduction_order(sch, block, *nest)) {
        loops = *order;
        vector = true;
        note = "vector loop moved below the reduction loops, init split off";
      }
    } catch (const ScheduleError& e) {
      sch = before;
      refused = e.message();
    }
  }
  if (!vector && nest->plain && nest->realize->block->body.as<BufferStoreNode>()) {
    // Loops of extent 1 below the innermost real loop (the unit dimensions
    // of a [n, c, 1, 1] result) move above it, so that it can be vectorized.
    size_t inner = loops.size();
    while (inner > 0 && loops[inner - 1].extent == 1) --inner;
    if (inner > 0 && inner < loops.size() && loops[inner - 1].spatial &&
        contiguous_write(*nest, loops[inner - 1])) {
      std::vector<NestLoop> order = loops;
      std::rotate(order.begin() + static_cast<long>(inner - 1),
                  order.begin() + static_cast<long>(inner), order.end());
      try {
        reorder(sch, order);
        loops = order;
      } catch (const ScheduleError& e) {
        refused = e.message();
      }
    }
  }
  // A write contiguous only along a loop much shorter than a vector (a
  // channels-last copy of three channels: [h, w, 3] from [3, h, w]) is
  // vectorized along a long loop its read is contiguous in instead, the
  // store scattered (AVX-512 only).
  const int64_t lanes = cx.cpu.target.f32_lanes();
  if (!vector && nest->plain && !nest->realize->block->init && cx.cpu.target.isa == Isa::avx512 &&
      loops.back().spatial && 2 * loops.back().extent <= lanes &&
      contiguous_write(*nest, loops.back())) {
    for (size_t l = loops.size() - 1; l-- > 0;) {
      if (!loops[l].spatial || loops[l].extent < lanes || !contiguous_read(*nest, loops[l]))
        continue;
      std::vector<NestLoop> order = loops;
      std::rotate(order.begin() + static_cast<long>(l), order.begin() + static_cast<long>(l) + 1,
                  order.end());
      try {
        reorder(sch, order);
        loops = order;
        vector = true;
        note = "innermost loop: one the read is contiguous along (scattered store)";
      } catch (const ScheduleError& e) {
        refused = e.message();
      }
      break;
    }
  }
  const NestLoop& last = loops.back();
  vector = vector || (last.spatial && last.extent > 1 && contiguous_write(*nest, last) &&
                      nest->realize->block->body.as<BufferStoreNode>());
  // The parallel prefix: leading data-parallel loops (not the vector loop)
  // until there are a few chunks per thread.
  std::vector<LoopRV> prefix;
  int64_t chunks = 1;
  const size_t limit = vector ? loops.size() - 1 : loops.size();
  // A block another rule placed inside a parallel loop (a pad computed per
  // iteration of a contraction's) is only vectorized.
  const bool under_parallel = std::any_of(loops.begin(), loops.end(), [](const NestLoop& l) {
    return l.loop->for_kind != ForKind::Serial;
  });
  if (cx.cpu.threads > 1 && work >= (int64_t{1} << 15) && !under_parallel) {
    for (size_t l = 0; l < limit && loops[l].spatial && chunks < 4 * cx.cpu.threads; ++l) {
      prefix.push_back(loops[l].rv);
      chunks *= loops[l].extent;
    }
  }
  if (vector) {
    try {
      sch.vectorize(last.rv);
      note += std::string(note.empty() ? "" : ", ") + "vectorized innermost loop";
    } catch (const ScheduleError& e) {
      refused += (refused.empty() ? "" : "; ") + e.message();
    }
  }
  if (chunks > 1 && !prefix.empty()) {
    try {
      LoopRV fused = prefix.size() > 1 ? sch.fuse(prefix) : prefix[0];
      sch.parallel(fused);
      note += std::string(note.empty() ? "" : ", ") + "parallel over " + std::to_string(chunks) +
              " iterations";
    } catch (const ScheduleError& e) {
      refused += (refused.empty() ? "" : "; ") + e.message();
    }
  }
  if (note.empty())
    return {false, refused.empty() ? "nothing to parallelize or vectorize" : refused};
  return {true, refused.empty() ? note : note + " (" + refused + ")"};
}

const std::vector<ScheduleRule>& default_rules() {
  static const std::vector<ScheduleRule> rules = {
      {"tile-contraction", tile_contraction},
      {"parallel-vectorize", parallel_vectorize},
  };
  return rules;
}

}  // namespace tirc
