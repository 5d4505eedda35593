// Number formats the interpreter needs beyond what C++ offers natively:
// float16/bfloat16 encoding with round-to-nearest-even, integer wrapping to a
// dtype's width, and the element accessors shared by NDArray and the runtime.
#pragma once

#include <cstdint>
#include <cstring>

#include "ir/dtype.h"

namespace tirc::numeric {

// Encodes x as IEEE binary16 / bfloat16 bits, rounding to nearest even.
uint16_t encode_half(double x);
uint16_t encode_bfloat(double x);
double decode_half(uint16_t bits);
double decode_bfloat(uint16_t bits);

// x rounded to the precision and range of the float type t (float16,
// bfloat16, float32; float64 unchanged).
inline double round_to_float(DataType t, double x) {
  if (t.code() == DataType::Code::BFloat) return decode_bfloat(encode_bfloat(x));
  switch (t.bits()) {
    case 16:
      return decode_half(encode_half(x));
    case 32:
      return static_cast<double>(static_cast<float>(x));
    default:
      return x;
  }
}

// v reduced to the width of integer type t (two's complement wrap), or 0/1
// for bool. Values of every integer type live in int64_t; uint64 keeps its
// bit pattern.
inline int64_t wrap_int(DataType t, int64_t v) {
  if (t.is_bool()) return v != 0;
  int bits = t.bits();
  if (bits >= 64) return v;
  uint64_t mask = (uint64_t{1} << bits) - 1;
  uint64_t u = static_cast<uint64_t>(v) & mask;
  if (t.is_int() && (u >> (bits - 1)) != 0) u |= ~mask;
  return static_cast<int64_t>(u);
}

// Float to integer type t: truncates toward zero; out-of-range values
// saturate to t's limits and NaN becomes 0 (C leaves both undefined).
int64_t float_to_int(DataType t, double x);
// Integer (held as int64, uint64 by bit pattern when t_from is uint64) to a
// double already rounded to float type t_to.
double int_to_float(DataType t_from, int64_t v, DataType t_to);

// Reads / writes one element of type t at p.
double load_float(DataType t, const uint8_t* p);
int64_t load_int(DataType t, const uint8_t* p);
void store_float(DataType t, uint8_t* p, double v);
void store_int(DataType t, uint8_t* p, int64_t v);

}  // namespace tirc::numeric
