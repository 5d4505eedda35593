// TEMPORARY: stands in for codegen/x86/math.cpp until it lands (the
// integrator deletes this file). Only sqrt is implemented.
#include "codegen/x86/math.h"

#include "ir/error.h"

namespace tirc {

bool vec_math_fn_from_name(std::string_view name, VecMathFn* fn) {
  static constexpr std::pair<std::string_view, VecMathFn> kNames[] = {
      {"exp", VecMathFn::exp}, {"log", VecMathFn::log},         {"tanh", VecMathFn::tanh},
      {"erf", VecMathFn::erf}, {"sigmoid", VecMathFn::sigmoid}, {"sqrt", VecMathFn::sqrt}};
  for (const auto& [n, f] : kNames)
    if (n == name) {
      *fn = f;
      return true;
    }
  return false;
}

MathAccuracy vec_math_accuracy(VecMathFn fn) {
  return fn == VecMathFn::sqrt ? MathAccuracy{0, 0} : MathAccuracy{1, 1};
}

int vec_math_scratch_count(VecMathFn, Isa) {
  return 0;
}

void emit_vec_math(Xbyak::CodeGenerator& code, ConstantPool&, Isa, int bits, VecMathFn fn, int dst,
                   int src, std::span<const int>) {
  if (fn != VecMathFn::sqrt) throw Error("x86 codegen: vector math function not yet available");
  if (bits == 512)
    code.vsqrtps(Xbyak::Zmm(dst), Xbyak::Zmm(src));
  else if (bits == 256)
    code.vsqrtps(Xbyak::Ymm(dst), Xbyak::Ymm(src));
  else
    code.vsqrtps(Xbyak::Xmm(dst), Xbyak::Xmm(src));
}

}  // namespace tirc
