#include "ir/eval/numeric.h"

#include <cmath>
#include <limits>

namespace tirc::numeric {

namespace {

// A binary float format with `mant` stored mantissa bits and `exp` exponent
// bits, encoded from a double with one rounding (the double is exact input).
uint32_t encode_small(double x, int mant, int exp) {
  const uint32_t sign = std::signbit(x) ? 1u << (mant + exp) : 0u;
  const uint32_t exp_all_ones = (1u << exp) - 1;
  if (std::isnan(x)) return sign | (exp_all_ones << mant) | (1u << (mant - 1));
  double a = std::fabs(x);
  if (std::isinf(a)) return sign | (exp_all_ones << mant);
  if (a == 0) return sign;
  const int bias = (1 << (exp - 1)) - 1;
  const int emin = 1 - bias;
  int e = 0;
  std::frexp(a, &e);
  e -= 1;  // a = 1.xxx * 2^e
  if (e < emin) {
    // Subnormal: count units of 2^(emin - mant); rounding up to 2^mant units
    // lands exactly on the smallest normal's encoding.
    double units = std::nearbyint(std::ldexp(a, mant - emin));
    return sign | static_cast<uint32_t>(units);
  }
  double m = std::nearbyint(std::ldexp(a, mant - e));  // in [2^mant, 2^(mant+1)]
  if (m >= std::ldexp(1.0, mant + 1)) {
    m /= 2;
    e += 1;
  }
  if (e + bias >= static_cast<int>(exp_all_ones)) return sign | (exp_all_ones << mant);
  uint32_t frac = static_cast<uint32_t>(m) - (1u << mant);
  return sign | (static_cast<uint32_t>(e + bias) << mant) | frac;
}

double decode_small(uint32_t bits, int mant, int exp) {
  const uint32_t exp_all_ones = (1u << exp) - 1;
  const bool neg = (bits >> (mant + exp)) & 1;
  const uint32_t ebits = (bits >> mant) & exp_all_ones;
  const uint32_t frac = bits & ((1u << mant) - 1);
  const int bias = (1 << (exp - 1)) - 1;
  double v;
  if (ebits == exp_all_ones)
    v = frac ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  else if (ebits == 0)
    v = std::ldexp(static_cast<double>(frac), 1 - bias - mant);
  else
    v = std::ldexp(static_cast<double>(frac | (1u << mant)), static_cast<int>(ebits) - bias - mant);
  return neg ? -v : v;
}

}  // namespace

uint16_t encode_half(double x) {
  return static_cast<uint16_t>(encode_small(x, 10, 5));
}
uint16_t encode_bfloat(double x) {
  return static_cast<uint16_t>(encode_small(x, 7, 8));
}
double decode_half(uint16_t bits) {
  return decode_small(bits, 10, 5);
}
double decode_bfloat(uint16_t bits) {
  return decode_small(bits, 7, 8);
}

int64_t float_to_int(DataType t, double x) {
  if (t.is_bool()) return x != 0;
  if (std::isnan(x)) return 0;
  x = std::trunc(x);
  const int bits = t.bits();
  if (t.is_uint()) {
    if (x <= 0) return 0;
    // 2^bits as double is exact; anything at or above saturates.
    double limit = std::ldexp(1.0, bits);
    if (x >= limit) return wrap_int(t, static_cast<int64_t>(~uint64_t{0}));
    return static_cast<int64_t>(static_cast<uint64_t>(x));
  }
  double hi = std::ldexp(1.0, bits - 1);
  if (x >= hi) return static_cast<int64_t>((uint64_t{1} << (bits - 1)) - 1);
  if (x < -hi) return wrap_int(t, static_cast<int64_t>(uint64_t{1} << (bits - 1)));
  return static_cast<int64_t>(x);
}

double int_to_float(DataType t_from, int64_t v, DataType t_to) {
  const bool from_u64 = t_from.is_uint() && t_from.bits() == 64;
  if (t_to.is_float() && t_to.code() == DataType::Code::Float && t_to.bits() == 32)
    return from_u64 ? static_cast<float>(static_cast<uint64_t>(v)) : static_cast<float>(v);
  double d = from_u64 ? static_cast<double>(static_cast<uint64_t>(v)) : static_cast<double>(v);
  return round_to_float(t_to, d);
}

double load_float(DataType t, const uint8_t* p) {
  if (t.code() == DataType::Code::BFloat || t.bits() == 16) {
    uint16_t h;
    std::memcpy(&h, p, 2);
    return t.code() == DataType::Code::BFloat ? decode_bfloat(h) : decode_half(h);
  }
  if (t.bits() == 32) {
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
  double d;
  std::memcpy(&d, p, 8);
  return d;
}

int64_t load_int(DataType t, const uint8_t* p) {
  if (t.is_bool()) return *p != 0;
  switch (t.bits()) {
    case 8:
      return t.is_int() ? static_cast<int64_t>(static_cast<int8_t>(*p)) : *p;
    case 16: {
      uint16_t u;
      std::memcpy(&u, p, 2);
      return t.is_int() ? static_cast<int64_t>(static_cast<int16_t>(u)) : u;
    }
    case 32: {
      uint32_t u;
      std::memcpy(&u, p, 4);
      return t.is_int() ? static_cast<int64_t>(static_cast<int32_t>(u)) : u;
    }
    default: {
      int64_t v;
      std::memcpy(&v, p, 8);
      return v;
    }
  }
}

void store_float(DataType t, uint8_t* p, double v) {
  if (t.code() == DataType::Code::BFloat || t.bits() == 16) {
    uint16_t h = t.code() == DataType::Code::BFloat ? encode_bfloat(v) : encode_half(v);
    std::memcpy(p, &h, 2);
  } else if (t.bits() == 32) {
    float f = static_cast<float>(v);
    std::memcpy(p, &f, 4);
  } else {
    std::memcpy(p, &v, 8);
  }
}

void store_int(DataType t, uint8_t* p, int64_t v) {
  if (t.is_bool()) {
    *p = v != 0;
    return;
  }
  uint64_t u = static_cast<uint64_t>(v);
  // Little-endian host: the low bytes are the value.
  std::memcpy(p, &u, static_cast<size_t>(t.bytes()));
}

}  // namespace tirc::numeric
