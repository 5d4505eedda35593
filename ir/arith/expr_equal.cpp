#include "ir/arith/expr_equal.h"

#include <cstring>

#include "ir/buffer.h"

namespace tirc::arith {

static bool same_all(const std::vector<Expr>& a, const std::vector<Expr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!same_expr(a[i], b[i])) return false;
  return true;
}

bool same_expr(const Expr& a, const Expr& b) {
  if (a.same_as(b)) return true;
  if (!a || !b) return false;
  if (a.kind() != b.kind() || a.dtype() != b.dtype()) return false;
  switch (a.kind()) {
    case ExprKind::IntImm:
      return a.as<IntImmNode>()->value == b.as<IntImmNode>()->value;
    case ExprKind::FloatImm: {
      double x = a.as<FloatImmNode>()->value, y = b.as<FloatImmNode>()->value;
      return std::memcmp(&x, &y, sizeof x) == 0;
    }
    case ExprKind::StringImm:
      return a.as<StringImmNode>()->value == b.as<StringImmNode>()->value;
    case ExprKind::Var:
      return false;  // identity already checked
    case ExprKind::BufferLoad: {
      auto *x = a.as<BufferLoadNode>(), *y = b.as<BufferLoadNode>();
      return x->buffer == y->buffer && same_all(x->indices, y->indices);
    }
    case ExprKind::Not:
      return same_expr(a.as<NotNode>()->a, b.as<NotNode>()->a);
    case ExprKind::Cast:
      return same_expr(a.as<CastNode>()->value, b.as<CastNode>()->value);
    case ExprKind::Select: {
      auto *x = a.as<SelectNode>(), *y = b.as<SelectNode>();
      return same_expr(x->cond, y->cond) && same_expr(x->true_value, y->true_value) &&
             same_expr(x->false_value, y->false_value);
    }
    case ExprKind::Call: {
      auto *x = a.as<CallNode>(), *y = b.as<CallNode>();
      return x->op == y->op && same_all(x->args, y->args);
    }
    case ExprKind::Ramp: {
      auto *x = a.as<RampNode>(), *y = b.as<RampNode>();
      return x->lanes == y->lanes && same_expr(x->base, y->base) && same_expr(x->stride, y->stride);
    }
    case ExprKind::Broadcast: {
      auto *x = a.as<BroadcastNode>(), *y = b.as<BroadcastNode>();
      return x->lanes == y->lanes && same_expr(x->value, y->value);
    }
    default: {
      auto *x = a.as<BinaryNode>(), *y = b.as<BinaryNode>();
      return x && y && same_expr(x->a, y->a) && same_expr(x->b, y->b);
    }
  }
}

}  // namespace tirc::arith
