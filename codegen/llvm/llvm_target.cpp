// The LLVM generator's targets: names, CPUs, and LLVM's TargetMachine for them.
#include "codegen/llvm/llvm_target.h"

#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/TargetParser/Host.h>

#include <algorithm>
#include <mutex>

#include "ir/error.h"

namespace tirc {

namespace {

// LLVM's target registry is process-wide: register the targets once.
void register_targets_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeX86TargetInfo();
    LLVMInitializeX86Target();
    LLVMInitializeX86TargetMC();
    LLVMInitializeX86AsmPrinter();
    LLVMInitializeAArch64TargetInfo();
    LLVMInitializeAArch64Target();
    LLVMInitializeAArch64TargetMC();
    LLVMInitializeAArch64AsmPrinter();
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
}

const llvm::Target& lookup(const std::string& triple) {
  register_targets_once();
  std::string error;
  const llvm::Target* t = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!t) throw Error("LLVM codegen: no LLVM target for " + triple + ": " + error);
  return *t;
}

std::unique_ptr<llvm::MCSubtargetInfo> subtarget(const std::string& triple,
                                                 const std::string& cpu) {
  return std::unique_ptr<llvm::MCSubtargetInfo>(
      lookup(triple).createMCSubtargetInfo(triple, cpu, ""));
}

std::string default_cpu(LlvmArch arch) {
  return arch == LlvmArch::aarch64 ? "generic" : arch == LlvmArch::nvptx64 ? "sm_80" : "x86-64-v3";
}

}  // namespace

std::string LlvmTarget::triple() const {
  switch (arch) {
    case LlvmArch::aarch64:
      return "aarch64-unknown-linux-gnu";
    case LlvmArch::nvptx64:
      return "nvptx64-nvidia-cuda";
    case LlvmArch::x86_64:
      break;
  }
  return "x86_64-unknown-linux-gnu";
}

std::string LlvmTarget::name() const {
  return arch == LlvmArch::aarch64   ? "aarch64-linux-gnu"
         : arch == LlvmArch::nvptx64 ? "cuda"
                                     : "x86-64";
}

int LlvmTarget::vector_bits() const {
  if (arch == LlvmArch::aarch64) return 128;
  if (arch == LlvmArch::nvptx64) return 32;
  auto sti = subtarget(triple(), cpu);
  if (sti->checkFeatures("+avx512f")) return 512;
  if (sti->checkFeatures("+avx")) return 256;
  return 128;
}

int LlvmTarget::vector_registers() const {
  return arch == LlvmArch::aarch64 || vector_bits() == 512 ? 32 : 16;
}

int LlvmTarget::compute_capability() const {
  if (cpu.empty()) return 80;
  int sm = 0;
  for (char ch : cpu.substr(cpu.rfind('_') + 1)) {
    if (ch < '0' || ch > '9') break;
    sm = sm * 10 + (ch - '0');
  }
  return sm;
}

Target LlvmTarget::rules_target() const {
  if (arch == LlvmArch::aarch64) return Target{Isa::neon};
  if (arch == LlvmArch::nvptx64) {
    Target t{Isa::cuda};
    t.gpu_sm = compute_capability();
    return t;
  }
  return Target{vector_bits() == 512 ? Isa::avx512 : Isa::avx2};
}

std::vector<std::string> llvm_cpu_names(LlvmArch arch) {
  LlvmTarget t{arch, default_cpu(arch)};
  auto sti = subtarget(t.triple(), t.cpu);
  std::vector<std::string> out;
  for (const llvm::SubtargetSubTypeKV& kv : sti->getAllProcessorDescriptions())
    out.emplace_back(kv.Key);
  std::sort(out.begin(), out.end());
  return out;
}

bool is_llvm_only_target(std::string_view name) {
  return name == "aarch64-linux-gnu" || name == "aarch64" || name == "cuda";
}

LlvmTarget parse_llvm_target(std::string_view name, std::string_view cpu) {
  LlvmTarget t;
  if (name == "cuda") {
    t.arch = LlvmArch::nvptx64;
  } else if (is_llvm_only_target(name)) {
    t.arch = LlvmArch::aarch64;
  } else if (name == "x86-64") {
    t.arch = LlvmArch::x86_64;
  } else if (name == "x86-64-avx512" || name == "x86-64-avx2" || name == "native" ||
             name == "host") {
    t.arch = LlvmArch::x86_64;
    t.cpu = parse_target(name).isa == Isa::avx512 ? "x86-64-v4" : "x86-64-v3";
  } else {
    throw Error("unknown target '" + std::string(name) +
                "'; valid targets: x86-64-avx512, x86-64-avx2, native, x86-64 (LLVM), "
                "aarch64-linux-gnu (LLVM), cuda (LLVM)");
  }
  if (!cpu.empty()) t.cpu = std::string(cpu);
  if (t.cpu.empty()) t.cpu = default_cpu(t.arch);
  if (!subtarget(t.triple(), default_cpu(t.arch))->isCPUStringValid(t.cpu)) {
    std::string valid;
    for (const std::string& c : llvm_cpu_names(t.arch)) valid += (valid.empty() ? "" : ", ") + c;
    throw Error("unknown CPU '" + t.cpu + "' for target " + t.name() + "; valid CPUs: " + valid);
  }
  // LLVM also knows sm_20 to sm_62; the generator's limits (CudaLimits) and
  // warp-level code assume Volta's (independent thread scheduling, WMMA).
  if (t.arch == LlvmArch::nvptx64 && t.compute_capability() < 70)
    throw Error("CPU '" + t.cpu + "' for target cuda is older than the CUDA generator supports: " +
                "sm_70 (Volta) and later");
  return t;
}

bool llvm_target_runs_here(const LlvmTarget& t) {
  if (t.arch == LlvmArch::nvptx64) return false;
#if defined(__x86_64__)
  if (t.arch != LlvmArch::x86_64) return false;
  if (t.cpu == "x86-64" || t.cpu == "x86-64-v2") return true;
  if (t.cpu == "x86-64-v3") return host_supports(Target{Isa::avx2});
  if (t.cpu == "x86-64-v4") return host_supports(Target{Isa::avx512});
  return t.cpu == llvm::sys::getHostCPUName().str();
#elif defined(__aarch64__)
  return t.arch == LlvmArch::aarch64;
#else
  (void)t;
  return false;
#endif
}

std::unique_ptr<llvm::TargetMachine> make_target_machine(const LlvmTarget& t, int opt_level) {
  const llvm::Target& target = lookup(t.triple());
  llvm::TargetOptions options;
  const llvm::CodeGenOptLevel level = opt_level <= 0   ? llvm::CodeGenOptLevel::None
                                      : opt_level == 1 ? llvm::CodeGenOptLevel::Less
                                      : opt_level == 2 ? llvm::CodeGenOptLevel::Default
                                                       : llvm::CodeGenOptLevel::Aggressive;
  std::unique_ptr<llvm::TargetMachine> tm(target.createTargetMachine(
      t.triple(), t.cpu, "", options, llvm::Reloc::PIC_, std::nullopt, level));
  if (!tm) throw Error("LLVM codegen: no target machine for " + t.triple() + " " + t.cpu);
  return tm;
}

}  // namespace tirc
