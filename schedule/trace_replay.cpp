// Replaying a trace: the Replayer's decoders, and dispatch through each
// instruction's kind.
#include "schedule/trace_replay.h"

namespace tirc {

namespace trace_detail {

void Replayer::apply(const Instruction& inst) {
  inst_ = &inst;
  const InstructionKind* kind = find_primitive(inst.kind);
  if (!kind) fail("unknown schedule primitive '" + inst.kind + "'");
  // find_primitive also answers to TVM 0.27's get_sblock, which the script
  // and JSON readers record as get_block; replay takes a kind by its own name.
  if (inst.kind != kind->name) fail("cannot replay '" + inst.kind + "'");
  bind_outputs(kind->replay(*this));
}

void Replayer::fail(const std::string& msg) const {
  throw ScheduleError(inst_->kind, msg);
}

const TraceValue& Replayer::kw(const char* name) const {
  const TraceValue* v = inst_->keyword(name);
  if (!v) fail(std::string("missing argument '") + name + "'");
  return *v;
}

int Replayer::handle(const TraceValue& v, char kind) const {
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

BlockOrLoop Replayer::block_or_loop(const TraceValue& v) const {
  const auto* rv = std::get_if<TraceRV>(&v.v);
  if (rv && rv->kind == 'l') return loop(v);
  return block(v);
}

std::vector<LoopRV> Replayer::loops(const std::vector<TraceValue>& vs) const {
  std::vector<LoopRV> out;
  for (const TraceValue& v : vs) out.push_back(loop(v));
  return out;
}

const TraceList& Replayer::list(const TraceValue& v) const {
  const auto* l = std::get_if<TraceList>(&v.v);
  if (!l) fail("expected a list, not " + print_value(v));
  return *l;
}

int64_t Replayer::as_int(const TraceValue& v, const char* what) const {
  const auto* i = std::get_if<int64_t>(&v.v);
  if (!i) fail(std::string(what) + " must be an integer, not " + print_value(v));
  return *i;
}

std::vector<int64_t> Replayer::ints(const TraceValue& v) const {
  std::vector<int64_t> out;
  for (const TraceValue& x : list(v)) out.push_back(as_int(x, "each element"));
  return out;
}

int64_t Replayer::opt_int(const char* name, int64_t fallback) const {
  const TraceValue* v = inst_->keyword(name);
  return v && !v->is_none() ? as_int(*v, name) : fallback;
}

bool Replayer::opt_bool(const char* name, bool fallback) const {
  const TraceValue* v = inst_->keyword(name);
  if (!v) return fallback;
  const auto* b = std::get_if<bool>(&v->v);
  if (!b) fail(std::string(name) + " must be True or False");
  return *b;
}

std::string Replayer::string_kw(const char* name) const {
  const auto* s = std::get_if<std::string>(&kw(name).v);
  if (!s) fail(std::string(name) + " must be a string");
  return *s;
}

std::string Replayer::opt_string(const char* name, std::string fallback) const {
  return inst_->keyword(name) ? string_kw(name) : fallback;
}

Expr Replayer::scalar(const TraceValue& v) const {
  if (const auto* i = std::get_if<int64_t>(&v.v))
    return *i >= INT32_MIN && *i <= INT32_MAX ? make_int(*i) : make_int(*i, DataType::int64());
  if (const auto* d = std::get_if<double>(&v.v)) return make_float(*d);
  if (const auto* b = std::get_if<bool>(&v.v)) return make_bool(*b);
  if (const auto* s = std::get_if<std::string>(&v.v)) return make_string(*s);
  fail("ann_val must be an integer, float, bool or string");
}

BufferIndex Replayer::buffer_index(const TraceValue& v) const {
  const auto* t = std::get_if<TraceValue::Tuple>(&v.v);
  const std::string* which =
      t && t->items.size() == 2 ? std::get_if<std::string>(&t->items[0].v) : nullptr;
  if (!which || (*which != "read" && *which != "write"))
    fail("buffer must be (\"read\" or \"write\", index), not " + print_value(v));
  return BufferIndex{*which == "write", static_cast<int>(as_int(t->items[1], "the buffer index"))};
}

void Replayer::bind_outputs(const std::vector<int>& results) {
  const auto& outs = inst_->outputs;
  if (outs.empty()) return;
  if (outs.size() != results.size())
    fail("the trace names " + std::to_string(outs.size()) + " result" +
         (outs.size() == 1 ? "" : "s") + " but there " + (results.size() == 1 ? "is " : "are ") +
         std::to_string(results.size()));
  for (size_t i = 0; i < outs.size(); ++i) handles_[{outs[i].kind, outs[i].id}] = results[i];
}

}  // namespace trace_detail

void Trace::apply_to(Schedule& sch) const {
  apply_to(sch, "");
}

void Trace::apply_to(Schedule& sch, const std::string& default_func) const {
  trace_detail::Replayer replayer(sch, default_func);
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
