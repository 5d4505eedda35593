// Expressions: one small node type per operation family, split into an
// integer/bool path (int64 values wrapped to their width) and a float path
// (double values rounded to their dtype after every operation).
#include <cmath>
#include <cstring>
#include <string>
#include <type_traits>

#include "ir/buffer.h"
#include "ir/eval/compile.h"
#include "ir/eval/numeric.h"
#include "ir/intrinsic.h"

namespace tirc::eval {

namespace {

enum class Rounding { F16, BF16, F32, F64 };

Rounding rounding_of(DataType t) {
  if (t.code() == DataType::Code::BFloat) return Rounding::BF16;
  if (t.bits() == 16) return Rounding::F16;
  if (t.bits() == 32) return Rounding::F32;
  return Rounding::F64;
}

inline double round_as(Rounding r, double x) {
  switch (r) {
    case Rounding::F32:
      return static_cast<double>(static_cast<float>(x));
    case Rounding::F64:
      return x;
    case Rounding::F16:
      return numeric::decode_half(numeric::encode_half(x));
    case Rounding::BF16:
      return numeric::decode_bfloat(numeric::encode_bfloat(x));
  }
  return x;
}

bool is_u64(DataType t) {
  return t.is_uint() && t.bits() == 64;
}

[[noreturn]] void division_by_zero(const char* what, const Where* where) {
  throw Error(std::string(what) + " by zero" + (where ? where->describe() : ""),
              where ? where->loc : SourceLoc{});
}

// ---- leaves ----------------------------------------------------------------

struct IConst final : IExpr {
  int64_t value;
  explicit IConst(int64_t v) : value(v) {}
  int64_t eval(Frame&, int) const override { return value; }
};
struct FConst final : FExpr {
  double value;
  explicit FConst(double v) : value(v) {}
  double eval(Frame&, int) const override { return value; }
};
struct IVar final : IExpr {
  int slot;
  explicit IVar(int s) : slot(s) {}
  int64_t eval(Frame& f, int) const override { return f.ints[slot]; }
};
struct IVectorVar final : IExpr {
  int slot;
  explicit IVectorVar(int s) : slot(s) {}
  int64_t eval(Frame& f, int lane) const override { return f.ints[slot + lane]; }
};
struct FVar final : FExpr {
  int slot;
  explicit FVar(int s) : slot(s) {}
  double eval(Frame& f, int) const override { return f.floats[slot]; }
};
struct FVectorVar final : FExpr {
  int slot;
  explicit FVectorVar(int s) : slot(s) {}
  double eval(Frame& f, int lane) const override { return f.floats[slot + lane]; }
};

// Loads; `Checked` ones (checking mode) also tell the race checker.
template <bool Checked>
struct ILoad final : IExpr {
  Access access;
  int64_t eval(Frame& f, int lane) const override {
    return numeric::load_int(access.elem, access.at<Checked>(f, lane));
  }
};
template <bool Checked>
struct F32Load final : FExpr {
  Access access;
  double eval(Frame& f, int lane) const override {
    float v;
    std::memcpy(&v, access.at<Checked>(f, lane), 4);
    return v;
  }
};
template <bool Checked>
struct FLoad final : FExpr {
  Access access;
  double eval(Frame& f, int lane) const override {
    return numeric::load_float(access.elem, access.at<Checked>(f, lane));
  }
};

// A node of type Node<Checked> for the context's mode, over `access`.
template <template <bool> class Node>
auto make_load(const CompileContext& cx, Access access) {
  using Base = std::conditional_t<std::is_base_of_v<IExpr, Node<false>>, IExpr, FExpr>;
  std::unique_ptr<Base> n;
  if (cx.checking) {
    auto c = std::make_unique<Node<true>>();
    c->access = std::move(access);
    n = std::move(c);
  } else {
    auto c = std::make_unique<Node<false>>();
    c->access = std::move(access);
    n = std::move(c);
  }
  return n;
}

// ---- arithmetic --------------------------------------------------------------

struct IBinary final : IExpr {
  ExprKind op;
  DataType type;
  bool unsigned64;
  IExprPtr a, b;
  const Where* where;
  int64_t eval(Frame& f, int lane) const override {
    const int64_t x = a->eval(f, lane), y = b->eval(f, lane);
    const uint64_t ux = static_cast<uint64_t>(x), uy = static_cast<uint64_t>(y);
    switch (op) {
      case ExprKind::Add:
        return numeric::wrap_int(type, static_cast<int64_t>(ux + uy));
      case ExprKind::Sub:
        return numeric::wrap_int(type, static_cast<int64_t>(ux - uy));
      case ExprKind::Mul:
        return numeric::wrap_int(type, static_cast<int64_t>(ux * uy));
      case ExprKind::Div:
      case ExprKind::FloorDiv: {
        if (y == 0) division_by_zero("division", where);
        if (unsigned64) return static_cast<int64_t>(ux / uy);
        if (y == -1) return numeric::wrap_int(type, static_cast<int64_t>(0 - ux));
        int64_t q = x / y;
        if (op == ExprKind::FloorDiv && x % y != 0 && ((x < 0) != (y < 0))) --q;
        return numeric::wrap_int(type, q);
      }
      case ExprKind::Mod:
      case ExprKind::FloorMod: {
        if (y == 0) division_by_zero("modulo", where);
        if (unsigned64) return static_cast<int64_t>(ux % uy);
        if (y == -1) return 0;
        int64_t r = x % y;
        if (op == ExprKind::FloorMod && r != 0 && ((r < 0) != (y < 0))) r += y;
        return r;
      }
      case ExprKind::Min:
        return (unsigned64 ? ux < uy : x < y) ? x : y;
      case ExprKind::Max:
        return (unsigned64 ? ux > uy : x > y) ? x : y;
      case ExprKind::And:
        return (x != 0) && (y != 0);
      case ExprKind::Or:
        return (x != 0) || (y != 0);
      default:
        return 0;  // rejected at compile time
    }
  }
};

struct FBinary final : FExpr {
  ExprKind op;
  Rounding rounding;
  FExprPtr a, b;
  double eval(Frame& f, int lane) const override {
    const double x = a->eval(f, lane), y = b->eval(f, lane);
    double r = 0;
    switch (op) {
      case ExprKind::Add:
        r = x + y;
        break;
      case ExprKind::Sub:
        r = x - y;
        break;
      case ExprKind::Mul:
        r = x * y;
        break;
      case ExprKind::Div:
        r = x / y;
        break;
      case ExprKind::Mod:
        r = std::fmod(x, y);
        break;
      case ExprKind::FloorDiv:
        r = std::floor(x / y);
        break;
      case ExprKind::FloorMod:
        r = x - std::floor(x / y) * y;
        break;
      case ExprKind::Min:
        r = x < y ? x : y;
        break;
      case ExprKind::Max:
        r = x > y ? x : y;
        break;
      default:
        break;
    }
    return round_as(rounding, r);
  }
};

struct ICompare final : IExpr {
  ExprKind op;
  bool unsigned64;
  IExprPtr a, b;
  int64_t eval(Frame& f, int lane) const override {
    int64_t x = a->eval(f, lane), y = b->eval(f, lane);
    if (unsigned64) return compare_values(op, static_cast<uint64_t>(x), static_cast<uint64_t>(y));
    return compare_values(op, x, y);
  }
};
struct FCompare final : IExpr {
  ExprKind op;
  FExprPtr a, b;
  int64_t eval(Frame& f, int lane) const override {
    return compare_values(op, a->eval(f, lane), b->eval(f, lane));
  }
};

struct INot final : IExpr {
  IExprPtr a;
  int64_t eval(Frame& f, int lane) const override { return a->eval(f, lane) == 0; }
};

// ---- casts -------------------------------------------------------------------

struct IFromInt final : IExpr {
  DataType to;
  IExprPtr a;
  int64_t eval(Frame& f, int lane) const override {
    return numeric::wrap_int(to, a->eval(f, lane));
  }
};
struct IFromFloat final : IExpr {
  DataType to;
  FExprPtr a;
  int64_t eval(Frame& f, int lane) const override {
    return numeric::float_to_int(to, a->eval(f, lane));
  }
};
struct FFromInt final : FExpr {
  DataType from, to;
  IExprPtr a;
  double eval(Frame& f, int lane) const override {
    return numeric::int_to_float(from, a->eval(f, lane), to);
  }
};
struct FFromFloat final : FExpr {
  Rounding rounding;
  FExprPtr a;
  double eval(Frame& f, int lane) const override { return round_as(rounding, a->eval(f, lane)); }
};

// ---- choice ------------------------------------------------------------------

// Select evaluates both sides (the IR says so); if_then_else only the taken one.
template <class Base, class Ptr, class Value>
struct Choice final : Base {
  bool eager;
  IExprPtr cond;
  Ptr then_value, else_value;
  Value eval(Frame& f, int lane) const override {
    if (eager) {
      Value t = then_value->eval(f, lane);
      Value e = else_value->eval(f, lane);
      return cond->eval(f, lane) ? t : e;
    }
    return cond->eval(f, lane) ? then_value->eval(f, lane) : else_value->eval(f, lane);
  }
};

// ---- vectors -----------------------------------------------------------------

struct IRamp final : IExpr {
  DataType type;
  IExprPtr base, stride;
  int64_t eval(Frame& f, int lane) const override {
    uint64_t v = static_cast<uint64_t>(base->eval(f, 0)) +
                 static_cast<uint64_t>(lane) * static_cast<uint64_t>(stride->eval(f, 0));
    return numeric::wrap_int(type, static_cast<int64_t>(v));
  }
};
struct FRamp final : FExpr {
  Rounding rounding;
  FExprPtr base, stride;
  double eval(Frame& f, int lane) const override {
    return round_as(rounding, base->eval(f, 0) + round_as(rounding, lane * stride->eval(f, 0)));
  }
};
struct IBroadcast final : IExpr {
  IExprPtr value;
  int64_t eval(Frame& f, int) const override { return value->eval(f, 0); }
};
struct FBroadcast final : FExpr {
  FExprPtr value;
  double eval(Frame& f, int) const override { return value->eval(f, 0); }
};

// ---- intrinsics --------------------------------------------------------------

using Unary = double (*)(double);
using BinaryFn = double (*)(double, double);

struct FUnaryCall final : FExpr {
  Unary fn;
  Rounding rounding;
  FExprPtr a;
  double eval(Frame& f, int lane) const override {
    return round_as(rounding, fn(a->eval(f, lane)));
  }
};
struct FBinaryCall final : FExpr {
  BinaryFn fn;
  Rounding rounding;
  FExprPtr a, b;
  double eval(Frame& f, int lane) const override {
    return round_as(rounding, fn(a->eval(f, lane), b->eval(f, lane)));
  }
};
struct FPredicateCall final : IExpr {
  bool (*fn)(double);
  FExprPtr a;
  int64_t eval(Frame& f, int lane) const override { return fn(a->eval(f, lane)); }
};
// The integer operations the interpreter takes (Backend::Interpreter in the
// registry).
struct IIntrinsic final : IExpr {
  IntrinsicId op;
  DataType type;
  IExprPtr a, b;
  int64_t eval(Frame& f, int lane) const override {
    int64_t x = a->eval(f, lane);
    uint64_t ux = static_cast<uint64_t>(x);
    auto y = [&] { return b->eval(f, lane); };
    switch (op) {
      case IntrinsicId::Abs:
        return numeric::wrap_int(type, x < 0 && !type.is_uint() ? static_cast<int64_t>(0 - ux) : x);
      case IntrinsicId::BitwiseAnd:
        return x & y();
      case IntrinsicId::BitwiseOr:
        return x | y();
      case IntrinsicId::BitwiseXor:
        return x ^ y();
      case IntrinsicId::BitwiseNot:
        return numeric::wrap_int(type, ~x);
      case IntrinsicId::ShiftLeft: {
        int64_t s = y();
        return s < 0 || s >= 64 ? 0 : numeric::wrap_int(type, static_cast<int64_t>(ux << s));
      }
      case IntrinsicId::ShiftRight: {
        int64_t s = y();
        if (s < 0 || s >= 64) return type.is_uint() || x >= 0 ? 0 : -1;
        if (type.is_uint()) return static_cast<int64_t>(ux >> s);
        return x >= 0 ? x >> s : ~(~x >> s);
      }
      default:
        break;
    }
    return 0;
  }
};

[[noreturn]] void unsupported(const CompileContext& cx, const std::string& what) {
  const Where* w = cx.where();
  throw Error("interpreter: " + what + (w ? w->describe() : ""), w ? w->loc : SourceLoc{});
}

void check_arity(const CompileContext& cx, const CallNode& c, size_t n) {
  if (c.args.size() != n)
    unsupported(cx, "intrinsic " + c.op + " expects " + std::to_string(n) + " arguments, got " +
                        std::to_string(c.args.size()));
}

IExprPtr compile_int_call(CompileContext& cx, const CallNode& c) {
  const Intrinsic* in = find_intrinsic(c, Backend::Interpreter);
  if (in && in->id == IntrinsicId::IfThenElse) {
    check_arity(cx, c, 3);
    auto n = std::make_unique<Choice<IExpr, IExprPtr, int64_t>>();
    n->eager = false;
    n->cond = compile_int(cx, c.args[0]);
    n->then_value = compile_int(cx, c.args[1]);
    n->else_value = compile_int(cx, c.args[2]);
    return n;
  }
  if (in && in->predicate) {
    check_arity(cx, c, 1);
    auto n = std::make_unique<FPredicateCall>();
    n->fn = in->predicate;
    n->a = compile_float(cx, c.args[0]);
    return n;
  }
  if (in && in->on_integers()) {
    check_arity(cx, c, static_cast<size_t>(in->arity));
    auto n = std::make_unique<IIntrinsic>();
    n->op = in->id;
    n->type = c.dtype.element_of();
    n->a = compile_int(cx, c.args[0]);
    if (in->arity == 2) n->b = compile_int(cx, c.args[1]);
    return n;
  }
  unsupported(cx, "unknown intrinsic " + c.op + " of type " + c.dtype.str());
}

FExprPtr compile_float_call(CompileContext& cx, const CallNode& c) {
  const Intrinsic* in = find_intrinsic(c, Backend::Interpreter);
  const Rounding r = rounding_of(c.dtype);
  if (in && in->id == IntrinsicId::IfThenElse) {
    check_arity(cx, c, 3);
    auto n = std::make_unique<Choice<FExpr, FExprPtr, double>>();
    n->eager = false;
    n->cond = compile_int(cx, c.args[0]);
    n->then_value = compile_float(cx, c.args[1]);
    n->else_value = compile_float(cx, c.args[2]);
    return n;
  }
  if (in && in->unary) {
    check_arity(cx, c, 1);
    auto n = std::make_unique<FUnaryCall>();
    n->fn = in->unary;
    n->rounding = r;
    n->a = compile_float(cx, c.args[0]);
    return n;
  }
  if (in && in->binary) {
    check_arity(cx, c, 2);
    auto n = std::make_unique<FBinaryCall>();
    n->fn = in->binary;
    n->rounding = r;
    n->a = compile_float(cx, c.args[0]);
    n->b = compile_float(cx, c.args[1]);
    return n;
  }
  unsupported(cx, "unknown intrinsic " + c.op + " of type " + c.dtype.str());
}

bool is_int_like(DataType t) {
  return t.is_integer() || t.is_bool();
}

}  // namespace

Access compile_access(CompileContext& cx, const Buffer& buffer, const std::vector<Expr>& indices,
                      bool store) {
  if (buffer->dtype.is_vector())
    unsupported(cx, "buffer " + buffer->name + " has vector element type");
  if (indices.size() != buffer->shape.size())
    unsupported(cx, "buffer " + buffer->name + " has " + std::to_string(buffer->shape.size()) +
                        " dimensions but is accessed with " + std::to_string(indices.size()) +
                        " indices");
  Access a;
  a.view = cx.view_for_access(buffer);
  a.elem = buffer->dtype;
  a.buffer_name = buffer->name;
  a.gpu_block_own = buffer->scope == "shared";
  a.where = cx.where();
  a.is_store = store;
  for (const Expr& i : indices) a.indices.push_back(compile_int(cx, i));
  return a;
}

IExprPtr compile_int(CompileContext& cx, const Expr& e) {
  if (!e) unsupported(cx, "null expression");
  const DataType t = e.dtype();
  if (!is_int_like(t))
    unsupported(cx, std::string(to_string(e.kind())) + " of type " + t.str() +
                        " where an integer is expected");
  if (is_comparison(e.kind())) {
    auto* b = e.as<BinaryNode>();
    if (b->a.dtype().is_float()) {
      auto n = std::make_unique<FCompare>();
      n->op = e.kind();
      n->a = compile_float(cx, b->a);
      n->b = compile_float(cx, b->b);
      return n;
    }
    auto n = std::make_unique<ICompare>();
    n->op = e.kind();
    n->unsigned64 = is_u64(b->a.dtype());
    n->a = compile_int(cx, b->a);
    n->b = compile_int(cx, b->b);
    return n;
  }
  switch (e.kind()) {
    case ExprKind::IntImm:
      return std::make_unique<IConst>(numeric::wrap_int(t, e.as<IntImmNode>()->value));
    case ExprKind::Var: {
      auto* v = e.as<VarNode>();
      const SlotInfo& s = cx.lookup(v);
      if (s.kind != SlotInfo::Kind::Int)
        unsupported(cx, "variable " + v->name + " is not an integer");
      if (s.lanes > 1) return std::make_unique<IVectorVar>(s.index);
      return std::make_unique<IVar>(s.index);
    }
    case ExprKind::BufferLoad: {
      auto* l = e.as<BufferLoadNode>();
      return make_load<ILoad>(cx, compile_access(cx, l->buffer, l->indices, false));
    }
    case ExprKind::Add:
    case ExprKind::Sub:
    case ExprKind::Mul:
    case ExprKind::Div:
    case ExprKind::Mod:
    case ExprKind::FloorDiv:
    case ExprKind::FloorMod:
    case ExprKind::Min:
    case ExprKind::Max:
    case ExprKind::And:
    case ExprKind::Or: {
      auto* b = e.as<BinaryNode>();
      auto n = std::make_unique<IBinary>();
      n->op = e.kind();
      n->type = t.element_of();
      n->unsigned64 = is_u64(t);
      n->a = compile_int(cx, b->a);
      n->b = compile_int(cx, b->b);
      n->where = cx.where();
      return n;
    }
    case ExprKind::Not: {
      auto n = std::make_unique<INot>();
      n->a = compile_int(cx, e.as<NotNode>()->a);
      return n;
    }
    case ExprKind::Cast: {
      const Expr& v = e.as<CastNode>()->value;
      if (v.dtype().is_float()) {
        auto n = std::make_unique<IFromFloat>();
        n->to = t.element_of();
        n->a = compile_float(cx, v);
        return n;
      }
      auto n = std::make_unique<IFromInt>();
      n->to = t.element_of();
      n->a = compile_int(cx, v);
      return n;
    }
    case ExprKind::Select: {
      auto* s = e.as<SelectNode>();
      auto n = std::make_unique<Choice<IExpr, IExprPtr, int64_t>>();
      n->eager = true;
      n->cond = compile_int(cx, s->cond);
      n->then_value = compile_int(cx, s->true_value);
      n->else_value = compile_int(cx, s->false_value);
      return n;
    }
    case ExprKind::Call:
      return compile_int_call(cx, *e.as<CallNode>());
    case ExprKind::Ramp: {
      auto* r = e.as<RampNode>();
      auto n = std::make_unique<IRamp>();
      n->type = t.element_of();
      n->base = compile_int(cx, r->base);
      n->stride = compile_int(cx, r->stride);
      return n;
    }
    case ExprKind::Broadcast: {
      auto n = std::make_unique<IBroadcast>();
      n->value = compile_int(cx, e.as<BroadcastNode>()->value);
      return n;
    }
    default:
      break;
  }
  unsupported(cx, std::string("expression ") + to_string(e.kind()) + " of type " + t.str());
}

FExprPtr compile_float(CompileContext& cx, const Expr& e) {
  if (!e) unsupported(cx, "null expression");
  const DataType t = e.dtype();
  if (!t.is_float())
    unsupported(cx, std::string(to_string(e.kind())) + " of type " + t.str() +
                        " where a float is expected");
  const Rounding r = rounding_of(t);
  switch (e.kind()) {
    case ExprKind::FloatImm:
      return std::make_unique<FConst>(round_as(r, e.as<FloatImmNode>()->value));
    case ExprKind::Var: {
      auto* v = e.as<VarNode>();
      const SlotInfo& s = cx.lookup(v);
      if (s.kind != SlotInfo::Kind::Float)
        unsupported(cx, "variable " + v->name + " is not a float");
      if (s.lanes > 1) return std::make_unique<FVectorVar>(s.index);
      return std::make_unique<FVar>(s.index);
    }
    case ExprKind::BufferLoad: {
      auto* l = e.as<BufferLoadNode>();
      Access a = compile_access(cx, l->buffer, l->indices, false);
      if (r == Rounding::F32) return make_load<F32Load>(cx, std::move(a));
      return make_load<FLoad>(cx, std::move(a));
    }
    case ExprKind::Add:
    case ExprKind::Sub:
    case ExprKind::Mul:
    case ExprKind::Div:
    case ExprKind::Mod:
    case ExprKind::FloorDiv:
    case ExprKind::FloorMod:
    case ExprKind::Min:
    case ExprKind::Max: {
      auto* b = e.as<BinaryNode>();
      auto n = std::make_unique<FBinary>();
      n->op = e.kind();
      n->rounding = r;
      n->a = compile_float(cx, b->a);
      n->b = compile_float(cx, b->b);
      return n;
    }
    case ExprKind::Cast: {
      const Expr& v = e.as<CastNode>()->value;
      if (v.dtype().is_float()) {
        auto n = std::make_unique<FFromFloat>();
        n->rounding = r;
        n->a = compile_float(cx, v);
        return n;
      }
      auto n = std::make_unique<FFromInt>();
      n->from = v.dtype().element_of();
      n->to = t.element_of();
      n->a = compile_int(cx, v);
      return n;
    }
    case ExprKind::Select: {
      auto* s = e.as<SelectNode>();
      auto n = std::make_unique<Choice<FExpr, FExprPtr, double>>();
      n->eager = true;
      n->cond = compile_int(cx, s->cond);
      n->then_value = compile_float(cx, s->true_value);
      n->else_value = compile_float(cx, s->false_value);
      return n;
    }
    case ExprKind::Call:
      return compile_float_call(cx, *e.as<CallNode>());
    case ExprKind::Ramp: {
      auto* rp = e.as<RampNode>();
      auto n = std::make_unique<FRamp>();
      n->rounding = r;
      n->base = compile_float(cx, rp->base);
      n->stride = compile_float(cx, rp->stride);
      return n;
    }
    case ExprKind::Broadcast: {
      auto n = std::make_unique<FBroadcast>();
      n->value = compile_float(cx, e.as<BroadcastNode>()->value);
      return n;
    }
    default:
      break;
  }
  unsupported(cx, std::string("expression ") + to_string(e.kind()) + " of type " + t.str());
}

namespace {

struct HVar final : HExpr {
  int slot;
  explicit HVar(int s) : slot(s) {}
  StorageRef eval(Frame& f) const override { return f.handles[slot]; }
};

// The element's address and the bytes of its storage from there on.
struct HAddressOf final : HExpr {
  Access access;
  StorageRef eval(Frame& f) const override {
    uint8_t* p = access.address(f, 0);
    const View& v = f.views[access.view];
    size_t used = static_cast<size_t>(p - v.base);
    return StorageRef{p, v.storage_bytes - used, v.read_only};
  }
};

}  // namespace

HExprPtr compile_handle(CompileContext& cx, const Expr& e) {
  if (!e || !e.dtype().is_handle())
    unsupported(cx, "expected a handle (buf.data, an allocation or T.address_of), got " +
                        std::string(e ? e.dtype().str() : "nothing"));
  if (auto* v = e.as<VarNode>()) {
    const SlotInfo& s = cx.lookup(v);
    if (s.kind != SlotInfo::Kind::Handle)
      unsupported(cx, "variable " + v->name + " is not a handle");
    return std::make_unique<HVar>(s.index);
  }
  auto* c = e.as<CallNode>();
  if (c && c->op == kAddressOf && c->args.size() == 1) {
    if (auto* l = c->args[0].as<BufferLoadNode>()) {
      auto n = std::make_unique<HAddressOf>();
      n->access = compile_access(cx, l->buffer, l->indices, false);
      return n;
    }
  }
  unsupported(cx, "unsupported handle expression " + std::string(to_string(e.kind())) +
                      (c ? " " + c->op : std::string()));
}

}  // namespace tirc::eval
