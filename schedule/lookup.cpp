// get_block, get_loops, get_child_blocks, get_producers, get_consumers.
#include "schedule/analysis.h"
#include "schedule/schedule.h"

namespace tirc {

namespace {

std::string default_func(const IRModule& mod, const std::string& requested, const std::string& primitive) {
  if (!requested.empty()) {
    if (!mod.find(requested)) throw ScheduleError(primitive, "no function named " + requested);
    return requested;
  }
  if (mod.size() == 1) return mod.functions()[0].first;
  if (mod.find("main")) return "main";
  throw ScheduleError(primitive, "the module has several functions: give func_name");
}

}  // namespace

BlockRV Schedule::get_block(const std::string& name, const std::string& func_name) {
  std::string func = default_func(mod_, func_name, "get_block");
  if (!find_block(mod_.at(func)->body, name))
    throw ScheduleError("get_block", "no block named " + name + " in function " + func);
  BlockRV rv = new_block_rv(func, name);
  Instruction inst{"get_block", {}, {{"name", name}, {"func_name", func}}, {trace_rv(rv)}};
  record(std::move(inst));
  return rv;
}

std::vector<LoopRV> Schedule::get_loops(BlockRV block) {
  const BlockEntry& b = resolve(block, "get_loops");
  StmtPath path = *find_block(mod_.at(b.func)->body, b.name);
  std::vector<LoopRV> out;
  Instruction inst{"get_loops", {}, {{"block", trace_rv(block)}}, {}};
  inst.list_output = true;
  std::string func = b.func;
  for (const ForNode* f : enclosing_loops(path)) {
    out.push_back(new_loop_rv(func, f->loop_var));
    inst.outputs.push_back(trace_rv(out.back()));
  }
  record(std::move(inst));
  return out;
}

namespace {

LoopInfo info_of(const ForNode& f) {
  return {f.loop_var, f.min, f.extent, as_const_int(f.extent), f.for_kind, f.annotations};
}

}  // namespace

LoopInfo Schedule::loop_info(LoopRV loop) const {
  const LoopEntry& l = resolve(loop, "loop_info");
  return info_of(*find_loop(mod_.at(l.func)->body, l.var.get())->node().as<ForNode>());
}

std::vector<LoopInfo> Schedule::loop_nest(BlockRV block) const {
  const BlockEntry& b = resolve(block, "loop_nest");
  std::vector<LoopInfo> out;
  for (const ForNode* f : enclosing_loops(*find_block(mod_.at(b.func)->body, b.name)))
    out.push_back(info_of(*f));
  return out;
}

std::vector<BlockRV> Schedule::get_child_blocks(BlockOrLoop scope) {
  std::string func;
  StmtPath path;
  if (auto* b = std::get_if<BlockRV>(&scope)) {
    const BlockEntry& e = resolve(*b, "get_child_blocks");
    func = e.func;
    path = *find_block(mod_.at(func)->body, e.name);
  } else {
    const LoopEntry& e = resolve(std::get<LoopRV>(scope), "get_child_blocks");
    func = e.func;
    path = *find_loop(mod_.at(func)->body, e.var.get());
  }
  Instruction inst{"get_child_blocks", {trace_value(scope)}, {}, {}};
  inst.list_output = true;
  std::vector<BlockRV> out;
  for (const BlockRealizeNode* r : child_blocks(path.node())) {
    out.push_back(new_block_rv(func, r->block->name));
    inst.outputs.push_back(trace_rv(out.back()));
  }
  record(std::move(inst));
  return out;
}

std::vector<BlockRV> Schedule::get_producers(BlockRV block) {
  const BlockEntry& e = resolve(block, "get_producers");
  std::string func = e.func;
  StmtPath path = *find_block(mod_.at(func)->body, e.name);
  Instruction inst{"get_producers", {}, {{"block", trace_rv(block)}}, {}};
  inst.list_output = true;
  std::vector<BlockRV> out;
  for (const BlockRealizeNode* r : producers_of(scope_of(path), path.node().as<BlockRealizeNode>())) {
    out.push_back(new_block_rv(func, r->block->name));
    inst.outputs.push_back(trace_rv(out.back()));
  }
  record(std::move(inst));
  return out;
}

std::vector<BlockRV> Schedule::get_consumers(BlockRV block) {
  const BlockEntry& e = resolve(block, "get_consumers");
  std::string func = e.func;
  StmtPath path = *find_block(mod_.at(func)->body, e.name);
  Instruction inst{"get_consumers", {}, {{"block", trace_rv(block)}}, {}};
  inst.list_output = true;
  std::vector<BlockRV> out;
  for (const BlockRealizeNode* r : consumers_of(scope_of(path), path.node().as<BlockRealizeNode>())) {
    out.push_back(new_block_rv(func, r->block->name));
    inst.outputs.push_back(trace_rv(out.back()));
  }
  record(std::move(inst));
  return out;
}

}  // namespace tirc
