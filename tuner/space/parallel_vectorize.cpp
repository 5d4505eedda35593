// The rule for every block that is not a contraction (elementwise chains,
// reductions such as softmax and pooling, layout changes): the leading
// data-parallel loops fused into one parallel loop with enough iterations for
// the threads, and the innermost loop vectorized when it is data-parallel and
// the block's write is contiguous along it.
#include "tuner/space/block_nest.h"
#include "tuner/space/rules.h"

namespace tirc {

namespace {

// Whether the block's store moves by one element along loop `l`: its last
// index is exactly the loop's iteration variable.
bool contiguous_write(const BlockNest& nest, const NestLoop& l) {
  auto* st = nest.realize->block->body.as<BufferStoreNode>();
  if (!st || st->indices.empty() || l.iter < 0) return false;
  const Var& v = nest.realize->block->iter_vars[l.iter].var;
  return st->indices.back().get() == static_cast<const ExprNode*>(v.get());
}

}  // namespace

RuleOutcome parallel_vectorize(Schedule& sch, BlockRV block, const RuleContext& cx) {
  std::optional<BlockNest> nest = describe_nest(sch, block);
  if (!nest || nest->loops.empty()) return {false, "no loops with constant extents"};
  const std::vector<NestLoop>& loops = nest->loops;
  int64_t work = 1;
  for (const NestLoop& l : loops) work *= l.extent;

  const NestLoop& last = loops.back();
  const bool vector = last.spatial && last.extent > 1 && contiguous_write(*nest, last) &&
                      nest->realize->block->body.as<BufferStoreNode>();
  // The parallel prefix: leading data-parallel loops (not the vector loop)
  // until there are a few chunks per thread.
  std::vector<LoopRV> prefix;
  int64_t chunks = 1;
  const size_t limit = vector ? loops.size() - 1 : loops.size();
  if (cx.cpu.threads > 1 && work >= (int64_t{1} << 15)) {
    for (size_t l = 0; l < limit && loops[l].spatial && chunks < 4 * cx.cpu.threads; ++l) {
      prefix.push_back(loops[l].rv);
      chunks *= loops[l].extent;
    }
  }
  // Each step is kept or refused on its own (a refused primitive changes
  // nothing), so a loop the proof cannot show parallel still gets vectorized.
  std::string note, refused;
  if (vector) {
    try {
      sch.vectorize(last.rv);
      note = "vectorized innermost loop";
    } catch (const ScheduleError& e) {
      refused = e.message();
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
