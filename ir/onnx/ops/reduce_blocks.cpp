#include "ir/onnx/ops/reduce_blocks.h"

#include "ir/onnx/ops/axis_util.h"

namespace tirc::onnx {

std::string hint_of(const OpContext& ctx, const std::string& stage) {
  const Node& n = ctx.node();
  std::string base = !n.outputs.empty() && !n.outputs[0].empty() ? n.outputs[0] : n.op_type;
  return base + "_" + stage;
}

void emit_mean_invstd(OpContext& ctx, const ReduceValueFn& x, const Shape& shape,
                      const Shape& reduce_extents, double epsilon, const Buffer& mean,
                      const Buffer& invstd) {
  KernelBuilder& kb = ctx.kernel();
  DataType t = mean->dtype;
  Expr count = make_const(t, static_cast<double>(axis_util::product(reduce_extents)));
  auto add = [](Expr acc, Expr v) { return acc + v; };
  Buffer sum = kb.alloc(hint_of(ctx, "sum"), t, shape);
  kb.emit_reduction(hint_of(ctx, "sum"), sum, reduce_extents, make_const(t, 0), x, add);
  kb.emit_elementwise(hint_of(ctx, "mean"), mean, [sum, count](const std::vector<Expr>& i) {
    return make_load(sum, i) / count;
  });
  Buffer sq = kb.alloc(hint_of(ctx, "sqdiff"), t, shape);
  kb.emit_reduction(
      hint_of(ctx, "sqdiff"), sq, reduce_extents, make_const(t, 0),
      [x, mean](const std::vector<Expr>& i, const std::vector<Expr>& r) {
        Expr d = x(i, r) - make_load(mean, i);
        return d * d;
      },
      add);
  kb.emit_elementwise(hint_of(ctx, "invstd"), invstd,
                      [sq, count, epsilon, t](const std::vector<Expr>& i) {
                        Expr var = make_load(sq, i) / count + make_const(t, epsilon);
                        return make_const(t, 1) / make_call(t, "sqrt", {var});
                      });
}

}  // namespace tirc::onnx
