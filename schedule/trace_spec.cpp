// Checking instruction arguments against their kinds' parameter types, and
// printing trace values.
#include "schedule/trace_spec.h"

#include <cmath>

#include "ir/text/float_repr.h"
#include "ir/text/printer.h"
#include "ir/text/text_printer.h"

namespace tirc::trace_detail {

namespace {

using P = ParamType;

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

std::optional<std::string> check_positional(const InstructionKind& kind, TraceValue& value,
                                            const DefinedRVs& defined) {
  return check_value(
      kind.positional == InstructionKind::Positional::Loops ? P::Loop : P::BlockOrLoop, value,
      defined);
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
    std::string operator()(const std::string& s) const { return quote(s); }
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
