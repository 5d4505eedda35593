// Lowered TensorIR -> portable C99, for comparing against an optimising C
// compiler (bench/) and as a second, independent code generator in tests.
#pragma once

#include <string>
#include <vector>

#include "codegen/x86/generator.h"

namespace tirc {

// One C translation unit defining, for every function, `symbol` and
// `symbol_packed` with exactly the ABI of generate_x86 (codegen/x86/generator.h).
// Parallel loops call tirc_parallel_for (runtime/tirc_runtime.h) through an
// outlined static function. Throws tirc::Error for anything outside the
// lowered form.
std::string emit_c(const std::vector<FunctionToCompile>& functions);
// The same for the functions of a module: T.call_kernel calls the function
// whose FunctionToCompile::name it names; AllocateConst binds a static const
// array holding the constant's exact bytes (module may be null when no
// function has an AllocateConst). Allocations too big for the stack come from
// tirc_alloc/tirc_free (runtime/tirc_runtime.h), so the C links with the runtime.
std::string emit_c(const std::vector<FunctionToCompile>& functions, const IRModule* module);

}  // namespace tirc
