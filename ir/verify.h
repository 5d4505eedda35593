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
std::vector<Diagnostic> verify(const IRModule& m);

}  // namespace tirc
