// The LLVM code generator: lowered PrimFuncs (passes/LOWERED.md) -> LLVM IR
// -> an ELF object (or assembly) for AArch64 or x86-64, or for CUDA (NVPTX):
// PTX kernels embedded in an x86-64 object with host launchers (cuda.h says
// how). LLVM headers stay inside codegen/llvm/; this header has none.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "codegen/x86/generator.h"

namespace tirc {

enum class LlvmArch : unsigned char { aarch64, x86_64, nvptx64 };

// Where the LLVM generator's code runs: an architecture, a CPU of it and
// what schedules need to know of its vectors.
struct LlvmTarget {
  LlvmArch arch = LlvmArch::aarch64;
  // An LLVM CPU name of the architecture ("neoverse-n1", "x86-64-v4"); for
  // nvptx64 the GPU architecture ("sm_80", "sm_90").
  std::string cpu;

  // "aarch64-unknown-linux-gnu", "x86_64-unknown-linux-gnu", "nvptx64-nvidia-cuda"
  std::string triple() const;
  std::string name() const;  // "aarch64-linux-gnu", "x86-64" or "cuda", as --target spells it
  // NEON: 128 bits and 32 registers; x86-64: what the CPU has (AVX-512: 512 /
  // 32); nvptx64: a thread's scalar 32 bits (no vector code is emitted).
  int vector_bits() const;
  int vector_registers() const;
  // The target the schedule rules plan for: neon on AArch64; on x86-64
  // avx512 when the CPU has AVX-512, else avx2; cuda for nvptx64 (with cpu's
  // compute capability).
  Target rules_target() const;
  // nvptx64: the compute capability cpu names ("sm_90": 90; 80 when empty).
  int compute_capability() const;
  bool operator==(const LlvmTarget&) const = default;
};

// The target `--target NAME [--mcpu CPU]` names: "aarch64-linux-gnu" (also
// "aarch64"; CPU default "generic", i.e. Armv8-A with NEON), or an x86 name
// of codegen/x86/target.h ("x86-64-avx512" -> CPU "x86-64-v4", "x86-64-avx2" ->
// "x86-64-v3", "native"/"host" -> the host's) and "x86-64" (CPU "x86-64-v3"),
// "cuda" (CPU "sm_80"; sm_90 etc.).
// Throws tirc::Error listing the valid names for an unknown target, or the
// valid CPUs of the architecture for an unknown CPU.
LlvmTarget parse_llvm_target(std::string_view name, std::string_view cpu = {});
// Whether `name` is a target only the LLVM generator has (AArch64, CUDA).
bool is_llvm_only_target(std::string_view name);
// Every CPU name LLVM knows for the architecture, sorted.
std::vector<std::string> llvm_cpu_names(LlvmArch arch);
// Whether code for `t` runs on this machine's CPU (same architecture, and for
// x86 the CPU's features are a subset of the host's; never for CUDA).
bool llvm_target_runs_here(const LlvmTarget& t);

enum class LlvmOutput : unsigned char { object, assembly, ir };

struct LlvmOptions {
  LlvmTarget target;
  int opt_level = 3;  // 0..3: LLVM's default pipeline at -O<n> and its code generator
  // The module the functions come from: its constants are what AllocateConst
  // binds (placed in .rodata). Null: AllocateConst is refused.
  const IRModule* module = nullptr;
  // Vectorized loops become explicit vector code (passes/vectorize_loops.h)
  // of this many target registers per vector (1: one register).
  int registers_per_vector = 2;
  // CUDA: a cubin for target.cpu beside the PTX where tirc was built with
  // ptxas (cuda_cubin.h).
  bool cuda_cubin = true;
};

// What the generator did, for tests and `tirc compile -v`.
struct LlvmStats {
  int vectorized_loops = 0;         // Vectorized loops emitted as vector code
  std::vector<std::string> serial;  // why each other Vectorized loop runs serially
  int parallel_loops = 0;           // loops outlined for tirc_parallel_for
  // CUDA: one line per kernel, "symbol_kernel0: grid (196, 1, 1), block (256, 1, 1)".
  std::vector<std::string> kernels;
  // CUDA: what the object carries, "PTX and a cubin for sm_90 (N bytes)" or
  // "PTX only (why)".
  std::string cuda_binary;
};

// The functions as one LLVM module with exactly the ABI of generate_x86
// (codegen/x86/generator.h): `int symbol(T0* p0, ..., scalars by value)`
// returning 0, `int symbol_packed(void* const* args)`, T.call_kernel as a
// direct call (a nonzero result returns at once after freeing heap storage),
// AllocateConst as 64-byte aligned .rodata, Allocate on the stack up to 256
// KiB per allocation (32 KiB inside a parallel loop's body), else
// tirc_alloc/tirc_free (a failed tirc_alloc returns -1), Parallel loops through tirc_parallel_for
// (a Parallel loop inside another runs serially in its body). Integer
// division or modulo by zero yields 0, as in the C generator; signed
// arithmetic inside an element index is assumed not to overflow (a wrapped
// index would address outside the buffer). A float32 or
// float64 multiply feeding an add may be fused into one FMA (one rounding),
// as in the x86 generator's contraction kernels. float32 exp,
// log, tanh, erf, sigmoid and pow have the x86 generator's methods and error
// bounds (codegen/x86/math.h); float16/bfloat16 values are computed in
// float32 and rounded to their format after every operation. Functions whose
// PrimFunc has tir.noalias get noalias pointer parameters.
// Returns the object file's bytes, the assembly text or the LLVM IR text.
// Throws tirc::Error naming the statement (with its location) for anything
// outside the lowered form or not supported.
std::string generate_llvm(const std::vector<FunctionToCompile>& functions,
                          const LlvmOptions& options, LlvmOutput output,
                          LlvmStats* stats = nullptr);

}  // namespace tirc
