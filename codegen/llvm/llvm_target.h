// LLVM's TargetMachine for an LlvmTarget (codegen/llvm/generator.h), and the
// steps from a module to its output that generate_llvm and the CUDA path share.
#pragma once

#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

#include <memory>
#include <set>
#include <string>

#include "codegen/llvm/generator.h"

namespace tirc {

// Position-independent code (objects link into executables and shared
// libraries alike) at the code generator's -O<opt_level>.
std::unique_ptr<llvm::TargetMachine> make_target_machine(const LlvmTarget& t, int opt_level);

// Throws unless `s` is a C identifier not in `seen` (with its _packed form); adds both.
void check_symbol(const std::string& s, std::set<std::string>& seen);
// Throws tirc::Error when the module does not verify (an internal error).
void verify(const llvm::Module& module);
// LLVM's default pipeline at -O<opt_level> (nothing at 0).
void optimize(llvm::Module& module, llvm::TargetMachine& tm, int opt_level);
// An object file's bytes, or the assembly text, of the module.
std::string emit_machine_code(llvm::Module& module, llvm::TargetMachine& tm, LlvmOutput output);
std::string print_module(const llvm::Module& module);

// The CUDA path of generate_llvm (cuda_generator.cpp; codegen/llvm/cuda.h).
std::string generate_cuda(const std::vector<FunctionToCompile>& functions,
                          const LlvmOptions& options, LlvmOutput output, LlvmStats* stats);

}  // namespace tirc
