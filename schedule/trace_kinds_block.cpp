// Instruction kinds that split or replace blocks: decompose_reduction,
// rfactor, blockize, tensorize.
#include "schedule/trace_kinds.h"
#include "schedule/trace_replay.h"

namespace tirc::trace_detail {

namespace {

using P = ParamType;

}  // namespace

std::vector<InstructionKind> block_kinds() {
  return {
      {.name = "decompose_reduction",
       .params = {{"block", P::Block, true}, {"loop", P::Loop, true}},
       .outputs = Outputs::One,
       .output_kind = 'b',
       .replay = [](Replayer& r) -> std::vector<int> {
         return {r.schedule().decompose_reduction(r.block(r.kw("block")), r.loop(r.kw("loop"))).id};
       }},
      {.name = "rfactor",
       .params = {{"loop", P::Loop, true}, {"factor_axis", P::Int, true}},
       .outputs = Outputs::One,
       .output_kind = 'b',
       .replay = [](Replayer& r) -> std::vector<int> {
         return {r.schedule()
                     .rfactor(r.loop(r.kw("loop")), static_cast<int>(r.int_kw("factor_axis")))
                     .id};
       }},
      {.name = "blockize",
       .params = {{"target", P::BlockTarget, true}, {"preserve_unit_iters", P::Bool, false}},
       .outputs = Outputs::One,
       .output_kind = 'b',
       .replay = [](Replayer& r) -> std::vector<int> {
         const TraceValue& target = r.kw("target");
         bool preserve = r.opt_bool("preserve_unit_iters", true);
         if (std::holds_alternative<TraceList>(target.v)) {
           std::vector<BlockRV> blocks;
           for (const TraceValue& x : r.list(target)) blocks.push_back(r.block(x));
           return {r.schedule().blockize(blocks, preserve).id};
         }
         return {r.schedule().blockize(r.loop(target), preserve).id};
       }},
      {.name = "tensorize",
       .params = {{"block_or_loop", P::BlockOrLoop, true},
                  {"tensor_intrin", P::String, true},
                  {"preserve_unit_iters", P::Bool, false}},
       .replay = [](Replayer& r) -> std::vector<int> {
         r.schedule().tensorize(r.block_or_loop(r.kw("block_or_loop")),
                                r.string_kw("tensor_intrin"),
                                r.opt_bool("preserve_unit_iters", true));
         return {};
       }},
  };
}

}  // namespace tirc::trace_detail
