// Parses TVMScript TIR text into IR. Errors are tirc::Error with the
// file:line:col of the offending token and the source text for quoting.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "ir/function.h"
#include "ir/text/surface.h"

namespace tirc {

// A file holding one `@T.prim_func def NAME(...)` (giving a module with that
// one function) or one `@I.ir_module class Module:` with several functions.
// A module whose I.module_attrs name a constants side file ("tirc.constants")
// gets the file's constants, read relative to the directory of `filename`.
IRModule parse_module(std::string_view text, std::string_view filename = "<input>");

struct ParseOptions {
  // Read the side file named by "tirc.constants" (relative to the directory
  // of the parsed file). A missing or bad file is an error at the attribute.
  bool load_constants = true;
  // Constants known before parsing (a module in memory whose text is parsed
  // back); they are added to the parsed module. With neither a side file nor
  // these, T.allocate_const names are not checked.
  const std::map<std::string, std::shared_ptr<const NDArray>, std::less<>>* constants = nullptr;
  // Where given, set to the surface the text is written in: TIRx when any
  // TIRx-only word or `s_tir=True` appears, classic otherwise.
  Surface* surface = nullptr;
};
IRModule parse_module(std::string_view text, std::string_view filename,
                      const ParseOptions& options);

// One expression, with the given variables in scope by name (for tests and
// schedule scripts).
Expr parse_expr(std::string_view text, const std::vector<Var>& scope = {},
                std::string_view filename = "<input>");

}  // namespace tirc
