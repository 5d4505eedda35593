#include "ir/arith/const_fold.h"

#include <bit>
#include <cmath>
#include <cstring>

namespace tirc::arith {

Expr make_int_imm(DataType t, i128 v) {
  return std::make_shared<const IntImmNode>(t, wrap_to(t, v));
}

static double round_bfloat16(double v) {
  float f = static_cast<float>(v);
  if (std::isnan(f)) return v;
  uint32_t bits = std::bit_cast<uint32_t>(f);
  uint32_t lsb = (bits >> 16) & 1u;
  bits += 0x7fffu + lsb;  // round to nearest, ties to even
  bits &= 0xffff0000u;
  return static_cast<double>(std::bit_cast<float>(bits));
}

static double round_float16(double v) {
#ifdef __FLT16_MAX__
  return static_cast<double>(static_cast<_Float16>(static_cast<float>(v)));
#else
  return v;
#endif
}

double round_to_float(DataType t, double v) {
  if (t.code() == DataType::Code::BFloat) return round_bfloat16(v);
  switch (t.bits()) {
    case 16:
      return round_float16(v);
    case 32:
      return static_cast<double>(static_cast<float>(v));
    default:
      return v;
  }
}

// Float types whose folding we trust to match the target's arithmetic.
static bool foldable_float(DataType t) {
#ifdef __FLT16_MAX__
  return t.is_float() && t.is_scalar();
#else
  return t.is_float() && t.is_scalar() && !(t.bits() == 16 && t.code() == DataType::Code::Float);
#endif
}

static Expr make_float_imm(DataType t, double v) {
  return std::make_shared<const FloatImmNode>(t, round_to_float(t, v));
}

static Expr fold_int_binary(ExprKind kind, DataType t, i128 x, i128 y) {
  DataType bool_t = DataType::boolean();
  if (is_comparison(kind)) return make_int_imm(bool_t, compare_values(kind, x, y));
  switch (kind) {
    case ExprKind::Add:
      return make_int_imm(t, x + y);
    case ExprKind::Sub:
      return make_int_imm(t, x - y);
    case ExprKind::Mul: {
      // Multiply modulo 2^64 through unsigned arithmetic: exact after wrapping.
      uint64_t p = static_cast<uint64_t>(x) * static_cast<uint64_t>(y);
      return make_int_imm(t, static_cast<i128>(static_cast<int64_t>(p)));
    }
    case ExprKind::Div:
      if (y == 0) return {};
      return make_int_imm(t, x / y);
    case ExprKind::Mod:
      if (y == 0) return {};
      return make_int_imm(t, x % y);
    case ExprKind::FloorDiv:
      if (y == 0) return {};
      return make_int_imm(t, floor_div(x, y));
    case ExprKind::FloorMod:
      if (y == 0) return {};
      return make_int_imm(t, floor_mod(x, y));
    case ExprKind::Min:
      return make_int_imm(t, x < y ? x : y);
    case ExprKind::Max:
      return make_int_imm(t, x > y ? x : y);
    case ExprKind::And:
      return make_int_imm(bool_t, x != 0 && y != 0);
    case ExprKind::Or:
      return make_int_imm(bool_t, x != 0 || y != 0);
    default:
      return {};
  }
}

static Expr fold_float_binary(ExprKind kind, DataType t, double x, double y) {
  DataType bool_t = DataType::boolean();
  if (is_comparison(kind)) return make_int_imm(bool_t, compare_values(kind, x, y));
  switch (kind) {
    case ExprKind::Add:
      return make_float_imm(t, x + y);
    case ExprKind::Sub:
      return make_float_imm(t, x - y);
    case ExprKind::Mul:
      return make_float_imm(t, x * y);
    case ExprKind::Div:
      if (y == 0) return {};
      return make_float_imm(t, x / y);
    case ExprKind::FloorDiv:
      if (y == 0) return {};
      return make_float_imm(t, std::floor(x / y));
    case ExprKind::FloorMod:
      if (y == 0) return {};
      return make_float_imm(t, x - std::floor(x / y) * y);
    case ExprKind::Min:
      if (std::isnan(x) || std::isnan(y)) return {};
      return make_float_imm(t, x < y ? x : y);
    case ExprKind::Max:
      if (std::isnan(x) || std::isnan(y)) return {};
      return make_float_imm(t, x > y ? x : y);
    default:
      return {};
  }
}

static Expr fold_cast(DataType to, const Expr& v) {
  if (!to.is_scalar()) return {};
  DataType from = v.dtype();
  if (auto* i = v.as<IntImmNode>()) {
    i128 x = math_value(from, i->value);
    if (to.is_integer() || to.is_bool()) return make_int_imm(to, x);
    if (foldable_float(to)) return make_float_imm(to, static_cast<double>(x));
    return {};
  }
  if (auto* f = v.as<FloatImmNode>()) {
    double x = f->value;
    if (to.is_bool()) return make_int_imm(to, x != 0.0);
    if (to.is_integer()) {
      if (std::isnan(x)) return {};
      double t = std::trunc(x);
      // Only casts that C defines (the truncated value fits) are folded.
      if (t < static_cast<double>(type_min(to)) || t > static_cast<double>(type_max(to))) return {};
      if (to.bits() == 64 && t >= 9223372036854775807.0 && to.is_int()) return {};
      if (to.bits() == 64 && t >= 18446744073709551615.0) return {};
      if (to.is_uint() && to.bits() == 64)
        return make_int_imm(to, static_cast<i128>(static_cast<uint64_t>(t)));
      return make_int_imm(to, static_cast<i128>(static_cast<int64_t>(t)));
    }
    if (foldable_float(to)) return make_float_imm(to, x);
  }
  return {};
}

Expr fold_constant(const Expr& e) {
  if (!e || !e.dtype().is_scalar()) return {};
  if (auto* b = e.as<BinaryNode>()) {
    DataType ot = b->a.dtype();
    auto *ia = b->a.as<IntImmNode>(), *ib = b->b.as<IntImmNode>();
    if (ia && ib) {
      if (!e.dtype().is_bool() && !e.dtype().is_integer() && !ot.is_integer() && !ot.is_bool())
        return {};
      return fold_int_binary(e.kind(), e.dtype(), math_value(ot, ia->value),
                             math_value(ot, ib->value));
    }
    auto *fa = b->a.as<FloatImmNode>(), *fb = b->b.as<FloatImmNode>();
    if (fa && fb && foldable_float(ot))
      return fold_float_binary(e.kind(), e.dtype(), fa->value, fb->value);
    return {};
  }
  if (auto* n = e.as<NotNode>()) {
    if (auto v = as_const_int(n->a)) return make_int_imm(e.dtype(), *v == 0);
    return {};
  }
  if (auto* c = e.as<CastNode>()) {
    if (c->value.dtype() == e.dtype())
      return c->value.as<IntImmNode>() || c->value.as<FloatImmNode>() ? c->value : Expr{};
    return fold_cast(e.dtype(), c->value);
  }
  if (auto* s = e.as<SelectNode>()) {
    if (auto v = as_const_int(s->cond)) return *v != 0 ? s->true_value : s->false_value;
    return {};
  }
  return {};
}

}  // namespace tirc::arith
