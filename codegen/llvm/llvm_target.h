// LLVM's TargetMachine for an LlvmTarget (codegen/llvm/generator.h).
#pragma once

#include <llvm/Target/TargetMachine.h>

#include <memory>

#include "codegen/llvm/generator.h"

namespace tirc {

// Position-independent code (objects link into executables and shared
// libraries alike) at the code generator's -O<opt_level>.
std::unique_ptr<llvm::TargetMachine> make_target_machine(const LlvmTarget& t, int opt_level);

}  // namespace tirc
