// Replaying a trace: each instruction's kind (trace_kinds_*.cpp) calls its
// Schedule method with the arguments a Replayer decodes, which maps the
// trace's random variables to the new schedule's handles.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "schedule/schedule.h"
#include "schedule/trace_spec.h"

namespace tirc::trace_detail {

class Replayer {
 public:
  Replayer(Schedule& sch, const std::string& default_func)
      : sch_(sch), default_func_(default_func) {}

  // Replays one instruction and binds its outputs to the handles it gives.
  void apply(const Instruction& inst);

  // What a kind's replay works with: the schedule, the instruction being
  // replayed, and the function get_block looks in when it names none.
  Schedule& schedule() const { return sch_; }
  const Instruction& instruction() const { return *inst_; }
  const std::string& default_func() const { return default_func_; }

  // Refuses the instruction; the error names its kind.
  [[noreturn]] void fail(const std::string& msg) const;

  // Decoders of the instruction's arguments; each refuses (fail) a value
  // that does not fit. The opt_ ones give `fallback` where the keyword is
  // absent (opt_int: or None).
  const TraceValue& kw(const char* name) const;
  int handle(const TraceValue& v, char kind) const;
  BlockRV block(const TraceValue& v) const { return BlockRV{handle(v, 'b')}; }
  LoopRV loop(const TraceValue& v) const { return LoopRV{handle(v, 'l')}; }
  BlockOrLoop block_or_loop(const TraceValue& v) const;
  std::vector<LoopRV> loops(const std::vector<TraceValue>& vs) const;
  const TraceList& list(const TraceValue& v) const;
  int64_t as_int(const TraceValue& v, const char* what) const;
  std::vector<int64_t> ints(const TraceValue& v) const;
  int64_t int_kw(const char* name) const { return as_int(kw(name), name); }
  int64_t opt_int(const char* name, int64_t fallback) const;
  bool opt_bool(const char* name, bool fallback) const;
  std::string string_kw(const char* name) const;
  std::string opt_string(const char* name, std::string fallback) const;
  // An annotation value as an expression.
  Expr scalar(const TraceValue& v) const;
  BufferIndex buffer_index(const TraceValue& v) const;

  // The handles of a primitive's results, as a kind's replay returns them.
  template <typename RV>
  static std::vector<int> ids(const std::vector<RV>& rvs) {
    std::vector<int> out;
    for (const RV& r : rvs) out.push_back(r.id);
    return out;
  }

 private:
  Schedule& sch_;
  std::string default_func_;
  const Instruction* inst_ = nullptr;
  std::map<std::pair<char, int>, int> handles_;

  // Binds the trace's output names to the new handles, in order.
  void bind_outputs(const std::vector<int>& results);
};

}  // namespace tirc::trace_detail
