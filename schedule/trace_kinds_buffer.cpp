// Instruction kinds that stage, place or lay out buffers: cache_read,
// cache_write, set_scope, storage_align, transform_layout, reindex.
#include "schedule/trace_kinds.h"
#include "schedule/trace_replay.h"

namespace tirc::trace_detail {

namespace {

using P = ParamType;

// cache_read and cache_write differ only in which buffer index they take.
std::vector<ParamSpec> cache_params(const char* index_name) {
  return {{"block", P::Block, true},
          {index_name, P::Int, true},
          {"storage_scope", P::String, true},
          {"consumer_blocks", P::BlockList, false}};
}

struct CacheArgs {
  BlockRV block;
  int index;
  std::string scope;
  std::vector<BlockRV> consumers;
};

CacheArgs cache_args(const Replayer& r, const char* index_name) {
  CacheArgs args{r.block(r.kw("block")),
                 static_cast<int>(r.int_kw(index_name)),
                 r.string_kw("storage_scope"),
                 {}};
  if (const TraceValue* c = r.instruction().keyword("consumer_blocks"))
    for (const TraceValue& x : r.list(*c)) args.consumers.push_back(r.block(x));
  return args;
}

}  // namespace

std::vector<InstructionKind> buffer_kinds() {
  return {
      {.name = "cache_read",
       .params = cache_params("read_buffer_index"),
       .outputs = Outputs::One,
       .output_kind = 'b',
       .replay = [](Replayer& r) -> std::vector<int> {
         CacheArgs a = cache_args(r, "read_buffer_index");
         return {r.schedule().cache_read(a.block, a.index, a.scope, a.consumers).id};
       }},
      {.name = "cache_write",
       .params = cache_params("write_buffer_index"),
       .outputs = Outputs::One,
       .output_kind = 'b',
       .replay = [](Replayer& r) -> std::vector<int> {
         CacheArgs a = cache_args(r, "write_buffer_index");
         return {r.schedule().cache_write(a.block, a.index, a.scope, a.consumers).id};
       }},
      {.name = "set_scope",
       .params = {{"block", P::Block, true},
                  {"buffer_index", P::Int, true},
                  {"storage_scope", P::String, true}},
       .replay = [](Replayer& r) -> std::vector<int> {
         r.schedule().set_scope(r.block(r.kw("block")), static_cast<int>(r.int_kw("buffer_index")),
                                r.string_kw("storage_scope"));
         return {};
       }},
      {.name = "storage_align",
       .params = {{"block", P::Block, true},
                  {"buffer_index", P::Int, true},
                  {"axis", P::Int, true},
                  {"factor", P::Int, true},
                  {"offset", P::Int, true}},
       .replay = [](Replayer& r) -> std::vector<int> {
         r.schedule().storage_align(
             r.block(r.kw("block")), static_cast<int>(r.int_kw("buffer_index")),
             static_cast<int>(r.int_kw("axis")), static_cast<int>(r.int_kw("factor")),
             static_cast<int>(r.int_kw("offset")));
         return {};
       }},
      {.name = "transform_layout",
       .params = {{"block", P::Block, true},
                  {"buffer", P::BufferTuple, true},
                  {"index_map", P::IndexMapValue, true},
                  {"pad_value", P::OptScalar, false},
                  {"assume_injective_transform", P::Bool, false}},
       .replay = [](Replayer& r) -> std::vector<int> {
         const auto* m = std::get_if<std::shared_ptr<const IndexMap>>(&r.kw("index_map").v);
         if (!m || !*m) r.fail("index_map must be an index map");
         // tirc moves elements only where the map is a bijection onto the new
         // shape (it proves so whatever assume_injective_transform says), so
         // there is no padding to fill.
         if (const TraceValue* pad = r.instruction().keyword("pad_value"); pad && !pad->is_none())
           r.fail("pad_value=" + print_value(*pad) +
                  " is not supported: tirc's transform_layout does not pad buffers");
         r.schedule().transform_layout(r.block(r.kw("block")), r.buffer_index(r.kw("buffer")), **m);
         return {};
       }},
      {.name = "reindex",
       .params = {{"block", P::Block, true}, {"buffer", P::BufferTuple, true}},
       .outputs = Outputs::One,
       .output_kind = 'b',
       .replay = [](Replayer& r) -> std::vector<int> {
         return {r.schedule().reindex(r.block(r.kw("block")), r.buffer_index(r.kw("buffer"))).id};
       }},
  };
}

}  // namespace tirc::trace_detail
