// Instruction kinds that draw random values: sample_perfect_tile,
// sample_categorical. A recorded decision replays as drawn.
#include <algorithm>

#include "schedule/trace_kinds.h"
#include "schedule/trace_replay.h"

namespace tirc::trace_detail {

namespace {

using P = ParamType;

}  // namespace

std::vector<InstructionKind> sampling_kinds() {
  return {
      {.name = "sample_perfect_tile",
       .params = {{"loop", P::Loop, true},
                  {"n", P::Int, true},
                  {"max_innermost_factor", P::Int, false},
                  {"decision", P::OptIntList, false}},
       .outputs = Outputs::List,
       .output_kind = 'v',
       // One factor per tile: n.
       .count_outputs = [](const Instruction& inst) -> std::optional<size_t> {
         if (const TraceValue* n = inst.keyword("n"))
           if (const auto* i = std::get_if<int64_t>(&n->v))
             return static_cast<size_t>(std::max<int64_t>(*i, 0));
         return std::nullopt;
       },
       .replay = [](Replayer& r) -> std::vector<int> {
         std::optional<std::vector<int64_t>> decision;
         if (const TraceValue* d = r.instruction().keyword("decision"); d && !d->is_none())
           decision = r.ints(*d);
         return Replayer::ids(r.schedule().sample_perfect_tile(
             r.loop(r.kw("loop")), static_cast<int>(r.int_kw("n")),
             static_cast<int>(r.opt_int("max_innermost_factor", 16)), decision));
       }},
      {.name = "sample_categorical",
       .params = {{"candidates", P::IntList, true},
                  {"probs", P::FloatList, true},
                  {"decision", P::OptInt, false}},
       .outputs = Outputs::One,
       .output_kind = 'v',
       .replay = [](Replayer& r) -> std::vector<int> {
         std::vector<double> probs;
         for (const TraceValue& p : r.list(r.kw("probs"))) {
           if (auto* d = std::get_if<double>(&p.v)) {
             probs.push_back(*d);
           } else if (auto* i = std::get_if<int64_t>(&p.v)) {
             probs.push_back(static_cast<double>(*i));
           } else {
             r.fail("probs must be numbers");
           }
         }
         std::optional<int> decision;
         if (const TraceValue* d = r.instruction().keyword("decision"); d && !d->is_none())
           decision = static_cast<int>(r.as_int(*d, "decision"));
         return {r.schedule().sample_categorical(r.ints(r.kw("candidates")), probs, decision).id};
       }},
  };
}

}  // namespace tirc::trace_detail
