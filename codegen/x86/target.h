// Code generation targets of the schedules and the x86 generator, and host
// detection. `neon` (AArch64) is a target of the rules and of the LLVM
// generator only (codegen/llvm/generator.h); `cuda` (NVIDIA GPUs) of the rules'
// GPU schedules and the LLVM generator's NVPTX path (codegen/llvm/cuda.h). The
// x86 generator refuses both.
#pragma once

#include <string>
#include <string_view>

namespace tirc {

enum class Isa : unsigned char { avx2, avx512, neon, cuda };

struct Target {
  Isa isa = Isa::avx2;
  // Isa::cuda: the GPU's compute capability, as --mcpu names it (sm_80: 80);
  // tensor cores need 70, their bfloat16 form 80.
  int gpu_sm = 80;

  std::string name() const;  // "x86-64-avx2" / "x86-64-avx512" / "aarch64-neon" / "cuda"
  bool is_gpu() const { return isa == Isa::cuda; }
  // CPU targets' vectors; a GPU thread's are scalar (32 bits).
  int vector_bits() const {
    return isa == Isa::avx512 ? 512 : isa == Isa::neon ? 128 : isa == Isa::cuda ? 32 : 256;
  }
  int vector_registers() const { return isa == Isa::avx2 ? 16 : 32; }
  int f32_lanes() const { return vector_bits() / 32; }
  bool operator==(const Target&) const = default;
};

// The best target the running CPU supports (AVX-512F/VL/BW/DQ, else AVX2+FMA+F16C).
// Throws tirc::Error when the CPU has neither.
Target host_target();

// Whether code for t can run on this CPU.
bool host_supports(const Target& t);

// Accepts "x86-64-avx512", "x86-64-avx2", and "native"/"host" (= host_target()).
// Throws tirc::Error listing the valid names otherwise.
Target parse_target(std::string_view name);

}  // namespace tirc
