#include "codegen/object/c_header.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <sstream>

#include "ir/error.h"
#include "ir/text/printer.h"

namespace tirc {
namespace {

bool is_identifier(std::string_view s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

// Keywords of C99 and C++17 that a parameter name must not be (a buffer may be
// called `int` or `new` in TIR, where nothing reserves those words).
bool is_keyword(std::string_view s) {
  static const std::set<std::string_view> keywords = {"auto",
                                                      "break",
                                                      "case",
                                                      "char",
                                                      "const",
                                                      "continue",
                                                      "default",
                                                      "do",
                                                      "double",
                                                      "else",
                                                      "enum",
                                                      "extern",
                                                      "float",
                                                      "for",
                                                      "goto",
                                                      "if",
                                                      "inline",
                                                      "int",
                                                      "long",
                                                      "register",
                                                      "restrict",
                                                      "return",
                                                      "short",
                                                      "signed",
                                                      "sizeof",
                                                      "static",
                                                      "struct",
                                                      "switch",
                                                      "typedef",
                                                      "union",
                                                      "unsigned",
                                                      "void",
                                                      "volatile",
                                                      "while",
                                                      "_Bool",
                                                      "_Complex",
                                                      "_Imaginary",
                                                      "alignas",
                                                      "alignof",
                                                      "and",
                                                      "and_eq",
                                                      "asm",
                                                      "bitand",
                                                      "bitor",
                                                      "bool",
                                                      "catch",
                                                      "char16_t",
                                                      "char32_t",
                                                      "class",
                                                      "compl",
                                                      "constexpr",
                                                      "const_cast",
                                                      "decltype",
                                                      "delete",
                                                      "dynamic_cast",
                                                      "explicit",
                                                      "export",
                                                      "false",
                                                      "friend",
                                                      "mutable",
                                                      "namespace",
                                                      "new",
                                                      "noexcept",
                                                      "not",
                                                      "not_eq",
                                                      "nullptr",
                                                      "operator",
                                                      "or",
                                                      "or_eq",
                                                      "private",
                                                      "protected",
                                                      "public",
                                                      "reinterpret_cast",
                                                      "static_assert",
                                                      "static_cast",
                                                      "template",
                                                      "this",
                                                      "thread_local",
                                                      "throw",
                                                      "true",
                                                      "try",
                                                      "typeid",
                                                      "typename",
                                                      "using",
                                                      "virtual",
                                                      "wchar_t",
                                                      "xor",
                                                      "xor_eq",
                                                      "args"};
  return keywords.count(s) > 0;
}

// Any text as a C identifier: other characters become '_', a leading digit
// gets a '_' in front.
std::string to_identifier(std::string_view s) {
  std::string id;
  for (char c : s) id += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (id.empty() || std::isdigit(static_cast<unsigned char>(id[0]))) id.insert(id.begin(), '_');
  return id;
}

// The C type of one element (or of a scalar parameter). float16 and bfloat16
// have no portable C type: their bit patterns travel as uint16_t.
std::string c_type(DataType t, const std::string& what) {
  if (t.is_vector()) throw Error("C header: " + what + " has vector type " + t.str());
  switch (t.code()) {
    case DataType::Code::Float:
      if (t.bits() == 32) return "float";
      if (t.bits() == 64) return "double";
      if (t.bits() == 16) return "uint16_t";
      break;
    case DataType::Code::BFloat:
      if (t.bits() == 16) return "uint16_t";
      break;
    case DataType::Code::Int:
      if (t.bits() == 8 || t.bits() == 16 || t.bits() == 32 || t.bits() == 64)
        return "int" + std::to_string(t.bits()) + "_t";
      break;
    case DataType::Code::UInt:
      if (t.bits() == 8 || t.bits() == 16 || t.bits() == 32 || t.bits() == 64)
        return "uint" + std::to_string(t.bits()) + "_t";
      break;
    case DataType::Code::Bool:
      return "uint8_t";  // one byte holding 0 or 1, as the generator stores it
    case DataType::Code::Handle:
      return "void*";
    case DataType::Code::Void:
      break;
  }
  throw Error("C header: " + what + " has type " + t.str() + ", which has no C equivalent");
}

std::string shape_text(const Buffer& b) {
  std::string s = b->dtype.str() + "[";
  for (size_t i = 0; i < b->shape.size(); ++i) {
    if (i) s += ", ";
    if (const auto* imm = b->shape[i].as<IntImmNode>())
      s += std::to_string(imm->value);
    else
      s += print_expr(b->shape[i]);
  }
  return s + "]";
}

struct CParam {
  std::string declaration;  // "float* A"
  std::string comment;      // "A: float32[128, 128]"
};

std::vector<CParam> c_params(const HeaderEntry& entry, bool cuda) {
  std::vector<CParam> params;
  std::set<std::string> used;
  for (size_t i = 0; i < entry.func->params.size(); ++i) {
    const Param& p = entry.func->params[i];
    const std::string source_name = p.buffer ? p.buffer->name : p.var->name;
    std::string name = to_identifier(source_name);
    if (is_keyword(name) || name.rfind("__", 0) == 0) name += "_";
    // Two parameters may print alike once made identifiers ("a.b", "a_b").
    while (!used.insert(name).second) name.append("_").append(std::to_string(i));
    const std::string what = "parameter '" + source_name + "' of " + entry.symbol;
    if (p.buffer && cuda) {
      c_type(p.buffer->dtype, what);  // refuses the same element types
      params.push_back(
          {"CUdeviceptr " + name, name + ": " + shape_text(p.buffer) + " on the device"});
    } else if (p.buffer) {
      params.push_back(
          {c_type(p.buffer->dtype, what) + "* " + name, name + ": " + shape_text(p.buffer)});
    } else {
      params.push_back({c_type(p.var->dtype, what) + " " + name,
                        name + ": " + p.var->dtype.str() + " scalar, by value"});
    }
  }
  return params;
}

// An ONNX tensor name inside a C comment and double quotes: quotes and
// backslashes escaped, other bytes outside printable ASCII as \xNN, and no
// "*/" that would end the comment.
std::string quoted_name(std::string_view s) {
  std::string q = "\"";
  for (size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == '"' || c == '\\') {
      q += '\\';
      q += static_cast<char>(c);
    } else if (c == '/' && i > 0 && s[i - 1] == '*') {
      q += "\\/";
    } else if (c < 0x20 || c >= 0x7f) {
      static const char kHex[] = "0123456789abcdef";
      q += "\\x";
      q += kHex[c >> 4];
      q += kHex[c & 15];
    } else {
      q += static_cast<char>(c);
    }
  }
  return q + "\"";
}

// A declared dimension of tirc.io_dims (ir/function.h): a number, or a
// dim_param / "?" whose value the compiled shape gives.
bool is_number(std::string_view dim) {
  return !dim.empty() && std::all_of(dim.begin(), dim.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c));
  });
}

// "batch=2", with a dim_param that is not an identifier quoted as names are.
std::string bound_dim(const std::string& name, const Expr& value) {
  return (is_identifier(name) || name == "?" ? name : quoted_name(name)) + "=" + print_expr(value);
}

// shape_text with the dimensions the model declared symbolic shown as
// "batch=2" (or "?=2" for an anonymous one): `declared` is the parameter's
// entry of entry_io_dims.
std::string bound_shape_text(const Buffer& b, const std::vector<std::string>& declared,
                             const std::string& what) {
  if (declared.size() != b->shape.size())
    throw Error("C header: tirc.io_dims gives " + std::to_string(declared.size()) +
                " dimensions for " + what + ", which has " + std::to_string(b->shape.size()));
  std::string s = b->dtype.str() + "[";
  for (size_t i = 0; i < b->shape.size(); ++i)
    s += (i ? ", " : "") +
         (is_number(declared[i]) ? print_expr(b->shape[i]) : bound_dim(declared[i], b->shape[i]));
  return s + "]";
}

// "batch=2, seq=5": the dim_params of `declared` with their values, each once.
std::string bound_dims_text(const PrimFunc& f,
                            const std::vector<std::vector<std::string>>& declared) {
  std::string out;
  std::set<std::string> seen;
  for (size_t p = 0; p < declared.size() && p < f->params.size(); ++p) {
    const Buffer& b = f->params[p].buffer;
    for (size_t d = 0; b && d < declared[p].size() && d < b->shape.size(); ++d) {
      const std::string& name = declared[p][d];
      if (name == "?" || is_number(name) || !seen.insert(name).second) continue;
      out += (out.empty() ? "" : ", ") + bound_dim(name, b->shape[d]);
    }
  }
  return out;
}

// The C prototype and its _packed form (CUDA: the stream last).
void write_prototypes(std::ostringstream& out, const std::string& symbol,
                      const std::vector<CParam>& params, bool cuda) {
  out << "int " << symbol << "(";
  if (params.empty() && !cuda) out << "void";
  for (size_t i = 0; i < params.size(); ++i) out << (i ? ", " : "") << params[i].declaration;
  if (cuda) out << (params.empty() ? "" : ", ") << "CUstream stream";
  out << ");\n";
  if (cuda)
    out << "/* args[i] is parameter i's address (a CUdeviceptr's or a scalar's); the last is the "
           "CUstream itself. */\n";
  else
    out << "/* args[i] is parameter i's data pointer (a buffer) or address (a scalar). */\n";
  out << "int " << symbol << "_packed(void* const* args);\n";
}

// A list attribute of a model's entry with one item per parameter
// (tirc.io_names, tirc.io_dims), as `get` reads it: empty when absent.
template <class T>
std::vector<T> per_param_attr(const HeaderEntry& entry, const char* key, const char* items,
                              std::vector<T> (*get)(const PrimFunc&)) {
  std::vector<T> values;
  try {
    values = get(entry.func);
  } catch (const Error&) {
    throw Error("C header: " + std::string(key) + " of " + entry.symbol + " is not a string");
  }
  const size_t n = entry.func->params.size();
  if (!values.empty() && values.size() != n)
    throw Error("C header: " + std::string(key) + " of " + entry.symbol + " has " +
                std::to_string(values.size()) + " " + items + " for " + std::to_string(n) +
                " parameters");
  return values;
}

// A model's entry: inputs (the first tirc.num_inputs parameters) are const,
// and every parameter is documented with its ONNX name (tirc.io_names).
void write_model_entry(std::ostringstream& out, const HeaderEntry& entry,
                       std::vector<CParam> params, bool cuda) {
  const size_t n = entry.func->params.size();
  const std::optional<int64_t> num = entry_num_inputs(entry.func);
  if (!num || *num < 0 || static_cast<size_t>(*num) > n)
    throw Error("C header: entry " + entry.symbol +
                " needs an integer attribute tirc.num_inputs between 0 and " + std::to_string(n));
  const auto inputs = static_cast<size_t>(*num);
  const std::vector<std::string> names =
      per_param_attr(entry, kIoNamesAttr, "names", entry_io_names);
  const std::vector<std::vector<std::string>> dims =
      per_param_attr(entry, kIoDimsAttr, "shapes", entry_io_dims);
  out << "/* " << entry.symbol
      << (cuda ? ": a model's entry point; enqueues its kernels on the stream and returns a "
                 "CUresult (0: success). */\n"
               : ": a model's entry point; returns 0, or nonzero when it fails (-1: out of "
                 "memory). */\n");
  const std::string bound = bound_dims_text(entry.func, dims);
  if (!bound.empty()) out << "/*   compiled for the symbolic dimensions " << bound << " */\n";
  for (size_t i = 0; i < n; ++i) {
    const Param& p = entry.func->params[i];
    const bool input = i < inputs;
    const std::string onnx_name =
        names.empty() ? (p.buffer ? p.buffer->name : p.var->name) : names[i];
    const std::string shape =
        !p.buffer      ? p.var->dtype.str() + " scalar"
        : dims.empty() ? shape_text(p.buffer)
                       : bound_shape_text(p.buffer, dims[i], "parameter '" + onnx_name + "'");
    out << "/*   " << (input ? "input " : "output ") << (input ? i : i - inputs) << " "
        << quoted_name(onnx_name) << ": " << shape << " */\n";
    if (input && p.buffer && !cuda) params[i].declaration = "const " + params[i].declaration;
  }
  write_prototypes(out, entry.symbol, params, cuda);
}

void write_entry(std::ostringstream& out, const HeaderEntry& entry, bool cuda) {
  const std::vector<CParam> params = c_params(entry, cuda);
  if (is_entry(entry.func)) {
    write_model_entry(out, entry, params, cuda);
    return;
  }
  out << "/* " << entry.symbol
      << (cuda ? ": enqueues its kernels on the stream; returns a CUresult (0: success)."
               : ": returns 0.");
  for (const auto& p : params) out << "\n     " << p.comment;
  out << " */\n";
  write_prototypes(out, entry.symbol, params, cuda);
}

}  // namespace

std::string write_c_header(const std::string& name, const std::vector<HeaderEntry>& entries,
                           bool cuda) {
  std::set<std::string> symbols;
  for (const auto& e : entries) {
    if (!is_identifier(e.symbol))
      throw Error("C header: symbol '" + e.symbol + "' is not a C identifier");
    if (!e.func) throw Error("C header: symbol '" + e.symbol + "' has no function");
    if (!symbols.insert(e.symbol).second || !symbols.insert(e.symbol + "_packed").second)
      throw Error("C header: symbol '" + e.symbol + "' is declared twice");
  }

  std::string guard = "TIRC_";
  for (char c : to_identifier(name))
    guard += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  guard += "_H";

  std::ostringstream out;
  out << "/* Entry points of " << name << ", generated by tirc.\n"
      << "   Buffers are passed as pointers to their first element, compact row-major;\n"
      << "   float16 and bfloat16 elements are passed as their uint16_t bit patterns and\n"
      << "   bool elements as uint8_t (0 or 1). */\n"
      << "#ifndef " << guard << "\n"
      << "#define " << guard << "\n\n"
      << "#include <stdint.h>\n"
      << (cuda ? "#include <cuda.h> /* CUdeviceptr, CUstream; link with -lcuda */\n" : "") << "\n"
      << "#ifdef __cplusplus\n"
      << "extern \"C\" {\n"
      << "#endif\n";
  for (const auto& e : entries) {
    out << "\n";
    write_entry(out, e, cuda);
  }
  out << "\n#ifdef __cplusplus\n"
      << "}\n"
      << "#endif\n\n"
      << "#endif /* " << guard << " */\n";
  return out.str();
}

}  // namespace tirc
