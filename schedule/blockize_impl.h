// Blockize as a function on IR, shared by blockize and tensorize (which
// blockizes a loop first without recording a separate instruction).
#pragma once

#include <string>

#include "ir/function.h"

namespace tirc {

struct BlockizeOutcome {
  Stmt body;               // the function body after blockizing
  std::string outer_name;  // the new outer block
};

// Wraps the subtree of the loop with variable `loop_var` (exactly one block
// below it) into an outer block `<block>_o`. Throws ScheduleError(primitive,
// ...) when the block's bindings cannot be split at the loop.
BlockizeOutcome blockize_loop(const Stmt& body, const VarNode* loop_var, bool preserve_unit_iters,
                              const std::string& primitive);

// A block name not used in body: base, else base_1, base_2, ...
std::string unused_block_name(const Stmt& body, const std::string& base);

}  // namespace tirc
