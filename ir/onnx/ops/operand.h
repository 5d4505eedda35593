// Reading the operands of injective operators: compile-time tensors without
// storage of their own, index tensors (checked when known, wrapped when
// negative), and the registration that checks data operands are readable.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ir/onnx/op.h"

namespace tirc::onnx {

// Compile-time tensors without storage read through element_of() become a chain
// of selects; beyond this many elements they need a buffer.
inline constexpr int64_t kMaxInlineConstant = 256;

// A compile-time tensor of more than one element with neither a buffer nor an
// expression (a folded index list).
bool storage_free(const TensorValue& v);

// An element of v. A constant with no storage of its own and more than one
// element becomes a choice among its values.
Expr element_of(const TensorValue& v, const std::vector<Expr>& indices);

// Known indices (indices.value) checked against the data they index: element
// k of the flattened indices indexes axis axes[k % axes.size()] of data_shape
// and must lie in [-extent, extent), else the build fails naming the node.
// Returns whether every known index is non-negative (none needs wrapping);
// false for indices known only at run time.
bool check_known_indices(const OpContext& ctx, const TensorValue& indices,
                         const std::vector<int64_t>& axes, const Shape& data_shape);

// Element `at` of `indices` as an index of an axis of extent `dim`, in type
// t: a negative index counts from the end (floormod maps [-dim, dim) onto
// [0, dim)) unless `nonnegative` says none is negative.
Expr axis_index(const TensorValue& indices, const std::vector<Expr>& at, int64_t dim,
                bool nonnegative, DataType t);

// Fails naming the node when a data operand (an input not listed in
// `constant_inputs`) is a storage-free constant too large for element_of().
void check_readable_operands(const OpContext& ctx, const std::vector<size_t>& constant_inputs);

// An injective operator whose data operands are checked to be readable
// (check_readable_operands) before `build` runs.
OpDef injective_op(std::string op_type, std::vector<size_t> constant_inputs,
                   std::function<std::vector<TensorValue>(OpContext&)> build);

}  // namespace tirc::onnx
