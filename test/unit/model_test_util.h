// Helpers for model tests: run a module's entry function interpreted or
// compiled (lower -> generate_x86 -> JIT) and compare outputs with tolerances.
#pragma once

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "codegen/x86/jit.h"
#include "codegen/x86/module_codegen.h"
#include "ir/eval/interpreter.h"
#include "passes/pipeline.h"

namespace tirc::test {

// The entry function's name (attr tirc.entry).
inline std::string entry_name(const IRModule& m) {
  for (const auto& [name, f] : m.functions())
    if (is_entry(f)) return name;
  throw Error("module has no entry function");
}

// Runs the entry on `inputs` (the leading parameters) and returns the outputs
// (the remaining parameters). No target: the interpreter, with `interpret`'s
// options (RunOptions::checked() also proves the module race-free).
inline std::vector<NDArray> run_entry(const IRModule& m, const std::vector<NDArray>& inputs,
                                      std::optional<Target> target = std::nullopt,
                                      const RunOptions& interpret = {}) {
  const std::string name = entry_name(m);
  const PrimFunc& f = m.at(name);
  std::vector<NDArray> args = inputs;
  for (NDArray& out : entry_output_arrays(f, inputs.size(), name)) args.push_back(std::move(out));
  std::vector<Argument> call;
  for (NDArray& a : args) call.push_back({&a});
  if (!target) {
    run_module(m, name, call, interpret);
  } else {
    GeneratorOptions options;
    options.target = *target;
    JitModule jit(generate_x86_module(lower(m), "m", options));
    int rc = call_jit(jit, "m_" + name, f, call);
    if (rc != 0) throw Error("entry returned " + std::to_string(rc));
  }
  return std::vector<NDArray>(args.begin() + static_cast<std::ptrdiff_t>(inputs.size()),
                              args.end());
}

// "" when got matches want elementwise (|g - w| <= atol + rtol |w|, NaN == NaN).
inline std::string compare_tensors(const NDArray& got, const NDArray& want, double rtol = 1e-3,
                                   double atol = 1e-5) {
  if (got.shape() != want.shape()) return "shape differs";
  for (int64_t i = 0; i < got.num_elements(); ++i) {
    double g = got.get_float(i), w = want.get_float(i);
    if (std::isnan(g) && std::isnan(w)) continue;
    if (g == w || std::fabs(g - w) <= atol + rtol * std::fabs(w)) continue;
    return "element " + std::to_string(i) + ": got " + std::to_string(g) + ", expected " +
           std::to_string(w);
  }
  return "";
}

}  // namespace tirc::test
