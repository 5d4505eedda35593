// Traces: the record of every primitive applied to a schedule. A trace prints
// as a schedule script in TVM's form, parses back, serializes to JSON, and
// replays on the original program.
//
//   b0 = sch.get_block(name="C", func_name="main")
//   l1, l2, l3 = sch.get_loops(block=b0)
//   l4, l5 = sch.split(loop=l1, factors=[None, 32], preserve_unit_iters=True)
//   sch.reorder(l4, l2, l5)
#pragma once

#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "ir/expr.h"

namespace tirc {

class Schedule;

// A reference to a random variable inside a trace: kind 'b' (block), 'l' (loop)
// or 'v' (integer), and its number. Names print as b0, l1, v2, numbered in
// order of creation across all kinds.
struct TraceRV {
  char kind = 'b';
  int id = 0;
  std::string name() const {
    // Appending (not operator+) avoids a false -Wrestrict in GCC 12.
    std::string s(1, kind);
    s += std::to_string(id);
    return s;
  }
  friend bool operator==(const TraceRV&, const TraceRV&) = default;
};

// `lambda i, j: (i // 16, j, i % 16)`: parameters and result expressions over them.
struct IndexMap {
  std::vector<Var> params;
  std::vector<Expr> results;
};

struct TraceValue;
using TraceList = std::vector<TraceValue>;

// An argument of an instruction: None, a bool, an integer, a float, a string,
// a random variable, a list or tuple of values, or an index map.
struct TraceValue {
  struct Tuple {
    std::vector<TraceValue> items;
  };
  std::variant<std::monostate, bool, int64_t, double, std::string, TraceRV, TraceList, Tuple,
               std::shared_ptr<const IndexMap>>
      v;

  TraceValue() = default;
  TraceValue(std::nullptr_t) {}
  TraceValue(bool b) : v(b) {}
  TraceValue(int i) : v(int64_t{i}) {}
  TraceValue(int64_t i) : v(i) {}
  TraceValue(double d) : v(d) {}
  TraceValue(std::string s) : v(std::move(s)) {}
  TraceValue(const char* s) : v(std::string(s)) {}
  TraceValue(TraceRV rv) : v(rv) {}
  TraceValue(TraceList l) : v(std::move(l)) {}
  TraceValue(Tuple t) : v(std::move(t)) {}
  TraceValue(std::shared_ptr<const IndexMap> m) : v(std::move(m)) {}

  bool is_none() const { return std::holds_alternative<std::monostate>(v); }
};

struct Instruction {
  std::string kind;                    // the primitive: "split", "get_block", ...
  std::vector<TraceValue> positional;  // printed first, without keywords (reorder, fuse)
  std::vector<std::pair<std::string, TraceValue>> keywords;  // in printing order
  std::vector<TraceRV> outputs;
  // Outputs are a list even when there is one (get_loops, split): `l1, = ...`.
  bool list_output = false;
  int line = 0;  // where it was parsed from, for errors during replay
  int col = 0;

  const TraceValue* keyword(std::string_view name) const;
};

class Trace {
 public:
  const std::vector<Instruction>& instructions() const { return insts_; }
  void append(Instruction inst) { insts_.push_back(std::move(inst)); }
  bool empty() const { return insts_.empty(); }
  size_t size() const { return insts_.size(); }

  // The schedule script, one instruction per line.
  std::string print() const;
  // Parses a schedule script (as printed, or hand-written with positional
  // arguments in each primitive's parameter order). Errors carry file:line:col.
  static Trace parse(std::string_view text, std::string_view filename = "<trace>");

  std::string to_json() const;
  static Trace from_json(std::string_view json);

  // Applies every instruction to `sch` (which records them again in its own
  // trace). Errors name the instruction's line.
  void apply_to(Schedule& sch) const;
  // The same, with get_block instructions that name no function looking in
  // `default_func` (empty: the module's only function, or main).
  void apply_to(Schedule& sch, const std::string& default_func) const;

 private:
  std::vector<Instruction> insts_;
  // The script a parsed trace came from, so replay errors can quote it.
  std::shared_ptr<const std::string> source_name_, source_text_;
};

}  // namespace tirc
