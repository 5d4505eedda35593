#include "codegen/x86/target.h"

#include <xbyak/xbyak_util.h>

#include "ir/error.h"

namespace tirc {

std::string Target::name() const {
  switch (isa) {
    case Isa::avx512:
      return "x86-64-avx512";
    case Isa::neon:
      return "aarch64-neon";
    case Isa::cuda:
      return "cuda";
    case Isa::avx2:
      break;
  }
  return "x86-64-avx2";
}

namespace {

bool cpu_has_avx2() {
  using C = Xbyak::util::Cpu;
  C cpu;
  return cpu.has(C::tAVX2) && cpu.has(C::tFMA) && cpu.has(C::tF16C);
}

bool cpu_has_avx512() {
  using C = Xbyak::util::Cpu;
  C cpu;
  return cpu_has_avx2() && cpu.has(C::tAVX512F) && cpu.has(C::tAVX512VL) && cpu.has(C::tAVX512BW) &&
         cpu.has(C::tAVX512DQ);
}

}  // namespace

Target host_target() {
  if (cpu_has_avx512()) return Target{Isa::avx512};
  if (cpu_has_avx2()) return Target{Isa::avx2};
  throw Error(
      "this CPU supports neither AVX-512 nor AVX2+FMA; tirc's x86 generator needs one of them");
}

bool host_supports(const Target& t) {
  if (t.isa == Isa::neon || t.isa == Isa::cuda) return false;  // this generator's host is x86-64
  return t.isa == Isa::avx512 ? cpu_has_avx512() : cpu_has_avx2();
}

Target parse_target(std::string_view name) {
  if (name == "x86-64-avx512") return Target{Isa::avx512};
  if (name == "x86-64-avx2") return Target{Isa::avx2};
  if (name == "native" || name == "host") return host_target();
  throw Error("unknown target '" + std::string(name) +
              "'; valid targets: x86-64-avx512, x86-64-avx2, native");
}

}  // namespace tirc
