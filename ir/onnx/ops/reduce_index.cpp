// Operators that reduce along one axis and produce positions or running sums:
// ArgMax, ArgMin, TopK and CumSum. Each emits reduction blocks into the kernel
// and returns buffers; inputs may be inlined expressions, read through load().
// Positions are int64, as ONNX has them.
#include "ir/onnx/ops/axis_util.h"
#include "ir/onnx/ops/ops.h"
#include "ir/onnx/ops/reduce_blocks.h"

namespace tirc::onnx {
namespace {

using axis_util::normalize_axis;
using Indices = std::vector<Expr>;

const DataType kIndexType = DataType::int64();

// Indices of the input for output indices i whose position along `axis` is
// `at`: i's entry at axis is replaced (keepdims) or `at` is inserted there.
Indices along_axis(const Indices& i, size_t axis, const Expr& at, bool keepdims) {
  Indices src = i;
  if (keepdims)
    src[axis] = at;
  else
    src.insert(src.begin() + static_cast<std::ptrdiff_t>(axis), at);
  return src;
}

void require_numeric(OpContext& ctx, const TensorValue& x) {
  if (!x.dtype.is_float() && !x.dtype.is_integer())
    ctx.fail("input type " + x.dtype.str() + " is not a numeric type");
}

// The axis attribute of a one-axis operator; `rank` 0 is refused.
size_t axis_attr(OpContext& ctx, const TensorValue& x, int64_t fallback) {
  if (x.rank() == 0) ctx.fail("input must have at least one dimension");
  return static_cast<size_t>(normalize_axis(ctx, ctx.node().attr_int("axis", fallback), x.rank()));
}

// ---- ArgMax, ArgMin ----------------------------------------------------------------

// Whether the float x is NaN: x != x, which every backend has.
Expr is_nan(const Expr& x) {
  return x != x;
}

// Two reductions: the extreme value, then the first (or last) position holding
// it, so that ties resolve as ONNX says and both are plain min/max reductions.
// A NaN is the extreme, as in numpy: the first (last) NaN wins. For floats the
// second reduction ranks NaN positions p as p, positions of the extreme as
// p + n and the rest as 2n (first; last: p + n, p and -1), and the position
// is that mod n.
std::vector<TensorValue> build_arg_extreme(OpContext& ctx, bool is_max) {
  TensorValue x = ctx.input(0);
  require_numeric(ctx, x);
  size_t axis = axis_attr(ctx, x, 0);
  bool keepdims = ctx.node().attr_int("keepdims", 1) != 0;
  if (ctx.opset() < 12 && ctx.node().has_attr("select_last_index"))
    ctx.fail("attribute 'select_last_index' needs opset 12 (the model has " +
             std::to_string(ctx.opset()) + ")");
  bool last = ctx.node().attr_int("select_last_index", 0) != 0;
  int64_t n = x.shape[axis];
  Shape out_shape = x.shape;
  if (keepdims)
    out_shape[axis] = 1;
  else
    out_shape.erase(out_shape.begin() + static_cast<std::ptrdiff_t>(axis));

  KernelBuilder& kb = ctx.kernel();
  Buffer out = ctx.output_buffer(0, kIndexType, out_shape);
  auto x_at = [x, axis, keepdims](const Indices& i, const Indices& r) {
    return x.load(along_axis(i, axis, r[0], keepdims));
  };
  Buffer peak = kb.alloc(hint_of(ctx, is_max ? "max" : "min"), x.dtype, out_shape);
  kb.emit_reduction(
      hint_of(ctx, is_max ? "max" : "min"), peak, {n},
      [x_at](const Indices& i) { return x_at(i, {make_int(0, axis_util::index_type(i))}); }, x_at,
      [is_max](Expr acc, Expr v) { return is_max ? max(acc, v) : min(acc, v); });
  bool nan_aware = x.dtype.is_float();
  auto imm = [](int64_t v) { return make_int(v, kIndexType); };
  Expr none = imm(last ? -1 : (nan_aware ? 2 * n : n));
  Buffer position = nan_aware ? kb.alloc(hint_of(ctx, "index"), kIndexType, out_shape) : out;
  kb.emit_reduction(
      hint_of(ctx, "index"), position, {n}, none,
      [x_at, peak, none, nan_aware, last, imm, n](const Indices& i, const Indices& r) {
        Expr v = x_at(i, r), p = make_cast(kIndexType, r[0]);
        Expr at_peak = nan_aware && !last ? p + imm(n) : p;
        Expr key = make_select(v == make_load(peak, i), at_peak, none);
        if (!nan_aware) return key;
        return make_select(is_nan(v), last ? p + imm(n) : p, key);
      },
      [last](Expr acc, Expr v) { return last ? max(acc, v) : min(acc, v); });
  if (nan_aware)
    kb.emit_elementwise(hint_of(ctx, "position"), out, [position, imm, n](const Indices& i) {
      return floormod(make_load(position, i), imm(n));
    });
  return {TensorValue::of_buffer(out, out_shape)};
}

// ---- TopK ---------------------------------------------------------------------------

// The k of TopK: an attribute before opset 10, a one-element input from 10.
int64_t top_k_count(OpContext& ctx, int64_t extent) {
  int64_t k;
  if (ctx.opset() < 10) {
    k = ctx.node().require_int("k");
  } else {
    if (ctx.node().has_attr("k")) ctx.fail("attribute 'k' was replaced by input 1 in opset 10");
    std::vector<int64_t> ks = ctx.constant_ints(1);
    if (ks.size() != 1) ctx.fail("K must have one element, has " + std::to_string(ks.size()));
    k = ks[0];
  }
  if (k < 1 || k > extent)
    ctx.fail("k " + std::to_string(k) + " is outside [1, " + std::to_string(extent) +
             "], the extent of the axis");
  return k;
}

// The order TopK sorts by, total also with NaNs: NaN is greater than every
// number and equal to NaN (as onnxruntime orders them).
Expr greater(const Expr& a, const Expr& b) {
  if (!a.dtype().is_float()) return a > b;
  return logical_or(a > b, logical_and(is_nan(a), make_not(is_nan(b))));
}
Expr same(const Expr& a, const Expr& b) {
  if (!a.dtype().is_float()) return a == b;
  return logical_or(a == b, logical_and(is_nan(a), is_nan(b)));
}

// Each element's rank along the axis is the number of elements ordered before
// it (greater, or the same at a lower position, when `largest`); output
// position p then takes the element of rank p. Ranks are a reduction over the
// axis per element (quadratic in its extent), which keeps every block a plain
// sum; the order being total, the ranks are a permutation.
std::vector<TensorValue> build_top_k(OpContext& ctx) {
  TensorValue x = ctx.input(0);
  require_numeric(ctx, x);
  size_t axis = axis_attr(ctx, x, -1);
  const Node& node = ctx.node();
  for (const char* attr : {"largest", "sorted"})
    if (ctx.opset() < 11 && node.has_attr(attr))
      ctx.fail("attribute '" + std::string(attr) + "' needs opset 11 (the model has " +
               std::to_string(ctx.opset()) + ")");
  bool largest = node.attr_int("largest", 1) != 0;
  // sorted=0 leaves the order unspecified: the sorted order is one of them.
  int64_t n = x.shape[axis];
  int64_t k = top_k_count(ctx, n);
  Shape out_shape = x.shape;
  out_shape[axis] = k;

  KernelBuilder& kb = ctx.kernel();
  auto wants = [&](size_t o) { return o < node.outputs.size() && !node.outputs[o].empty(); };
  // Output parameters are requested in output order: the kernel's parameters follow it.
  Buffer values = ctx.output_buffer(0, x.dtype, out_shape);
  Buffer indices = wants(1) ? ctx.output_buffer(1, kIndexType, out_shape)
                            : kb.alloc(hint_of(ctx, "indices"), kIndexType, out_shape);
  Buffer rank = kb.alloc(hint_of(ctx, "rank"), DataType::int32(), x.shape);
  kb.emit_reduction(
      hint_of(ctx, "rank"), rank, {n}, make_int(0),
      [x, axis, largest](const Indices& i, const Indices& r) {
        Expr mine = x.load(i), other = x.load(along_axis(i, axis, r[0], true));
        Expr before = logical_or(largest ? greater(other, mine) : greater(mine, other),
                                 logical_and(same(other, mine), r[0] < i[axis]));
        return make_select(before, make_int(1), make_int(0));
      },
      [](Expr acc, Expr v) { return acc + v; });
  // Exactly one position along the axis has rank p: the sum picks it out.
  kb.emit_reduction(
      hint_of(ctx, "select"), indices, {n}, make_int(0, kIndexType),
      [rank, axis](const Indices& i, const Indices& r) {
        Expr p = make_cast(DataType::int32(), i[axis]);
        return make_select(make_load(rank, along_axis(i, axis, r[0], true)) == p,
                           make_cast(kIndexType, r[0]), make_int(0, kIndexType));
      },
      [](Expr acc, Expr v) { return acc + v; });
  kb.emit_elementwise(hint_of(ctx, "values"), values, [x, indices, axis](const Indices& i) {
    Expr at = make_cast(axis_util::index_type(i), make_load(indices, i));
    return x.load(along_axis(i, axis, at, true));
  });
  return {TensorValue::of_buffer(values, out_shape), TensorValue::of_buffer(indices, out_shape)};
}

// ---- CumSum -------------------------------------------------------------------------

// y[.., j, ..] sums x[.., r, ..] over the positions r the attributes include
// (r <= j; r < j exclusive; r >= j reverse): one reduction over the whole axis
// with the others masked out, quadratic in the axis's extent.
std::vector<TensorValue> build_cumsum(OpContext& ctx) {
  TensorValue x = ctx.input(0);
  require_numeric(ctx, x);
  if (x.rank() == 0) ctx.fail("input must have at least one dimension");
  std::vector<int64_t> axes = ctx.constant_ints(1);
  if (axes.size() != 1 || ctx.input(1).rank() > 1)
    ctx.fail("axis must be a scalar or a one-element tensor");
  size_t axis = static_cast<size_t>(normalize_axis(ctx, axes[0], x.rank()));
  bool exclusive = ctx.node().attr_int("exclusive", 0) != 0;
  bool reverse = ctx.node().attr_int("reverse", 0) != 0;
  DataType t = x.dtype;
  Buffer out = ctx.output_buffer(0, t, x.shape);
  ctx.kernel().emit_reduction(
      hint_of(ctx, "scan"), out, {x.shape[axis]}, make_const(t, 0),
      [x, axis, exclusive, reverse, t](const Indices& i, const Indices& r) {
        Expr j = i[axis], p = r[0];
        Expr included = reverse ? (exclusive ? p > j : p >= j) : (exclusive ? p < j : p <= j);
        return make_select(included, x.load(along_axis(i, axis, p, true)), make_const(t, 0));
      },
      [](Expr acc, Expr v) { return acc + v; });
  return {TensorValue::of_buffer(out, x.shape)};
}

}  // namespace

std::vector<OpDef> index_reduction_ops() {
  std::vector<OpDef> ops;
  ops.push_back({"ArgMax", OpPattern::Reduction, {}, [](OpContext& ctx) {
                   return build_arg_extreme(ctx, true);
                 }});
  ops.push_back({"ArgMin", OpPattern::Reduction, {}, [](OpContext& ctx) {
                   return build_arg_extreme(ctx, false);
                 }});
  ops.push_back({"TopK", OpPattern::Reduction, {1}, build_top_k});
  ops.push_back({"CumSum", OpPattern::Reduction, {1}, build_cumsum});
  return ops;
}

}  // namespace tirc::onnx
