// Host tensors: a dtype, a shape and bytes. A module's constants are NDArrays,
// so the type lives with the IR; the interpreter and the driver use it too.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ir/dtype.h"

namespace tirc {

class NDArray {
 public:
  NDArray() = default;
  NDArray(DataType dtype, std::vector<int64_t> shape);  // zero-filled

  DataType dtype() const { return dtype_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  int64_t num_elements() const;
  size_t num_bytes() const { return bytes_.size(); }
  uint8_t* data() { return bytes_.data(); }
  const uint8_t* data() const { return bytes_.data(); }

  // Element i (flat, row-major) converted to double / int64 / back.
  double get_float(int64_t i) const;
  int64_t get_int(int64_t i) const;
  void set_float(int64_t i, double v);  // rounds to the element type
  void set_int(int64_t i, int64_t v);   // wraps to the element type

  bool bitwise_equal(const NDArray& other) const;
  // The first element (flat index) that differs from other's, -1 when none.
  // Floats are equal within atol + rtol * |other| (NaN equals NaN,
  // infinities only themselves); other dtypes, and rtol = atol = 0, compare
  // bit for bit. Both must have the same dtype and shape.
  int64_t first_mismatch(const NDArray& other, double rtol = 0, double atol = 0) const;

 private:
  DataType dtype_;
  std::vector<int64_t> shape_;
  std::vector<uint8_t> bytes_;
};

// Element i as text for messages: floats to 9 significant digits, integers
// exactly (uint64 unsigned).
std::string element_text(const NDArray& a, int64_t i);

// NumPy .npy files (version 1.0/2.0, little-endian, C order).
NDArray read_npy(const std::string& path);
void write_npy(const std::string& path, const NDArray& a);
// The same in memory; `what` names the source in errors.
NDArray parse_npy(std::string_view bytes, const std::string& what);
std::string to_npy(const NDArray& a, const std::string& what);

}  // namespace tirc
