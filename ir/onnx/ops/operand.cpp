#include "ir/onnx/ops/operand.h"

#include <algorithm>

#include "ir/onnx/ops/axis_util.h"

namespace tirc::onnx {

bool storage_free(const TensorValue& v) {
  return v.value && !v.buffer && !v.element && v.num_elements() > 1;
}

Expr element_of(const TensorValue& v, const std::vector<Expr>& indices) {
  if (!storage_free(v)) return v.load(indices);
  const NDArray& a = *v.value;
  if (a.num_elements() > kMaxInlineConstant)
    throw Error("a constant of " + std::to_string(a.num_elements()) +
                " elements has no buffer to read it from");
  DataType t = axis_util::index_type(indices);
  Expr flat = make_int(0, t);
  for (size_t d = 0; d < v.shape.size(); ++d) flat = flat * make_int(v.shape[d], t) + indices[d];
  auto literal = [&](int64_t k) {
    return v.dtype.is_float() ? make_float(a.get_float(k), v.dtype)
                              : make_int(a.get_int(k), v.dtype);
  };
  Expr e = literal(a.num_elements() - 1);
  for (int64_t k = a.num_elements() - 2; k >= 0; --k)
    e = make_select(flat == make_int(k, t), literal(k), e);
  return e;
}

bool check_known_indices(const OpContext& ctx, const TensorValue& indices,
                         const std::vector<int64_t>& axes, const Shape& data_shape) {
  if (!indices.value) return false;
  bool nonnegative = true;
  for (int64_t k = 0; k < indices.value->num_elements(); ++k) {
    int64_t axis = axes[static_cast<size_t>(k) % axes.size()];
    int64_t dim = data_shape[static_cast<size_t>(axis)];
    int64_t i = indices.value->get_int(k);
    nonnegative = nonnegative && i >= 0;
    if (i < -dim || i >= dim)
      ctx.fail("index " + std::to_string(i) + " is out of range for axis " + std::to_string(axis) +
               " of extent " + std::to_string(dim));
  }
  return nonnegative;
}

Expr axis_index(const TensorValue& indices, const std::vector<Expr>& at, int64_t dim,
                bool nonnegative, DataType t) {
  Expr i = element_of(indices, at);
  if (i.dtype() != t) i = make_cast(t, i);
  return nonnegative ? i : floormod(i, make_int(dim, t));
}

void check_readable_operands(const OpContext& ctx, const std::vector<size_t>& constant_inputs) {
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    bool operand =
        std::find(constant_inputs.begin(), constant_inputs.end(), i) != constant_inputs.end();
    if (!operand && ctx.has_input(i) && storage_free(ctx.input(i)) &&
        ctx.input(i).num_elements() > kMaxInlineConstant)
      ctx.fail("input " + std::to_string(i) + " is a constant of " +
               std::to_string(ctx.input(i).num_elements()) +
               " elements without a buffer to read it from");
  }
}

OpDef injective_op(std::string op_type, std::vector<size_t> constant_inputs,
                   std::function<std::vector<TensorValue>(OpContext&)> build) {
  auto checked = [constant_inputs, build](OpContext& ctx) {
    check_readable_operands(ctx, constant_inputs);
    return build(ctx);
  };
  return OpDef{std::move(op_type), OpPattern::Injective, std::move(constant_inputs), checked};
}

}  // namespace tirc::onnx
