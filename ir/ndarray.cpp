#include "ir/ndarray.h"

#include <cmath>
#include <cstdio>
#include <cstring>

#include "ir/error.h"
#include "ir/eval/numeric.h"

namespace tirc {

NDArray::NDArray(DataType dtype, std::vector<int64_t> shape)
    : dtype_(dtype), shape_(std::move(shape)) {
  if (dtype.is_vector() || dtype.is_handle() || dtype.is_void())
    throw Error("NDArray of unsupported element type " + dtype.str());
  for (int64_t d : shape_)
    if (d < 0) throw Error("NDArray with negative extent " + std::to_string(d));
  bytes_.assign(static_cast<size_t>(num_elements()) * static_cast<size_t>(dtype.bytes()), 0);
}

int64_t NDArray::num_elements() const {
  int64_t n = 1;
  for (int64_t d : shape_) n *= d;
  return n;
}

static void check_index(const NDArray& a, int64_t i) {
  if (i < 0 || i >= a.num_elements())
    throw Error("NDArray element " + std::to_string(i) + " out of range (" +
                std::to_string(a.num_elements()) + " elements)");
}

double NDArray::get_float(int64_t i) const {
  check_index(*this, i);
  const uint8_t* p = bytes_.data() + i * dtype_.bytes();
  if (dtype_.is_float()) return numeric::load_float(dtype_, p);
  int64_t v = numeric::load_int(dtype_, p);
  if (dtype_.is_uint() && dtype_.bits() == 64) return static_cast<double>(static_cast<uint64_t>(v));
  return static_cast<double>(v);
}

int64_t NDArray::get_int(int64_t i) const {
  check_index(*this, i);
  const uint8_t* p = bytes_.data() + i * dtype_.bytes();
  if (dtype_.is_float())
    return numeric::float_to_int(DataType::int64(), numeric::load_float(dtype_, p));
  return numeric::load_int(dtype_, p);
}

void NDArray::set_float(int64_t i, double v) {
  check_index(*this, i);
  uint8_t* p = bytes_.data() + i * dtype_.bytes();
  if (dtype_.is_float())
    numeric::store_float(dtype_, p, v);
  else
    numeric::store_int(dtype_, p, numeric::float_to_int(dtype_, v));
}

void NDArray::set_int(int64_t i, int64_t v) {
  check_index(*this, i);
  uint8_t* p = bytes_.data() + i * dtype_.bytes();
  if (dtype_.is_float())
    numeric::store_float(dtype_, p, numeric::int_to_float(DataType::int64(), v, dtype_));
  else
    numeric::store_int(dtype_, p, numeric::wrap_int(dtype_, v));
}

bool NDArray::bitwise_equal(const NDArray& other) const {
  return dtype_ == other.dtype_ && shape_ == other.shape_ && bytes_ == other.bytes_;
}

int64_t NDArray::first_mismatch(const NDArray& other, double rtol, double atol) const {
  if (bytes_ == other.bytes_) return -1;
  const size_t size = static_cast<size_t>(dtype_.bytes());
  const bool exact = !dtype_.is_float() || (rtol == 0 && atol == 0);
  for (int64_t i = 0; i < num_elements(); ++i) {
    const size_t at = static_cast<size_t>(i) * size;
    if (std::memcmp(data() + at, other.data() + at, size) == 0) continue;
    if (exact) return i;
    const double a = get_float(i), b = other.get_float(i);
    const bool equal = std::isnan(a) || std::isnan(b) ? std::isnan(a) && std::isnan(b)
                       : std::isinf(a) || std::isinf(b)
                           ? a == b
                           : std::fabs(a - b) <= atol + rtol * std::fabs(b);
    if (!equal) return i;
  }
  return -1;
}

std::string element_text(const NDArray& a, int64_t i) {
  if (a.dtype().is_float()) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.9g", a.get_float(i));
    return buf;
  }
  if (a.dtype().is_uint() && a.dtype().bits() == 64)
    return std::to_string(static_cast<uint64_t>(a.get_int(i)));
  return std::to_string(a.get_int(i));
}

}  // namespace tirc
