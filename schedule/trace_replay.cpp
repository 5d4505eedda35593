// Replaying a trace: each instruction calls the Schedule method of its kind,
// with the trace's random variables mapped to the new schedule's handles.
#include <map>

#include "schedule/schedule.h"
#include "schedule/trace_spec.h"

namespace tirc {

namespace {

using namespace trace_detail;

class Replayer {
 public:
  Replayer(Schedule& sch, const std::string& default_func)
      : sch_(sch), default_func_(default_func) {}

  void apply(const Instruction& inst) {
    inst_ = &inst;
    const std::string& k = inst.kind;
    if (!find_primitive(k)) fail("unknown schedule primitive '" + k + "'");
    if (k == "get_block") {
      std::string func = opt_string("func_name", "");
      if (func.empty()) func = default_func_;
      bind({sch_.get_block(string_kw("name"), func).id});
    } else if (k == "get_loops") {
      bind(ids(sch_.get_loops(block(kw("block")))));
    } else if (k == "get_child_blocks") {
      if (inst.positional.size() != 1) fail("expects one block or loop");
      bind(ids(sch_.get_child_blocks(block_or_loop(inst.positional[0]))));
    } else if (k == "get_producers") {
      bind(ids(sch_.get_producers(block(kw("block")))));
    } else if (k == "get_consumers") {
      bind(ids(sch_.get_consumers(block(kw("block")))));
    } else if (k == "split") {
      std::vector<SplitFactor> factors;
      for (const TraceValue& f : list(kw("factors"))) {
        if (f.is_none()) {
          factors.emplace_back(nullptr);
        } else if (auto* i = std::get_if<int64_t>(&f.v)) {
          factors.emplace_back(*i);
        } else {
          factors.emplace_back(ExprRV{handle(f, 'v')});
        }
      }
      bind(ids(sch_.split(loop(kw("loop")), factors, opt_bool("preserve_unit_iters", true),
                          opt_bool("disable_predication", false))));
    } else if (k == "fuse") {
      bind({sch_.fuse(loops(inst.positional), opt_bool("preserve_unit_iters", true)).id});
    } else if (k == "reorder") {
      sch_.reorder(loops(inst.positional));
      bind({});
    } else if (k == "add_unit_loop") {
      bind({sch_.add_unit_loop(block_or_loop(kw("block_or_loop"))).id});
    } else if (k == "parallel") {
      sch_.parallel(loop(kw("loop")));
      bind({});
    } else if (k == "vectorize") {
      sch_.vectorize(loop(kw("loop")));
      bind({});
    } else if (k == "unroll") {
      sch_.unroll(loop(kw("loop")));
      bind({});
    } else if (k == "bind") {
      sch_.bind(loop(kw("loop")), string_kw("thread_axis"));
      bind({});
    } else if (k == "annotate") {
      // A sampled value (sample_categorical's v3) annotates with what it drew.
      const TraceValue& value = kw("ann_val");
      sch_.annotate(block_or_loop(kw("block_or_loop")), string_kw("ann_key"),
                    std::holds_alternative<TraceRV>(value.v)
                        ? scalar(TraceValue(sch_.get(ExprRV{handle(value, 'v')})))
                        : scalar(value));
      bind({});
    } else if (k == "unannotate") {
      sch_.unannotate(block_or_loop(kw("block_or_loop")), string_kw("ann_key"));
      bind({});
    } else if (k == "compute_at" || k == "reverse_compute_at") {
      BlockRV b = block(kw("block"));
      LoopRV l = loop(kw("loop"));
      bool preserve = opt_bool("preserve_unit_loops", false);
      int index = static_cast<int>(opt_int("index", -1));
      if (k == "compute_at") {
        sch_.compute_at(b, l, preserve, index);
      } else {
        sch_.reverse_compute_at(b, l, preserve, index);
      }
      bind({});
    } else if (k == "compute_inline") {
      sch_.compute_inline(block(kw("block")));
      bind({});
    } else if (k == "reverse_compute_inline") {
      sch_.reverse_compute_inline(block(kw("block")));
      bind({});
    } else if (k == "cache_read" || k == "cache_write") {
      BlockRV b = block(kw("block"));
      int index =
          static_cast<int>(int_kw(k == "cache_read" ? "read_buffer_index" : "write_buffer_index"));
      std::string scope = string_kw("storage_scope");
      std::vector<BlockRV> consumers;
      if (const TraceValue* c = inst.keyword("consumer_blocks"))
        for (const TraceValue& x : list(*c)) consumers.push_back(block(x));
      BlockRV out = k == "cache_read" ? sch_.cache_read(b, index, scope, consumers)
                                      : sch_.cache_write(b, index, scope, consumers);
      bind({out.id});
    } else if (k == "set_scope") {
      sch_.set_scope(block(kw("block")), static_cast<int>(int_kw("buffer_index")),
                     string_kw("storage_scope"));
      bind({});
    } else if (k == "storage_align") {
      sch_.storage_align(block(kw("block")), static_cast<int>(int_kw("buffer_index")),
                         static_cast<int>(int_kw("axis")), static_cast<int>(int_kw("factor")),
                         static_cast<int>(int_kw("offset")));
      bind({});
    } else if (k == "transform_layout") {
      const auto* m = std::get_if<std::shared_ptr<const IndexMap>>(&kw("index_map").v);
      if (!m || !*m) fail("index_map must be an index map");
      // tirc moves elements only where the map is a bijection onto the new
      // shape (it proves so whatever assume_injective_transform says), so
      // there is no padding to fill.
      if (const TraceValue* pad = inst.keyword("pad_value"); pad && !pad->is_none())
        fail("pad_value=" + print_value(*pad) +
             " is not supported: tirc's transform_layout does not pad buffers");
      sch_.transform_layout(block(kw("block")), buffer_index(kw("buffer")), **m);
      bind({});
    } else if (k == "reindex") {
      bind({sch_.reindex(block(kw("block")), buffer_index(kw("buffer"))).id});
    } else if (k == "decompose_reduction") {
      bind({sch_.decompose_reduction(block(kw("block")), loop(kw("loop"))).id});
    } else if (k == "rfactor") {
      bind({sch_.rfactor(loop(kw("loop")), static_cast<int>(int_kw("factor_axis"))).id});
    } else if (k == "blockize") {
      const TraceValue& target = kw("target");
      bool preserve = opt_bool("preserve_unit_iters", true);
      if (std::holds_alternative<TraceList>(target.v)) {
        std::vector<BlockRV> blocks;
        for (const TraceValue& x : list(target)) blocks.push_back(block(x));
        bind({sch_.blockize(blocks, preserve).id});
      } else {
        bind({sch_.blockize(loop(target), preserve).id});
      }
    } else if (k == "tensorize") {
      sch_.tensorize(block_or_loop(kw("block_or_loop")), string_kw("tensor_intrin"),
                     opt_bool("preserve_unit_iters", true));
      bind({});
    } else if (k == "sample_perfect_tile") {
      std::optional<std::vector<int64_t>> decision;
      if (const TraceValue* d = inst.keyword("decision"); d && !d->is_none()) decision = ints(*d);
      bind(ids(sch_.sample_perfect_tile(loop(kw("loop")), static_cast<int>(int_kw("n")),
                                        static_cast<int>(opt_int("max_innermost_factor", 16)),
                                        decision)));
    } else if (k == "sample_categorical") {
      std::vector<double> probs;
      for (const TraceValue& p : list(kw("probs"))) {
        if (auto* d = std::get_if<double>(&p.v)) {
          probs.push_back(*d);
        } else if (auto* i = std::get_if<int64_t>(&p.v)) {
          probs.push_back(static_cast<double>(*i));
        } else {
          fail("probs must be numbers");
        }
      }
      std::optional<int> decision;
      if (const TraceValue* d = inst.keyword("decision"); d && !d->is_none())
        decision = static_cast<int>(as_int(*d, "decision"));
      bind({sch_.sample_categorical(ints(kw("candidates")), probs, decision).id});
    } else {
      fail("cannot replay '" + k + "'");
    }
  }

 private:
  Schedule& sch_;
  std::string default_func_;
  const Instruction* inst_ = nullptr;
  std::map<std::pair<char, int>, int> handles_;

  [[noreturn]] void fail(const std::string& msg) const { throw ScheduleError(inst_->kind, msg); }

  const TraceValue& kw(const char* name) const {
    const TraceValue* v = inst_->keyword(name);
    if (!v) fail(std::string("missing argument '") + name + "'");
    return *v;
  }
  int handle(const TraceValue& v, char kind) const {
    const auto* rv = std::get_if<TraceRV>(&v.v);
    if (!rv || rv->kind != kind)
      fail("expected a " +
           std::string(kind == 'b'   ? "block"
                       : kind == 'l' ? "loop"
                                     : "sampled value") +
           ", not " + print_value(v));
    auto it = handles_.find({rv->kind, rv->id});
    if (it == handles_.end()) fail(rv->name() + " is not defined");
    return it->second;
  }
  BlockRV block(const TraceValue& v) const { return BlockRV{handle(v, 'b')}; }
  LoopRV loop(const TraceValue& v) const { return LoopRV{handle(v, 'l')}; }
  BlockOrLoop block_or_loop(const TraceValue& v) const {
    const auto* rv = std::get_if<TraceRV>(&v.v);
    if (rv && rv->kind == 'l') return loop(v);
    return block(v);
  }
  std::vector<LoopRV> loops(const std::vector<TraceValue>& vs) const {
    std::vector<LoopRV> out;
    for (const TraceValue& v : vs) out.push_back(loop(v));
    return out;
  }
  const TraceList& list(const TraceValue& v) const {
    const auto* l = std::get_if<TraceList>(&v.v);
    if (!l) fail("expected a list, not " + print_value(v));
    return *l;
  }
  int64_t as_int(const TraceValue& v, const char* what) const {
    const auto* i = std::get_if<int64_t>(&v.v);
    if (!i) fail(std::string(what) + " must be an integer, not " + print_value(v));
    return *i;
  }
  std::vector<int64_t> ints(const TraceValue& v) const {
    std::vector<int64_t> out;
    for (const TraceValue& x : list(v)) out.push_back(as_int(x, "each element"));
    return out;
  }
  int64_t int_kw(const char* name) const { return as_int(kw(name), name); }
  int64_t opt_int(const char* name, int64_t fallback) const {
    const TraceValue* v = inst_->keyword(name);
    return v && !v->is_none() ? as_int(*v, name) : fallback;
  }
  bool opt_bool(const char* name, bool fallback) const {
    const TraceValue* v = inst_->keyword(name);
    if (!v) return fallback;
    const auto* b = std::get_if<bool>(&v->v);
    if (!b) fail(std::string(name) + " must be True or False");
    return *b;
  }
  std::string string_kw(const char* name) const {
    const auto* s = std::get_if<std::string>(&kw(name).v);
    if (!s) fail(std::string(name) + " must be a string");
    return *s;
  }
  std::string opt_string(const char* name, std::string fallback) const {
    return inst_->keyword(name) ? string_kw(name) : fallback;
  }
  Expr scalar(const TraceValue& v) const {
    if (const auto* i = std::get_if<int64_t>(&v.v))
      return *i >= INT32_MIN && *i <= INT32_MAX ? make_int(*i) : make_int(*i, DataType::int64());
    if (const auto* d = std::get_if<double>(&v.v)) return make_float(*d);
    if (const auto* b = std::get_if<bool>(&v.v)) return make_bool(*b);
    if (const auto* s = std::get_if<std::string>(&v.v)) return make_string(*s);
    fail("ann_val must be an integer, float, bool or string");
  }
  BufferIndex buffer_index(const TraceValue& v) const {
    const auto* t = std::get_if<TraceValue::Tuple>(&v.v);
    const std::string* which =
        t && t->items.size() == 2 ? std::get_if<std::string>(&t->items[0].v) : nullptr;
    if (!which || (*which != "read" && *which != "write"))
      fail("buffer must be (\"read\" or \"write\", index), not " + print_value(v));
    return BufferIndex{*which == "write",
                       static_cast<int>(as_int(t->items[1], "the buffer index"))};
  }

  template <typename RV>
  static std::vector<int> ids(const std::vector<RV>& rvs) {
    std::vector<int> out;
    for (const RV& r : rvs) out.push_back(r.id);
    return out;
  }
  // Binds the trace's output names to the new handles, in order.
  void bind(const std::vector<int>& results) {
    const auto& outs = inst_->outputs;
    if (outs.empty()) return;
    if (outs.size() != results.size())
      fail("the trace names " + std::to_string(outs.size()) + " result" +
           (outs.size() == 1 ? "" : "s") + " but there " + (results.size() == 1 ? "is " : "are ") +
           std::to_string(results.size()));
    for (size_t i = 0; i < outs.size(); ++i) handles_[{outs[i].kind, outs[i].id}] = results[i];
  }
};

}  // namespace

void Trace::apply_to(Schedule& sch) const {
  apply_to(sch, "");
}

void Trace::apply_to(Schedule& sch, const std::string& default_func) const {
  Replayer replayer(sch, default_func);
  for (size_t n = 0; n < insts_.size(); ++n) {
    const Instruction& inst = insts_[n];
    try {
      replayer.apply(inst);
    } catch (const Error& e) {
      // Point at the script line when the trace was parsed from one.
      if (source_name_ && inst.line > 0) {
        SourceLoc loc{source_name_, source_text_, inst.line, std::max(inst.col, 1)};
        if (const auto* se = dynamic_cast<const ScheduleError*>(&e)) {
          std::string prefix = se->primitive() + ": ";
          std::string reason =
              e.message().starts_with(prefix) ? e.message().substr(prefix.size()) : e.message();
          throw ScheduleError(se->primitive(), reason, loc);
        }
        throw Error(e.message(), loc);
      }
      std::string where =
          inst.line > 0 ? "line " + std::to_string(inst.line) : "instruction " + std::to_string(n);
      if (const auto* se = dynamic_cast<const ScheduleError*>(&e)) {
        std::string prefix = se->primitive() + ": ";
        std::string reason =
            e.message().starts_with(prefix) ? e.message().substr(prefix.size()) : e.message();
        throw ScheduleError(where + ": " + se->primitive(), reason);
      }
      throw Error(where + ": " + e.message());
    }
  }
}

}  // namespace tirc
