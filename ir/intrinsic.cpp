#include "ir/intrinsic.h"

#include <cmath>

#include "ir/expr.h"

namespace tirc {

namespace {

using Id = IntrinsicId;
using Unary = double (*)(double);
using Binary = double (*)(double, double);

constexpr uint8_t kX86 =
    static_cast<uint8_t>(Backend::X86Scalar) | static_cast<uint8_t>(Backend::X86Vector);
// The interpreter and the C generator take every float math function and
// predicate they have a function for.
constexpr uint8_t kEval =
    static_cast<uint8_t>(Backend::Interpreter) | static_cast<uint8_t>(Backend::C);
// The LLVM generator takes what the x86 one takes, plus the integer bit operations.
constexpr uint8_t kLlvm = static_cast<uint8_t>(Backend::Llvm);
constexpr uint8_t kAll = kEval | kX86 | kLlvm;
// Tensor-core operations: the interpreter and the CUDA generator.
constexpr uint8_t kWarpMatrix =
    static_cast<uint8_t>(Backend::Interpreter) | static_cast<uint8_t>(Backend::Cuda);

constexpr Intrinsic unary(std::string_view name, Id id, const char* c, uint8_t backends, Unary fn) {
  return {name, id, 1, DtypeRule::FloatMath, backends, fn, nullptr, nullptr, c};
}
constexpr Intrinsic binary(std::string_view name, Id id, const char* c, uint8_t backends,
                           Binary fn) {
  return {name, id, 2, DtypeRule::FloatMath, backends, nullptr, fn, nullptr, c};
}
constexpr Intrinsic predicate(std::string_view name, Id id, const char* c, bool (*fn)(double)) {
  return {name, id, 1, DtypeRule::FloatPredicate, kEval, nullptr, nullptr, fn, c};
}
// A float function that also takes integers.
constexpr Intrinsic on_integers_too(Intrinsic in) {
  in.rule = DtypeRule::Numeric;
  return in;
}
// No interpreter function and no C spelling: the consumers dispatch on the id.
constexpr Intrinsic other(std::string_view name, Id id, int arity, DtypeRule rule,
                          uint8_t backends) {
  return {name, id, arity, rule, backends, nullptr, nullptr, nullptr, nullptr};
}

}  // namespace

std::span<const Intrinsic> intrinsics() {
  static const Intrinsic kTable[] = {
      other("if_then_else", Id::IfThenElse, 3, DtypeRule::Choice, kAll),
      other("likely", Id::Likely, 1, DtypeRule::Condition, 0),
      // Statements and arguments of a call_kernel, handled where they may
      // appear (ir/function.h), not as values.
      other("call_kernel", Id::CallKernel, kVariadicArity, DtypeRule::Structural, 0),
      other("address_of", Id::AddressOf, 1, DtypeRule::Structural, 0),

      unary("exp", Id::Exp, "exp", kAll, [](double x) { return std::exp(x); }),
      unary("exp2", Id::Exp2, "exp2", kEval, [](double x) { return std::exp2(x); }),
      unary("exp10", Id::Exp10, "tirc_exp10", kEval, [](double x) { return std::pow(10.0, x); }),
      unary("log", Id::Log, "log", kAll, [](double x) { return std::log(x); }),
      unary("log2", Id::Log2, "log2", kEval, [](double x) { return std::log2(x); }),
      unary("log10", Id::Log10, "log10", kEval, [](double x) { return std::log10(x); }),
      unary("log1p", Id::Log1p, "log1p", kEval, [](double x) { return std::log1p(x); }),
      unary("sqrt", Id::Sqrt, "sqrt", kAll, [](double x) { return std::sqrt(x); }),
      unary("rsqrt", Id::Rsqrt, "tirc_rsqrt", kEval, [](double x) { return 1.0 / std::sqrt(x); }),
      unary("tanh", Id::Tanh, "tanh", kAll, [](double x) { return std::tanh(x); }),
      unary("erf", Id::Erf, "erf", kAll, [](double x) { return std::erf(x); }),
      unary("sigmoid", Id::Sigmoid, "tirc_sigmoid", kAll,
            [](double x) { return 1.0 / (1.0 + std::exp(-x)); }),
      // abs also takes integers, fabs only floats (the x86 generator takes
      // either spelling for either).
      on_integers_too(unary("abs", Id::Abs, "fabs", kAll, [](double x) { return std::fabs(x); })),
      unary("fabs", Id::Abs, "fabs", kAll, [](double x) { return std::fabs(x); }),
      unary("floor", Id::Floor, "floor", kAll, [](double x) { return std::floor(x); }),
      unary("ceil", Id::Ceil, "ceil", kAll, [](double x) { return std::ceil(x); }),
      // The default rounding mode: halfway cases go to even.
      unary("round", Id::Round, "nearbyint", kAll, [](double x) { return std::nearbyint(x); }),
      unary("nearbyint", Id::Round, "nearbyint", kAll, [](double x) { return std::nearbyint(x); }),
      unary("trunc", Id::Trunc, "trunc", kAll, [](double x) { return std::trunc(x); }),
      unary("sin", Id::Sin, "sin", kEval, [](double x) { return std::sin(x); }),
      unary("cos", Id::Cos, "cos", kEval, [](double x) { return std::cos(x); }),
      unary("tan", Id::Tan, "tan", kEval, [](double x) { return std::tan(x); }),
      unary("sinh", Id::Sinh, "sinh", kEval, [](double x) { return std::sinh(x); }),
      unary("cosh", Id::Cosh, "cosh", kEval, [](double x) { return std::cosh(x); }),
      unary("asin", Id::Asin, "asin", kEval, [](double x) { return std::asin(x); }),
      unary("acos", Id::Acos, "acos", kEval, [](double x) { return std::acos(x); }),
      unary("atan", Id::Atan, "atan", kEval, [](double x) { return std::atan(x); }),
      unary("sign", Id::Sign, "tirc_sign", kEval,
            [](double x) { return x > 0   ? 1.0
                                  : x < 0 ? -1.0
                                          : x; }),

      binary("pow", Id::Pow, "pow", kAll, [](double x, double y) { return std::pow(x, y); }),
      binary("atan2", Id::Atan2, "atan2", kEval,
             [](double x, double y) { return std::atan2(x, y); }),
      binary("fmod", Id::Fmod, "fmod", kEval, [](double x, double y) { return std::fmod(x, y); }),
      binary("hypot", Id::Hypot, "hypot", kEval,
             [](double x, double y) { return std::hypot(x, y); }),
      binary("copysign", Id::Copysign, "copysign", kEval,
             [](double x, double y) { return std::copysign(x, y); }),
      binary("nextafter", Id::Nextafter, "nextafter", kEval,
             [](double x, double y) { return std::nextafter(x, y); }),
      other("ldexp", Id::Ldexp, 2, DtypeRule::FloatMath, 0),

      predicate("isnan", Id::IsNan, "isnan", [](double x) { return std::isnan(x); }),
      predicate("isinf", Id::IsInf, "isinf", [](double x) { return std::isinf(x); }),
      predicate("isfinite", Id::IsFinite, "isfinite", [](double x) { return std::isfinite(x); }),

      other("popcount", Id::Popcount, 1, DtypeRule::IntegerBits, 0),
      other("clz", Id::Clz, 1, DtypeRule::IntegerBits, 0),
      other("bitwise_and", Id::BitwiseAnd, 2, DtypeRule::IntegerBits, kEval | kLlvm),
      other("bitwise_or", Id::BitwiseOr, 2, DtypeRule::IntegerBits, kEval | kLlvm),
      other("bitwise_xor", Id::BitwiseXor, 2, DtypeRule::IntegerBits, kEval | kLlvm),
      other("bitwise_not", Id::BitwiseNot, 1, DtypeRule::IntegerBits, kEval | kLlvm),
      other("shift_left", Id::ShiftLeft, 2, DtypeRule::IntegerBits, kEval | kLlvm),
      other("shift_right", Id::ShiftRight, 2, DtypeRule::IntegerBits, kEval | kLlvm),

      other("mma_fill", Id::MmaFill, 3, DtypeRule::WarpMatrix, kWarpMatrix),
      other("mma_sync", Id::MmaSync, 6, DtypeRule::WarpMatrix, kWarpMatrix),
      other("mma_store", Id::MmaStore, 4, DtypeRule::WarpMatrix, kWarpMatrix),
  };
  return kTable;
}

const Intrinsic* find_intrinsic(std::string_view name) {
  for (const Intrinsic& in : intrinsics())
    if (in.name == name) return &in;
  return nullptr;
}

const Intrinsic* find_intrinsic(const CallNode& c) {
  return find_intrinsic(intrinsic_name(c));
}

const Intrinsic* find_intrinsic(const CallNode& c, Backend backend) {
  const Intrinsic* in = find_intrinsic(c);
  return in && in->supports(backend) ? in : nullptr;
}

size_t warp_matrix_tiles(IntrinsicId id) {
  return id == IntrinsicId::MmaFill ? 1 : id == IntrinsicId::MmaSync ? 3 : 2;
}

const Intrinsic* find_warp_matrix(const CallNode& c) {
  const Intrinsic* in = find_intrinsic(c);
  return in && in->rule == DtypeRule::WarpMatrix ? in : nullptr;
}

const Intrinsic* find_warp_matrix(const Expr& e) {
  auto* c = e.as<CallNode>();
  return c ? find_warp_matrix(*c) : nullptr;
}

std::string cuda_only(const CallNode& c) {
  const Intrinsic* in = find_warp_matrix(c);
  if (!in) return "";
  return "T." + std::string(in->name) + " is a tensor-core operation: only --target cuda runs it";
}

}  // namespace tirc
