// Expression rendering for verifier messages. Precedence-aware so messages read
// like the source ("i * 4 + j", "(i + 1) * 4"), but not the canonical printer.
#include <sstream>

#include "ir/verify_internal.h"

namespace tirc::verify_detail {
namespace {

int precedence(const Expr& e) {
  switch (e.kind()) {
    case ExprKind::Or:
      return 1;
    case ExprKind::And:
      return 2;
    case ExprKind::Not:
      return 3;
    case ExprKind::EQ:
    case ExprKind::NE:
    case ExprKind::LT:
    case ExprKind::LE:
    case ExprKind::GT:
    case ExprKind::GE:
      return 4;
    case ExprKind::Add:
    case ExprKind::Sub:
      return 5;
    case ExprKind::Mul:
    case ExprKind::Div:
    case ExprKind::FloorDiv:
    case ExprKind::FloorMod:
      return 6;
    default:
      return 8;
  }
}

const char* infix(ExprKind k) {
  switch (k) {
    case ExprKind::Add:
      return " + ";
    case ExprKind::Sub:
      return " - ";
    case ExprKind::Mul:
      return " * ";
    case ExprKind::Div:
      return " / ";
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

std::string join(const std::vector<Expr>& es) {
  std::string s;
  for (size_t i = 0; i < es.size(); ++i) s += (i ? ", " : "") + expr_str(es[i]);
  return s;
}

// e as an operand of an operator of precedence `outer`; `right` for the right
// operand, where equal precedence needs parentheses (left associativity).
std::string operand(const Expr& e, int outer, bool right) {
  int p = precedence(e);
  std::string s = expr_str(e);
  return (p < outer || (right && p == outer)) ? "(" + s + ")" : s;
}

}  // namespace

std::string expr_str(const Expr& e) {
  if (!e) return "<null>";
  if (auto* i = e.as<IntImmNode>()) {
    if (e.dtype().is_bool()) return i->value ? "True" : "False";
    return std::to_string(i->value);
  }
  if (auto* f = e.as<FloatImmNode>()) {
    std::ostringstream os;
    os << f->value;
    return os.str();
  }
  if (auto* s = e.as<StringImmNode>()) return "\"" + s->value + "\"";
  if (auto* v = e.as<VarNode>()) return v->name;
  if (auto* l = e.as<BufferLoadNode>()) return access_str(l->buffer, l->indices);
  if (auto* b = e.as<BinaryNode>()) {
    if (e.kind() == ExprKind::Min) return "T.min(" + expr_str(b->a) + ", " + expr_str(b->b) + ")";
    if (e.kind() == ExprKind::Max) return "T.max(" + expr_str(b->a) + ", " + expr_str(b->b) + ")";
    if (e.kind() == ExprKind::Mod)
      return "T.truncmod(" + expr_str(b->a) + ", " + expr_str(b->b) + ")";
    if (e.kind() == ExprKind::Div && !e.dtype().is_float())
      return "T.truncdiv(" + expr_str(b->a) + ", " + expr_str(b->b) + ")";
    int p = precedence(e);
    return operand(b->a, p, false) + infix(e.kind()) + operand(b->b, p, true);
  }
  if (auto* n = e.as<NotNode>()) return "not " + operand(n->a, 3, false);
  if (auto* c = e.as<CastNode>())
    return "T.Cast(\"" + e.dtype().str() + "\", " + expr_str(c->value) + ")";
  if (auto* s = e.as<SelectNode>())
    return "T.Select(" + join({s->cond, s->true_value, s->false_value}) + ")";
  if (auto* c = e.as<CallNode>()) return "T." + c->op + "(" + join(c->args) + ")";
  if (auto* r = e.as<RampNode>())
    return "T.Ramp(" + expr_str(r->base) + ", " + expr_str(r->stride) + ", " +
           std::to_string(r->lanes) + ")";
  if (auto* b = e.as<BroadcastNode>())
    return "T.Broadcast(" + expr_str(b->value) + ", " + std::to_string(b->lanes) + ")";
  return "?";
}

std::string access_str(const Buffer& buffer, const std::vector<Expr>& indices) {
  return buffer->name + "[" + (indices.empty() ? "()" : join(indices)) + "]";
}

std::string region_str(const BufferRegion& region) {
  std::string s = region.buffer->name + "[";
  for (size_t i = 0; i < region.region.size(); ++i) {
    const Range& r = region.region[i];
    s += i ? ", " : "";
    auto mn = as_const_int(r.min), ext = as_const_int(r.extent);
    if (ext && *ext == 1)
      s += expr_str(r.min);
    else if (mn && ext)
      s += std::to_string(*mn) + ":" + std::to_string(*mn + *ext);
    else
      s += expr_str(r.min) + ":" + operand(r.min, 5, false) + " + " + operand(r.extent, 5, true);
  }
  return s + "]";
}

// Built by appending: GCC 12 warns falsely (-Wrestrict) on "(" + string.
std::string shape_str(const Buffer& buffer) {
  std::string s = "(";
  s += join(buffer->shape);
  s += buffer->shape.size() == 1 ? ",)" : ")";
  return s;
}

std::string bound_str(const ConstIntBound& b) {
  std::string s = "[";
  s += b.min ? std::to_string(*b.min) : "-inf";
  s += ", ";
  s += b.max ? std::to_string(*b.max) : "inf";
  s += "]";
  return s;
}

}  // namespace tirc::verify_detail
