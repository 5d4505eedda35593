// A whole lowered module (a model: kernels + entry) to machine code.
#pragma once

#include <string>

#include "codegen/x86/generator.h"

namespace tirc {

// Every function of `lowered` as the global symbol `<prefix>_<name>` (and its
// `_packed` form), callable by name from T.call_kernel; the module's constants
// become read-only data. options.module is set to &lowered.
MachineCode generate_x86_module(const IRModule& lowered, const std::string& prefix, GeneratorOptions options);

}  // namespace tirc
