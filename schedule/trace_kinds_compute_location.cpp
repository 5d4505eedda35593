// Instruction kinds that move or inline a block's computation: compute_at,
// reverse_compute_at, compute_inline, reverse_compute_inline.
#include "schedule/trace_kinds.h"
#include "schedule/trace_replay.h"

namespace tirc::trace_detail {

namespace {

using P = ParamType;

// compute_at and reverse_compute_at take the same arguments.
std::vector<ParamSpec> compute_at_params() {
  return {{"block", P::Block, true},
          {"loop", P::Loop, true},
          {"preserve_unit_loops", P::Bool, false},
          {"index", P::Int, false}};
}

struct ComputeAtArgs {
  BlockRV block;
  LoopRV loop;
  bool preserve_unit_loops;
  int index;
};

ComputeAtArgs compute_at_args(const Replayer& r) {
  // A braced list decodes in order, so the first argument that does not fit
  // is the one reported.
  return {r.block(r.kw("block")), r.loop(r.kw("loop")), r.opt_bool("preserve_unit_loops", false),
          static_cast<int>(r.opt_int("index", -1))};
}

}  // namespace

std::vector<InstructionKind> compute_location_kinds() {
  return {
      {.name = "compute_at",
       .params = compute_at_params(),
       .replay = [](Replayer& r) -> std::vector<int> {
         ComputeAtArgs a = compute_at_args(r);
         r.schedule().compute_at(a.block, a.loop, a.preserve_unit_loops, a.index);
         return {};
       }},
      {.name = "reverse_compute_at",
       .params = compute_at_params(),
       .replay = [](Replayer& r) -> std::vector<int> {
         ComputeAtArgs a = compute_at_args(r);
         r.schedule().reverse_compute_at(a.block, a.loop, a.preserve_unit_loops, a.index);
         return {};
       }},
      {.name = "compute_inline",
       .params = {{"block", P::Block, true}},
       .replay = [](Replayer& r) -> std::vector<int> {
         r.schedule().compute_inline(r.block(r.kw("block")));
         return {};
       }},
      {.name = "reverse_compute_inline",
       .params = {{"block", P::Block, true}},
       .replay = [](Replayer& r) -> std::vector<int> {
         r.schedule().reverse_compute_inline(r.block(r.kw("block")));
         return {};
       }},
  };
}

}  // namespace tirc::trace_detail
