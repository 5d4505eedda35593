#include "ir/dtype.h"

#include <charconv>

namespace tirc {

std::string DataType::str() const {
  std::string base;
  switch (code_) {
    case Code::Int: base = "int" + std::to_string(bits_); break;
    case Code::UInt: base = "uint" + std::to_string(bits_); break;
    case Code::Float: base = "float" + std::to_string(bits_); break;
    case Code::BFloat: base = "bfloat" + std::to_string(bits_); break;
    case Code::Bool: base = "bool"; break;
    case Code::Handle: return "handle";
    case Code::Void: return "void";
  }
  if (lanes_ > 1) {
    // Two appends (not "x" + ...) avoid a false -Wrestrict in GCC 12.
    base += 'x';
    base += std::to_string(lanes_);
  }
  return base;
}

static bool parse_int(std::string_view s, int& out) {
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size();
}

std::optional<DataType> DataType::parse(std::string_view name) {
  if (name == "handle") return handle();
  if (name == "void") return void_type();
  int lanes = 1;
  if (auto x = name.find('x'); x != std::string_view::npos) {
    if (!parse_int(name.substr(x + 1), lanes) || lanes < 2 || lanes > 1024) return std::nullopt;
    name = name.substr(0, x);
  }
  auto with_bits = [&](std::string_view prefix, Code code,
                       std::initializer_list<int> allowed) -> std::optional<DataType> {
    int bits = 0;
    if (!parse_int(name.substr(prefix.size()), bits)) return std::nullopt;
    for (int b : allowed)
      if (b == bits) return DataType(code, bits, lanes);
    return std::nullopt;
  };
  if (name == "bool") return DataType(Code::Bool, 1, lanes);
  if (name.starts_with("uint")) return with_bits("uint", Code::UInt, {8, 16, 32, 64});
  if (name.starts_with("int")) return with_bits("int", Code::Int, {8, 16, 32, 64});
  if (name.starts_with("bfloat")) return with_bits("bfloat", Code::BFloat, {16});
  if (name.starts_with("float")) return with_bits("float", Code::Float, {16, 32, 64});
  return std::nullopt;
}

}  // namespace tirc
