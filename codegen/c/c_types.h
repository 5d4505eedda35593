// How tirc's data types appear in emitted C: the type of an element in memory,
// the type of a value in an expression, helper suffixes and literals.
#pragma once

#include <cstdint>
#include <string>

#include "ir/dtype.h"

namespace tirc::c_emit {

// Element type in memory: float, double, int32_t ..., uint16_t for float16 and
// bfloat16 (their bits), uint8_t for bool. Throws tirc::Error for handle/void.
std::string storage_type(DataType t);

// Type of a scalar value in an expression: like storage_type except bool is
// int (0/1) and float16/bfloat16 are double holding an already rounded value.
std::string value_type(DataType t);

// Suffix of the prelude's helpers for a value of type t: i8..i64, u8..u64,
// b (bool), f32, f64 (also float16/bfloat16, whose values are doubles).
std::string helper_suffix(DataType t);

// True when values of t are doubles standing for a narrower float format.
bool is_narrow_float(DataType t);

// The prelude function rounding a double to t's format, e.g. tirc_round_f16.
std::string round_function(DataType t);

// A C literal of value_type(t): integers already wrapped to t's width, floats
// rounded to t (hex float literals, so they are exact).
std::string int_literal(DataType t, int64_t value);
std::string float_literal(DataType t, double value);

// A valid C identifier made of the letters, digits and underscores of hint.
std::string sanitize_identifier(const std::string& hint);
bool is_c_identifier(const std::string& s);

}  // namespace tirc::c_emit
