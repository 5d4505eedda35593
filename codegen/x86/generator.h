// The x86-64 code generator: lowered PrimFuncs (passes/LOWERED.md) -> machine code.
#pragma once

#include <string>
#include <vector>

#include "codegen/x86/machine_code.h"
#include "codegen/x86/target.h"
#include "ir/function.h"

namespace tirc {

struct FunctionToCompile {
  std::string symbol;  // C symbol of the entry point
  PrimFunc lowered;    // must be in the lowered form
};

struct GeneratorOptions {
  Target target;
  // Use the LoopNest-style register-tiled emitter for contraction nests
  // (codegen/x86/contraction_*.h). Off: every loop goes through the general path.
  bool contraction_kernels = true;
};

// For every function, two global symbols:
//   `symbol`:         int symbol(T0* p0, T1* p1, ...)  C calling convention (SysV
//                     x86-64), one pointer per buffer parameter in parameter
//                     order; a scalar parameter is passed by value as its C type
//                     (int32_t, int64_t, float, double, ...). Returns 0.
//   `symbol_packed`:  int symbol_packed(void* const* args): args[i] is the
//                     buffer's data pointer, or a pointer to the scalar's value.
// Parallel loops call tirc_parallel_for (runtime/tirc_runtime.h) as an external
// call; loops of no other kind need the runtime.
// Throws tirc::Error (with the statement's location when known) for anything
// outside the lowered form or not supported on the target.
MachineCode generate_x86(const std::vector<FunctionToCompile>& functions,
                         const GeneratorOptions& options);

}  // namespace tirc
