#include "driver/model_io.h"

#include <algorithm>

#include "codegen/llvm/cuda_run.h"
#include "codegen/x86/jit.h"
#include "codegen/x86/module_codegen.h"
#include "driver/tensor_io.h"
#include "ir/eval/interpreter.h"
#include "passes/pipeline.h"
#include "tuner/timing.h"

namespace tirc::driver {

namespace {

std::vector<std::string> io_names(const PrimFunc& f) {
  std::vector<std::string> names = entry_io_names(f);
  if (names.size() != f->params.size()) {
    names.clear();
    for (const Param& p : f->params) names.push_back(p.buffer ? p.buffer->name : p.var->name);
  }
  return names;
}

// The module compiled for the first GPU (PTX for sm_80, which the driver
// compiles for the GPU at hand), its buffers copied there and back; the time
// of one call includes waiting for its kernels.
double run_entry_cuda(const IRModule& m, const EntryInfo& entry, std::vector<NDArray>& args,
                      int repeat) {
  const IRModule lowered = lower(m, LowerOptions{true});
  std::vector<FunctionToCompile> functions;
  for (const auto& [name, f] : lowered.functions())
    functions.push_back({"tirc_run_" + name, f, name});
  LlvmOptions options;
  options.target = parse_llvm_target("cuda");
  options.module = &lowered;
  std::vector<NDArray*> arrays;
  for (NDArray& a : args) arrays.push_back(&a);
  CudaRun run(functions, options, "tirc_run_" + entry.name, arrays);
  const double seconds =
      best_seconds([&] { run.call(); }, Budget{.min_reps = std::max(repeat, 1), .warm_up = false});
  run.copy_back();
  return seconds;
}

}  // namespace

EntryInfo find_entry(const IRModule& m, const std::string& func) {
  EntryInfo e;
  if (!func.empty()) {
    e.name = func;
  } else {
    for (const auto& [name, f] : m.functions())
      if (is_entry(f)) e.name = name;
    if (e.name.empty() && m.size() == 1) e.name = m.functions().front().first;
    if (e.name.empty())
      throw Error("the module has no entry function (T.func_attr {\"tirc.entry\": True}) and " +
                  std::to_string(m.size()) + " functions: choose one with --func");
  }
  e.func = m.at(e.name);
  for (const Param& p : e.func->params)
    if (!p.buffer)
      throw Error("function '" + e.name + "' has scalar parameters; tirc run passes buffers only");
  size_t outputs = output_params(e.func).size();
  e.num_inputs = static_cast<size_t>(
      entry_num_inputs(e.func).value_or(static_cast<int64_t>(e.func->params.size() - outputs)));
  e.io_names = io_names(e.func);
  return e;
}

double run_entry(const IRModule& m, const EntryInfo& entry, std::vector<NDArray>& args,
                 const Target& target, bool interpret, int repeat) {
  std::vector<Argument> call_args;
  for (NDArray& a : args) call_args.push_back(Argument{&a});
  if (interpret) {
    run_module(m, entry.name, call_args);
    return 0;
  }
  if (target.isa == Isa::cuda) return run_entry_cuda(m, entry, args, repeat);
  GeneratorOptions options;
  options.target = target;
  JitModule jit(generate_x86_module(lower(m), "tirc_run", options));
  auto call = [&] {
    int rc = call_jit(jit, "tirc_run_" + entry.name, entry.func, call_args);
    if (rc != 0) throw Error("function '" + entry.name + "' returned " + std::to_string(rc));
  };
  // The first call is timed too: `tirc run` without --repeat calls the entry once.
  return best_seconds(call, Budget{.min_reps = std::max(repeat, 1), .warm_up = false});
}

}  // namespace tirc::driver
