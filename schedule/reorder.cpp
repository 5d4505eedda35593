// reorder: permutes loops of one perfectly nested chain.
#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "schedule/analysis.h"
#include "schedule/schedule.h"

namespace tirc {

namespace {

// Position of `node` in path, or -1.
int index_in(const StmtPath& path, const StmtNode* node) {
  for (size_t i = 0; i < path.stmts.size(); ++i)
    if (path.stmts[i].get() == node) return static_cast<int>(i);
  return -1;
}

}  // namespace

void Schedule::reorder(const std::vector<LoopRV>& ordered_loops) {
  const std::string P = "reorder";
  if (ordered_loops.empty()) throw ScheduleError(P, "no loops given");
  std::vector<LoopEntry> entries;
  for (LoopRV l : ordered_loops) entries.push_back(resolve(l, P));
  const std::string func = entries[0].func;
  const PrimFunc& f = mod_.at(func);

  std::vector<StmtPath> paths;
  std::unordered_set<const VarNode*> given;
  for (const LoopEntry& e : entries) {
    if (e.func != func)
      throw ScheduleError(
          P, "loops " + entries[0].var->name + " and " + e.var->name + " are not in one chain");
    if (!given.insert(e.var.get()).second)
      throw ScheduleError(P, "loop " + e.var->name + " is given twice");
    paths.push_back(*find_loop(f->body, e.var.get()));
  }
  // The deepest loop's path must pass through every other given loop.
  size_t bottom = 0;
  for (size_t k = 1; k < paths.size(); ++k)
    if (paths[k].stmts.size() > paths[bottom].stmts.size()) bottom = k;
  const StmtPath& bpath = paths[bottom];
  int top_index = static_cast<int>(bpath.stmts.size()) - 1;
  for (size_t k = 0; k < paths.size(); ++k) {
    int at = index_in(bpath, paths[k].node().get());
    if (at < 0) {
      // Named in the order they were given.
      const std::string& first = entries[std::min(k, bottom)].var->name;
      const std::string& second = entries[std::max(k, bottom)].var->name;
      throw ScheduleError(P, "loops " + first + " and " + second + " are not in one chain");
    }
    top_index = std::min(top_index, at);
  }
  const std::string& top_name = bpath.stmts[top_index].as<ForNode>()->loop_var->name;
  const std::string& bottom_name = entries[bottom].var->name;

  // The chain from the top loop down to the bottom one: a perfect nest.
  std::vector<const ForNode*> chain;
  for (size_t i = top_index; i < bpath.stmts.size(); ++i) {
    const Stmt& s = bpath.stmts[i];
    if (s.as<BlockNode>() || s.as<BlockRealizeNode>())
      throw ScheduleError(P, "loops " + top_name + " and " + bottom_name + " are not in one chain");
    auto* loop = s.as<ForNode>();
    if (!loop) {
      const std::string& above = chain.back()->loop_var->name;
      if (s.as<SeqStmtNode>())
        throw ScheduleError(P, "loop " + above +
                                   " has more than one child statement; the loops from " +
                                   top_name + " to " + bottom_name + " must be perfectly nested");
      throw ScheduleError(P, "loop " + above +
                                 " does not directly contain the next loop; the loops from " +
                                 top_name + " to " + bottom_name + " must be perfectly nested");
    }
    chain.push_back(loop);
  }

  // Chain positions of the given loops receive them in the requested order.
  std::vector<const ForNode*> reordered = chain;
  size_t next = 0;
  for (const ForNode*& slot : reordered)
    if (given.count(slot->loop_var.get())) slot = paths[next++].node().as<ForNode>();

  // A loop's range may only use loops that stay above it.
  for (size_t i = 0; i < reordered.size(); ++i)
    for (size_t j = i; j < reordered.size(); ++j) {
      const VarNode* v = reordered[j]->loop_var.get();
      if (uses_var(reordered[i]->min, v) || uses_var(reordered[i]->extent, v))
        throw ScheduleError(
            P, "the range of loop " + reordered[i]->loop_var->name + " depends on loop " + v->name);
    }

  // Blocks under the chain: affine bindings, and no given loop feeding an
  // opaque iteration variable (its order of execution matters).
  std::vector<const BlockRealizeNode*> blocks = child_blocks(bpath.node());
  for (const BlockRealizeNode* r : blocks) {
    std::optional<StmtPath> bp = find_block(f->body, r->block->name);
    if (!is_affine_binding(r, enclosing_loops(*bp)))
      throw ScheduleError(
          P, "block " + r->block->name + " under loop " + top_name + " has a non-affine binding");
  }
  for (const ForNode* l : chain) {
    if (!given.count(l->loop_var.get())) continue;
    std::vector<BoundIterVar> bound = iter_vars_bound_by(l->loop_var.get(), blocks);
    for (const BoundIterVar& b : bound)
      if (b.iter_var->kind != IterKind::DataPar && b.iter_var->kind != IterKind::Reduce)
        throw ScheduleError(P, "loop " + l->loop_var->name + " binds opaque variable " +
                                   b.iter_var->var->name + " of block " + b.block->block->name);
    // A loop feeding both kinds (fused spatial and reduction loops) orders
    // the reduction steps of each output element: moving it can run a step
    // before the one that triggers the init.
    for (const BoundIterVar& a : bound)
      for (const BoundIterVar& b : bound)
        if (a.block == b.block && a.iter_var->kind == IterKind::DataPar &&
            b.iter_var->kind == IterKind::Reduce)
          throw ScheduleError(P, "loop " + l->loop_var->name +
                                     " binds both spatial and reduction variables of block " +
                                     a.block->block->name);
  }

  Stmt rebuilt = wrap_loops(reordered, chain.back()->body);
  update_func(func, with_body(f, replace_stmt(f->body, chain.front(), rebuilt)), "reorder");

  Instruction inst{P, {}, {}, {}, false};
  for (LoopRV l : ordered_loops) inst.positional.emplace_back(trace_rv(l));
  record(std::move(inst));
}

LoopRV Schedule::add_unit_loop(BlockOrLoop target) {
  const std::string P = "add_unit_loop";
  std::string func;
  StmtPath path;
  if (auto* b = std::get_if<BlockRV>(&target)) {
    const BlockEntry e = resolve(*b, P);
    func = e.func;
    path = *find_block(mod_.at(func)->body, e.name);
    if (path.stmts.size() == 1)
      throw ScheduleError(P, "block " + e.name + " is the root block of function " + func);
  } else {
    const LoopEntry e = resolve(std::get<LoopRV>(target), P);
    func = e.func;
    path = *find_loop(mod_.at(func)->body, e.var.get());
  }
  const PrimFunc& f = mod_.at(func);
  const Stmt& node = path.node();
  DataType dt = DataType::int32();
  if (auto* loop = node.as<ForNode>()) dt = loop->loop_var->dtype;
  Var u = make_var("u", dt);
  Stmt wrapped = make_for(u, make_int(0, dt), make_int(1, dt), ForKind::Serial, node);
  update_func(func, with_body(f, replace_stmt(f->body, node.get(), wrapped)), "add_unit_loop");

  LoopRV out = new_loop_rv(func, u);
  Instruction inst;
  inst.kind = P;
  inst.keywords.emplace_back("block_or_loop", trace_value(target));
  inst.outputs.push_back(trace_rv(out));
  record(std::move(inst));
  return out;
}

}  // namespace tirc
