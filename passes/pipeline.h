// The lowering pipeline: scheduled TensorIR -> the lowered form that code
// generators consume (see passes/LOWERED.md for the exact contract).
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/function.h"
#include "ir/lowered_form.h"  // check_lowered_form, for lower()'s callers

namespace tirc {

struct LoweringPass {
  std::string name;         // as given to `tirc compile --print-after=NAME`
  std::string description;  // one line for `tirc compile --help` / docs
  std::function<PrimFunc(const PrimFunc&)> run;
};

// The passes in the order lower() runs them:
//   decompose-reductions, lower-blocks, flatten-buffers, simplify, partition-loops,
//   compact-allocations, tree-reductions, plan-storage
const std::vector<LoweringPass>& lowering_passes();

// Called after each pass with the pass name and its result.
using PassObserver = std::function<void(std::string_view pass, const PrimFunc& result)>;

// Runs every lowering pass on f. Throws tirc::Error (with the source location
// of the offending statement when known) for programs the lowered form cannot
// express, e.g. a thread-bound loop or a buffer of non-constant size.
PrimFunc lower(const PrimFunc& f, const PassObserver& after_each = {});

// Lowers every function of m (names kept).
IRModule lower(const IRModule& m, const PassObserver& after_each = {});

struct LowerOptions {
  // For a GPU target: thread-bound loops stay (lower-blocks keeps them,
  // partition-loops leaves them whole) for codegen/llvm's CUDA path.
  bool keep_thread_bindings = false;
};
PrimFunc lower(const PrimFunc& f, const LowerOptions& options, const PassObserver& after_each = {});
IRModule lower(const IRModule& m, const LowerOptions& options, const PassObserver& after_each = {});

// The pass named `name`, or nullptr.
const LoweringPass* find_lowering_pass(std::string_view name);

}  // namespace tirc
