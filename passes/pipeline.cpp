// The pass list and lower().
#include "passes/pipeline.h"

#include "passes/passes.h"

namespace tirc {

const std::vector<LoweringPass>& lowering_passes() {
  static const std::vector<LoweringPass> passes = {
      {"decompose-reductions",
       "hoist reduction inits into their own loop nests where legal (TVM decompose_reduction)",
       decompose_reductions},
      {"lower-blocks",
       "replace blocks by their bound values; T.where and remaining inits become ifs, "
       "alloc_buffers Allocates",
       [](const PrimFunc& f) { return lower_blocks(f); }},
      {"flatten-buffers", "access every buffer through one element offset on flat storage",
       flatten_buffers},
      {"simplify", "simplify every index, condition and loop bound", simplify_lowered},
      {"partition-loops",
       "split loops whose guard holds on a prefix of their range into an unguarded main part "
       "and a guarded or shrunk tail",
       partition_loops},
      {"compact-allocations",
       "move an intermediate that one loop fills and reads into that loop, shrunk to one "
       "iteration's part",
       compact_allocations},
      {"tree-reductions",
       "GPU kernels: sum a block's threads' partial results in shared memory as a tree",
       tree_reductions},
      {"plan-storage", "let allocations whose lifetimes do not overlap share storage",
       plan_storage},
  };
  return passes;
}

const LoweringPass* find_lowering_pass(std::string_view name) {
  for (const LoweringPass& p : lowering_passes())
    if (p.name == name) return &p;
  return nullptr;
}

PrimFunc lower(const PrimFunc& f, const PassObserver& after_each) {
  return lower(f, LowerOptions{}, after_each);
}

PrimFunc lower(const PrimFunc& f, const LowerOptions& options, const PassObserver& after_each) {
  PrimFunc current = f;
  for (const LoweringPass& pass : lowering_passes()) {
    current = options.keep_thread_bindings && pass.name == "lower-blocks"
                  ? lower_blocks(current, true)
                  : pass.run(current);
    if (after_each) after_each(pass.name, current);
  }
  return current;
}

IRModule lower(const IRModule& m, const PassObserver& after_each) {
  return lower(m, LowerOptions{}, after_each);
}

IRModule lower(const IRModule& m, const LowerOptions& options, const PassObserver& after_each) {
  IRModule out;
  out.attrs = m.attrs;
  for (const auto& [name, value] : m.constants()) out.add_constant(name, value);
  for (const auto& [name, f] : m.functions()) out.add(name, lower(f, options, after_each));
  return out;
}

}  // namespace tirc
