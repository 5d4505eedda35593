// The IR verifier behind `tirc check`: well-formedness rules every pass and
// schedule primitive must preserve.
#pragma once

#include <string>
#include <vector>

#include "ir/function.h"

namespace tirc {

struct Diagnostic {
  SourceLoc loc;        // the statement the problem is in, when known
  std::string message;  // names the function, block, buffer or variable
};

// All problems found in f (empty when it is well formed). `name` is the
// function's name, used in messages.
std::vector<Diagnostic> verify(const PrimFunc& f, std::string_view name = "main");
// Every function's problems, then verify_module_links's.
std::vector<Diagnostic> verify(const IRModule& m);

// The links between a module's functions and its constants: each
// T.allocate_const names an existing constant of the same dtype and element
// count; each T.call_kernel names an existing function and passes one argument
// per callee parameter (a handle for a buffer parameter: a buffer's data, an
// allocate/allocate_const variable or T.address_of; a value of the parameter's
// dtype for a scalar).
std::vector<Diagnostic> verify_module_links(const IRModule& m);

}  // namespace tirc
