// InstanceNormalization and GroupNormalization: X (N, C, D1, ...) normalized
// by the mean and variance of each (sample, group of channels), then scaled
// and shifted. Instance normalization is the case of one channel per group.
// The statistics are reduction blocks (ir/onnx/ops/reduce_blocks.h); the
// result is one elementwise block.
#include "ir/onnx/ops/axis_util.h"
#include "ir/onnx/ops/ops.h"
#include "ir/onnx/ops/reduce_blocks.h"

namespace tirc::onnx {
namespace {

using axis_util::shape_str;
using Indices = std::vector<Expr>;

// How the channels of X split into groups, and what scale and bias index.
struct Groups {
  int64_t count;          // G
  int64_t size;           // C / G channels per group
  bool params_per_group;  // scale and bias have G entries (else C)
};

std::vector<TensorValue> build_grouped_norm(OpContext& ctx, const Groups& g) {
  TensorValue x = ctx.input(0), scale = ctx.input(1), bias = ctx.input(2);
  DataType t = x.dtype;
  if (!t.is_float()) ctx.fail("input type " + t.str() + " is not a float type");
  int64_t params = g.params_per_group ? g.count : g.count * g.size;
  for (const TensorValue* p : {&scale, &bias}) {
    const char* what = p == &scale ? "scale" : "bias";
    if (p->dtype != t)
      ctx.fail(std::string(what) + " has type " + p->dtype.str() + ", X " + t.str());
    if (p->shape != Shape{params})
      ctx.fail(std::string(what) + " has shape " + shape_str(p->shape) + ", expected [" +
               std::to_string(params) + "]" +
               (g.params_per_group ? " (one value per group before opset 21)" : ""));
  }
  double epsilon = ctx.node().attr_float("epsilon", 1e-5);

  // Statistics per (n, group) over (channel in group, spatial...).
  Shape stats{x.shape[0], g.count};
  Shape reduce{g.size};
  reduce.insert(reduce.end(), x.shape.begin() + 2, x.shape.end());
  int64_t size = g.size;
  auto x_at = [x, size](const Indices& i, const Indices& r) {
    Expr channel = size == 1 ? i[1] : i[1] * make_int(size, i[1].dtype()) + r[0];
    Indices xi{i[0], channel};
    xi.insert(xi.end(), r.begin() + 1, r.end());
    return x.load(xi);
  };
  KernelBuilder& kb = ctx.kernel();
  Buffer y = ctx.output_buffer(0, t, x.shape);
  Buffer mean = kb.alloc(hint_of(ctx, "mean"), t, stats);
  Buffer inv = kb.alloc(hint_of(ctx, "invstd"), t, stats);
  emit_mean_invstd(ctx, x_at, stats, reduce, epsilon, mean, inv);
  bool per_group = g.params_per_group;
  kb.emit_elementwise(hint_of(ctx, "y"), y, [=](const Indices& i) {
    Expr group = size == 1 ? i[1] : floordiv(i[1], make_int(size, i[1].dtype()));
    Indices si{i[0], group}, pi{per_group ? group : i[1]};
    Expr v = (x.load(i) - make_load(mean, si)) * make_load(inv, si);
    return v * scale.load(pi) + bias.load(pi);
  });
  return {TensorValue::of_buffer(y, x.shape)};
}

// X must be (N, C, ...) with at least `min_rank` dimensions.
void require_channels(OpContext& ctx, const TensorValue& x, int64_t min_rank) {
  if (x.rank() < min_rank)
    ctx.fail("X must have rank " + std::to_string(min_rank) + " or more (N, C, ...), has shape " +
             shape_str(x.shape));
}

std::vector<TensorValue> build_instance_norm(OpContext& ctx) {
  const TensorValue& x = ctx.input(0);
  require_channels(ctx, x, 3);
  return build_grouped_norm(ctx, Groups{x.shape[1], 1, false});
}

// Opsets 18-20 scale and shift per group; 21 corrected that to per channel.
std::vector<TensorValue> build_group_norm(OpContext& ctx) {
  const TensorValue& x = ctx.input(0);
  require_channels(ctx, x, 2);
  int64_t groups = ctx.node().require_int("num_groups");
  int64_t channels = x.shape[1];
  if (groups < 1 || channels % groups != 0)
    ctx.fail("num_groups " + std::to_string(groups) + " does not divide the " +
             std::to_string(channels) + " channels of X");
  int64_t stash = ctx.node().attr_int("stash_type", 1);
  if (stash != 1)
    ctx.fail("stash_type " + std::to_string(stash) + " is not supported (only 1, float32)");
  return build_grouped_norm(ctx, Groups{groups, channels / groups, ctx.opset() < 21});
}

}  // namespace

std::vector<OpDef> normalization_ops() {
  return {
      {"InstanceNormalization", OpPattern::Reduction, {}, build_instance_norm},
      {"GroupNormalization", OpPattern::Reduction, {}, build_group_norm},
  };
}

}  // namespace tirc::onnx
