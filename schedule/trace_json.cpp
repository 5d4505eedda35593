// Traces as JSON:
//   {"version": 1, "instructions": [
//     {"kind": "split", "positional": [],
//      "keywords": [["loop", {"rv": "l1"}], ["factors", [null, 32]]],
//      "outputs": ["l4", "l5"], "list_output": true}
//   ]}
// Values: null, true, 1, 1.5, "s", {"rv": "b0"}, [...], {"tuple": [...]},
// {"index_map": "lambda i: (i,)"}, {"float": "inf"} for non-finite floats.
// nlohmann-json reads and writes the text; this file maps it to instructions
// and checks them against their kinds' signatures (trace_spec.h).
#include <cmath>
#include <limits>

#include <nlohmann/json.hpp>

#include "ir/text/lexer.h"
#include "schedule/trace_spec.h"

namespace tirc {

namespace {

using namespace trace_detail;
// Ordered, so objects keep the field order the format documents.
using Json = nlohmann::ordered_json;

// Containers deeper than this are refused: decoding recurses once per level.
constexpr int kMaxDepth = 64;

// ---- writing ------------------------------------------------------------------

Json encode_value(const TraceValue& value) {
  struct Encoder {
    Json operator()(std::monostate) const { return nullptr; }
    Json operator()(bool b) const { return b; }
    Json operator()(int64_t i) const { return i; }
    Json operator()(double d) const {
      // JSON has no spelling for non-finite numbers.
      if (std::isnan(d)) return {{"float", "nan"}};
      if (std::isinf(d)) return {{"float", d > 0 ? "inf" : "-inf"}};
      return d;
    }
    Json operator()(const std::string& s) const { return s; }
    Json operator()(const TraceRV& rv) const { return {{"rv", rv.name()}}; }
    Json operator()(const TraceList& l) const {
      Json out = Json::array();
      for (const TraceValue& x : l) out.push_back(encode_value(x));
      return out;
    }
    Json operator()(const TraceValue::Tuple& t) const {
      Json items = Json::array();
      for (const TraceValue& x : t.items) items.push_back(encode_value(x));
      return {{"tuple", std::move(items)}};
    }
    Json operator()(const std::shared_ptr<const IndexMap>& m) const {
      if (!m) return nullptr;
      return {{"index_map", print_index_map(*m)}};
    }
  };
  return std::visit(Encoder{}, value.v);
}

Json encode_instruction(const Instruction& inst) {
  Json positional = Json::array();
  for (const TraceValue& v : inst.positional) positional.push_back(encode_value(v));
  // Keywords are [name, value] pairs, not an object: their order is the
  // printing order.
  Json keywords = Json::array();
  for (const auto& [name, v] : inst.keywords)
    keywords.push_back(Json::array({name, encode_value(v)}));
  Json outputs = Json::array();
  for (const TraceRV& rv : inst.outputs) outputs.push_back(rv.name());
  Json j = Json::object();
  j["kind"] = inst.kind;
  j["positional"] = std::move(positional);
  j["keywords"] = std::move(keywords);
  j["outputs"] = std::move(outputs);
  j["list_output"] = inst.list_output;
  return j;
}

// nlohmann's one-line dump() separates with "," and ":"; traces have always
// been written with ", " and ": " (scripts and tests diff them), so containers
// are laid out here and every scalar (string escapes, number spelling) is
// nlohmann's. Strings that are not UTF-8 throw nlohmann's type_error.
void dump_spaced(const Json& j, std::string& out) {
  if (j.is_array()) {
    out += '[';
    for (size_t i = 0; i < j.size(); ++i) {
      if (i) out += ", ";
      dump_spaced(j[i], out);
    }
    out += ']';
  } else if (j.is_object()) {
    out += '{';
    bool first = true;
    for (const auto& [key, value] : j.items()) {
      if (!first) out += ", ";
      first = false;
      out += Json(key).dump() + ": ";
      dump_spaced(value, out);
    }
    out += '}';
  } else {
    out += j.dump();
  }
}

// ---- reading ------------------------------------------------------------------

// nlohmann's messages start "[json.exception.parse_error.101] parse error at
// line 1, column 2: "; the location is reported through SourceLoc instead.
std::string reason(const nlohmann::json::exception& e) {
  std::string_view what = e.what();
  if (size_t tag = what.find("] "); tag != std::string_view::npos) what.remove_prefix(tag + 2);
  if (what.starts_with("parse error"))
    if (size_t colon = what.find(": "); colon != std::string_view::npos)
      what.remove_prefix(colon + 2);
  return std::string(what);
}

// `byte` counts the characters nlohmann read, the offending one last.
SourceLoc loc_at_byte(const SourceFile& file, size_t byte) {
  const std::string& text = *file.text;
  size_t end = std::min(byte == 0 ? 0 : byte - 1, text.size());
  int line = 1, col = 1;
  for (size_t k = 0; k < end; ++k) {
    if (text[k] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return file.at(line, col);
}

Json parse_document(std::string_view text) {
  SourceFile file{std::make_shared<const std::string>("<json>"),
                  std::make_shared<const std::string>(text)};
  auto depth_guard = [&](int depth, Json::parse_event_t event, Json&) {
    if ((event == Json::parse_event_t::object_start || event == Json::parse_event_t::array_start) &&
        depth >= kMaxDepth)
      throw Error("malformed trace JSON: nesting too deep (more than " + std::to_string(kMaxDepth) +
                  " levels)");
    return true;
  };
  try {
    return Json::parse(text.begin(), text.end(), depth_guard);
  } catch (const Json::parse_error& e) {
    throw Error("malformed trace JSON: " + reason(e), loc_at_byte(file, e.byte));
  } catch (const Json::exception& e) {
    throw Error("malformed trace JSON: " + reason(e));
  }
}

// ---- decoding -----------------------------------------------------------------

[[noreturn]] void bad(size_t index, const std::string& msg) {
  throw Error("malformed trace JSON: instruction " + std::to_string(index) + ": " + msg);
}

// JSON integers above INT64_MAX read as unsigned; traces hold int64_t.
std::optional<int64_t> as_int64(const Json& j) {
  if (j.is_number_unsigned()) {
    uint64_t u = j.get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return std::nullopt;
    return static_cast<int64_t>(u);
  }
  return j.get<int64_t>();
}

std::optional<TraceRV> rv_from_name(const std::string& name) {
  if (name.size() < 2 || name.size() > 10 || (name[0] != 'b' && name[0] != 'l' && name[0] != 'v'))
    return std::nullopt;
  for (size_t k = 1; k < name.size(); ++k)
    if (name[k] < '0' || name[k] > '9') return std::nullopt;
  return TraceRV{name[0], std::stoi(name.substr(1))};
}

TraceValue decode_value(const Json& j, size_t index) {
  if (j.is_null()) return TraceValue(nullptr);
  if (j.is_boolean()) return TraceValue(j.get<bool>());
  if (j.is_number_integer()) {
    std::optional<int64_t> i = as_int64(j);
    if (!i) bad(index, "integer " + j.dump() + " out of range");
    return TraceValue(*i);
  }
  if (j.is_number_float()) return TraceValue(j.get<double>());
  if (j.is_string()) return TraceValue(j.get<std::string>());
  if (j.is_array()) {
    TraceList list;
    for (const Json& x : j) list.push_back(decode_value(x, index));
    return TraceValue(std::move(list));
  }
  if (j.size() != 1) bad(index, "a value object must have exactly one field");
  const std::string& key = j.begin().key();
  const Json& inner = j.begin().value();
  const std::string* text = inner.get_ptr<const std::string*>();
  if (key == "rv") {
    std::optional<TraceRV> rv;
    if (text) rv = rv_from_name(*text);
    if (!rv) bad(index, "\"rv\" must name a random variable like \"b0\", \"l1\" or \"v2\"");
    return TraceValue(*rv);
  }
  if (key == "tuple") {
    if (!inner.is_array()) bad(index, "\"tuple\" must be an array");
    TraceValue::Tuple t;
    for (const Json& x : inner) t.items.push_back(decode_value(x, index));
    return TraceValue(std::move(t));
  }
  if (key == "index_map") {
    if (!text) bad(index, "\"index_map\" must be a string");
    try {
      return TraceValue(std::make_shared<const IndexMap>(parse_index_map(*text, SourceLoc{})));
    } catch (const Error& e) {
      bad(index, e.message());
    }
  }
  if (key == "float") {
    if (text && *text == "inf") return TraceValue(HUGE_VAL);
    if (text && *text == "-inf") return TraceValue(-HUGE_VAL);
    if (text && *text == "nan") return TraceValue(std::nan(""));
    bad(index, "\"float\" must be \"inf\", \"-inf\" or \"nan\"");
  }
  bad(index, "unknown value object \"" + key + "\"");
}

// The field `name` of object `j`, or null.
const Json* field(const Json& j, const char* name) {
  auto it = j.find(name);
  return it == j.end() ? nullptr : &*it;
}

Instruction decode_instruction(const Json& j, size_t index, DefinedRVs& defined) {
  if (!j.is_object()) bad(index, "not an object");
  for (const auto& [key, v] : j.items())
    if (key != "kind" && key != "positional" && key != "keywords" && key != "outputs" &&
        key != "list_output")
      bad(index, "unknown field \"" + key + "\"");
  const Json* kind = field(j, "kind");
  if (!kind || !kind->is_string()) bad(index, "\"kind\" must be a string");
  const std::string& kind_name = kind->get_ref<const std::string&>();
  const InstructionKind* spec = find_primitive(kind_name);
  if (!spec) bad(index, "unknown schedule primitive '" + kind_name + "'");
  Instruction inst;
  inst.kind = spec->name;
  inst.list_output = spec->outputs == Outputs::List;
  std::string prefix = inst.kind + ": ";

  if (const Json* pos = field(j, "positional")) {
    if (!pos->is_array()) bad(index, "\"positional\" must be an array");
    if (spec->positional == InstructionKind::Positional::None && !pos->empty())
      bad(index, prefix + "takes no positional arguments");
    if (spec->positional == InstructionKind::Positional::Scope && pos->size() > 1)
      bad(index, prefix + "takes one positional argument");
    for (const Json& x : *pos) {
      TraceValue v = decode_value(x, index);
      if (auto why = check_positional(*spec, v, defined)) bad(index, prefix + *why);
      inst.positional.push_back(std::move(v));
    }
  }
  if (spec->positional != InstructionKind::Positional::None && inst.positional.empty())
    bad(index, prefix + "needs a positional argument");

  std::vector<std::optional<TraceValue>> slots(spec->params.size());
  if (const Json* kws = field(j, "keywords")) {
    if (!kws->is_array()) bad(index, "\"keywords\" must be an array");
    for (const Json& kv : *kws) {
      if (!kv.is_array() || kv.size() != 2 || !kv[0].is_string())
        bad(index, "a keyword must be a [name, value] pair");
      const std::string& key = kv[0].get_ref<const std::string&>();
      size_t p = 0;
      while (p < spec->params.size() && key != spec->params[p].name) ++p;
      if (p == spec->params.size()) bad(index, prefix + "no parameter '" + key + "'");
      if (slots[p]) bad(index, prefix + "got multiple values for '" + key + "'");
      TraceValue v = decode_value(kv[1], index);
      if (auto why = check_value(spec->params[p].type, v, defined))
        bad(index, prefix + key + " " + *why);
      slots[p] = std::move(v);
    }
  }
  for (size_t p = 0; p < spec->params.size(); ++p) {
    if (slots[p]) {
      inst.keywords.emplace_back(spec->params[p].name, std::move(*slots[p]));
    } else if (spec->params[p].required) {
      bad(index, prefix + "missing argument '" + spec->params[p].name + "'");
    }
  }

  if (const Json* lo = field(j, "list_output")) {
    if (!lo->is_boolean()) bad(index, "\"list_output\" must be true or false");
    if (lo->get<bool>() != inst.list_output)
      bad(index, prefix + "list_output must be " + (inst.list_output ? "true" : "false"));
  }
  if (const Json* outs = field(j, "outputs")) {
    if (!outs->is_array()) bad(index, "\"outputs\" must be an array");
    if (spec->outputs == Outputs::None && !outs->empty()) bad(index, prefix + "returns nothing");
    if (spec->outputs == Outputs::One && outs->size() > 1) bad(index, prefix + "returns one value");
    for (const Json& o : *outs) {
      std::optional<TraceRV> rv;
      if (o.is_string()) rv = rv_from_name(o.get_ref<const std::string&>());
      if (!rv || rv->kind != spec->output_kind)
        bad(index,
            prefix + "outputs must be names like \"" + std::string(1, spec->output_kind) + "0\"");
      if (!defined.insert({rv->kind, rv->id}).second)
        bad(index, prefix + rv->name() + " is defined twice");
      inst.outputs.push_back(*rv);
    }
    if (auto expected = spec->expected_outputs(inst);
        expected && !inst.outputs.empty() && *expected != inst.outputs.size())
      bad(index, prefix + "gives " + std::to_string(*expected) + " values but " +
                     std::to_string(inst.outputs.size()) + " names are bound");
  }
  return inst;
}

}  // namespace

std::string Trace::to_json() const {
  // One instruction a line, so traces diff well.
  std::string out = "{\"version\": 1, \"instructions\": [";
  for (size_t n = 0; n < insts_.size(); ++n) {
    out += n ? ",\n  " : "\n  ";
    try {
      dump_spaced(encode_instruction(insts_[n]), out);
    } catch (const Json::exception& e) {
      // JSON text is UTF-8; a script's "\xff" string has no JSON spelling.
      throw Error("cannot write the trace as JSON: instruction " + std::to_string(n) + ": " +
                  reason(e));
    }
  }
  out += insts_.empty() ? "]}\n" : "\n]}\n";
  return out;
}

Trace Trace::from_json(std::string_view json) {
  Json doc = parse_document(json);
  if (!doc.is_object()) throw Error("malformed trace JSON: the document must be an object");
  const Json* version = field(doc, "version");
  if (!version || !version->is_number_integer() || as_int64(*version) != 1)
    throw Error("malformed trace JSON: \"version\" must be 1");
  const Json* insts = field(doc, "instructions");
  if (!insts || !insts->is_array())
    throw Error("malformed trace JSON: \"instructions\" must be an array");
  Trace trace;
  DefinedRVs defined;
  for (size_t n = 0; n < insts->size(); ++n)
    trace.append(decode_instruction((*insts)[n], n, defined));
  return trace;
}

}  // namespace tirc
