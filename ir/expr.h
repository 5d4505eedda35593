// Expressions of TensorIR. Nodes are immutable and shared: a rewrite builds new
// nodes only along the path it changes. Variables are compared by identity
// (the node pointer), never by name.
#pragma once

#include <concepts>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/dtype.h"
#include "ir/error.h"

namespace tirc {

enum class ExprKind : uint8_t {
  IntImm,
  FloatImm,
  StringImm,
  Var,
  BufferLoad,
  // binary arithmetic
  Add,
  Sub,
  Mul,
  Div,
  Mod,
  FloorDiv,
  FloorMod,
  Min,
  Max,
  // comparisons (result is bool)
  EQ,
  NE,
  LT,
  LE,
  GT,
  GE,
  // logic on bool
  And,
  Or,
  Not,
  Cast,
  Select,
  Call,
  Ramp,
  Broadcast,
};

const char* to_string(ExprKind kind);

// The comparisons EQ NE LT LE GT GE, and the one place that knows how they
// relate: !(a k b) is a negated(k) b, and a k b is b mirrored(k) a. Each gives
// back a kind that is not a comparison unchanged.
bool is_comparison(ExprKind kind);
ExprKind negated_comparison(ExprKind kind);
ExprKind mirrored_comparison(ExprKind kind);
// a k b for a comparison k (false for any other kind); NaN compares as in C.
template <class T>
bool compare_values(ExprKind kind, T a, T b) {
  switch (kind) {
    case ExprKind::EQ:
      return a == b;
    case ExprKind::NE:
      return a != b;
    case ExprKind::LT:
      return a < b;
    case ExprKind::LE:
      return a <= b;
    case ExprKind::GT:
      return a > b;
    case ExprKind::GE:
      return a >= b;
    default:
      return false;
  }
}

class ExprNode {
 public:
  virtual ~ExprNode() = default;
  const ExprKind kind;
  const DataType dtype;

 protected:
  ExprNode(ExprKind k, DataType t) : kind(k), dtype(t) {}
};

// A shared handle to an immutable expression node; may be null.
class Expr {
 public:
  Expr() = default;
  template <class T>
  requires std::derived_from<T, ExprNode> Expr(std::shared_ptr<const T> node)
      : node_(std::move(node)) {}
  template <class T>
  requires std::derived_from<T, ExprNode> Expr(std::shared_ptr<T> node) : node_(std::move(node)) {}
  // An int32 immediate, so `e + 1` and `{0, n}` read naturally.
  Expr(int value);

  const ExprNode* get() const { return node_.get(); }
  const ExprNode* operator->() const { return node_.get(); }
  explicit operator bool() const { return node_ != nullptr; }
  const std::shared_ptr<const ExprNode>& ptr() const { return node_; }

  ExprKind kind() const { return node_->kind; }
  DataType dtype() const { return node_->dtype; }
  bool same_as(const Expr& other) const { return node_ == other.node_; }

  // The node as T when it is one, else nullptr.
  template <class T>
  const T* as() const {
    return node_ && T::matches(node_->kind) ? static_cast<const T*>(node_.get()) : nullptr;
  }

 private:
  std::shared_ptr<const ExprNode> node_;
};

struct IntImmNode : ExprNode {
  IntImmNode(DataType t, int64_t v) : ExprNode(ExprKind::IntImm, t), value(v) {}
  static bool matches(ExprKind k) { return k == ExprKind::IntImm; }
  const int64_t value;  // bool immediates hold 0 or 1
};

struct FloatImmNode : ExprNode {
  FloatImmNode(DataType t, double v) : ExprNode(ExprKind::FloatImm, t), value(v) {}
  static bool matches(ExprKind k) { return k == ExprKind::FloatImm; }
  const double value;
};

// Strings appear only as annotation and attribute values.
struct StringImmNode : ExprNode {
  explicit StringImmNode(std::string v)
      : ExprNode(ExprKind::StringImm, DataType::handle()), value(std::move(v)) {}
  static bool matches(ExprKind k) { return k == ExprKind::StringImm; }
  const std::string value;
};

struct VarNode : ExprNode {
  VarNode(std::string n, DataType t) : ExprNode(ExprKind::Var, t), name(std::move(n)) {}
  static bool matches(ExprKind k) { return k == ExprKind::Var; }
  const std::string name;  // a hint for printing; identity is the node
};
using Var = std::shared_ptr<const VarNode>;

struct BufferNode;
using Buffer = std::shared_ptr<const BufferNode>;

struct BufferLoadNode : ExprNode {
  BufferLoadNode(DataType t, Buffer b, std::vector<Expr> idx)
      : ExprNode(ExprKind::BufferLoad, t), buffer(std::move(b)), indices(std::move(idx)) {}
  static bool matches(ExprKind k) { return k == ExprKind::BufferLoad; }
  const Buffer buffer;
  const std::vector<Expr> indices;
};

// Add .. Or except Not: two operands.
struct BinaryNode : ExprNode {
  BinaryNode(ExprKind k, DataType t, Expr x, Expr y)
      : ExprNode(k, t), a(std::move(x)), b(std::move(y)) {}
  static bool matches(ExprKind k) { return k >= ExprKind::Add && k <= ExprKind::Or; }
  const Expr a, b;
};

struct NotNode : ExprNode {
  NotNode(DataType t, Expr x) : ExprNode(ExprKind::Not, t), a(std::move(x)) {}
  static bool matches(ExprKind k) { return k == ExprKind::Not; }
  const Expr a;
};

struct CastNode : ExprNode {
  CastNode(DataType t, Expr v) : ExprNode(ExprKind::Cast, t), value(std::move(v)) {}
  static bool matches(ExprKind k) { return k == ExprKind::Cast; }
  const Expr value;
};

// Both branches are evaluated; use Call if_then_else for a guarded choice.
struct SelectNode : ExprNode {
  SelectNode(DataType t, Expr c, Expr tv, Expr fv)
      : ExprNode(ExprKind::Select, t),
        cond(std::move(c)),
        true_value(std::move(tv)),
        false_value(std::move(fv)) {}
  static bool matches(ExprKind k) { return k == ExprKind::Select; }
  const Expr cond, true_value, false_value;
};

// A call to a named intrinsic: "exp", "log", "sqrt", "tanh", "erf", "sigmoid",
// "if_then_else", "abs", "floor", "ceil", "round", "pow", "fabs" ... (the
// registry in ir/intrinsic.h lists them all).
struct CallNode : ExprNode {
  CallNode(DataType t, std::string o, std::vector<Expr> a)
      : ExprNode(ExprKind::Call, t), op(std::move(o)), args(std::move(a)) {}
  static bool matches(ExprKind k) { return k == ExprKind::Call; }
  const std::string op;
  const std::vector<Expr> args;
};

// A call's intrinsic without the namespace it may be spelled with (`T.exp`
// and `tir.exp` are `exp`): the name the interpreter and the generators
// dispatch on.
std::string intrinsic_name(const CallNode& c);

// base + i * stride for lane i.
struct RampNode : ExprNode {
  RampNode(DataType t, Expr b, Expr s, int l)
      : ExprNode(ExprKind::Ramp, t), base(std::move(b)), stride(std::move(s)), lanes(l) {}
  static bool matches(ExprKind k) { return k == ExprKind::Ramp; }
  const Expr base, stride;
  const int lanes;
};

struct BroadcastNode : ExprNode {
  BroadcastNode(DataType t, Expr v, int l)
      : ExprNode(ExprKind::Broadcast, t), value(std::move(v)), lanes(l) {}
  static bool matches(ExprKind k) { return k == ExprKind::Broadcast; }
  const Expr value;
  const int lanes;
};

// ---- construction ---------------------------------------------------------
// The make_* functions type-check their operands and throw tirc::Error on a
// mismatch; they never simplify.

Expr make_int(int64_t value, DataType t = DataType::int32());
Expr make_float(double value, DataType t = DataType::float32());
Expr make_bool(bool value);
Expr make_string(std::string value);
// An immediate of type t holding `value` (int, float or bool by t's code).
Expr make_const(DataType t, double value);
Var make_var(std::string name, DataType t = DataType::int32());
Expr make_load(Buffer buffer, std::vector<Expr> indices);
Expr make_binary(ExprKind kind, Expr a, Expr b);
Expr make_not(Expr a);
Expr make_cast(DataType t, Expr value);
Expr make_select(Expr cond, Expr t, Expr f);
Expr make_call(DataType t, std::string op, std::vector<Expr> args);
Expr make_ramp(Expr base, Expr stride, int lanes);
Expr make_broadcast(Expr value, int lanes);

Expr min(Expr a, Expr b);
Expr max(Expr a, Expr b);
Expr floordiv(Expr a, Expr b);
Expr floormod(Expr a, Expr b);
Expr truncdiv(Expr a, Expr b);
Expr truncmod(Expr a, Expr b);

// Plain construction with operator syntax (no folding); int operands become
// immediates of the other operand's type.
Expr operator+(Expr a, Expr b);
Expr operator-(Expr a, Expr b);
Expr operator*(Expr a, Expr b);
Expr operator/(Expr a, Expr b);  // Div: true division for floats, truncation for ints
Expr operator==(Expr a, Expr b);
Expr operator!=(Expr a, Expr b);
Expr operator<(Expr a, Expr b);
Expr operator<=(Expr a, Expr b);
Expr operator>(Expr a, Expr b);
Expr operator>=(Expr a, Expr b);
Expr logical_and(Expr a, Expr b);
Expr logical_or(Expr a, Expr b);

// Value of an integer or bool immediate, if e is one.
std::optional<int64_t> as_const_int(const Expr& e);
bool is_const_int(const Expr& e, int64_t value);

// ---- ranges and iteration variables ---------------------------------------

struct Range {
  Expr min;
  Expr extent;
  static Range from_min_extent(Expr min, Expr extent) {
    return {std::move(min), std::move(extent)};
  }
};

enum class IterKind : uint8_t { DataPar, Reduce, Opaque, ThreadIndex };

// A block iteration variable: spatial (S), reduce (R) or opaque.
struct IterVar {
  Var var;
  Range dom;
  IterKind kind = IterKind::DataPar;
  std::string thread_tag;  // only for ThreadIndex
};

}  // namespace tirc
