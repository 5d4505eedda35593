// fuse: a chain of perfectly nested loops into one loop.
#include <unordered_set>

#include "ir/text/printer.h"
#include "schedule/loop_rewrite.h"
#include "schedule/schedule.h"

namespace tirc {

LoopRV Schedule::fuse(const std::vector<LoopRV>& loop_rvs, bool preserve_unit_iters) {
  const std::string P = "fuse";
  if (loop_rvs.empty()) throw ScheduleError(P, "no loops given");
  std::vector<LoopEntry> entries;
  for (LoopRV l : loop_rvs) entries.push_back(resolve(l, P));
  const std::string func = entries[0].func;
  const PrimFunc& f = mod_.at(func);

  std::vector<StmtPath> paths;
  std::vector<const ForNode*> loops;
  std::unordered_set<const VarNode*> seen;
  for (const LoopEntry& e : entries) {
    if (e.func != func)
      throw ScheduleError(P, "loops " + entries[0].var->name + " and " + e.var->name +
                                 " are in different functions");
    if (!seen.insert(e.var.get()).second)
      throw ScheduleError(P, "loop " + e.var->name + " is given twice");
    paths.push_back(*find_loop(f->body, e.var.get()));
    loops.push_back(paths.back().node().as<ForNode>());
  }
  for (size_t k = 1; k < loops.size(); ++k)
    if (loops[k - 1]->body.get() != loops[k])
      throw ScheduleError(
          P, "loops " + loops[k - 1]->loop_var->name + " and " + loops[k]->loop_var->name +
                 " are not adjacent: " + loops[k]->loop_var->name +
                 " must be the only statement in the body of " + loops[k - 1]->loop_var->name);
  std::vector<int64_t> extents;
  for (const ForNode* l : loops) {
    const std::string& n = l->loop_var->name;
    std::optional<int64_t> ext = as_const_int(l->extent);
    if (!ext)
      throw ScheduleError(P, "loop " + n + " has non-constant extent " + print_expr(l->extent));
    if (!is_const_int(l->min, 0)) throw ScheduleError(P, "loop " + n + " does not start at 0");
    extents.push_back(*ext);
  }

  Instruction inst;
  inst.kind = P;
  inst.keywords.emplace_back("preserve_unit_iters", TraceValue(preserve_unit_iters));
  for (LoopRV l : loop_rvs) inst.positional.push_back(trace_rv(l));
  if (loops.size() == 1) {
    // Fusing one loop leaves it as it is, under a new handle: the trace binds
    // every output to a fresh name, so `l3 = sch.fuse(l3)` would not reload.
    LoopRV same = new_loop_rv(entries[0].func, entries[0].var);
    inst.outputs.push_back(trace_rv(same));
    record(std::move(inst));
    return same;
  }

  // The fused loop counts in the widest of the loops' types (TVM's rule:
  // int32 and int64 loops fuse into an int64 one); each old variable takes
  // its part cast back to its own type, which holds it (it held the extent).
  DataType dt = loops[0]->loop_var->dtype;
  for (const ForNode* l : loops)
    if (l->loop_var->dtype.bits() > dt.bits()) dt = l->loop_var->dtype;
  std::string name;
  int64_t product = 1;
  for (size_t k = 0; k < loops.size(); ++k) {
    name += loops[k]->loop_var->name + "_";
    product *= extents[k];
  }
  Var fused = make_var(name + "fused", dt);
  Analyzer az = analyzer_for_path(paths.back());
  az.bind(fused, Range{make_int(0, dt), make_int(product, dt)});

  // Innermost loop: fused % e_n; each outer one: the quotient so far % its extent.
  VarMap vmap;
  Expr rest = fused;
  for (size_t k = loops.size(); k-- > 0;) {
    const VarNode* v = loops[k]->loop_var.get();
    if (!preserve_unit_iters && extents[k] == 1) {
      vmap[v] = make_int(0, v->dtype);
      continue;
    }
    Expr ext = make_int(extents[k], dt);
    Expr part = az.simplify(k == 0 ? rest : floormod(rest, ext));
    vmap[v] = v->dtype == dt ? part : make_cast(v->dtype, part);
    rest = floordiv(rest, ext);
  }
  Stmt body = substitute_bindings(loops.back()->body, vmap, az);
  body = make_for(fused, make_int(0, dt), make_int(product, dt), ForKind::Serial, body);
  update_func(func, with_body(f, replace_stmt(f->body, loops[0], body)), "fuse");

  LoopRV out = new_loop_rv(func, fused);
  inst.outputs.push_back(trace_rv(out));
  record(std::move(inst));
  return out;
}

}  // namespace tirc
