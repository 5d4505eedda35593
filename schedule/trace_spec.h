// The signature of every primitive a trace can hold: parameter names in
// TVM's order, what each accepts, and what the primitive returns. The script
// parser, the JSON reader and replay all check instructions against it, so a
// trace that loads is one replay can decode.
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

struct PrimitiveSpec {
  const char* kind;
  std::vector<ParamSpec> params;  // keyword parameters in printing order
  // The leading arguments are positional, not keywords: every loop of
  // fuse/reorder (variadic), or get_child_blocks' one scope.
  enum class Positional { None, Loops, Scope } positional = Positional::None;
  Outputs outputs = Outputs::None;
  char output_kind = 0;  // 'b', 'l' or 'v'
};

// The spec of a primitive, or null when there is none by that name.
const PrimitiveSpec* find_primitive(std::string_view kind);
std::vector<std::string> primitive_names();

// The kinds of the random variables defined so far (by their names).
using DefinedRVs = std::set<std::pair<char, int>>;

// Checks one argument against its type, coercing where the script form is
// looser than the canonical one (integers where floats are expected). Returns
// the reason it does not fit, or nothing.
std::optional<std::string> check_value(ParamType type, TraceValue& value,
                                       const DefinedRVs& defined);
// Checks a positional argument of fuse/reorder (a loop) or get_child_blocks.
std::optional<std::string> check_positional(const PrimitiveSpec& spec, TraceValue& value,
                                            const DefinedRVs& defined);
// How many outputs an instruction gives when its arguments tell (split: one
// per factor; sample_perfect_tile: n).
std::optional<size_t> expected_outputs(const Instruction& inst);
// What a type accepts, for messages: "a block", "a list of integers"...
std::string describe(ParamType type);

// Printing of values, shared by the script and JSON forms.
std::string print_value(const TraceValue& v);
std::string print_index_map(const IndexMap& m);
std::string quote_string(std::string_view s);
std::string print_double(double d);

// `lambda i, j: (i // 16, j)`, alone in `text` (JSON form) or starting at
// `offset` in a script; `loc` places errors.
std::string print_instruction(const Instruction& inst);

IndexMap parse_index_map(std::string_view text, const SourceLoc& loc);

}  // namespace tirc::trace_detail
