// Parses TVMScript TIR text into IR. Errors are tirc::Error with the
// file:line:col of the offending token and the source text for quoting.
#pragma once

#include <string>
#include <string_view>

#include "ir/function.h"

namespace tirc {

// A file holding one `@T.prim_func def NAME(...)` (giving a module with that
// one function) or one `@I.ir_module class Module:` with several functions.
IRModule parse_module(std::string_view text, std::string_view filename = "<input>");

// One expression, with the given variables in scope by name (for tests and
// schedule scripts).
Expr parse_expr(std::string_view text, const std::vector<Var>& scope = {},
                std::string_view filename = "<input>");

}  // namespace tirc
