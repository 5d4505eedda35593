// Reductions and the normalizations built from them. Each emits reduction
// blocks (and the elementwise blocks that finish them) into the kernel and
// returns buffers; inputs may be inlined expressions, read through load().
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "ir/onnx/ops/axis_util.h"
#include "ir/onnx/ops/ops.h"
#include "ir/onnx/ops/reduce_blocks.h"

namespace tirc::onnx {
namespace {

using axis_util::index_type;
using axis_util::normalize_axes;
using axis_util::normalize_axis;
using axis_util::product;
using axis_util::shape_str;

// Which input dimensions a reduction folds away, and how the output keeps them.
struct Reduction {
  std::vector<bool> reduced;  // per input dimension
  bool keepdims = true;
  Shape out_shape;       // the result's shape (reduced dims as 1 when keepdims)
  Shape reduce_extents;  // extents of the reduced dims, in order

  Reduction(const Shape& in, std::vector<bool> r, bool keep)
      : reduced(std::move(r)), keepdims(keep) {
    for (size_t d = 0; d < in.size(); ++d) {
      if (reduced[d]) reduce_extents.push_back(in[d]);
      if (!reduced[d])
        out_shape.push_back(in[d]);
      else if (keepdims)
        out_shape.push_back(1);
    }
  }
  int64_t count() const { return product(reduce_extents); }

  // Input indices of output element i at reduction position r.
  std::vector<Expr> input_indices(const std::vector<Expr>& i, const std::vector<Expr>& r) const {
    std::vector<Expr> src;
    size_t o = 0, k = 0;
    for (bool red : reduced) {
      if (red) {
        src.push_back(r[k++]);
        if (keepdims) ++o;
      } else {
        src.push_back(i[o++]);
      }
    }
    return src;
  }
  // Indices into the (keepdims) result for input indices x.
  std::vector<Expr> result_indices(const std::vector<Expr>& x) const {
    DataType t = index_type(x);
    std::vector<Expr> out;
    for (size_t d = 0; d < reduced.size(); ++d) {
      if (!reduced[d])
        out.push_back(x[d]);
      else if (keepdims)
        out.push_back(make_int(0, t));
    }
    return out;
  }
};

std::vector<bool> axes_mask(const std::vector<int64_t>& axes, int64_t rank) {
  std::vector<bool> m(static_cast<size_t>(rank), false);
  for (int64_t a : axes) m[static_cast<size_t>(a)] = true;
  return m;
}

std::vector<bool> tail_mask(int64_t axis, int64_t rank) {
  std::vector<bool> m(static_cast<size_t>(rank), false);
  for (int64_t d = axis; d < rank; ++d) m[static_cast<size_t>(d)] = true;
  return m;
}

Expr lowest(DataType t) {
  if (t.is_float()) return make_float(-std::numeric_limits<double>::infinity(), t);
  if (t.is_bool()) return make_bool(false);
  if (t.is_uint()) return make_int(0, t);
  return make_int(
      t.bits() >= 64 ? std::numeric_limits<int64_t>::min() : -(int64_t{1} << (t.bits() - 1)), t);
}

Expr highest(DataType t) {
  if (t.is_float()) return make_float(std::numeric_limits<double>::infinity(), t);
  if (t.is_bool()) return make_bool(true);
  if (t.is_uint() && t.bits() >= 64) return make_int(-1, t);  // all ones
  int shift = t.is_uint() ? t.bits() : t.bits() - 1;
  return make_int(shift >= 63 ? std::numeric_limits<int64_t>::max() : (int64_t{1} << shift) - 1, t);
}

Expr call(DataType t, const char* op, std::vector<Expr> args) {
  return make_call(t, op, std::move(args));
}

// ---- Reduce* ------------------------------------------------------------------

enum class ReduceKind { Sum, Mean, Max, Min, Prod, SumSquare, L1, L2, LogSum, LogSumExp };

struct ReduceDef {
  const char* op_type;
  ReduceKind kind;
};

constexpr ReduceDef kReduceOps[] = {
    {"ReduceSum", ReduceKind::Sum},       {"ReduceMean", ReduceKind::Mean},
    {"ReduceMax", ReduceKind::Max},       {"ReduceMin", ReduceKind::Min},
    {"ReduceProd", ReduceKind::Prod},     {"ReduceSumSquare", ReduceKind::SumSquare},
    {"ReduceL1", ReduceKind::L1},         {"ReduceL2", ReduceKind::L2},
    {"ReduceLogSum", ReduceKind::LogSum}, {"ReduceLogSumExp", ReduceKind::LogSumExp},
};

std::vector<TensorValue> build_reduce(OpContext& ctx, ReduceKind kind) {
  TensorValue in = ctx.input(0);
  DataType t = in.dtype;
  bool float_only = kind == ReduceKind::Mean || kind == ReduceKind::L2 ||
                    kind == ReduceKind::LogSum || kind == ReduceKind::LogSumExp;
  // ReduceMax and ReduceMin take bool from version 20 (any and all).
  bool extremum = kind == ReduceKind::Max || kind == ReduceKind::Min;
  if (t.is_bool() && extremum && ctx.version() < 20)
    ctx.fail("input type bool is not supported before opset 20");
  if ((t.is_bool() && !extremum) || (float_only && !t.is_float()))
    ctx.fail("input type " + t.str() + " is not supported");
  bool keepdims = ctx.node().attr_int("keepdims", 1) != 0;
  std::vector<int64_t> axes;
  bool noop_when_empty = false;
  // The axes attribute became input 1 in ReduceSum-13 and the others' version 18.
  const int64_t axes_input_since = kind == ReduceKind::Sum ? 13 : 18;
  if (ctx.version() >= axes_input_since) {
    if (ctx.node().has_attr("axes"))
      ctx.fail("attribute 'axes' was replaced by input 1 in opset " +
               std::to_string(axes_input_since));
    if (ctx.has_input(1)) axes = ctx.constant_ints(1);
    noop_when_empty = ctx.node().attr_int("noop_with_empty_axes", 0) != 0;
  } else {
    axes = ctx.node().attr_ints("axes");
    if (ctx.num_inputs() > 1 && ctx.has_input(1))
      ctx.fail("axes must be an attribute before opset " + std::to_string(axes_input_since));
  }
  axes = normalize_axes(ctx, axes, in.rank());
  std::vector<bool> mask =
      axes.empty() && !noop_when_empty ? tail_mask(0, in.rank()) : axes_mask(axes, in.rank());
  Reduction red(in.shape, mask, keepdims);
  KernelBuilder& kb = ctx.kernel();
  Buffer out = ctx.output_buffer(0, t, red.out_shape);
  if (red.reduce_extents.empty()) {
    // Nothing to reduce (noop_with_empty_axes, or a scalar): each element is
    // reduced alone, so ReduceSumSquare squares it and ReduceL1/L2 take its
    // magnitude (as onnxruntime and ONNX's reference do).
    kb.emit_elementwise(hint_of(ctx, "copy"), out, [in, kind, t](const std::vector<Expr>& i) {
      Expr x = in.load(i);
      switch (kind) {
        case ReduceKind::SumSquare:
          return x * x;
        case ReduceKind::L1:
        case ReduceKind::L2:
          return t.is_float() ? call(t, "fabs", {x}) : call(t, "abs", {x});
        case ReduceKind::LogSum:
          return call(t, "log", {x});
        default:
          return x;
      }
    });
    return {TensorValue::of_buffer(out, red.out_shape)};
  }

  // LogSumExp subtracts the maximum first so exp cannot overflow.
  Buffer peak;
  if (kind == ReduceKind::LogSumExp) {
    peak = kb.alloc(hint_of(ctx, "max"), t, red.out_shape);
    kb.emit_reduction(
        hint_of(ctx, "max"), peak, red.reduce_extents, lowest(t),
        [in, red](const std::vector<Expr>& i, const std::vector<Expr>& r) {
          return in.load(red.input_indices(i, r));
        },
        [](Expr acc, Expr v) { return max(acc, v); });
  }
  auto element = [in, red, kind, peak, t](const std::vector<Expr>& i, const std::vector<Expr>& r) {
    Expr x = in.load(red.input_indices(i, r));
    switch (kind) {
      case ReduceKind::SumSquare:
      case ReduceKind::L2:
        return x * x;
      case ReduceKind::L1:
        return t.is_float() ? call(t, "fabs", {x}) : call(t, "abs", {x});
      case ReduceKind::LogSumExp:
        return call(t, "exp", {x - make_load(peak, i)});
      default:
        return x;
    }
  };
  bool finished = kind == ReduceKind::Mean || kind == ReduceKind::L2 ||
                  kind == ReduceKind::LogSum || kind == ReduceKind::LogSumExp;
  Buffer acc = finished ? kb.alloc(hint_of(ctx, "acc"), t, red.out_shape) : out;
  Expr init = kind == ReduceKind::Max    ? lowest(t)
              : kind == ReduceKind::Min  ? highest(t)
              : kind == ReduceKind::Prod ? make_const(t, 1)
                                         : make_const(t, 0);
  bool boolean = t.is_bool();
  std::function<Expr(Expr, Expr)> combine = [kind, boolean](Expr a, Expr v) -> Expr {
    switch (kind) {
      case ReduceKind::Max:
        return boolean ? logical_or(a, v) : max(a, v);
      case ReduceKind::Min:
        return boolean ? logical_and(a, v) : min(a, v);
      case ReduceKind::Prod:
        return a * v;
      default:
        return a + v;
    }
  };
  kb.emit_reduction(hint_of(ctx, finished ? "acc" : "reduce"), acc, red.reduce_extents, init,
                    element, combine);
  if (finished) {
    int64_t n = red.count();
    kb.emit_elementwise(hint_of(ctx, "final"), out,
                        [acc, kind, n, t, peak](const std::vector<Expr>& i) -> Expr {
                          Expr a = make_load(acc, i);
                          switch (kind) {
                            case ReduceKind::Mean:
                              return a / make_const(t, static_cast<double>(n));
                            case ReduceKind::L2:
                              return call(t, "sqrt", {a});
                            case ReduceKind::LogSum:
                              return call(t, "log", {a});
                            default:
                              return call(t, "log", {a}) + make_load(peak, i);
                          }
                        });
  }
  return {TensorValue::of_buffer(out, red.out_shape)};
}

// ---- Softmax, LogSoftmax --------------------------------------------------------

std::vector<TensorValue> build_softmax(OpContext& ctx, bool log) {
  TensorValue in = ctx.input(0);
  DataType t = in.dtype;
  if (!t.is_float()) ctx.fail("input type " + t.str() + " is not a float type");
  if (in.rank() == 0) ctx.fail("input must have at least one dimension");
  std::vector<bool> mask;
  if (ctx.opset() < 13) {
    // The input is viewed as 2-D [d0 * .. * d(axis-1), d(axis) * .. * dn].
    int64_t axis = ctx.node().attr_int("axis", 1);
    if (axis < -in.rank() || axis > in.rank())
      ctx.fail("axis " + std::to_string(axis) + " is out of range for a tensor of rank " +
               std::to_string(in.rank()));
    mask = tail_mask(axis < 0 ? axis + in.rank() : axis, in.rank());
  } else {
    int64_t axis = normalize_axis(ctx, ctx.node().attr_int("axis", -1), in.rank());
    mask = axes_mask({axis}, in.rank());
  }
  Reduction red(in.shape, mask, false);
  KernelBuilder& kb = ctx.kernel();
  Buffer out = ctx.output_buffer(0, t, in.shape);
  if (red.reduce_extents.empty()) {  // axis == rank before opset 13: each element alone
    kb.emit_elementwise(hint_of(ctx, "final"), out, [t, log](const std::vector<Expr>&) {
      return make_const(t, log ? 0.0 : 1.0);
    });
    return {TensorValue::of_buffer(out, in.shape)};
  }
  auto x_at = [in, red](const std::vector<Expr>& i, const std::vector<Expr>& r) {
    return in.load(red.input_indices(i, r));
  };
  Buffer peak = kb.alloc(hint_of(ctx, "max"), t, red.out_shape);
  kb.emit_reduction(hint_of(ctx, "max"), peak, red.reduce_extents, lowest(t), x_at,
                    [](Expr acc, Expr v) { return max(acc, v); });
  Buffer sum = kb.alloc(hint_of(ctx, "sum"), t, red.out_shape);
  kb.emit_reduction(
      hint_of(ctx, "sum"), sum, red.reduce_extents, make_const(t, 0),
      [x_at, peak, t](const std::vector<Expr>& i, const std::vector<Expr>& r) {
        return call(t, "exp", {x_at(i, r) - make_load(peak, i)});
      },
      [](Expr acc, Expr v) { return acc + v; });
  kb.emit_elementwise(hint_of(ctx, "final"), out,
                      [in, red, peak, sum, t, log](const std::vector<Expr>& x) {
                        std::vector<Expr> ri = red.result_indices(x);
                        Expr shifted = in.load(x) - make_load(peak, ri);
                        if (log) return shifted - call(t, "log", {make_load(sum, ri)});
                        return call(t, "exp", {shifted}) / make_load(sum, ri);
                      });
  return {TensorValue::of_buffer(out, in.shape)};
}

// ---- LayerNormalization -----------------------------------------------------------

std::vector<TensorValue> build_layer_norm(OpContext& ctx) {
  TensorValue x = ctx.input(0), scale = ctx.input(1);
  std::optional<TensorValue> bias;
  if (ctx.has_input(2)) bias = ctx.input(2);
  DataType t = x.dtype;
  if (!t.is_float()) ctx.fail("input type " + t.str() + " is not a float type");
  if (x.rank() == 0) ctx.fail("input must have at least one dimension");
  int64_t stash = ctx.node().attr_int("stash_type", 1);
  if (stash != 1)
    ctx.fail("stash_type " + std::to_string(stash) + " is not supported (only 1, float32)");
  int64_t axis = normalize_axis(ctx, ctx.node().attr_int("axis", -1), x.rank());
  double epsilon = ctx.node().attr_float("epsilon", 1e-5);
  Shape normalized(x.shape.begin() + axis, x.shape.end());
  for (const TensorValue* p : {&scale, bias ? &*bias : nullptr}) {
    if (!p) continue;
    if (p->dtype != t) ctx.fail("Scale and B must be " + t.str() + ", not " + p->dtype.str());
    try {
      if (broadcast_shapes({p->shape, normalized}) != normalized) throw Error("");
    } catch (const Error&) {
      ctx.fail("Scale/B of shape " + shape_str(p->shape) +
               " do not broadcast to the normalized shape " + shape_str(normalized));
    }
  }
  Reduction red(x.shape, tail_mask(axis, x.rank()), true);
  KernelBuilder& kb = ctx.kernel();
  auto wants = [&](size_t k) {
    return k < ctx.node().outputs.size() && !ctx.node().outputs[k].empty();
  };
  auto x_at = [x, red](const std::vector<Expr>& i, const std::vector<Expr>& r) {
    return x.load(red.input_indices(i, r));
  };

  // Output parameters are requested in output order: the kernel's parameters follow it.
  Buffer y = ctx.output_buffer(0, t, x.shape);
  Buffer mean = wants(1) ? ctx.output_buffer(1, t, red.out_shape)
                         : kb.alloc(hint_of(ctx, "mean"), t, red.out_shape);
  Buffer inv = wants(2) ? ctx.output_buffer(2, t, red.out_shape)
                        : kb.alloc(hint_of(ctx, "invstd"), t, red.out_shape);
  emit_mean_invstd(ctx, x_at, red.out_shape, red.reduce_extents, epsilon, mean, inv);
  Shape shape = x.shape;
  kb.emit_elementwise(hint_of(ctx, "y"), y,
                      [x, scale, bias, red, mean, inv, shape](const std::vector<Expr>& i) {
                        std::vector<Expr> ri = red.result_indices(i);
                        Expr v = (x.load(i) - make_load(mean, ri)) * make_load(inv, ri);
                        v = v * scale.load(broadcast_indices(scale.shape, shape, i));
                        if (bias) v = v + bias->load(broadcast_indices(bias->shape, shape, i));
                        return v;
                      });
  std::vector<TensorValue> outs{TensorValue::of_buffer(y, x.shape)};
  if (ctx.node().outputs.size() > 1) outs.push_back(TensorValue::of_buffer(mean, red.out_shape));
  if (ctx.node().outputs.size() > 2) outs.push_back(TensorValue::of_buffer(inv, red.out_shape));
  return outs;
}

}  // namespace

std::vector<OpDef> reduction_ops() {
  std::vector<OpDef> ops;
  for (const ReduceDef& d : kReduceOps) {
    ReduceKind kind = d.kind;
    ops.push_back({d.op_type, OpPattern::Reduction, {1}, [kind](OpContext& ctx) {
                     return build_reduce(ctx, kind);
                   }});
  }
  ops.push_back({"Softmax", OpPattern::Reduction, {}, [](OpContext& ctx) {
                   return build_softmax(ctx, false);
                 }});
  ops.push_back({"LogSoftmax", OpPattern::Reduction, {}, [](OpContext& ctx) {
                   return build_softmax(ctx, true);
                 }});
  ops.push_back({"LayerNormalization", OpPattern::Reduction, {}, build_layer_norm});
  return ops;
}

}  // namespace tirc::onnx
