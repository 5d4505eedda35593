// Expressions of lowered TIR as C99 expressions with the interpreter's
// semantics: integers wrap (arithmetic in unsigned, converted back), float32
// +-*/ in float, everything else in double rounded to the result's format,
// vectors evaluated one lane at a time.
#include <string>

#include "codegen/c/c_scope.h"
#include "codegen/c/c_types.h"
#include "ir/buffer.h"
#include "ir/intrinsic.h"

namespace tirc::c_emit {

std::string CScope::fresh_name(const std::string& hint) {
  return sanitize_identifier(hint) + "_" + std::to_string(next_id_++);
}

void CScope::enter(const VarNode* v, CVar info) {
  vars_[v].push_back(std::move(info));
}

void CScope::leave(const VarNode* v) {
  auto it = vars_.find(v);
  if (it == vars_.end()) return;
  it->second.pop_back();
  if (it->second.empty()) vars_.erase(it);
}

const CVar* CScope::find(const VarNode* v) const {
  auto it = vars_.find(v);
  return it == vars_.end() ? nullptr : &it->second.back();
}

std::vector<std::pair<const VarNode*, CVar>> CScope::visible() const {
  std::vector<std::pair<const VarNode*, CVar>> out;
  for (const auto& [v, stack] : vars_) out.emplace_back(v, stack.back());
  return out;
}

namespace {

[[noreturn]] void refuse(const std::string& what, const SourceLoc& loc) {
  throw Error("C emitter: " + what, loc);
}

std::string paren(const std::string& s) {
  return "(" + s + ")";
}

// The unsigned type integer arithmetic of t is done in, so overflow wraps
// instead of being undefined (at least 32 bits: narrower ones promote to int).
std::string wrap_type(DataType t) {
  return t.bits() == 64 ? "uint64_t" : "uint32_t";
}

class ExprEmitter {
 public:
  ExprEmitter(const CScope& scope, const SourceLoc& loc) : scope_(scope), loc_(loc) {}

  std::string emit(const Expr& e, int lane) {
    if (!e) refuse("null expression", loc_);
    const DataType t = e.dtype().element_of();
    if (is_comparison(e.kind())) return compare(*e.as<BinaryNode>(), lane);
    switch (e.kind()) {
      case ExprKind::IntImm:
        return int_literal(t, e.as<IntImmNode>()->value);
      case ExprKind::FloatImm:
        return float_literal(t, e.as<FloatImmNode>()->value);
      case ExprKind::StringImm:
        refuse("string immediate in an expression", loc_);
      case ExprKind::Var:
        return var(*e.as<VarNode>(), lane);
      case ExprKind::BufferLoad:
        return load(*e.as<BufferLoadNode>(), lane);
      case ExprKind::And:
      case ExprKind::Or: {
        auto* b = e.as<BinaryNode>();
        const char* op = e.kind() == ExprKind::And ? " && " : " || ";
        return paren(paren(emit(b->a, lane)) + op + paren(emit(b->b, lane)));
      }
      case ExprKind::Not:
        return paren("!" + paren(emit(e.as<NotNode>()->a, lane)));
      case ExprKind::Cast:
        return cast(t, e.as<CastNode>()->value, lane);
      case ExprKind::Select: {
        auto* s = e.as<SelectNode>();
        return "tirc_select_" + helper_suffix(t) + "(" + emit(s->cond, lane) + ", " +
               emit(s->true_value, lane) + ", " + emit(s->false_value, lane) + ")";
      }
      case ExprKind::Call:
        return call(*e.as<CallNode>(), lane);
      case ExprKind::Ramp:
        return ramp(*e.as<RampNode>(), lane);
      case ExprKind::Broadcast:
        return emit(e.as<BroadcastNode>()->value, 0);
      default:
        break;
    }
    auto* b = e.as<BinaryNode>();
    if (!b) refuse(std::string("expression ") + to_string(e.kind()), loc_);
    if (t.is_float()) return float_binary(e.kind(), t, *b, lane);
    return int_binary(e.kind(), t, *b, lane);
  }

 private:
  std::string var(const VarNode& v, int lane) {
    const CVar* c = scope_.find(&v);
    if (!c)
      refuse("variable " + v.name +
                 " is not defined here (symbolic buffer shapes need a scalar parameter)",
             loc_);
    switch (c->kind) {
      case CVar::Kind::Scalar:
        return c->name;
      case CVar::Kind::Vector:
        return c->name + "[" + std::to_string(lane) + "]";
      case CVar::Kind::Handle:
        break;
    }
    refuse("handle variable " + v.name + " used as a value", loc_);
  }

  std::string load(const BufferLoadNode& l, int lane) {
    if (l.indices.size() != 1)
      refuse("buffer " + l.buffer->name + " is accessed with " + std::to_string(l.indices.size()) +
                 " indices; the lowered form has flat (1-D) buffers (run lower() first)",
             loc_);
    const std::string element = buffer_element(scope_, l.buffer, emit(l.indices[0], lane), loc_);
    return from_storage(l.buffer->dtype, element);
  }

  std::string compare(const BinaryNode& b, int lane) {
    const char* op = b.kind == ExprKind::EQ   ? " == "
                     : b.kind == ExprKind::NE ? " != "
                     : b.kind == ExprKind::LT ? " < "
                     : b.kind == ExprKind::LE ? " <= "
                     : b.kind == ExprKind::GT ? " > "
                                              : " >= ";
    return paren(paren(emit(b.a, lane)) + op + paren(emit(b.b, lane)));
  }

  std::string int_binary(ExprKind k, DataType t, const BinaryNode& b, int lane) {
    const std::string x = emit(b.a, lane), y = emit(b.b, lane);
    const std::string vt = value_type(t), s = helper_suffix(t);
    auto wrapping = [&](const char* op) {
      const std::string u = wrap_type(t);
      return "((" + vt + ")((" + u + ")" + paren(x) + op + "(" + u + ")" + paren(y) + "))";
    };
    auto helper = [&](const std::string& name) {
      return "tirc_" + name + "_" + s + "(" + x + ", " + y + ")";
    };
    if (t.is_bool() && k != ExprKind::Min && k != ExprKind::Max)
      refuse(std::string("arithmetic ") + to_string(k) + " on bool", loc_);
    switch (k) {
      case ExprKind::Add:
        return wrapping(" + ");
      case ExprKind::Sub:
        return wrapping(" - ");
      case ExprKind::Mul:
        return wrapping(" * ");
      case ExprKind::Div:
        return helper("truncdiv");
      case ExprKind::Mod:
        return helper("truncmod");
      case ExprKind::FloorDiv:
        return helper("floordiv");
      case ExprKind::FloorMod:
        return helper("floormod");
      case ExprKind::Min:
        return helper("min");
      case ExprKind::Max:
        return helper("max");
      default:
        break;
    }
    refuse(std::string("integer operation ") + to_string(k), loc_);
  }

  std::string float_binary(ExprKind k, DataType t, const BinaryNode& b, int lane) {
    const std::string x = emit(b.a, lane), y = emit(b.b, lane);
    const bool native = value_type(t) == "float" || (t.bits() == 64 && !is_narrow_float(t));
    // float32 and float64 + - * / in their own precision equal the exact
    // result rounded once, which is what the interpreter computes.
    auto arith = [&](const char* op) {
      std::string r = paren(paren(x) + op + paren(y));
      return native ? r : round_function(t) + r;
    };
    auto in_double = [&](const std::string& fn, bool two) {
      std::string r = fn + "((double)" + paren(x) + (two ? ", (double)" + paren(y) : "") + ")";
      return rounded(t, r);
    };
    switch (k) {
      case ExprKind::Add:
        return arith(" + ");
      case ExprKind::Sub:
        return arith(" - ");
      case ExprKind::Mul:
        return arith(" * ");
      case ExprKind::Div:
        return arith(" / ");
      case ExprKind::Mod:
        return in_double("fmod", true);
      case ExprKind::FloorDiv:
        return in_double("tirc_floordiv_f", true);
      case ExprKind::FloorMod:
        return in_double("tirc_floormod_f", true);
      case ExprKind::Min:
        return "tirc_min_" + helper_suffix(t) + "(" + x + ", " + y + ")";
      case ExprKind::Max:
        return "tirc_max_" + helper_suffix(t) + "(" + x + ", " + y + ")";
      default:
        break;
    }
    refuse(std::string("float operation ") + to_string(k), loc_);
  }

  // A double-valued C expression rounded to float type t, as value_type(t).
  static std::string rounded(DataType t, const std::string& d) {
    if (value_type(t) == "float") return "((float)" + d + ")";
    if (is_narrow_float(t)) return round_function(t) + "(" + d + ")";
    return d;
  }

  std::string cast(DataType to, const Expr& v, int lane) {
    const DataType from = v.dtype().element_of();
    const std::string x = emit(v, lane);
    if (to.is_bool()) return paren(paren(x) + " != 0");
    if (to.is_integer()) {
      if (from.is_float())
        return "tirc_f2i_" + helper_suffix(to) + "((double)" + paren(x) + ", " +
               std::to_string(to.bits()) + ")";
      return "((" + value_type(to) + ")" + paren(x) + ")";
    }
    if (!to.is_float()) refuse("cast to " + to.str(), loc_);
    if (from.is_float() || from.is_bool()) return rounded(to, "((double)" + paren(x) + ")");
    // Integers convert to float32 directly (one rounding, as the interpreter
    // does); other formats go through double like the interpreter.
    if (value_type(to) == "float") return "((float)" + paren(x) + ")";
    return rounded(to, "((double)" + paren(x) + ")");
  }

  std::string call(const CallNode& c, int lane) {
    const Intrinsic* in = find_intrinsic(c, Backend::C);
    const DataType t = c.dtype.element_of();
    auto arity = [&](size_t n) {
      if (c.args.size() != n)
        refuse("intrinsic " + c.op + " expects " + std::to_string(n) + " arguments, got " +
                   std::to_string(c.args.size()),
               loc_);
    };
    auto arg = [&](size_t i) { return emit(c.args[i], lane); };
    if (!in) refuse("unknown intrinsic " + c.op + " of type " + c.dtype.str(), loc_);
    if (in->id == IntrinsicId::IfThenElse) {
      arity(3);
      std::string s = paren(arg(0));
      s += " ? ";
      s += paren(arg(1));
      s += " : ";
      s += paren(arg(2));
      return paren(s);
    }
    const std::string fn = in->c_function ? in->c_function : "";
    if (t.is_float() && (in->unary || in->binary)) {
      // Float math: the C library's double function, rounded to t.
      arity(static_cast<size_t>(in->arity));
      std::string x = fn + "((double)" + paren(arg(0));
      if (in->binary) x += ", (double)" + paren(arg(1));
      return rounded(t, x + ")");
    }
    if (t.is_bool() && in->predicate) {
      arity(1);
      return "(" + fn + "((double)" + paren(arg(0)) + ") != 0)";
    }
    if (t.is_integer() && in->on_integers()) {
      const std::string s = helper_suffix(t), vt = value_type(t);
      auto bits = [&](const char* op) {
        arity(2);
        return "((" + vt + ")(" + paren(arg(0)) + op + paren(arg(1)) + "))";
      };
      auto shift = [&](const char* helper) {
        arity(2);
        return helper + s + "(" + arg(0) + ", (int64_t)" + paren(arg(1)) + ")";
      };
      switch (in->id) {
        case IntrinsicId::Abs:
          arity(1);
          return "tirc_abs_" + s + "(" + arg(0) + ")";
        case IntrinsicId::BitwiseNot:
          arity(1);
          return "((" + vt + ")~" + paren(arg(0)) + ")";
        case IntrinsicId::BitwiseAnd:
          return bits(" & ");
        case IntrinsicId::BitwiseOr:
          return bits(" | ");
        case IntrinsicId::BitwiseXor:
          return bits(" ^ ");
        case IntrinsicId::ShiftLeft:
          return shift("tirc_shl_");
        case IntrinsicId::ShiftRight:
          return shift("tirc_shr_");
        default:
          break;
      }
    }
    refuse("unknown intrinsic " + c.op + " of type " + c.dtype.str(), loc_);
  }

  std::string ramp(const RampNode& r, int lane) {
    const DataType t = r.dtype.element_of();
    const std::string base = emit(r.base, 0), stride = emit(r.stride, 0);
    const std::string l = std::to_string(lane);
    if (t.is_integer())
      return "((" + value_type(t) + ")((uint64_t)" + paren(base) + " + (uint64_t)" + l +
             " * (uint64_t)" + paren(stride) + "))";
    if (!t.is_float()) refuse("ramp of " + t.str(), loc_);
    if (value_type(t) == "float")
      return paren(paren(base) + " + (float)" + l + " * " + paren(stride));
    if (!is_narrow_float(t)) return paren(paren(base) + " + (double)" + l + " * " + paren(stride));
    const std::string f = round_function(t);
    return f + "(" + paren(base) + " + " + f + "((double)" + l + " * " + paren(stride) + "))";
  }

  const CScope& scope_;
  const SourceLoc& loc_;
};

}  // namespace

std::string emit_expr(const CScope& scope, const Expr& e, int lane, const SourceLoc& loc) {
  return ExprEmitter(scope, loc).emit(e, lane);
}

std::string buffer_element(const CScope& scope, const Buffer& b, const std::string& index,
                           const SourceLoc& loc) {
  if (b->dtype.is_vector())
    refuse("buffer " + b->name + " has vector element type " + b->dtype.str(), loc);
  if (b->shape.size() != 1 || (b->elem_offset && !is_const_int(b->elem_offset, 0)) ||
      (!b->strides.empty() && !is_const_int(b->strides[0], 1)))
    refuse("buffer " + b->name + " is not flat (1-D, compact, offset 0): run lower() first", loc);
  const CVar* data = scope.find(b->data.get());
  if (!data || data->kind != CVar::Kind::Handle)
    refuse("storage of buffer " + b->name + " is not defined here", loc);
  const std::string st = storage_type(b->dtype);
  const std::string ptr = data->pointee == st ? data->name : "((" + st + "*)" + data->name + ")";
  return ptr + "[" + index + "]";
}

std::string from_storage(DataType t, const std::string& element) {
  if (t.is_bool()) return "(" + element + " != 0)";
  if (t.code() == DataType::Code::BFloat) return "tirc_decode_bf16(" + element + ")";
  if (is_narrow_float(t)) return "tirc_decode_f16(" + element + ")";
  return element;
}

std::string to_storage(DataType t, const std::string& value) {
  if (t.is_bool()) return "(uint8_t)((" + value + ") != 0)";
  if (t.code() == DataType::Code::BFloat) return "tirc_encode_bf16(" + value + ")";
  if (is_narrow_float(t)) return "tirc_encode_f16(" + value + ")";
  return value;
}

}  // namespace tirc::c_emit
