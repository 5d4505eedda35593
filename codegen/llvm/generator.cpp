// generate_llvm: lowered functions -> one LLVM module -> LLVM's default
// pipeline for the target -> an object, assembly or the IR as text.
#include "codegen/llvm/generator.h"

#include <llvm/Analysis/CGSCCPassManager.h>
#include <llvm/Analysis/LoopAnalysisManager.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/PassManager.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/raw_ostream.h>

#include <cctype>
#include <set>

#include "codegen/llvm/llvm_emitter.h"
#include "codegen/llvm/llvm_target.h"
#include "passes/vectorize_loops.h"

namespace tirc {

using llvm_gen::FunctionEmitter;
using llvm_gen::ModuleState;

void check_symbol(const std::string& s, std::set<std::string>& seen) {
  if (s.empty()) throw Error("LLVM codegen: empty function symbol");
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_'))
      throw Error("LLVM codegen: symbol '" + s + "' is not a C identifier");
  if (std::isdigit(static_cast<unsigned char>(s[0])))
    throw Error("LLVM codegen: symbol '" + s + "' is not a C identifier");
  if (!seen.insert(s).second || !seen.insert(s + "_packed").second)
    throw Error("LLVM codegen: duplicate symbol '" + s + "'");
}

// `int symbol(T0* p0, ..., scalars)`: a pointer per buffer, a scalar by value
// in its storage type. No zeroext/signext: the callee does not rely on the
// caller widening narrow integers. The CUDA host ABI passes each buffer as a
// CUdeviceptr (an unsigned 64-bit integer) and the stream last.
llvm::Function* declare_entry(llvm::Module& module, const std::string& symbol, const PrimFunc& f,
                              EntryAbi abi) {
  llvm::LLVMContext& c = module.getContext();
  std::vector<llvm::Type*> params;
  for (const Param& p : f->params) {
    if (p.buffer) {
      params.push_back(abi == EntryAbi::cuda_host
                           ? static_cast<llvm::Type*>(llvm::Type::getInt64Ty(c))
                           : llvm::PointerType::getUnqual(c));
      continue;
    }
    if (!p.var)
      throw Error("LLVM codegen: a parameter of " + symbol + " has neither buffer nor variable");
    const DataType t = p.var->dtype;
    if (!t.is_scalar() || t.is_handle())
      throw Error("LLVM codegen: scalar parameter " + p.var->name + " has unsupported type " +
                  t.str());
    params.push_back(llvm_gen::storage_type(c, t));
  }
  if (abi == EntryAbi::cuda_host) params.push_back(llvm::PointerType::getUnqual(c));  // CUstream
  auto* type = llvm::FunctionType::get(llvm::Type::getInt32Ty(c), params, false);
  llvm::Function* fn =
      llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage, symbol, module);
  fn->addFnAttr(llvm::Attribute::NoUnwind);
  return fn;
}

// `int symbol_packed(void* const* args)`: args[i] is a buffer's data pointer
// or points at a scalar's value.
void emit_packed(llvm::Module& module, llvm::Function* entry, const std::string& symbol) {
  llvm::LLVMContext& c = module.getContext();
  llvm::Type* ptr = llvm::PointerType::getUnqual(c);
  auto* type = llvm::FunctionType::get(llvm::Type::getInt32Ty(c), {ptr}, false);
  llvm::Function* fn =
      llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage, symbol + "_packed", module);
  fn->addFnAttr(llvm::Attribute::NoUnwind);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(c, "entry", fn));
  llvm::Value* args = fn->getArg(0);
  args->setName("args");
  std::vector<llvm::Value*> values;
  for (unsigned i = 0; i < entry->arg_size(); ++i) {
    llvm::Value* slot = b.CreateLoad(ptr, b.CreateConstGEP1_64(ptr, args, i));
    llvm::Type* t = entry->getArg(i)->getType();
    values.push_back(t->isPointerTy() ? slot : b.CreateLoad(t, slot));
  }
  b.CreateRet(b.CreateCall(entry, values));
}

void optimize(llvm::Module& module, llvm::TargetMachine& tm, int opt_level) {
  if (opt_level <= 0) return;
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb(&tm);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  const llvm::OptimizationLevel level = opt_level == 1   ? llvm::OptimizationLevel::O1
                                        : opt_level == 2 ? llvm::OptimizationLevel::O2
                                                         : llvm::OptimizationLevel::O3;
  llvm::ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(level);
  mpm.run(module, mam);
}

std::string emit_machine_code(llvm::Module& module, llvm::TargetMachine& tm, LlvmOutput output) {
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager pm;
  const auto kind = output == LlvmOutput::object ? llvm::CodeGenFileType::ObjectFile
                                                 : llvm::CodeGenFileType::AssemblyFile;
  if (tm.addPassesToEmitFile(pm, os, nullptr, kind))
    throw Error("LLVM codegen: the target cannot emit this kind of file");
  pm.run(module);
  return std::string(buffer.begin(), buffer.end());
}

void verify(const llvm::Module& module) {
  std::string broken;
  llvm::raw_string_ostream why(broken);
  if (llvm::verifyModule(module, &why))
    throw Error("LLVM codegen: internal error, the emitted module does not verify: " + broken);
}

std::string print_module(const llvm::Module& module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os, nullptr);
  return text;
}

std::string generate_llvm(const std::vector<FunctionToCompile>& functions,
                          const LlvmOptions& options, LlvmOutput output, LlvmStats* stats) {
  if (options.target.arch == LlvmArch::nvptx64)
    return generate_cuda(functions, options, output, stats);
  LlvmStats local;
  LlvmStats& st = stats ? *stats : local;
  st = {};
  llvm::LLVMContext context;
  llvm::Module module("tirc", context);
  std::unique_ptr<llvm::TargetMachine> tm = make_target_machine(options.target, options.opt_level);
  module.setTargetTriple(options.target.triple());
  module.setDataLayout(tm->createDataLayout());
  ModuleState m{context, module, options, st, {}, {}};

  // Vectorized loops become vector code first; then every entry is declared
  // before any body, so T.call_kernel may call forward.
  const int vector_bytes =
      options.target.vector_bits() / 8 * std::max(options.registers_per_vector, 1);
  std::vector<PrimFunc> bodies;
  std::vector<llvm::Function*> entries;
  bodies.reserve(functions.size());
  std::set<std::string> seen;
  for (const FunctionToCompile& fc : functions) {
    check_symbol(fc.symbol, seen);
    if (!fc.lowered || !fc.lowered->body)
      throw Error("LLVM codegen: function " + fc.symbol + " has no body");
    VectorizeStats vs;
    bodies.push_back(vectorize_loops(fc.lowered, vector_bytes, &vs));
    st.vectorized_loops += vs.vectorized;
    for (const std::string& why : vs.refused) st.serial.push_back(fc.symbol + ": " + why);
    entries.push_back(declare_entry(module, fc.symbol, bodies.back(), EntryAbi::cpu));
    if (!fc.name.empty() &&
        !m.callees.emplace(fc.name, llvm_gen::Callee{entries.back(), &bodies.back()}).second)
      throw Error("LLVM codegen: two functions are named '" + fc.name + "'");
  }
  for (size_t i = 0; i < functions.size(); ++i) {
    FunctionEmitter(m, entries[i], functions[i].symbol).emit_entry(bodies[i]);
    emit_packed(module, entries[i], functions[i].symbol);
  }
  verify(module);
  optimize(module, *tm, options.opt_level);
  if (output == LlvmOutput::ir) return print_module(module);
  return emit_machine_code(module, *tm, output);
}

}  // namespace tirc
