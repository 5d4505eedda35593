// A model's entry function as the driver sees it: which function it is, its
// inputs and outputs by ONNX name, and running it compiled or interpreted.
#pragma once

#include <string>
#include <vector>

#include "codegen/x86/target.h"
#include "ir/function.h"

namespace tirc::driver {

struct EntryInfo {
  std::string name;  // function name in the module
  PrimFunc func;
  size_t num_inputs = 0;
  std::vector<std::string> io_names;  // one per parameter (ONNX names when known)
};

// The function `func` names, else the module's entry (attr tirc.entry), else
// its only function. Throws when none can be chosen.
EntryInfo find_entry(const IRModule& m, const std::string& func);

// Runs the entry on `args` (one NDArray per parameter; outputs are written):
// lowered, compiled for `target` and run in process, or in the interpreter.
// Returns the best wall time of `repeat` runs in seconds (compiled runs only).
double run_entry(const IRModule& m, const EntryInfo& entry, std::vector<NDArray>& args, const Target& target,
                 bool interpret, int repeat);

}  // namespace tirc::driver
