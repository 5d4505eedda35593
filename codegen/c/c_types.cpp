#include "codegen/c/c_types.h"

#include <cctype>
#include <cmath>
#include <cstdio>

#include "ir/error.h"
#include "ir/eval/numeric.h"

namespace tirc::c_emit {

namespace {

std::string int_name(DataType t) {
  return std::string(t.is_uint() ? "uint" : "int") + std::to_string(t.bits()) + "_t";
}

void check_element(DataType t) {
  if (t.is_handle() || t.is_void()) throw Error("C emitter: no C value type for " + t.str());
  if (t.is_integer() && t.bits() != 8 && t.bits() != 16 && t.bits() != 32 && t.bits() != 64)
    throw Error("C emitter: unsupported integer width in " + t.str());
  if (t.is_float() && t.code() == DataType::Code::Float && t.bits() != 16 && t.bits() != 32 &&
      t.bits() != 64)
    throw Error("C emitter: unsupported float width in " + t.str());
}

}  // namespace

std::string storage_type(DataType t) {
  check_element(t);
  if (t.is_bool()) return "uint8_t";
  if (t.is_integer()) return int_name(t);
  if (is_narrow_float(t)) return "uint16_t";
  return t.bits() == 32 ? "float" : "double";
}

std::string value_type(DataType t) {
  check_element(t);
  if (t.is_bool()) return "int";
  if (t.is_integer()) return int_name(t);
  if (is_narrow_float(t)) return "double";
  return t.bits() == 32 ? "float" : "double";
}

std::string helper_suffix(DataType t) {
  check_element(t);
  if (t.is_bool()) return "b";
  if (t.is_integer()) {
    std::string s(1, t.is_uint() ? 'u' : 'i');
    s += std::to_string(t.bits());
    return s;
  }
  return t.bits() == 32 && t.code() == DataType::Code::Float ? "f32" : "f64";
}

bool is_narrow_float(DataType t) {
  return t.code() == DataType::Code::BFloat || (t.is_float() && t.bits() == 16);
}

std::string round_function(DataType t) {
  if (t.code() == DataType::Code::BFloat) return "tirc_round_bf16";
  if (t.bits() == 16) return "tirc_round_f16";
  if (t.bits() == 32) return "tirc_round_f32";
  return "tirc_round_f64";
}

std::string int_literal(DataType t, int64_t value) {
  if (t.is_bool()) return value != 0 ? "1" : "0";
  const int64_t v = numeric::wrap_int(t.element_of(), value);
  if (t.is_uint() && t.bits() == 64)
    return "UINT64_C(" + std::to_string(static_cast<uint64_t>(v)) + ")";
  // int32 values are plain decimals (C's int); the rest go through INT64_C.
  if (t.is_int() && t.bits() == 32 && v > INT32_MIN) return std::to_string(v);
  // The most negative value has no literal of its own: write it as -max - 1.
  std::string digits =
      v == INT64_MIN ? "(-INT64_C(9223372036854775807) - 1)" : "INT64_C(" + std::to_string(v) + ")";
  return "((" + value_type(t.element_of()) + ")" + digits + ")";
}

std::string float_literal(DataType t, double value) {
  const DataType e = t.element_of();
  const double v = numeric::round_to_float(e, value);
  const bool f32 = value_type(e) == "float";
  std::string text;
  if (std::isnan(v)) {
    text = std::signbit(v) ? "(-(double)NAN)" : "((double)NAN)";
  } else if (std::isinf(v)) {
    text = v < 0 ? "(-(double)INFINITY)" : "((double)INFINITY)";
  } else {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%a", v);
    text = buf;
    if (text[0] == '-') text = "(" + text + ")";
  }
  return f32 ? "((float)" + text + ")" : text;
}

std::string sanitize_identifier(const std::string& hint) {
  std::string s;
  for (char c : hint) s += std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? c : '_';
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) s = "v" + s;
  return s;
}

bool is_c_identifier(const std::string& s) {
  return !s.empty() && sanitize_identifier(s) == s;
}

}  // namespace tirc::c_emit
