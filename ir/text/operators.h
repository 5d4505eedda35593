// How binary operators are spelled in the text format, shared by the printer
// and the parser's messages.
#pragma once

#include "ir/expr.h"

namespace tirc {

struct OperatorSpelling {
  const char* text;  // "+", "//", "and", or a call name such as "T.min"
  bool is_call;      // spelled as text(a, b) rather than a text b
};

// Integer Div and Mod are calls (T.truncdiv, T.truncmod); `/` is float division.
OperatorSpelling operator_spelling(ExprKind kind, DataType dtype);

}  // namespace tirc
