#include "tuner/space/block_nest.h"

#include <algorithm>

#include "schedule/analysis.h"
#include "schedule/state.h"

namespace tirc {

std::optional<BlockNest> describe_nest(Schedule& sch, BlockRV block) {
  const Schedule::BlockEntry& e = sch.resolve(block, "describe");
  const PrimFunc& f = sch.func(e.func);
  std::optional<StmtPath> path = find_block(f->body, e.name);
  if (!path) return std::nullopt;
  BlockNest nest;
  nest.realize = path->node().as<BlockRealizeNode>();
  const BlockRealizeNode& r = *nest.realize;
  nest.plain = is_const_int(r.predicate, 1);
  std::vector<LoopRV> rvs = sch.get_loops(block);
  std::vector<const ForNode*> loops = enclosing_loops(*path);
  if (rvs.size() != loops.size()) return std::nullopt;
  for (size_t l = 0; l < loops.size(); ++l) {
    NestLoop nl;
    nl.rv = rvs[l];
    nl.loop = loops[l];
    auto extent = as_const_int(loops[l]->extent);
    if (!extent || !is_const_int(loops[l]->min, 0)) return std::nullopt;
    nl.extent = *extent;
    const VarNode* v = loops[l]->loop_var.get();
    int binds = 0;
    for (size_t i = 0; i < r.iter_values.size(); ++i) {
      if (!uses_var(r.iter_values[i], v)) continue;
      ++binds;
      if (r.block->iter_vars[i].kind != IterKind::DataPar) nl.spatial = false;
      if (r.iter_values[i].get() == static_cast<const ExprNode*>(v)) nl.iter = static_cast<int>(i);
    }
    if (binds != 1 || nl.iter < 0) nest.plain = false;
    nest.loops.push_back(nl);
  }
  return nest;
}

std::optional<BlockNest> unbound_plain_nest(Schedule& sch, BlockRV block, std::string* why) {
  std::optional<BlockNest> nest = describe_nest(sch, block);
  if (!nest)
    *why = "a loop extent is not constant";
  else if (std::any_of(nest->loops.begin(), nest->loops.end(), [](const NestLoop& l) {
             return l.loop->for_kind == ForKind::ThreadBinding;
           }))
    *why = "already inside thread-bound loops (another block's binding)";
  else if (!nest->plain)
    *why = "not a plain loop nest";
  else
    return nest;
  return std::nullopt;
}

std::vector<LoopRV> loops_below(Schedule& sch, BlockRV b, size_t depth) {
  std::vector<LoopRV> out;
  const std::vector<LoopRV> loops = sch.get_loops(b);
  for (size_t l = depth; l < loops.size(); ++l)
    if (sch.loop_info(loops[l]).const_extent.value_or(2) > 1) out.push_back(loops[l]);
  return out;
}

bool thread_bound(const Schedule& sch, BlockRV block) {
  for (const LoopInfo& l : sch.loop_nest(block))
    if (l.kind == ForKind::ThreadBinding) return true;
  return false;
}

std::string copy_in_vectors(Schedule& sch, const std::vector<LoopRV>& loops,
                            const std::vector<int64_t>& threads,
                            const std::vector<std::string>& tags, int64_t vec) {
  if (loops.size() != 2) return std::to_string(loops.size()) + " loops, not 2";
  const int64_t rows = *sch.loop_info(loops[0]).const_extent;
  const int64_t cols = *sch.loop_info(loops[1]).const_extent;
  int64_t all = 1;
  for (int64_t t : threads) all *= t;
  if (cols % vec != 0 || (rows * cols / vec) % all != 0)
    return "a " + std::to_string(rows) + "x" + std::to_string(cols) + " tile over " +
           std::to_string(all) + " threads in vectors of " + std::to_string(vec);
  std::vector<SplitFactor> factors = {rows * cols / vec / all};
  for (int64_t t : threads) factors.push_back(t);
  factors.push_back(vec);
  // On a copy: a primitive that refuses (a binding it cannot prove race-free)
  // leaves sch as it was.
  Schedule trial = sch;
  try {
    const std::vector<LoopRV> parts = trial.split(trial.fuse({loops[0], loops[1]}), factors);
    // The thread loops, then each thread's serial copies, then the vector.
    std::vector<LoopRV> order(parts.begin() + 1, parts.end() - 1);
    order.push_back(parts.front());
    order.push_back(parts.back());
    trial.reorder(order);
    for (size_t t = 0; t < tags.size(); ++t) trial.bind(parts[1 + t], tags[t]);
    trial.vectorize(parts.back());
  } catch (const ScheduleError& e) {
    return "refused: " + e.message();
  }
  sch = std::move(trial);
  return "";
}

}  // namespace tirc
