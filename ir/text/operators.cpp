#include "ir/text/operators.h"

namespace tirc {

OperatorSpelling operator_spelling(ExprKind kind, DataType dtype) {
  switch (kind) {
    case ExprKind::Add:
      return {"+", false};
    case ExprKind::Sub:
      return {"-", false};
    case ExprKind::Mul:
      return {"*", false};
    case ExprKind::Div:
      return dtype.is_float() ? OperatorSpelling{"/", false} : OperatorSpelling{"T.truncdiv", true};
    case ExprKind::Mod:
      return {"T.truncmod", true};
    case ExprKind::FloorDiv:
      return {"//", false};
    case ExprKind::FloorMod:
      return {"%", false};
    case ExprKind::Min:
      return {"T.min", true};
    case ExprKind::Max:
      return {"T.max", true};
    case ExprKind::EQ:
      return {"==", false};
    case ExprKind::NE:
      return {"!=", false};
    case ExprKind::LT:
      return {"<", false};
    case ExprKind::LE:
      return {"<=", false};
    case ExprKind::GT:
      return {">", false};
    case ExprKind::GE:
      return {">=", false};
    case ExprKind::And:
      return {"and", false};
    case ExprKind::Or:
      return {"or", false};
    default:
      return {to_string(kind), true};
  }
}

}  // namespace tirc
