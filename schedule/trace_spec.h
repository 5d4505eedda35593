// The instruction kinds a trace can hold. Each kind is one entry
// (trace_kinds_*.cpp): its signature (parameter names in TVM's order, what
// each accepts, what the primitive returns) and its replay. The script parser
// and the JSON reader check instructions against the signature, so a trace
// that loads is one replay can decode.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "schedule/trace.h"

namespace tirc::trace_detail {

enum class ParamType {
  Block,           // b
  Loop,            // l
  BlockOrLoop,     // b or l
  Int,             // an integer
  Bool,            // True / False
  String,          // "..."
  Scalar,          // an annotation value: int, float, bool or string
  ScalarOrSample,  // a Scalar or a sampled value (v3)
  OptScalar,       // None or a Scalar
  IntList,         // [1, 2]
  FloatList,       // [0.5, 0.5] (integers are read as floats)
  FactorList,      // split factors: [None, 32, v3]
  BlockList,       // [b1, b2]
  BufferTuple,     // ("read" | "write", index)
  IndexMapValue,   // lambda i, j: (...)
  BlockTarget,     // blockize: a loop or a list of blocks
  OptIntList,      // None or [ints] (sample_perfect_tile's decision)
  OptInt,          // None or an int (sample_categorical's decision)
};

struct ParamSpec {
  const char* name;
  ParamType type;
  bool required;
};

enum class Outputs { None, One, List };

class Replayer;

struct InstructionKind {
  const char* name;                    // the primitive, as Instruction::kind names it
  std::vector<ParamSpec> params = {};  // keyword parameters in printing order
  // The leading arguments are positional, not keywords: every loop of
  // fuse/reorder (variadic), or get_child_blocks' one scope.
  enum class Positional { None, Loops, Scope } positional = Positional::None;
  Outputs outputs = Outputs::None;
  char output_kind = 0;  // 'b', 'l' or 'v'
  // How many outputs an instruction gives, for kinds whose arguments tell
  // (split: one per factor; sample_perfect_tile: n); null for the others.
  std::optional<size_t> (*count_outputs)(const Instruction& inst) = nullptr;
  // Calls the Schedule method with the arguments `replayer` decodes; returns
  // the handles of the results, in the order of the instruction's outputs.
  std::vector<int> (*replay)(Replayer& replayer) = nullptr;

  std::optional<size_t> expected_outputs(const Instruction& inst) const {
    return count_outputs ? count_outputs(inst) : std::nullopt;
  }
};

// The kind of that name (get_sblock, TVM 0.27's name, finds get_block), or
// null when there is none.
const InstructionKind* find_primitive(std::string_view name);
std::vector<std::string> primitive_names();

// The kinds of the random variables defined so far (by their names).
using DefinedRVs = std::set<std::pair<char, int>>;

// Checks one argument against its type, coercing where the script form is
// looser than the canonical one (integers where floats are expected). Returns
// the reason it does not fit, or nothing.
std::optional<std::string> check_value(ParamType type, TraceValue& value,
                                       const DefinedRVs& defined);
// Checks a positional argument of fuse/reorder (a loop) or get_child_blocks.
std::optional<std::string> check_positional(const InstructionKind& kind, TraceValue& value,
                                            const DefinedRVs& defined);
// What a type accepts, for messages: "a block", "a list of integers"...
std::string describe(ParamType type);

// Printing of values, shared by the script and JSON forms.
std::string print_value(const TraceValue& v);
std::string print_index_map(const IndexMap& m);
std::string print_double(double d);

// One line of the schedule script: `l4, l5 = sch.split(loop=l1, ...)`.
std::string print_instruction(const Instruction& inst);

// `lambda i, j: (i // 16, j)`, alone in `text`. `loc` is where the text
// starts in a script, so errors point there; unknown for the JSON form.
IndexMap parse_index_map(std::string_view text, const SourceLoc& loc);

}  // namespace tirc::trace_detail
