// Helpers shared by the arith tests: a compact infix printer (there is no
// printer in this part of the tree) and a brute-force integer evaluator.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "ir/expr.h"

namespace tirc::test {

inline int precedence(ExprKind k) {
  switch (k) {
    case ExprKind::Mul:
    case ExprKind::FloorDiv:
    case ExprKind::FloorMod:
      return 4;
    case ExprKind::Add:
    case ExprKind::Sub:
      return 3;
    case ExprKind::EQ:
    case ExprKind::NE:
    case ExprKind::LT:
    case ExprKind::LE:
    case ExprKind::GT:
    case ExprKind::GE:
      return 2;
    case ExprKind::And:
      return 1;
    case ExprKind::Or:
      return 0;
    default:
      return 9;
  }
}

inline const char* infix(ExprKind k) {
  switch (k) {
    case ExprKind::Add:
      return " + ";
    case ExprKind::Sub:
      return " - ";
    case ExprKind::Mul:
      return " * ";
    case ExprKind::FloorDiv:
      return " // ";
    case ExprKind::FloorMod:
      return " % ";
    case ExprKind::EQ:
      return " == ";
    case ExprKind::NE:
      return " != ";
    case ExprKind::LT:
      return " < ";
    case ExprKind::LE:
      return " <= ";
    case ExprKind::GT:
      return " > ";
    case ExprKind::GE:
      return " >= ";
    case ExprKind::And:
      return " and ";
    case ExprKind::Or:
      return " or ";
    default:
      return nullptr;
  }
}

inline std::string str(const Expr& e) {
  if (!e) return "<null>";
  if (auto* i = e.as<IntImmNode>()) {
    if (e.dtype().is_bool()) return i->value ? "True" : "False";
    std::string s = std::to_string(i->value);
    return e.dtype() == DataType::int32() ? s : e.dtype().str() + "(" + s + ")";
  }
  if (auto* f = e.as<FloatImmNode>()) return e.dtype().str() + "(" + std::to_string(f->value) + ")";
  if (auto* v = e.as<VarNode>()) return v->name;
  if (auto* l = e.as<BufferLoadNode>()) {
    std::string s = "load[";
    for (size_t i = 0; i < l->indices.size(); ++i) s += (i ? ", " : "") + str(l->indices[i]);
    return s + "]";
  }
  if (auto* b = e.as<BinaryNode>()) {
    if (const char* op = infix(e.kind())) {
      int p = precedence(e.kind());
      std::string l = str(b->a), r = str(b->b);
      if (precedence(b->a.kind()) < p) l = "(" + l + ")";
      if (precedence(b->b.kind()) <= p) r = "(" + r + ")";
      if (auto* ri = b->b.as<IntImmNode>(); ri && ri->value < 0) r = "(" + r + ")";
      return l + op + r;
    }
    std::string name = e.kind() == ExprKind::Min   ? "min"
                       : e.kind() == ExprKind::Max ? "max"
                       : e.kind() == ExprKind::Div ? "truncdiv"
                                                   : "truncmod";
    return name + "(" + str(b->a) + ", " + str(b->b) + ")";
  }
  if (auto* n = e.as<NotNode>()) return "not(" + str(n->a) + ")";
  if (auto* c = e.as<CastNode>()) return e.dtype().str() + "(" + str(c->value) + ")";
  if (auto* s = e.as<SelectNode>())
    return "select(" + str(s->cond) + ", " + str(s->true_value) + ", " + str(s->false_value) + ")";
  if (auto* c = e.as<CallNode>()) {
    std::string s = c->op + "(";
    for (size_t i = 0; i < c->args.size(); ++i) s += (i ? ", " : "") + str(c->args[i]);
    return s + ")";
  }
  if (auto* r = e.as<RampNode>())
    return "ramp(" + str(r->base) + ", " + str(r->stride) + ", " + std::to_string(r->lanes) + ")";
  if (auto* b = e.as<BroadcastNode>())
    return "broadcast(" + str(b->value) + ", " + std::to_string(b->lanes) + ")";
  return "?";
}

// Evaluates an int/bool expression in exact 64-bit arithmetic; nullopt on a
// division by zero or an unsupported node.
using Env = std::map<const VarNode*, int64_t>;
inline std::optional<int64_t> eval(const Expr& e, const Env& env) {
  if (auto* i = e.as<IntImmNode>()) return i->value;
  if (auto* v = e.as<VarNode>()) {
    auto it = env.find(v);
    if (it == env.end()) return std::nullopt;
    return it->second;
  }
  if (auto* s = e.as<SelectNode>()) {
    auto c = eval(s->cond, env), t = eval(s->true_value, env), f = eval(s->false_value, env);
    if (!c || !t || !f) return std::nullopt;
    return *c ? *t : *f;
  }
  if (auto* n = e.as<NotNode>()) {
    auto a = eval(n->a, env);
    if (!a) return std::nullopt;
    return *a == 0;
  }
  auto* b = e.as<BinaryNode>();
  if (!b) return std::nullopt;
  auto x = eval(b->a, env), y = eval(b->b, env);
  if (!x || !y) return std::nullopt;
  int64_t a = *x, c = *y;
  switch (e.kind()) {
    case ExprKind::Add:
      return a + c;
    case ExprKind::Sub:
      return a - c;
    case ExprKind::Mul:
      return a * c;
    case ExprKind::Div:
      if (c == 0) return std::nullopt;
      return a / c;
    case ExprKind::Mod:
      if (c == 0) return std::nullopt;
      return a % c;
    case ExprKind::FloorDiv: {
      if (c == 0) return std::nullopt;
      int64_t q = a / c;
      if (a % c != 0 && ((a < 0) != (c < 0))) --q;
      return q;
    }
    case ExprKind::FloorMod: {
      if (c == 0) return std::nullopt;
      int64_t q = a / c;
      if (a % c != 0 && ((a < 0) != (c < 0))) --q;
      return a - q * c;
    }
    case ExprKind::Min:
      return std::min(a, c);
    case ExprKind::Max:
      return std::max(a, c);
    case ExprKind::EQ:
      return a == c;
    case ExprKind::NE:
      return a != c;
    case ExprKind::LT:
      return a < c;
    case ExprKind::LE:
      return a <= c;
    case ExprKind::GT:
      return a > c;
    case ExprKind::GE:
      return a >= c;
    case ExprKind::And:
      return a && c;
    case ExprKind::Or:
      return a || c;
    default:
      return std::nullopt;
  }
}

}  // namespace tirc::test
