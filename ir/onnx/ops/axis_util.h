// Axis and index arithmetic shared by the layout and reduction operators.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/onnx/op.h"

namespace tirc::onnx::axis_util {

// axis in [-rank, rank) as a non-negative axis; fails naming the node otherwise.
inline int64_t normalize_axis(const OpContext& ctx, int64_t axis, int64_t rank,
                              const std::string& what = "axis") {
  if (axis < -rank || axis >= rank)
    ctx.fail(what + " " + std::to_string(axis) + " is out of range for a tensor of rank " +
             std::to_string(rank));
  return axis < 0 ? axis + rank : axis;
}

// Normalizes every axis and rejects repeats.
inline std::vector<int64_t> normalize_axes(const OpContext& ctx, const std::vector<int64_t>& axes,
                                           int64_t rank, const std::string& what = "axes") {
  std::vector<int64_t> out;
  for (int64_t a : axes) {
    int64_t n = normalize_axis(ctx, a, rank, "axis");
    for (int64_t seen : out)
      if (seen == n) ctx.fail(what + " repeat axis " + std::to_string(n));
    out.push_back(n);
  }
  return out;
}

// Output indices are int32 unless the consumer indexes with something else.
inline DataType index_type(const std::vector<Expr>& indices) {
  return indices.empty() ? DataType::int32() : indices[0].dtype();
}

inline int64_t product(const Shape& shape, size_t begin = 0, size_t end = SIZE_MAX) {
  int64_t p = 1;
  for (size_t d = begin; d < shape.size() && d < end; ++d) p *= shape[d];
  return p;
}

inline std::string shape_str(const Shape& shape) {
  std::string s = "[";
  for (size_t d = 0; d < shape.size(); ++d) s += (d ? ", " : "") + std::to_string(shape[d]);
  return s + "]";
}

}  // namespace tirc::onnx::axis_util
