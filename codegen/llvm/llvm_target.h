// LLVM's TargetMachine for an LlvmTarget (codegen/llvm/generator.h), and the
// steps from a module to its output that generate_llvm and the CUDA path share.
#pragma once

#include <llvm/IR/LLVMContext.h>
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

// A function of the object's ABI, declared: generator.h says what the CPU's
// is, cuda.h the CUDA host's.
enum class EntryAbi { cpu, cuda_host };
llvm::Function* declare_entry(llvm::Module& module, const std::string& symbol, const PrimFunc& f,
                              EntryAbi abi);

// `int symbol_packed(void* const* args)` calling `entry`: args[i] is a
// pointer parameter's value itself, or points at another parameter's value.
void emit_packed(llvm::Module& module, llvm::Function* entry, const std::string& symbol);

// The CUDA path of generate_llvm (cuda_generator.cpp; codegen/llvm/cuda.h).
std::string generate_cuda(const std::vector<FunctionToCompile>& functions,
                          const LlvmOptions& options, LlvmOutput output, LlvmStats* stats);

// A CUDA build before its object: the host module (host functions, their
// _packed forms and the loader, optimized, for cuda_host_target()) in its own
// context, the PTX, and for LlvmOutput::ir the optimized device IR. With
// LlvmOutput::assembly only the PTX is complete.
struct CudaModules {
  std::unique_ptr<llvm::LLVMContext> context;
  std::unique_ptr<llvm::Module> host;
  std::string ptx;
  std::string device_ir;
};
CudaModules build_cuda(const std::vector<FunctionToCompile>& functions, const LlvmOptions& options,
                       LlvmOutput output, LlvmStats* stats);
// Where CUDA host code runs: x86-64 (baseline CPU).
const LlvmTarget& cuda_host_target();

}  // namespace tirc
