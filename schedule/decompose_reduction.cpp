// decompose_reduction: moves a reduction block's init into a block of its own.
#include <algorithm>

#include "ir/arith/analyzer.h"
#include "ir/arith/region.h"
#include "ir/substitute.h"
#include "schedule/analysis.h"
#include "schedule/buffer_rewrite.h"
#include "schedule/iteration_conflict.h"
#include "schedule/schedule.h"
#include "schedule/state.h"

namespace tirc {

namespace {

constexpr const char* kPrimitive = "decompose_reduction";

}  // namespace

BlockRV Schedule::decompose_reduction(BlockRV block, LoopRV loop) {
  const BlockEntry be = resolve(block, kPrimitive);
  const LoopEntry le = resolve(loop, kPrimitive);
  const std::string& func = be.func;
  const PrimFunc f = mod_.at(func);
  StmtPath bpath = *find_block(f->body, be.name);
  auto* realize = bpath.node().as<BlockRealizeNode>();
  const BlockNode& blk = *realize->block;

  // ---- checks ----
  if (!blk.init) throw ScheduleError(kPrimitive, "block " + blk.name + " has no init");
  bool has_reduce = std::any_of(blk.iter_vars.begin(), blk.iter_vars.end(),
                                [](const IterVar& iv) { return iv.kind == IterKind::Reduce; });
  if (!has_reduce)
    throw ScheduleError(kPrimitive, "block " + blk.name + " is not a reduction block");
  std::vector<const ForNode*> loops = enclosing_loops(bpath);
  auto pos = std::find_if(loops.begin(), loops.end(),
                          [&](const ForNode* l) { return l->loop_var.get() == le.var.get(); });
  if (le.func != func || pos == loops.end())
    throw ScheduleError(kPrimitive,
                        "loop " + le.var->name + " is not an ancestor of block " + blk.name);
  const size_t first = static_cast<size_t>(pos - loops.begin());
  for (size_t i = 0; i < blk.iter_vars.size(); ++i) {
    if (blk.iter_vars[i].kind != IterKind::Reduce) continue;
    for (size_t l = 0; l < first; ++l)
      if (uses_var(realize->iter_values[i], loops[l]->loop_var.get()))
        throw ScheduleError(kPrimitive, "loop " + loops[l]->loop_var->name +
                                            " binds reduction variable " +
                                            blk.iter_vars[i].var->name + " of block " + blk.name +
                                            " but is outside loop " + le.var->name);
  }

  // A loop at or below `loop` that binds nothing repeats the whole reduction
  // (a block computed at an unrelated loop), re-initializing each time: one
  // init above it would let the repeats accumulate.
  for (size_t l = first; l < loops.size(); ++l) {
    const VarNode* v = loops[l]->loop_var.get();
    bool binds = std::any_of(realize->iter_values.begin(), realize->iter_values.end(),
                             [&](const Expr& e) { return uses_var(e, v); });
    if (!binds && !is_const_int(loops[l]->extent, 1))
      throw ScheduleError(kPrimitive, "loop " + v->name + " repeats the reduction of block " +
                                          blk.name + " without binding any of its variables");
    // A loop feeding only spatial variables, but not one-to-one (`f // 32` of
    // a fused loop at which the block was computed), repeats it too.
    bool binds_reduce = false;
    for (size_t i = 0; i < blk.iter_vars.size(); ++i)
      if (blk.iter_vars[i].kind == IterKind::Reduce && uses_var(realize->iter_values[i], v))
        binds_reduce = true;
    if (binds && !binds_reduce && !is_const_int(loops[l]->extent, 1) &&
        !feeds_injectively(realize, loops, l))
      throw ScheduleError(kPrimitive, "loop " + v->name + " repeats the reduction of block " +
                                          blk.name +
                                          ": several of its iterations compute the same element");
  }

  // ---- the init block: the spatial iteration variables, fresh ----
  auto init = std::make_shared<BlockNode>();
  init->name = unique_block_name(func, blk.name + "_init");
  init->annotations = blk.annotations;
  SpatialIterVars spatial = copy_spatial_iter_vars(blk);
  init->iter_vars = spatial.iter_vars;
  std::vector<Expr> init_values;
  for (size_t i : spatial.positions) init_values.push_back(realize->iter_values[i]);
  init->body = substitute(blk.init, spatial.map);
  AccessRegions regions = infer_access_regions(*init);
  init->reads = regions.reads;
  init->writes = regions.writes;

  // Copies of the loops at or below `loop` that the init's bindings use.
  std::vector<const ForNode*> chosen;
  std::vector<const VarNode*> dropped;
  for (size_t l = first; l < loops.size(); ++l) {
    bool used = std::any_of(init_values.begin(), init_values.end(),
                            [&](const Expr& v) { return uses_var(v, loops[l]->loop_var.get()); });
    if (used)
      chosen.push_back(loops[l]);
    else
      dropped.push_back(loops[l]->loop_var.get());
  }
  Expr predicate = keep_conjuncts(realize->predicate, dropped);
  VarMap loop_map;
  std::vector<Var> new_loop_vars;
  for (const ForNode* l : chosen) {
    Var nv = make_var(l->loop_var->name + "_init", l->loop_var->dtype);
    loop_map[l->loop_var.get()] = nv;
    new_loop_vars.push_back(nv);
  }
  for (Expr& v : init_values) v = substitute(v, loop_map);
  predicate = substitute(predicate, loop_map);
  Stmt init_nest = make_block_realize(init_values, predicate, init);
  // New loops (own variables, no source location) of the same ranges, kinds
  // and thread tags; the annotations stay on the originals.
  for (size_t i = chosen.size(); i-- > 0;) {
    const ForNode* l = chosen[i];
    init_nest =
        make_for(new_loop_vars[i], l->min, l->extent, l->for_kind, init_nest, l->thread_tag);
  }

  // ---- the update block: the original without init ----
  auto update = std::make_shared<BlockNode>(blk);
  update->init = Stmt();
  // Without its init the update reads what it writes. A reduction block may
  // leave its output out of T.reads (TVM prints them so); the update then
  // lists it first, as TVM's decompose_reduction does.
  std::vector<BufferRegion> output_reads;
  for (const BufferRegion& w : blk.writes)
    if (!reads_buffer(blk, w.buffer)) output_reads.push_back(w);
  update->reads.insert(update->reads.begin(), output_reads.begin(), output_reads.end());
  update->name = unique_block_name(func, blk.name + "_update");
  Stmt loop_stmt = *std::find_if(bpath.stmts.begin(), bpath.stmts.end(),
                                 [&](const Stmt& s) { return s.get() == *pos; });
  Stmt new_loop = replace_stmt(loop_stmt, realize, with_block(*realize, update));
  Stmt body = replace_stmt(f->body, loop_stmt.get(), make_seq({init_nest, new_loop}));

  update_func(func, with_body(f, body), "decompose_reduction");
  // The handles of the reduction block follow it under its new name.
  for (auto& [id, entry] : blocks_)
    if (entry.func == func && entry.name == blk.name) entry.name = update->name;
  BlockRV out = new_block_rv(func, init->name);
  record(Instruction{
      kPrimitive, {}, {{"block", trace_rv(block)}, {"loop", trace_rv(loop)}}, {trace_rv(out)}});
  return out;
}

}  // namespace tirc
