// The GPU rule of an elementwise block that follows a kernel the GPU rules
// already scheduled (a convolution's ReLU, a residual add): computed where
// its producer writes each element (reverse_compute_inline), in that kernel's
// threads, rather than as a kernel of its own that reads the whole tensor
// back from memory.
#include "tuner/space/block_nest.h"
#include "tuner/space/rules.h"

namespace tirc {

RuleOutcome gpu_inline_epilogue(Schedule& sch, BlockRV block, const RuleContext&) {
  std::string why;
  std::optional<BlockNest> nest = unbound_plain_nest(sch, block, &why);
  if (!nest) return {false, why};
  for (const NestLoop& l : nest->loops)
    if (!l.spatial) return {false, "not elementwise"};
  const std::vector<BlockRV> producers = sch.get_producers(block);
  std::string bound;
  for (BlockRV p : producers)
    if (thread_bound(sch, p)) bound = sch.get(p);
  if (bound.empty()) return {false, "no producer bound to GPU threads"};
  sch.reverse_compute_inline(block);
  return {true, "computed in block " + bound + "'s threads"};
}

}  // namespace tirc
