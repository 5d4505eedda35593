// Instruction kinds that annotate blocks and loops: annotate, unannotate.
#include "schedule/trace_kinds.h"
#include "schedule/trace_replay.h"

namespace tirc::trace_detail {

namespace {

using P = ParamType;

}  // namespace

std::vector<InstructionKind> annotation_kinds() {
  return {
      {.name = "annotate",
       .params = {{"block_or_loop", P::BlockOrLoop, true},
                  {"ann_key", P::String, true},
                  {"ann_val", P::ScalarOrSample, true}},
       .replay = [](Replayer& r) -> std::vector<int> {
         Schedule& sch = r.schedule();
         // A sampled value (sample_categorical's v3) annotates with what it drew.
         const TraceValue& value = r.kw("ann_val");
         sch.annotate(r.block_or_loop(r.kw("block_or_loop")), r.string_kw("ann_key"),
                      std::holds_alternative<TraceRV>(value.v)
                          ? r.scalar(TraceValue(sch.get(ExprRV{r.handle(value, 'v')})))
                          : r.scalar(value));
         return {};
       }},
      {.name = "unannotate",
       .params = {{"block_or_loop", P::BlockOrLoop, true}, {"ann_key", P::String, true}},
       .replay = [](Replayer& r) -> std::vector<int> {
         r.schedule().unannotate(r.block_or_loop(r.kw("block_or_loop")), r.string_kw("ann_key"));
         return {};
       }},
  };
}

}  // namespace tirc::trace_detail
