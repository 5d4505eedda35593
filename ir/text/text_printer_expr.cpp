// Expressions in Python syntax with the fewest parentheses that keep the tree.
#include <cstdio>

#include "ir/structural.h"
#include "ir/text/float_repr.h"
#include "ir/text/operators.h"
#include "ir/text/text_printer.h"

namespace tirc {

namespace {

// Python binding strength, loosest first.
enum Precedence : int {
  kOr = 1,
  kAnd,
  kNot,
  kCompare,
  kAdd,
  kMul,
  kUnary,
  kAtom,
};


int infix_precedence(ExprKind kind) {
  switch (kind) {
    case ExprKind::Or:
      return kOr;
    case ExprKind::And:
      return kAnd;
    case ExprKind::Add:
    case ExprKind::Sub:
      return kAdd;
    case ExprKind::Mul:
    case ExprKind::Div:
    case ExprKind::FloorDiv:
    case ExprKind::FloorMod:
      return kMul;
    default:
      return kCompare;
  }
}

std::string int_literal(DataType t, int64_t value) {
  if (t.is_bool()) return value ? "T.bool(True)" : "T.bool(False)";
  std::string digits =
      t.is_uint() ? std::to_string(static_cast<uint64_t>(value)) : std::to_string(value);
  if (t == DataType::int32()) return digits;
  return "T." + t.str() + "(" + digits + ")";
}

std::string float_literal(DataType t, double value) {
  std::string repr = float_repr(value);
  bool finite = repr != "inf" && repr != "-inf" && repr != "nan";
  return "T." + t.str() + "(" + (finite ? repr : quote(repr)) + ")";
}

}  // namespace

std::string quote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned char>(c));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string TextPrinter::print_expr(const Expr& e) {
  return expr(e).text;
}

std::string TextPrinter::var_name(const VarNode* v) const {
  if (!v) return "None";
  if (const std::string* name = names_.find(v)) return *name;
  return NameTable::sanitize(v->name);  // free variable
}

std::string TextPrinter::buffer_name(const Buffer& b) const {
  if (!b) return "None";
  if (const std::string* name = names_.find(b.get())) return *name;
  return NameTable::sanitize(b->name);
}

std::string TextPrinter::operand(const Expr& e, int min_precedence) {
  Printed p = expr(e);
  return p.precedence < min_precedence ? "(" + p.text + ")" : p.text;
}

std::string TextPrinter::args(const std::vector<Expr>& es) {
  std::string out;
  for (size_t i = 0; i < es.size(); ++i) out += (i ? ", " : "") + expr(es[i]).text;
  return out;
}

std::string TextPrinter::binary(const BinaryNode* n) {
  OperatorSpelling sp = operator_spelling(n->kind, n->dtype);
  if (sp.is_call) return std::string(sp.text) + "(" + args({n->a, n->b}) + ")";
  int p = infix_precedence(n->kind);
  // Comparisons chain in Python, so a comparison never takes one as operand.
  int left = p == kCompare ? kCompare + 1 : p;
  return operand(n->a, left) + " " + sp.text + " " + operand(n->b, p + 1);
}

TextPrinter::Printed TextPrinter::expr(const Expr& e) {
  if (!e) return {"None", kAtom};
  switch (e.kind()) {
    case ExprKind::IntImm: {
      int64_t v = e.as<IntImmNode>()->value;
      bool bare_negative = e.dtype() == DataType::int32() && v < 0;
      return {int_literal(e.dtype(), v), bare_negative ? kUnary : kAtom};
    }
    case ExprKind::FloatImm:
      return {float_literal(e.dtype(), e.as<FloatImmNode>()->value), kAtom};
    case ExprKind::StringImm:
      return {quote(e.as<StringImmNode>()->value), kAtom};
    case ExprKind::Var: {
      // A buffer's storage that no statement names prints as `A.data`.
      const VarNode* v = e.as<VarNode>();
      if (!names_.find(v) && data_owner_.count(v)) return {data_reference(v), kAtom};
      return {var_name(v), kAtom};
    }
    case ExprKind::BufferLoad: {
      auto* n = e.as<BufferLoadNode>();
      std::string idx = n->indices.empty() ? "()" : args(n->indices);
      return {buffer_name(n->buffer) + "[" + idx + "]", kAtom};
    }
    case ExprKind::Not: {
      // `not (a < b)` rather than `not a < b`: the same tree, read at a glance.
      return {"not " + operand(e.as<NotNode>()->a, kCompare + 1), kNot};
    }
    case ExprKind::Cast: {
      auto* n = e.as<CastNode>();
      return {"T.Cast(" + quote(n->dtype.str()) + ", " + expr(n->value).text + ")", kAtom};
    }
    case ExprKind::Select: {
      auto* n = e.as<SelectNode>();
      return {"T.Select(" + args({n->cond, n->true_value, n->false_value}) + ")", kAtom};
    }
    case ExprKind::Call: {
      auto* n = e.as<CallNode>();
      return {"T." + n->op + "(" + args(n->args) + ")", kAtom};
    }
    case ExprKind::Ramp: {
      auto* n = e.as<RampNode>();
      return {"T.Ramp(" + args({n->base, n->stride}) + ", " + std::to_string(n->lanes) + ")",
              kAtom};
    }
    case ExprKind::Broadcast: {
      auto* n = e.as<BroadcastNode>();
      return {"T.Broadcast(" + expr(n->value).text + ", " + std::to_string(n->lanes) + ")", kAtom};
    }
    default:
      break;
  }
  auto* n = e.as<BinaryNode>();
  if (!n) return {"None", kAtom};
  bool call_form = operator_spelling(n->kind, n->dtype).is_call;
  return {binary(n), call_form ? kAtom : infix_precedence(n->kind)};
}

std::string TextPrinter::stop_of(const Expr& min, const Expr& extent) {
  auto* a = min.as<IntImmNode>();
  auto* b = extent.as<IntImmNode>();
  if (a && b && a->dtype == b->dtype && !a->dtype.is_bool())
    return int_literal(a->dtype, a->value + b->value);
  // A slice `lo:hi` parses to extent `hi - lo`: print `hi` back, so that the
  // text is a fixed point of parse and print.
  if (auto* d = extent.as<BinaryNode>();
      d && d->kind == ExprKind::Sub && structural_equal(d->b, min))
    return expr(d->a).text;
  return operand(min, kAdd) + " + " + operand(extent, kAdd + 1);
}

std::string TextPrinter::annotations(const Annotations& a) {
  std::string out = "{";
  bool first = true;
  for (const auto& [key, value] : a) {
    out += (first ? "" : ", ") + quote(key) + ": " + annotation_value(value);
    first = false;
  }
  return out + "}";
}

std::string TextPrinter::annotation_value(const Expr& e) {
  const std::vector<Expr>* elements = annotation_list_elements(e);
  if (!elements) return expr(e).text;
  std::string out = "[";
  for (size_t i = 0; i < elements->size(); ++i)
    out += (i ? ", " : "") + annotation_value((*elements)[i]);
  return out + "]";
}

}  // namespace tirc
