// generate_llvm for CUDA: the kernels of every function in one NVPTX module
// (-> PTX), the host functions and the loader in one x86-64 module (-> the
// object, with the PTX text in .rodata). codegen/llvm/cuda.h says what they do.
#include "codegen/llvm/cuda_cubin.h"
#include "codegen/llvm/cuda_emitter.h"
#include "codegen/llvm/llvm_target.h"

namespace tirc {

using llvm_gen::FunctionEmitter;
using llvm_gen::ModuleState;

CudaModules build_cuda(const std::vector<FunctionToCompile>& functions, const LlvmOptions& options,
                       LlvmOutput output, LlvmStats* stats) {
  LlvmStats local;
  LlvmStats& st = stats ? *stats : local;
  st = {};
  CudaModules out;
  out.context = std::make_unique<llvm::LLVMContext>();
  llvm::LLVMContext& context = *out.context;
  llvm::Module device("tirc_cuda_device", context);
  out.host = std::make_unique<llvm::Module>("tirc_cuda_host", context);
  llvm::Module& host = *out.host;
  std::unique_ptr<llvm::TargetMachine> device_tm =
      make_target_machine(options.target, options.opt_level);
  std::unique_ptr<llvm::TargetMachine> host_tm = make_target_machine(cuda_host_target(), 2);
  device.setTargetTriple(options.target.triple());
  device.setDataLayout(device_tm->createDataLayout());
  host.setTargetTriple(cuda_host_target().triple());
  host.setDataLayout(host_tm->createDataLayout());

  ModuleState device_state{context, device, options, st, {}, {}};
  ModuleState host_state{context, host, options, st, {}, {}};
  llvm_gen::CudaState cuda;
  cuda.device = &device_state;
  host_state.cuda = device_state.cuda = &cuda;
  cuda.loader =
      llvm::Function::Create(llvm::FunctionType::get(llvm::Type::getInt32Ty(context), false),
                             llvm::GlobalValue::InternalLinkage, "tirc_cuda_load", host);

  // Every host function is declared before any body, so T.call_kernel may call forward.
  std::vector<llvm::Function*> entries;
  std::set<std::string> seen;
  for (const FunctionToCompile& fc : functions) {
    check_symbol(fc.symbol, seen);
    if (!fc.lowered || !fc.lowered->body)
      throw Error("LLVM codegen: function " + fc.symbol + " has no body");
    entries.push_back(declare_entry(host, fc.symbol, fc.lowered, EntryAbi::cuda_host));
    if (!fc.name.empty() &&
        !host_state.callees.emplace(fc.name, llvm_gen::Callee{entries.back(), &fc.lowered}).second)
      throw Error("LLVM codegen: two functions are named '" + fc.name + "'");
  }
  for (size_t i = 0; i < functions.size(); ++i) {
    FunctionEmitter(host_state, entries[i], functions[i].symbol)
        .emit_cuda_host(functions[i].lowered);
    emit_packed(host, entries[i], functions[i].symbol);
  }

  verify(device);
  optimize(device, *device_tm, options.opt_level);
  // Printed before code generation, which rewrites the module in place.
  if (output == LlvmOutput::ir) out.device_ir = print_module(device);
  out.ptx = emit_machine_code(device, *device_tm, LlvmOutput::assembly);
  if (output == LlvmOutput::assembly) return out;
  std::string fat, why = "not asked for";
  if (options.cuda_cubin)
    fat = cuda_fat_binary(out.ptx, options.target.cpu, &why).value_or(std::string());
  st.cuda_binary = fat.empty() ? "PTX only (" + why + ")"
                               : "PTX and a cubin for " + options.target.cpu +
                                     " in a fat binary (" + std::to_string(fat.size()) + " bytes)";
  llvm_gen::emit_cuda_loader(host_state, out.ptx, fat);
  verify(host);
  optimize(host, *host_tm, 2);
  return out;
}

const LlvmTarget& cuda_host_target() {
  static const LlvmTarget t{LlvmArch::x86_64, "x86-64"};
  return t;
}

std::string generate_cuda(const std::vector<FunctionToCompile>& functions,
                          const LlvmOptions& options, LlvmOutput output, LlvmStats* stats) {
  CudaModules m = build_cuda(functions, options, output, stats);
  if (output == LlvmOutput::assembly) return m.ptx;
  if (output == LlvmOutput::ir)
    return "; ---- device (" + options.target.triple() + ", " + options.target.cpu + ") ----\n" +
           m.device_ir + "\n; ---- host (" + cuda_host_target().triple() + ") ----\n" +
           print_module(*m.host);
  std::unique_ptr<llvm::TargetMachine> host_tm = make_target_machine(cuda_host_target(), 2);
  return emit_machine_code(*m.host, *host_tm, LlvmOutput::object);
}

}  // namespace tirc
