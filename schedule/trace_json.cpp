// Traces as JSON:
//   {"version": 1, "instructions": [{"kind": "split", "positional": [],
//    "keywords": [["loop", {"rv": "l1"}], ["factors", [null, 32]]],
//    "outputs": ["l4", "l5"], "list_output": true}]}
// Values: null, true, 1, 1.5, "s", {"rv": "b0"}, [...], {"tuple": [...]},
// {"index_map": "lambda i: (i,)"}, {"float": "inf"} for non-finite floats.
#include <charconv>
#include <cmath>
#include <map>

#include "ir/text/lexer.h"
#include "schedule/trace_spec.h"

namespace tirc {

namespace {

using namespace trace_detail;

// ---- a small JSON document model --------------------------------------------

struct Json {
  enum class Kind { Null, Bool, Int, Double, String, Array, Object } kind = Kind::Null;
  bool b = false;
  int64_t i = 0;
  double d = 0;
  std::string s;
  std::vector<Json> items;
  std::vector<std::pair<std::string, Json>> fields;

  const Json* field(std::string_view name) const {
    for (const auto& [k, v] : fields)
      if (k == name) return &v;
    return nullptr;
  }
};

class JsonReader {
 public:
  explicit JsonReader(std::string_view text)
      : file_{std::make_shared<const std::string>("<json>"),
              std::make_shared<const std::string>(text)},
        src_(*file_.text) {}

  Json read_document() {
    Json v = read(0);
    skip_space();
    if (pos_ != src_.size()) fail("unexpected text after the JSON value");
    return v;
  }

 private:
  SourceFile file_;
  std::string_view src_;
  size_t pos_ = 0;

  [[noreturn]] void fail(const std::string& msg) const {
    int line = 1, col = 1;
    for (size_t k = 0; k < pos_ && k < src_.size(); ++k) {
      if (src_[k] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    throw Error("malformed trace JSON: " + msg, file_.at(line, col));
  }
  void skip_space() {
    while (pos_ < src_.size() &&
           (src_[pos_] == ' ' || src_[pos_] == '\t' || src_[pos_] == '\n' || src_[pos_] == '\r'))
      ++pos_;
  }
  bool consume(std::string_view word) {
    if (src_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  Json read(int depth) {
    if (depth > 64) fail("nesting too deep");
    skip_space();
    if (pos_ >= src_.size()) fail("unexpected end of input");
    Json v;
    char c = src_[pos_];
    if (consume("null")) return v;
    if (consume("true") || consume("false")) {
      v.kind = Json::Kind::Bool;
      v.b = src_[pos_ - 1] == 'e' && src_[pos_ - 2] == 'u';
      return v;
    }
    if (c == '"') {
      v.kind = Json::Kind::String;
      v.s = read_string();
      return v;
    }
    if (c == '-' || (c >= '0' && c <= '9')) return read_number();
    if (c == '[') {
      ++pos_;
      v.kind = Json::Kind::Array;
      skip_space();
      if (consume("]")) return v;
      while (true) {
        v.items.push_back(read(depth + 1));
        skip_space();
        if (consume("]")) return v;
        if (!consume(",")) fail("expected ',' or ']'");
      }
    }
    if (c == '{') {
      ++pos_;
      v.kind = Json::Kind::Object;
      skip_space();
      if (consume("}")) return v;
      while (true) {
        skip_space();
        if (pos_ >= src_.size() || src_[pos_] != '"') fail("expected a field name");
        std::string key = read_string();
        skip_space();
        if (!consume(":")) fail("expected ':'");
        v.fields.emplace_back(std::move(key), read(depth + 1));
        skip_space();
        if (consume("}")) return v;
        if (!consume(",")) fail("expected ',' or '}'");
      }
    }
    fail(std::string("unexpected character '") + c + "'");
  }

  Json read_number() {
    size_t start = pos_;
    if (src_[pos_] == '-') ++pos_;
    bool is_float = false;
    auto digits = [&] {
      size_t from = pos_;
      while (pos_ < src_.size() && src_[pos_] >= '0' && src_[pos_] <= '9') ++pos_;
      if (pos_ == from) fail("malformed number");
    };
    digits();
    if (pos_ < src_.size() && src_[pos_] == '.') {
      ++pos_;
      is_float = true;
      digits();
    }
    if (pos_ < src_.size() && (src_[pos_] == 'e' || src_[pos_] == 'E')) {
      ++pos_;
      is_float = true;
      if (pos_ < src_.size() && (src_[pos_] == '+' || src_[pos_] == '-')) ++pos_;
      digits();
    }
    std::string spelling(src_.substr(start, pos_ - start));
    Json v;
    if (!is_float) {
      auto [p, ec] = std::from_chars(spelling.data(), spelling.data() + spelling.size(), v.i);
      if (ec != std::errc() || p != spelling.data() + spelling.size())
        fail("integer " + spelling + " out of range");
      v.kind = Json::Kind::Int;
      return v;
    }
    v.d = std::strtod(spelling.c_str(), nullptr);
    if (!std::isfinite(v.d)) fail("number " + spelling + " out of range");
    v.kind = Json::Kind::Double;
    return v;
  }

  unsigned read_hex4() {
    if (pos_ + 4 > src_.size()) fail("truncated \\u escape");
    unsigned v = 0;
    for (int k = 0; k < 4; ++k) {
      char h = src_[pos_++];
      int d = (h >= '0' && h <= '9')   ? h - '0'
              : (h >= 'a' && h <= 'f') ? h - 'a' + 10
              : (h >= 'A' && h <= 'F') ? h - 'A' + 10
                                       : -1;
      if (d < 0) fail("invalid \\u escape");
      v = v * 16 + static_cast<unsigned>(d);
    }
    return v;
  }

  static void append_utf8(std::string& out, unsigned cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  std::string read_string() {
    ++pos_;  // opening quote
    std::string out;
    while (true) {
      if (pos_ >= src_.size()) fail("unterminated string");
      char c = src_[pos_++];
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) fail("control character in string");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= src_.size()) fail("unterminated string");
      char e = src_[pos_++];
      switch (e) {
        case '"':
        case '\\':
        case '/':
          out += e;
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          unsigned cp = read_hex4();
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (!consume("\\u")) fail("unpaired surrogate in \\u escape");
            unsigned low = read_hex4();
            if (low < 0xDC00 || low > 0xDFFF) fail("unpaired surrogate in \\u escape");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            fail("unpaired surrogate in \\u escape");
          }
          append_utf8(out, cp);
          break;
        }
        default:
          fail(std::string("unknown escape '\\") + e + "'");
      }
    }
  }
};

// ---- writing ------------------------------------------------------------------

std::string json_string(std::string_view s) {
  static const char* digits = "0123456789abcdef";
  std::string out = "\"";
  for (char c : s) {
    unsigned char u = static_cast<unsigned char>(c);
    if (c == '"') {
      out += "\\\"";
    } else if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (u < 0x20 || u == 0x7f) {
      out += "\\u00";
      out += digits[u >> 4];
      out += digits[u & 15];
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string json_value(const TraceValue& value) {
  struct Writer {
    std::string operator()(std::monostate) const { return "null"; }
    std::string operator()(bool b) const { return b ? "true" : "false"; }
    std::string operator()(int64_t i) const { return std::to_string(i); }
    std::string operator()(double d) const {
      if (std::isnan(d)) return R"({"float": "nan"})";
      if (std::isinf(d)) return d > 0 ? R"({"float": "inf"})" : R"({"float": "-inf"})";
      return print_double(d);
    }
    std::string operator()(const std::string& s) const { return json_string(s); }
    std::string operator()(const TraceRV& rv) const {
      return "{\"rv\": " + json_string(rv.name()) + "}";
    }
    std::string operator()(const TraceList& l) const {
      std::string out = "[";
      for (size_t i = 0; i < l.size(); ++i) {
        out += i ? ", " : "";
        out += json_value(l[i]);
      }
      return out + "]";
    }
    std::string operator()(const TraceValue::Tuple& t) const {
      std::string out = "{\"tuple\": [";
      for (size_t i = 0; i < t.items.size(); ++i) {
        out += i ? ", " : "";
        out += json_value(t.items[i]);
      }
      return out + "]}";
    }
    std::string operator()(const std::shared_ptr<const IndexMap>& m) const {
      return m ? "{\"index_map\": " + json_string(print_index_map(*m)) + "}" : "null";
    }
  };
  return std::visit(Writer{}, value.v);
}

// ---- decoding -----------------------------------------------------------------

[[noreturn]] void bad(size_t index, const std::string& msg) {
  throw Error("malformed trace JSON: instruction " + std::to_string(index) + ": " + msg);
}

std::optional<TraceRV> rv_from_name(const std::string& name) {
  if (name.size() < 2 || name.size() > 10 || (name[0] != 'b' && name[0] != 'l' && name[0] != 'v'))
    return std::nullopt;
  for (size_t k = 1; k < name.size(); ++k)
    if (name[k] < '0' || name[k] > '9') return std::nullopt;
  return TraceRV{name[0], std::stoi(name.substr(1))};
}

TraceValue decode_value(const Json& j, size_t index) {
  switch (j.kind) {
    case Json::Kind::Null:
      return TraceValue(nullptr);
    case Json::Kind::Bool:
      return TraceValue(j.b);
    case Json::Kind::Int:
      return TraceValue(j.i);
    case Json::Kind::Double:
      return TraceValue(j.d);
    case Json::Kind::String:
      return TraceValue(j.s);
    case Json::Kind::Array: {
      TraceList list;
      for (const Json& x : j.items) list.push_back(decode_value(x, index));
      return TraceValue(std::move(list));
    }
    case Json::Kind::Object:
      break;
  }
  if (j.fields.size() != 1) bad(index, "a value object must have exactly one field");
  const auto& [key, inner] = j.fields[0];
  if (key == "rv") {
    std::optional<TraceRV> rv;
    if (inner.kind == Json::Kind::String) rv = rv_from_name(inner.s);
    if (!rv) bad(index, "\"rv\" must name a random variable like \"b0\", \"l1\" or \"v2\"");
    return TraceValue(*rv);
  }
  if (key == "tuple") {
    if (inner.kind != Json::Kind::Array) bad(index, "\"tuple\" must be an array");
    TraceValue::Tuple t;
    for (const Json& x : inner.items) t.items.push_back(decode_value(x, index));
    return TraceValue(std::move(t));
  }
  if (key == "index_map") {
    if (inner.kind != Json::Kind::String) bad(index, "\"index_map\" must be a string");
    try {
      return TraceValue(std::make_shared<const IndexMap>(parse_index_map(inner.s, SourceLoc{})));
    } catch (const Error& e) {
      bad(index, e.message());
    }
  }
  if (key == "float") {
    if (inner.kind == Json::Kind::String && inner.s == "inf") return TraceValue(HUGE_VAL);
    if (inner.kind == Json::Kind::String && inner.s == "-inf") return TraceValue(-HUGE_VAL);
    if (inner.kind == Json::Kind::String && inner.s == "nan") return TraceValue(std::nan(""));
    bad(index, "\"float\" must be \"inf\", \"-inf\" or \"nan\"");
  }
  bad(index, "unknown value object \"" + key + "\"");
}

Instruction decode_instruction(const Json& j, size_t index, DefinedRVs& defined) {
  if (j.kind != Json::Kind::Object) bad(index, "not an object");
  for (const auto& [key, v] : j.fields)
    if (key != "kind" && key != "positional" && key != "keywords" && key != "outputs" &&
        key != "list_output")
      bad(index, "unknown field \"" + key + "\"");
  const Json* kind = j.field("kind");
  if (!kind || kind->kind != Json::Kind::String) bad(index, "\"kind\" must be a string");
  const PrimitiveSpec* spec = find_primitive(kind->s);
  if (!spec) bad(index, "unknown schedule primitive '" + kind->s + "'");
  Instruction inst;
  inst.kind = spec->kind;
  inst.list_output = spec->outputs == Outputs::List;
  std::string prefix = inst.kind + ": ";

  if (const Json* pos = j.field("positional")) {
    if (pos->kind != Json::Kind::Array) bad(index, "\"positional\" must be an array");
    if (spec->positional == PrimitiveSpec::Positional::None && !pos->items.empty())
      bad(index, prefix + "takes no positional arguments");
    if (spec->positional == PrimitiveSpec::Positional::Scope && pos->items.size() > 1)
      bad(index, prefix + "takes one positional argument");
    for (const Json& x : pos->items) {
      TraceValue v = decode_value(x, index);
      if (auto why = check_positional(*spec, v, defined)) bad(index, prefix + *why);
      inst.positional.push_back(std::move(v));
    }
  }
  if (spec->positional != PrimitiveSpec::Positional::None && inst.positional.empty())
    bad(index, prefix + "needs a positional argument");

  std::vector<std::optional<TraceValue>> slots(spec->params.size());
  if (const Json* kws = j.field("keywords")) {
    if (kws->kind != Json::Kind::Array) bad(index, "\"keywords\" must be an array");
    for (const Json& kv : kws->items) {
      if (kv.kind != Json::Kind::Array || kv.items.size() != 2 ||
          kv.items[0].kind != Json::Kind::String)
        bad(index, "a keyword must be a [name, value] pair");
      const std::string& key = kv.items[0].s;
      size_t p = 0;
      while (p < spec->params.size() && key != spec->params[p].name) ++p;
      if (p == spec->params.size()) bad(index, prefix + "no parameter '" + key + "'");
      if (slots[p]) bad(index, prefix + "got multiple values for '" + key + "'");
      TraceValue v = decode_value(kv.items[1], index);
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

  if (const Json* lo = j.field("list_output")) {
    if (lo->kind != Json::Kind::Bool) bad(index, "\"list_output\" must be true or false");
    if (lo->b != inst.list_output)
      bad(index, prefix + "list_output must be " + (inst.list_output ? "true" : "false"));
  }
  if (const Json* outs = j.field("outputs")) {
    if (outs->kind != Json::Kind::Array) bad(index, "\"outputs\" must be an array");
    if (spec->outputs == Outputs::None && !outs->items.empty())
      bad(index, prefix + "returns nothing");
    if (spec->outputs == Outputs::One && outs->items.size() > 1)
      bad(index, prefix + "returns one value");
    for (const Json& o : outs->items) {
      std::optional<TraceRV> rv;
      if (o.kind == Json::Kind::String) rv = rv_from_name(o.s);
      if (!rv || rv->kind != spec->output_kind)
        bad(index,
            prefix + "outputs must be names like \"" + std::string(1, spec->output_kind) + "0\"");
      if (!defined.insert({rv->kind, rv->id}).second)
        bad(index, prefix + rv->name() + " is defined twice");
      inst.outputs.push_back(*rv);
    }
    if (auto expected = expected_outputs(inst);
        expected && !inst.outputs.empty() && *expected != inst.outputs.size())
      bad(index, prefix + "gives " + std::to_string(*expected) + " values but " +
                     std::to_string(inst.outputs.size()) + " names are bound");
  }
  return inst;
}

}  // namespace

std::string Trace::to_json() const {
  std::string out = "{\"version\": 1, \"instructions\": [";
  for (size_t n = 0; n < insts_.size(); ++n) {
    const Instruction& inst = insts_[n];
    out += n ? ",\n  " : "\n  ";
    out += "{\"kind\": " + json_string(inst.kind) + ", \"positional\": [";
    for (size_t i = 0; i < inst.positional.size(); ++i) {
      out += i ? ", " : "";
      out += json_value(inst.positional[i]);
    }
    out += "], \"keywords\": [";
    for (size_t i = 0; i < inst.keywords.size(); ++i) {
      out += i ? ", [" : "[";
      out += json_string(inst.keywords[i].first) + ", " + json_value(inst.keywords[i].second) + "]";
    }
    out += "], \"outputs\": [";
    for (size_t i = 0; i < inst.outputs.size(); ++i) {
      out += i ? ", " : "";
      out += json_string(inst.outputs[i].name());
    }
    out += std::string("], \"list_output\": ") + (inst.list_output ? "true" : "false") + "}";
  }
  out += insts_.empty() ? "]}\n" : "\n]}\n";
  return out;
}

Trace Trace::from_json(std::string_view json) {
  Json doc = JsonReader(json).read_document();
  if (doc.kind != Json::Kind::Object)
    throw Error("malformed trace JSON: the document must be an object");
  const Json* version = doc.field("version");
  if (!version || version->kind != Json::Kind::Int || version->i != 1)
    throw Error("malformed trace JSON: \"version\" must be 1");
  const Json* insts = doc.field("instructions");
  if (!insts || insts->kind != Json::Kind::Array)
    throw Error("malformed trace JSON: \"instructions\" must be an array");
  Trace trace;
  DefinedRVs defined;
  for (size_t n = 0; n < insts->items.size(); ++n)
    trace.append(decode_instruction(insts->items[n], n, defined));
  return trace;
}

}  // namespace tirc
