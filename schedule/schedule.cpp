#include "schedule/schedule.h"
#include "schedule/iteration_conflict.h"

#include "schedule/state.h"

namespace tirc {

Schedule::Schedule(IRModule mod, uint64_t seed)
    : initial_(mod), mod_(std::move(mod)), rng_state_(seed) {}

const Schedule::BlockEntry& Schedule::resolve(BlockRV b, const std::string& primitive) const {
  auto it = blocks_.find(b.id);
  if (it == blocks_.end())
    throw ScheduleError(primitive, "unknown block handle b" + std::to_string(b.id));
  const BlockEntry& e = it->second;
  const PrimFunc* f = mod_.find(e.func);
  if (!f || !find_block((*f)->body, e.name))
    throw ScheduleError(primitive,
                        "block " + e.name + " (b" + std::to_string(b.id) + ") no longer exists");
  return e;
}

const Schedule::LoopEntry& Schedule::resolve(LoopRV l, const std::string& primitive) const {
  auto it = loops_.find(l.id);
  if (it == loops_.end())
    throw ScheduleError(primitive, "unknown loop handle l" + std::to_string(l.id));
  const LoopEntry& e = it->second;
  const PrimFunc* f = mod_.find(e.func);
  if (!f || !find_loop((*f)->body, e.var.get()))
    throw ScheduleError(
        primitive, "loop " + e.var->name + " (l" + std::to_string(l.id) + ") no longer exists");
  return e;
}

BlockRV Schedule::new_block_rv(const std::string& func, const std::string& name) {
  BlockRV rv{next_rv_++};
  blocks_[rv.id] = {func, name};
  return rv;
}

LoopRV Schedule::new_loop_rv(const std::string& func, const Var& var) {
  LoopRV rv{next_rv_++};
  loops_[rv.id] = {func, var};
  return rv;
}

ExprRV Schedule::new_expr_rv(int64_t value) {
  ExprRV rv{next_rv_++};
  exprs_[rv.id] = value;
  return rv;
}

TraceValue Schedule::trace_value(BlockOrLoop t) const {
  if (auto* b = std::get_if<BlockRV>(&t)) return trace_rv(*b);
  return trace_rv(std::get<LoopRV>(t));
}

int64_t Schedule::get(ExprRV v) const {
  auto it = exprs_.find(v.id);
  if (it == exprs_.end()) throw Error("unknown value handle v" + std::to_string(v.id));
  return it->second;
}

std::string Schedule::get(BlockRV b) const {
  return resolve(b, "get").name;
}

Var Schedule::get(LoopRV l) const {
  return resolve(l, "get").var;
}

void Schedule::update_func(const std::string& func, PrimFunc f, const std::string& primitive) {
  if (auto why = concurrent_loop_conflict(mod_.at(func)->body, f->body))
    throw ScheduleError(primitive, *why);
  mod_.add(func, std::move(f));
}

uint64_t Schedule::fork_seed() {
  return next_random();
}

void Schedule::seed(uint64_t seed) {
  rng_state_ = seed;
}

uint64_t Schedule::next_random() {
  // splitmix64: small, fast, and the same on every platform.
  uint64_t z = (rng_state_ += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

std::string Schedule::unique_block_name(const std::string& func, const std::string& base) const {
  const Stmt& body = mod_.at(func)->body;
  if (!find_block(body, base)) return base;
  for (int i = 1;; ++i) {
    std::string name = base + "_" + std::to_string(i);
    if (!find_block(body, name)) return name;
  }
}

}  // namespace tirc
