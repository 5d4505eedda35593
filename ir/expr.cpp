#include "ir/expr.h"

#include <string_view>

#include "ir/buffer.h"

namespace tirc {

const char* to_string(ExprKind kind) {
  switch (kind) {
    case ExprKind::IntImm: return "IntImm";
    case ExprKind::FloatImm: return "FloatImm";
    case ExprKind::StringImm: return "StringImm";
    case ExprKind::Var: return "Var";
    case ExprKind::BufferLoad: return "BufferLoad";
    case ExprKind::Add: return "Add";
    case ExprKind::Sub: return "Sub";
    case ExprKind::Mul: return "Mul";
    case ExprKind::Div: return "Div";
    case ExprKind::Mod: return "Mod";
    case ExprKind::FloorDiv: return "FloorDiv";
    case ExprKind::FloorMod: return "FloorMod";
    case ExprKind::Min: return "Min";
    case ExprKind::Max: return "Max";
    case ExprKind::EQ: return "EQ";
    case ExprKind::NE: return "NE";
    case ExprKind::LT: return "LT";
    case ExprKind::LE: return "LE";
    case ExprKind::GT: return "GT";
    case ExprKind::GE: return "GE";
    case ExprKind::And: return "And";
    case ExprKind::Or: return "Or";
    case ExprKind::Not: return "Not";
    case ExprKind::Cast: return "Cast";
    case ExprKind::Select: return "Select";
    case ExprKind::Call: return "Call";
    case ExprKind::Ramp: return "Ramp";
    case ExprKind::Broadcast: return "Broadcast";
  }
  return "?";
}

std::string intrinsic_name(const CallNode& c) {
  std::string_view op = c.op;
  if (op.starts_with("tir.")) op.remove_prefix(4);
  if (op.starts_with("T.")) op.remove_prefix(2);
  return std::string(op);
}

bool is_comparison(ExprKind kind) {
  return kind >= ExprKind::EQ && kind <= ExprKind::GE;
}

ExprKind negated_comparison(ExprKind kind) {
  switch (kind) {
    case ExprKind::EQ: return ExprKind::NE;
    case ExprKind::NE: return ExprKind::EQ;
    case ExprKind::LT: return ExprKind::GE;
    case ExprKind::LE: return ExprKind::GT;
    case ExprKind::GT: return ExprKind::LE;
    case ExprKind::GE: return ExprKind::LT;
    default: return kind;
  }
}

ExprKind mirrored_comparison(ExprKind kind) {
  switch (kind) {
    case ExprKind::LT: return ExprKind::GT;
    case ExprKind::LE: return ExprKind::GE;
    case ExprKind::GT: return ExprKind::LT;
    case ExprKind::GE: return ExprKind::LE;
    default: return kind;
  }
}

Expr::Expr(int value) : node_(make_int(value).ptr()) {}

Expr make_int(int64_t value, DataType t) {
  if (!(t.is_integer() || t.is_bool()) || t.is_vector())
    throw Error("integer immediate of non-integer type " + t.str());
  return std::make_shared<const IntImmNode>(t, value);
}

Expr make_float(double value, DataType t) {
  if (!t.is_float() || t.is_vector()) throw Error("float immediate of non-float type " + t.str());
  return std::make_shared<const FloatImmNode>(t, value);
}

Expr make_bool(bool value) { return std::make_shared<const IntImmNode>(DataType::boolean(), value ? 1 : 0); }

Expr make_string(std::string value) { return std::make_shared<const StringImmNode>(std::move(value)); }

Expr make_const(DataType t, double value) {
  if (t.is_float()) return make_float(value, t);
  if (t.is_bool()) return make_bool(value != 0);
  return make_int(static_cast<int64_t>(value), t);
}

Var make_var(std::string name, DataType t) { return std::make_shared<const VarNode>(std::move(name), t); }

Expr make_load(Buffer buffer, std::vector<Expr> indices) {
  if (!buffer) throw Error("load from a null buffer");
  int lanes = 1;
  for (const Expr& i : indices) {
    if (!i) throw Error("load from " + buffer->name + " with a null index");
    if (!i.dtype().is_integer())
      throw Error("index of " + buffer->name + " has non-integer type " + i.dtype().str());
    if (i.dtype().lanes() > 1) {
      if (lanes > 1 && lanes != i.dtype().lanes())
        throw Error("indices of " + buffer->name + " have different lane counts");
      lanes = i.dtype().lanes();
    }
  }
  DataType t = buffer->dtype.with_lanes(buffer->dtype.lanes() * lanes);
  return std::make_shared<const BufferLoadNode>(t, std::move(buffer), std::move(indices));
}

static void check_operands(ExprKind kind, const Expr& a, const Expr& b) {
  if (!a || !b) throw Error(std::string("null operand of ") + to_string(kind));
  if (a.dtype() != b.dtype())
    throw Error(std::string("operands of ") + to_string(kind) + " have different types: " +
                a.dtype().str() + " and " + b.dtype().str());
}

Expr make_binary(ExprKind kind, Expr a, Expr b) {
  check_operands(kind, a, b);
  DataType t = a.dtype();
  switch (kind) {
    case ExprKind::Add: case ExprKind::Sub: case ExprKind::Mul: case ExprKind::Div:
    case ExprKind::Min: case ExprKind::Max:
      if (t.is_bool() || t.is_handle())
        throw Error(std::string(to_string(kind)) + " of non-numeric type " + t.str());
      break;
    case ExprKind::Mod: case ExprKind::FloorDiv: case ExprKind::FloorMod:
      if (t.is_bool() || t.is_handle())
        throw Error(std::string(to_string(kind)) + " of non-numeric type " + t.str());
      break;
    case ExprKind::EQ: case ExprKind::NE: case ExprKind::LT: case ExprKind::LE:
    case ExprKind::GT: case ExprKind::GE:
      t = DataType::boolean().with_lanes(t.lanes());
      break;
    case ExprKind::And: case ExprKind::Or:
      if (!t.is_bool()) throw Error(std::string(to_string(kind)) + " of non-bool type " + t.str());
      break;
    default:
      throw Error(std::string("make_binary: ") + to_string(kind) + " is not a binary operator");
  }
  return std::make_shared<const BinaryNode>(kind, t, std::move(a), std::move(b));
}

Expr make_not(Expr a) {
  if (!a || !a.dtype().is_bool()) throw Error("Not of non-bool operand");
  DataType t = a.dtype();
  return std::make_shared<const NotNode>(t, std::move(a));
}

Expr make_cast(DataType t, Expr value) {
  if (!value) throw Error("cast of null value");
  if (t.lanes() != value.dtype().lanes())
    throw Error("cast from " + value.dtype().str() + " to " + t.str() + " changes the lane count");
  return std::make_shared<const CastNode>(t, std::move(value));
}

Expr make_select(Expr cond, Expr t, Expr f) {
  if (!cond || !cond.dtype().is_bool()) throw Error("Select condition is not bool");
  check_operands(ExprKind::Select, t, f);
  DataType dt = t.dtype();
  return std::make_shared<const SelectNode>(dt, std::move(cond), std::move(t), std::move(f));
}

Expr make_call(DataType t, std::string op, std::vector<Expr> args) {
  for (const Expr& a : args)
    if (!a) throw Error("null argument of call to " + op);
  return std::make_shared<const CallNode>(t, std::move(op), std::move(args));
}

Expr make_ramp(Expr base, Expr stride, int lanes) {
  if (!base || !stride) throw Error("Ramp with null operand");
  if (lanes < 2) throw Error("Ramp needs at least 2 lanes");
  check_operands(ExprKind::Ramp, base, stride);
  if (!base.dtype().is_scalar()) throw Error("Ramp base must be scalar");
  DataType t = base.dtype().with_lanes(lanes);
  return std::make_shared<const RampNode>(t, std::move(base), std::move(stride), lanes);
}

Expr make_broadcast(Expr value, int lanes) {
  if (!value) throw Error("Broadcast of null value");
  if (lanes < 2) throw Error("Broadcast needs at least 2 lanes");
  if (!value.dtype().is_scalar()) throw Error("Broadcast value must be scalar");
  DataType t = value.dtype().with_lanes(lanes);
  return std::make_shared<const BroadcastNode>(t, std::move(value), lanes);
}

Expr min(Expr a, Expr b) { return make_binary(ExprKind::Min, std::move(a), std::move(b)); }
Expr max(Expr a, Expr b) { return make_binary(ExprKind::Max, std::move(a), std::move(b)); }
Expr floordiv(Expr a, Expr b) { return make_binary(ExprKind::FloorDiv, std::move(a), std::move(b)); }
Expr floormod(Expr a, Expr b) { return make_binary(ExprKind::FloorMod, std::move(a), std::move(b)); }
Expr truncdiv(Expr a, Expr b) { return make_binary(ExprKind::Div, std::move(a), std::move(b)); }
Expr truncmod(Expr a, Expr b) { return make_binary(ExprKind::Mod, std::move(a), std::move(b)); }

// An immediate on one side adopts the other side's type, as literals do in
// TVMScript, so `i64_var + 1` is well typed.
static void adopt_literal(Expr& a, Expr& b) {
  if (!a || !b || a.dtype() == b.dtype()) return;
  auto convert = [](const Expr& imm, DataType t) -> Expr {
    if (!t.is_scalar()) return imm;
    if (auto* i = imm.as<IntImmNode>()) return make_const(t, static_cast<double>(i->value));
    if (auto* f = imm.as<FloatImmNode>(); f && t.is_float()) return make_float(f->value, t);
    return imm;
  };
  bool a_imm = a.as<IntImmNode>() || a.as<FloatImmNode>();
  bool b_imm = b.as<IntImmNode>() || b.as<FloatImmNode>();
  if (b_imm && !a_imm) b = convert(b, a.dtype());
  else if (a_imm && !b_imm) a = convert(a, b.dtype());
}

static Expr binop(ExprKind kind, Expr a, Expr b) {
  adopt_literal(a, b);
  return make_binary(kind, std::move(a), std::move(b));
}

Expr operator+(Expr a, Expr b) { return binop(ExprKind::Add, std::move(a), std::move(b)); }
Expr operator-(Expr a, Expr b) { return binop(ExprKind::Sub, std::move(a), std::move(b)); }
Expr operator*(Expr a, Expr b) { return binop(ExprKind::Mul, std::move(a), std::move(b)); }
Expr operator/(Expr a, Expr b) { return binop(ExprKind::Div, std::move(a), std::move(b)); }
Expr operator==(Expr a, Expr b) { return binop(ExprKind::EQ, std::move(a), std::move(b)); }
Expr operator!=(Expr a, Expr b) { return binop(ExprKind::NE, std::move(a), std::move(b)); }
Expr operator<(Expr a, Expr b) { return binop(ExprKind::LT, std::move(a), std::move(b)); }
Expr operator<=(Expr a, Expr b) { return binop(ExprKind::LE, std::move(a), std::move(b)); }
Expr operator>(Expr a, Expr b) { return binop(ExprKind::GT, std::move(a), std::move(b)); }
Expr operator>=(Expr a, Expr b) { return binop(ExprKind::GE, std::move(a), std::move(b)); }
Expr logical_and(Expr a, Expr b) { return make_binary(ExprKind::And, std::move(a), std::move(b)); }
Expr logical_or(Expr a, Expr b) { return make_binary(ExprKind::Or, std::move(a), std::move(b)); }

std::optional<int64_t> as_const_int(const Expr& e) {
  if (auto* i = e.as<IntImmNode>()) return i->value;
  return std::nullopt;
}

bool is_const_int(const Expr& e, int64_t value) {
  auto v = as_const_int(e);
  return v && *v == value;
}

}  // namespace tirc
