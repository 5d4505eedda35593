#include "codegen/x86/math.h"

#include <algorithm>
#include <string>

#include "codegen/x86/math_emitter.h"
#include "ir/error.h"

namespace tirc {

namespace {

const char* fn_name(VecMathFn fn) {
  switch (fn) {
    case VecMathFn::exp:
      return "exp";
    case VecMathFn::log:
      return "log";
    case VecMathFn::tanh:
      return "tanh";
    case VecMathFn::erf:
      return "erf";
    case VecMathFn::sigmoid:
      return "sigmoid";
    case VecMathFn::sqrt:
      return "sqrt";
  }
  return "?";
}

void check_register(Isa isa, int idx, const char* role) {
  int limit = isa == Isa::avx512 ? 32 : 16;
  if (idx < 0 || idx >= limit)
    throw Error(std::string("emit_vec_math: ") + role + " register " + std::to_string(idx) +
                " is outside 0.." + std::to_string(limit - 1) + " for this target");
}

}  // namespace

std::optional<VecMathFn> vec_math_fn_of(IntrinsicId id) {
  switch (id) {
    case IntrinsicId::Exp:
      return VecMathFn::exp;
    case IntrinsicId::Log:
      return VecMathFn::log;
    case IntrinsicId::Tanh:
      return VecMathFn::tanh;
    case IntrinsicId::Erf:
      return VecMathFn::erf;
    case IntrinsicId::Sigmoid:
      return VecMathFn::sigmoid;
    case IntrinsicId::Sqrt:
      return VecMathFn::sqrt;
    default:
      return std::nullopt;
  }
}

bool vec_math_fn_from_name(std::string_view name, VecMathFn* fn) {
  const Intrinsic* in = find_intrinsic(name);
  std::optional<VecMathFn> f = in ? vec_math_fn_of(in->id) : std::nullopt;
  if (f) *fn = *f;
  return f.has_value();
}

// Bounds measured by test/unit/vecmath_test.cpp on both ISAs (see the table in
// math.h), rounded up a little; max_abs covers results in the denormal range.
MathAccuracy vec_math_accuracy(VecMathFn fn) {
  constexpr double kDenormUlp = 1.4012984643248171e-45;  // 2^-149
  switch (fn) {
    case VecMathFn::exp:
      return {1.0e-7, kDenormUlp};
    case VecMathFn::log:
      return {1.0e-7, 0};
    case VecMathFn::tanh:
      return {2.0e-7, 0};
    case VecMathFn::erf:
      return {2.0e-7, kDenormUlp};
    case VecMathFn::sigmoid:
      return {2.0e-7, kDenormUlp};
    case VecMathFn::sqrt:
      return {6e-8, 0};  // correctly rounded: half an ulp
  }
  return {0, 0};
}

int vec_math_scratch_count(VecMathFn fn, Isa) {
  switch (fn) {
    case VecMathFn::sqrt:
      return 0;
    case VecMathFn::exp:
      return 2;
    default:
      return 3;  // two working registers and a copy of src when dst == src
  }
}

void emit_vec_math(Xbyak::CodeGenerator& code, ConstantPool& pool, Isa isa, int bits, VecMathFn fn,
                   int dst, int src, std::span<const int> scratch) {
  if (bits != 128 && bits != 256 && !(bits == 512 && isa == Isa::avx512))
    throw Error("emit_vec_math: " + std::to_string(bits) + "-bit registers are not available on " +
                Target{isa}.name());
  check_register(isa, dst, "destination");
  check_register(isa, src, "source");
  int need = vec_math_scratch_count(fn, isa);
  if (static_cast<int>(scratch.size()) < need)
    throw Error(std::string("emit_vec_math: ") + fn_name(fn) + " needs " + std::to_string(need) +
                " scratch registers, got " + std::to_string(scratch.size()));
  for (size_t i = 0; i < static_cast<size_t>(need); ++i) {
    check_register(isa, scratch[i], "scratch");
    if (scratch[i] == dst || scratch[i] == src)
      throw Error("emit_vec_math: scratch register " + std::to_string(scratch[i]) +
                  " is also the source or destination");
    if (std::find(scratch.begin(), scratch.begin() + i, scratch[i]) != scratch.begin() + i)
      throw Error("emit_vec_math: scratch register " + std::to_string(scratch[i]) +
                  " is listed twice");
  }

  vecmath::Emitter e(code, pool, isa, bits);
  if (fn == VecMathFn::sqrt) {
    code.vsqrtps(e.v(dst), e.v(src));
    return;
  }
  if (fn == VecMathFn::exp) {
    e.exp(dst, src, scratch[0], scratch[1]);
    return;
  }
  // The others read src after writing dst: work from a copy when they alias.
  int x = src;
  if (dst == src) {
    x = scratch[2];
    code.vmovaps(e.v(x), e.v(src));
  }
  switch (fn) {
    case VecMathFn::log:
      e.log(dst, x, scratch[0], scratch[1]);
      break;
    case VecMathFn::tanh:
      e.tanh(dst, x, scratch[0], scratch[1]);
      break;
    case VecMathFn::erf:
      e.erf(dst, x, scratch[0], scratch[1]);
      break;
    case VecMathFn::sigmoid:
      e.sigmoid(dst, x, scratch[0], scratch[1]);
      break;
    default:
      break;
  }
}

}  // namespace tirc
