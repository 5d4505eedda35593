// Random variables: the handles a schedule hands out for blocks, loops and
// sampled integers. A handle is an index into its Schedule's tables; the same
// trace replayed on another Schedule gets fresh handles.
#pragma once

namespace tirc {

struct BlockRV {
  int id = -1;
  friend bool operator==(BlockRV, BlockRV) = default;
};
struct LoopRV {
  int id = -1;
  friend bool operator==(LoopRV, LoopRV) = default;
};
struct ExprRV {
  int id = -1;
  friend bool operator==(ExprRV, ExprRV) = default;
};

}  // namespace tirc
