// Instruction kinds that transform loops or set their kind: split, fuse,
// reorder, add_unit_loop, parallel, vectorize, unroll, bind.
#include "schedule/trace_kinds.h"
#include "schedule/trace_replay.h"

namespace tirc::trace_detail {

namespace {

using P = ParamType;
using Pos = InstructionKind::Positional;

}  // namespace

std::vector<InstructionKind> loop_kinds() {
  return {
      {.name = "split",
       .params = {{"loop", P::Loop, true},
                  {"factors", P::FactorList, true},
                  {"preserve_unit_iters", P::Bool, false},
                  {"disable_predication", P::Bool, false}},
       .outputs = Outputs::List,
       .output_kind = 'l',
       // One loop per factor.
       .count_outputs = [](const Instruction& inst) -> std::optional<size_t> {
         if (const TraceValue* f = inst.keyword("factors"))
           if (const auto* l = std::get_if<TraceList>(&f->v)) return l->size();
         return std::nullopt;
       },
       .replay = [](Replayer& r) -> std::vector<int> {
         std::vector<SplitFactor> factors;
         for (const TraceValue& f : r.list(r.kw("factors"))) {
           if (f.is_none()) {
             factors.emplace_back(nullptr);
           } else if (auto* i = std::get_if<int64_t>(&f.v)) {
             factors.emplace_back(*i);
           } else {
             factors.emplace_back(ExprRV{r.handle(f, 'v')});
           }
         }
         return Replayer::ids(r.schedule().split(r.loop(r.kw("loop")), factors,
                                                 r.opt_bool("preserve_unit_iters", true),
                                                 r.opt_bool("disable_predication", false)));
       }},
      {.name = "fuse",
       .params = {{"preserve_unit_iters", P::Bool, false}},
       .positional = Pos::Loops,
       .outputs = Outputs::One,
       .output_kind = 'l',
       .replay = [](Replayer& r) -> std::vector<int> {
         return {
             r.schedule()
                 .fuse(r.loops(r.instruction().positional), r.opt_bool("preserve_unit_iters", true))
                 .id};
       }},
      {.name = "reorder",
       .positional = Pos::Loops,
       .replay = [](Replayer& r) -> std::vector<int> {
         r.schedule().reorder(r.loops(r.instruction().positional));
         return {};
       }},
      {.name = "add_unit_loop",
       .params = {{"block_or_loop", P::BlockOrLoop, true}},
       .outputs = Outputs::One,
       .output_kind = 'l',
       .replay = [](Replayer& r) -> std::vector<int> {
         return {r.schedule().add_unit_loop(r.block_or_loop(r.kw("block_or_loop"))).id};
       }},
      {.name = "parallel",
       .params = {{"loop", P::Loop, true}},
       .replay = [](Replayer& r) -> std::vector<int> {
         r.schedule().parallel(r.loop(r.kw("loop")));
         return {};
       }},
      {.name = "vectorize",
       .params = {{"loop", P::Loop, true}},
       .replay = [](Replayer& r) -> std::vector<int> {
         r.schedule().vectorize(r.loop(r.kw("loop")));
         return {};
       }},
      {.name = "unroll",
       .params = {{"loop", P::Loop, true}},
       .replay = [](Replayer& r) -> std::vector<int> {
         r.schedule().unroll(r.loop(r.kw("loop")));
         return {};
       }},
      {.name = "bind",
       .params = {{"loop", P::Loop, true}, {"thread_axis", P::String, true}},
       .replay = [](Replayer& r) -> std::vector<int> {
         r.schedule().bind(r.loop(r.kw("loop")), r.string_kw("thread_axis"));
         return {};
       }},
  };
}

}  // namespace tirc::trace_detail
