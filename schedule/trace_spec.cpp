#include "schedule/trace_spec.h"

#include <algorithm>
#include <cmath>

#include "ir/text/float_repr.h"
#include "ir/text/printer.h"

namespace tirc::trace_detail {

namespace {

using P = ParamType;
using Pos = PrimitiveSpec::Positional;

const std::vector<PrimitiveSpec>& table() {
  static const std::vector<PrimitiveSpec> specs = {
      {"get_block",
       {{"name", P::String, true}, {"func_name", P::String, false}},
       Pos::None,
       Outputs::One,
       'b'},
      {"get_loops", {{"block", P::Block, true}}, Pos::None, Outputs::List, 'l'},
      {"get_child_blocks", {}, Pos::Scope, Outputs::List, 'b'},
      {"get_producers", {{"block", P::Block, true}}, Pos::None, Outputs::List, 'b'},
      {"get_consumers", {{"block", P::Block, true}}, Pos::None, Outputs::List, 'b'},
      {"split",
       {{"loop", P::Loop, true},
        {"factors", P::FactorList, true},
        {"preserve_unit_iters", P::Bool, false},
        {"disable_predication", P::Bool, false}},
       Pos::None,
       Outputs::List,
       'l'},
      {"fuse", {{"preserve_unit_iters", P::Bool, false}}, Pos::Loops, Outputs::One, 'l'},
      {"reorder", {}, Pos::Loops, Outputs::None, 0},
      {"add_unit_loop", {{"block_or_loop", P::BlockOrLoop, true}}, Pos::None, Outputs::One, 'l'},
      {"parallel", {{"loop", P::Loop, true}}, Pos::None, Outputs::None, 0},
      {"vectorize", {{"loop", P::Loop, true}}, Pos::None, Outputs::None, 0},
      {"unroll", {{"loop", P::Loop, true}}, Pos::None, Outputs::None, 0},
      {"bind",
       {{"loop", P::Loop, true}, {"thread_axis", P::String, true}},
       Pos::None,
       Outputs::None,
       0},
      {"annotate",
       {{"block_or_loop", P::BlockOrLoop, true},
        {"ann_key", P::String, true},
        {"ann_val", P::ScalarOrSample, true}},
       Pos::None,
       Outputs::None,
       0},
      {"unannotate",
       {{"block_or_loop", P::BlockOrLoop, true}, {"ann_key", P::String, true}},
       Pos::None,
       Outputs::None,
       0},
      {"compute_at",
       {{"block", P::Block, true},
        {"loop", P::Loop, true},
        {"preserve_unit_loops", P::Bool, false},
        {"index", P::Int, false}},
       Pos::None,
       Outputs::None,
       0},
      {"reverse_compute_at",
       {{"block", P::Block, true},
        {"loop", P::Loop, true},
        {"preserve_unit_loops", P::Bool, false},
        {"index", P::Int, false}},
       Pos::None,
       Outputs::None,
       0},
      {"compute_inline", {{"block", P::Block, true}}, Pos::None, Outputs::None, 0},
      {"reverse_compute_inline", {{"block", P::Block, true}}, Pos::None, Outputs::None, 0},
      {"cache_read",
       {{"block", P::Block, true},
        {"read_buffer_index", P::Int, true},
        {"storage_scope", P::String, true},
        {"consumer_blocks", P::BlockList, false}},
       Pos::None,
       Outputs::One,
       'b'},
      {"cache_write",
       {{"block", P::Block, true},
        {"write_buffer_index", P::Int, true},
        {"storage_scope", P::String, true},
        {"consumer_blocks", P::BlockList, false}},
       Pos::None,
       Outputs::One,
       'b'},
      {"set_scope",
       {{"block", P::Block, true},
        {"buffer_index", P::Int, true},
        {"storage_scope", P::String, true}},
       Pos::None,
       Outputs::None,
       0},
      {"storage_align",
       {{"block", P::Block, true},
        {"buffer_index", P::Int, true},
        {"axis", P::Int, true},
        {"factor", P::Int, true},
        {"offset", P::Int, true}},
       Pos::None,
       Outputs::None,
       0},
      {"transform_layout",
       {{"block", P::Block, true},
        {"buffer", P::BufferTuple, true},
        {"index_map", P::IndexMapValue, true},
        {"pad_value", P::OptScalar, false},
        {"assume_injective_transform", P::Bool, false}},
       Pos::None,
       Outputs::None,
       0},
      {"reindex",
       {{"block", P::Block, true}, {"buffer", P::BufferTuple, true}},
       Pos::None,
       Outputs::One,
       'b'},
      {"decompose_reduction",
       {{"block", P::Block, true}, {"loop", P::Loop, true}},
       Pos::None,
       Outputs::One,
       'b'},
      {"rfactor",
       {{"loop", P::Loop, true}, {"factor_axis", P::Int, true}},
       Pos::None,
       Outputs::One,
       'b'},
      {"blockize",
       {{"target", P::BlockTarget, true}, {"preserve_unit_iters", P::Bool, false}},
       Pos::None,
       Outputs::One,
       'b'},
      {"tensorize",
       {{"block_or_loop", P::BlockOrLoop, true},
        {"tensor_intrin", P::String, true},
        {"preserve_unit_iters", P::Bool, false}},
       Pos::None,
       Outputs::None,
       0},
      {"sample_perfect_tile",
       {{"loop", P::Loop, true},
        {"n", P::Int, true},
        {"max_innermost_factor", P::Int, false},
        {"decision", P::OptIntList, false}},
       Pos::None,
       Outputs::List,
       'v'},
      {"sample_categorical",
       {{"candidates", P::IntList, true},
        {"probs", P::FloatList, true},
        {"decision", P::OptInt, false}},
       Pos::None,
       Outputs::One,
       'v'},
  };
  return specs;
}

bool is_rv_of(const TraceValue& v, char kind, const DefinedRVs& defined, std::string* why) {
  const TraceRV* rv = std::get_if<TraceRV>(&v.v);
  if (!rv) return false;
  if (!defined.count({rv->kind, rv->id})) {
    *why = rv->name() + " is not defined";
    return false;
  }
  return rv->kind == kind;
}

bool is_int(const TraceValue& v) {
  return std::holds_alternative<int64_t>(v.v);
}

bool is_scalar(const TraceValue& v) {
  return is_int(v) || std::holds_alternative<double>(v.v) || std::holds_alternative<bool>(v.v) ||
         std::holds_alternative<std::string>(v.v);
}

}  // namespace

const PrimitiveSpec* find_primitive(std::string_view kind) {
  if (kind == "get_sblock") kind = "get_block";  // TVM 0.27's name of it
  for (const PrimitiveSpec& s : table())
    if (kind == s.kind) return &s;
  return nullptr;
}

std::vector<std::string> primitive_names() {
  std::vector<std::string> out;
  for (const PrimitiveSpec& s : table()) out.emplace_back(s.kind);
  return out;
}

std::optional<size_t> expected_outputs(const Instruction& inst) {
  if (inst.kind == "split")
    if (const TraceValue* f = inst.keyword("factors"))
      if (const auto* l = std::get_if<TraceList>(&f->v)) return l->size();
  if (inst.kind == "sample_perfect_tile")
    if (const TraceValue* n = inst.keyword("n"))
      if (const auto* i = std::get_if<int64_t>(&n->v))
        return static_cast<size_t>(std::max<int64_t>(*i, 0));
  return std::nullopt;
}

std::string describe(ParamType type) {
  switch (type) {
    case P::Block:
      return "a block";
    case P::Loop:
      return "a loop";
    case P::BlockOrLoop:
      return "a block or a loop";
    case P::Int:
      return "an integer";
    case P::Bool:
      return "True or False";
    case P::String:
      return "a string";
    case P::Scalar:
      return "an integer, float, bool or string";
    case P::ScalarOrSample:
      return "an integer, float, bool, string or sampled value";
    case P::OptScalar:
      return "None or an integer, float, bool or string";
    case P::IntList:
      return "a list of integers";
    case P::FloatList:
      return "a list of numbers";
    case P::FactorList:
      return "a list of None, integers or sampled values";
    case P::BlockList:
      return "a list of blocks";
    case P::BufferTuple:
      return "a tuple (\"read\" or \"write\", index)";
    case P::IndexMapValue:
      return "an index map (lambda)";
    case P::BlockTarget:
      return "a loop or a list of blocks";
    case P::OptIntList:
      return "None or a list of integers";
    case P::OptInt:
      return "None or an integer";
  }
  return "?";
}

std::optional<std::string> check_value(ParamType type, TraceValue& value,
                                       const DefinedRVs& defined) {
  std::string why;
  auto fits = [&]() -> bool {
    TraceList* list = std::get_if<TraceList>(&value.v);
    switch (type) {
      case P::Block:
        return is_rv_of(value, 'b', defined, &why);
      case P::Loop:
        return is_rv_of(value, 'l', defined, &why);
      case P::BlockOrLoop:
        return is_rv_of(value, 'b', defined, &why) ||
               (why.empty() && is_rv_of(value, 'l', defined, &why));
      case P::Int:
        return is_int(value);
      case P::Bool:
        return std::holds_alternative<bool>(value.v);
      case P::String:
        return std::holds_alternative<std::string>(value.v);
      case P::Scalar:
        return is_scalar(value);
      case P::ScalarOrSample:
        return is_scalar(value) || is_rv_of(value, 'v', defined, &why);
      case P::OptScalar:
        return value.is_none() || is_scalar(value);
      case P::IntList:
        if (!list) return false;
        for (const TraceValue& x : *list)
          if (!is_int(x)) return false;
        return true;
      case P::FloatList:
        if (!list) return false;
        for (TraceValue& x : *list) {
          if (is_int(x)) x = TraceValue(static_cast<double>(std::get<int64_t>(x.v)));
          if (!std::holds_alternative<double>(x.v)) return false;
        }
        return true;
      case P::FactorList:
        if (!list) return false;
        for (const TraceValue& x : *list)
          if (!x.is_none() && !is_int(x) && !is_rv_of(x, 'v', defined, &why)) return false;
        return true;
      case P::BlockList:
        if (!list) return false;
        for (const TraceValue& x : *list)
          if (!is_rv_of(x, 'b', defined, &why)) return false;
        return true;
      case P::BufferTuple: {
        const auto* t = std::get_if<TraceValue::Tuple>(&value.v);
        if (!t || t->items.size() != 2 || !is_int(t->items[1])) return false;
        const auto* s = std::get_if<std::string>(&t->items[0].v);
        return s && (*s == "read" || *s == "write");
      }
      case P::IndexMapValue:
        return std::holds_alternative<std::shared_ptr<const IndexMap>>(value.v);
      case P::BlockTarget:
        if (list) {
          if (list->empty()) return false;
          for (const TraceValue& x : *list)
            if (!is_rv_of(x, 'b', defined, &why)) return false;
          return true;
        }
        return is_rv_of(value, 'l', defined, &why);
      case P::OptIntList:
        if (value.is_none()) return true;
        if (!list) return false;
        for (const TraceValue& x : *list)
          if (!is_int(x)) return false;
        return true;
      case P::OptInt:
        return value.is_none() || is_int(value);
    }
    return false;
  };
  if (fits()) return std::nullopt;
  if (!why.empty()) return why;
  return "must be " + describe(type) + ", not " + print_value(value);
}

std::optional<std::string> check_positional(const PrimitiveSpec& spec, TraceValue& value,
                                            const DefinedRVs& defined) {
  return check_value(spec.positional == Pos::Loops ? P::Loop : P::BlockOrLoop, value, defined);
}

// ---- printing ---------------------------------------------------------------

std::string print_double(double d) {
  if (std::isnan(d)) return "float(\"nan\")";
  if (std::isinf(d)) return d > 0 ? "float(\"inf\")" : "float(\"-inf\")";
  std::string s = float_repr(d);
  // Python's repr keeps a float a float: 2.0, not 2.
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

std::string quote_string(std::string_view s) {
  static const char* digits = "0123456789abcdef";
  std::string out = "\"";
  for (char c : s) {
    unsigned char u = static_cast<unsigned char>(c);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (u < 0x20 || u == 0x7f) {
          out += "\\x";
          out += digits[u >> 4];
          out += digits[u & 15];
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string print_index_map(const IndexMap& m) {
  std::string out = "lambda";
  for (size_t i = 0; i < m.params.size(); ++i) {
    out += i ? ", " : " ";
    out += m.params[i]->name;
  }
  out += ": (";
  for (size_t i = 0; i < m.results.size(); ++i) {
    out += i ? ", " : "";
    out += print_expr(m.results[i]);
  }
  if (m.results.size() == 1) out += ",";
  return out + ")";
}

std::string print_value(const TraceValue& value) {
  struct Printer {
    std::string operator()(std::monostate) const { return "None"; }
    std::string operator()(bool b) const { return b ? "True" : "False"; }
    std::string operator()(int64_t i) const { return std::to_string(i); }
    std::string operator()(double d) const { return print_double(d); }
    std::string operator()(const std::string& s) const { return quote_string(s); }
    std::string operator()(const TraceRV& rv) const { return rv.name(); }
    std::string operator()(const TraceList& l) const {
      std::string out = "[";
      for (size_t i = 0; i < l.size(); ++i) {
        out += i ? ", " : "";
        out += print_value(l[i]);
      }
      return out + "]";
    }
    std::string operator()(const TraceValue::Tuple& t) const {
      std::string out = "(";
      for (size_t i = 0; i < t.items.size(); ++i) {
        out += i ? ", " : "";
        out += print_value(t.items[i]);
      }
      if (t.items.size() == 1) out += ",";
      return out + ")";
    }
    std::string operator()(const std::shared_ptr<const IndexMap>& m) const {
      return m ? print_index_map(*m) : "None";
    }
  };
  return std::visit(Printer{}, value.v);
}

}  // namespace tirc::trace_detail
