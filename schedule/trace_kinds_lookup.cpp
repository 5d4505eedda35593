// Instruction kinds that look up blocks and loops: get_block, get_loops,
// get_child_blocks, get_producers, get_consumers.
#include "schedule/trace_kinds.h"
#include "schedule/trace_replay.h"

namespace tirc::trace_detail {

namespace {

using P = ParamType;
using Pos = InstructionKind::Positional;

}  // namespace

std::vector<InstructionKind> lookup_kinds() {
  return {
      {.name = "get_block",
       .params = {{"name", P::String, true}, {"func_name", P::String, false}},
       .outputs = Outputs::One,
       .output_kind = 'b',
       .replay = [](Replayer& r) -> std::vector<int> {
         std::string func = r.opt_string("func_name", "");
         if (func.empty()) func = r.default_func();
         return {r.schedule().get_block(r.string_kw("name"), func).id};
       }},
      {.name = "get_loops",
       .params = {{"block", P::Block, true}},
       .outputs = Outputs::List,
       .output_kind = 'l',
       .replay = [](Replayer& r) -> std::vector<int> {
         return Replayer::ids(r.schedule().get_loops(r.block(r.kw("block"))));
       }},
      {.name = "get_child_blocks",
       .positional = Pos::Scope,
       .outputs = Outputs::List,
       .output_kind = 'b',
       .replay = [](Replayer& r) -> std::vector<int> {
         const Instruction& inst = r.instruction();
         if (inst.positional.size() != 1) r.fail("expects one block or loop");
         return Replayer::ids(r.schedule().get_child_blocks(r.block_or_loop(inst.positional[0])));
       }},
      {.name = "get_producers",
       .params = {{"block", P::Block, true}},
       .outputs = Outputs::List,
       .output_kind = 'b',
       .replay = [](Replayer& r) -> std::vector<int> {
         return Replayer::ids(r.schedule().get_producers(r.block(r.kw("block"))));
       }},
      {.name = "get_consumers",
       .params = {{"block", P::Block, true}},
       .outputs = Outputs::List,
       .output_kind = 'b',
       .replay = [](Replayer& r) -> std::vector<int> {
         return Replayer::ids(r.schedule().get_consumers(r.block(r.kw("block"))));
       }},
  };
}

}  // namespace tirc::trace_detail
