// Integer helpers shared by the arithmetic analyzer: values of integer
// immediates as the mathematical numbers they denote, wrapping back to a
// type's width, and floor/trunc division with C and Python semantics.
#pragma once

#include <cstdint>

#include "ir/dtype.h"

namespace tirc::arith {

using i128 = __int128;

// The mathematical value an IntImm of type t stores as `stored`: uint64 holds
// its bit pattern in an int64, every other type its value.
inline i128 math_value(DataType t, int64_t stored) {
  if (t.is_uint() && t.bits() == 64) return static_cast<i128>(static_cast<uint64_t>(stored));
  return stored;
}

// Wraps v to t's width (two's complement for Int, modulo 2^bits for UInt,
// 0/1 for Bool) and returns it as an IntImm stores it.
inline int64_t wrap_to(DataType t, i128 v) {
  if (t.is_bool()) return v != 0 ? 1 : 0;
  int bits = t.bits();
  if (bits >= 64) return static_cast<int64_t>(static_cast<uint64_t>(v));
  uint64_t mask = (uint64_t{1} << bits) - 1;
  uint64_t low = static_cast<uint64_t>(v) & mask;
  if (t.is_uint()) return static_cast<int64_t>(low);
  uint64_t sign = uint64_t{1} << (bits - 1);
  return static_cast<int64_t>((low ^ sign)) - static_cast<int64_t>(sign);
}

// Same residue as v modulo 2^bits, as a signed number in
// [-2^(bits-1), 2^(bits-1)): the representation linear forms keep
// coefficients in, whatever the signedness of the type.
inline int64_t wrap_signed(int bits, i128 v) {
  if (bits >= 64) return static_cast<int64_t>(static_cast<uint64_t>(v));
  uint64_t mask = (uint64_t{1} << bits) - 1;
  uint64_t low = static_cast<uint64_t>(v) & mask;
  uint64_t sign = uint64_t{1} << (bits - 1);
  return static_cast<int64_t>((low ^ sign)) - static_cast<int64_t>(sign);
}

inline i128 type_min(DataType t) {
  if (t.is_bool() || t.is_uint()) return 0;
  return -(static_cast<i128>(1) << (t.bits() - 1));
}

inline i128 type_max(DataType t) {
  if (t.is_bool()) return 1;
  if (t.is_uint()) return (static_cast<i128>(1) << t.bits()) - 1;
  return (static_cast<i128>(1) << (t.bits() - 1)) - 1;
}

// Division rounding toward negative infinity; b != 0.
inline i128 floor_div(i128 a, i128 b) {
  i128 q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

// Remainder with the sign of the divisor; b != 0.
inline i128 floor_mod(i128 a, i128 b) {
  return a - floor_div(a, b) * b;
}

inline int64_t gcd64(int64_t a, int64_t b) {
  uint64_t x = a < 0 ? 0 - static_cast<uint64_t>(a) : static_cast<uint64_t>(a);
  uint64_t y = b < 0 ? 0 - static_cast<uint64_t>(b) : static_cast<uint64_t>(b);
  while (y != 0) {
    uint64_t r = x % y;
    x = y;
    y = r;
  }
  return static_cast<int64_t>(x);
}

}  // namespace tirc::arith
