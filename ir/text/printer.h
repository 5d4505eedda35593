// Prints IR as TVMScript text: the classic TIR surface of TVM <= 0.23 by
// default, or the TIRx surface TVM 0.27 prints (ir/text/surface.h).
// Printing is canonical: the same program always gives the same text, and
// parse(print(x)) is structurally equal to x.
#pragma once

#include <string>

#include "ir/function.h"
#include "ir/text/surface.h"

namespace tirc {

// "# from tvm.script import ir as I\n# from tvm.script import tir as T\n\n@I.ir_module\nclass
// Module: ..."
std::string print_module(const IRModule& m, Surface surface = Surface::classic);
// A single function: "# from tvm.script import tir as T\n\n@T.prim_func\ndef NAME(...):..."
std::string print_func(const PrimFunc& f, std::string_view name = "main",
                       Surface surface = Surface::classic);
// Fragments, for diagnostics and tests (no header lines).
std::string print_expr(const Expr& e);
std::string print_stmt(const Stmt& s);

// The module as `tirc fmt` prints it: a single function named like the module's
// only function prints as a bare @T.prim_func; otherwise as @I.ir_module.
std::string print(const IRModule& m, Surface surface = Surface::classic);

}  // namespace tirc
