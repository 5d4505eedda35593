// Layout and indexing operators: every output element is one input element (or
// a padding constant) at indices computed from the output indices, so all of
// them are injective and return expressions; Shape and Constant are values
// known at compile time.
#include <algorithm>
#include <limits>
#include <optional>

#include "ir/onnx/ops/axis_util.h"
#include "ir/onnx/ops/operand.h"
#include "ir/onnx/ops/ops.h"

namespace tirc::onnx {
namespace {

using axis_util::index_type;
using axis_util::normalize_axes;
using axis_util::normalize_axis;
using axis_util::product;
using axis_util::shape_str;

Expr imm(int64_t v, DataType t) {
  return make_int(v, t);
}

// Row-major flat position of `indices` in `shape`.
Expr flat_index(const Shape& shape, const std::vector<Expr>& indices) {
  DataType t = index_type(indices);
  Expr flat;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;  // its index is 0
    flat = flat ? flat * imm(shape[d], t) + indices[d] : indices[d];
  }
  return flat ? flat : imm(0, t);
}

// Indices in `shape` of flat position `flat` (0 <= flat < product(shape)).
std::vector<Expr> unflat_index(const Expr& flat, const Shape& shape) {
  DataType t = flat.dtype();
  std::vector<Expr> out(shape.size());
  int64_t stride = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    if (shape[d] == 1) {
      out[d] = imm(0, t);
      continue;
    }
    Expr q = stride == 1 ? flat : floordiv(flat, imm(stride, t));
    bool outermost = stride * shape[d] >= product(shape);
    out[d] = outermost ? q : floormod(q, imm(shape[d], t));
    stride *= shape[d];
  }
  return out;
}

std::vector<int64_t> without_ones(const Shape& s) {
  std::vector<int64_t> out;
  for (int64_t d : s)
    if (d != 1) out.push_back(d);
  return out;
}

// `input` viewed with another shape of the same element count. When the two
// shapes differ only in size-1 dimensions, indices map one to one (no division).
TensorValue reshaped(const TensorValue& input, const Shape& out_shape) {
  if (without_ones(input.shape) == without_ones(out_shape)) {
    return TensorValue::of_element(input.dtype, out_shape,
                                   [input, out_shape](const std::vector<Expr>& idx) {
                                     DataType t = index_type(idx);
                                     std::vector<Expr> src;
                                     size_t o = 0;
                                     for (int64_t d : input.shape) {
                                       if (d == 1) {
                                         src.push_back(imm(0, t));
                                         continue;
                                       }
                                       while (out_shape[o] == 1) ++o;
                                       src.push_back(idx[o++]);
                                     }
                                     return element_of(input, src);
                                   });
  }
  return TensorValue::of_element(
      input.dtype, out_shape, [input, out_shape](const std::vector<Expr>& idx) {
        return element_of(input, unflat_index(flat_index(out_shape, idx), input.shape));
      });
}

// Integers of an attribute before `opset_input` and of constant input `input` from then
// on; `present` reports whether either was given.
std::vector<int64_t> attr_or_input(OpContext& ctx, const std::string& attr, size_t input,
                                   int64_t opset_input, bool* present) {
  if (ctx.opset() < opset_input) {
    *present = ctx.node().has_attr(attr);
    return ctx.node().attr_ints(attr);
  }
  if (ctx.node().has_attr(attr))
    ctx.fail("attribute '" + attr + "' was replaced by input " + std::to_string(input) +
             " in opset " + std::to_string(opset_input));
  *present = ctx.has_input(input);
  return *present ? ctx.constant_ints(input) : std::vector<int64_t>{};
}

// ---- Reshape, Flatten, Squeeze, Unsqueeze ------------------------------------

std::vector<TensorValue> build_reshape(OpContext& ctx) {
  const TensorValue& in = ctx.input(0);
  std::vector<int64_t> spec;
  if (ctx.opset() < 5)
    spec = ctx.node().require_ints("shape");
  else
    spec = ctx.constant_ints(1);
  bool allowzero = ctx.node().attr_int("allowzero", 0) != 0;
  Shape out(spec.size());
  int inferred = -1;
  for (size_t d = 0; d < spec.size(); ++d) {
    int64_t s = spec[d];
    if (s == -1) {
      if (inferred >= 0) ctx.fail("shape " + shape_str(spec) + " has more than one -1");
      inferred = static_cast<int>(d);
      out[d] = 1;
    } else if (s == 0 && !allowzero) {
      if (d >= in.shape.size())
        ctx.fail("shape " + shape_str(spec) + " copies dimension " + std::to_string(d) +
                 " (0) of an input of rank " + std::to_string(in.rank()));
      out[d] = in.shape[d];
    } else if (s < 0) {
      ctx.fail("shape " + shape_str(spec) + " has a negative dimension " + std::to_string(s));
    } else {
      out[d] = s;
    }
  }
  if (allowzero && inferred >= 0 && std::count(spec.begin(), spec.end(), 0) > 0)
    ctx.fail("shape " + shape_str(spec) + " has both -1 and 0 with allowzero=1");
  int64_t total = product(in.shape), known = product(out);
  if (inferred >= 0) {
    if (known == 0 || total % known != 0)
      ctx.fail("cannot infer the -1 of shape " + shape_str(spec) + " for an input of shape " +
               shape_str(in.shape));
    out[static_cast<size_t>(inferred)] = total / known;
  }
  if (product(out) != total)
    ctx.fail("cannot reshape a tensor of shape " + shape_str(in.shape) + " (" +
             std::to_string(total) + " elements) to " + shape_str(out));
  return {reshaped(in, out)};
}

std::vector<TensorValue> build_flatten(OpContext& ctx) {
  const TensorValue& in = ctx.input(0);
  int64_t axis = ctx.node().attr_int("axis", 1);
  if (axis < -in.rank() || axis > in.rank())
    ctx.fail("axis " + std::to_string(axis) + " is out of range for a tensor of rank " +
             std::to_string(in.rank()));
  if (axis < 0) axis += in.rank();
  size_t a = static_cast<size_t>(axis);
  return {reshaped(in, {product(in.shape, 0, a), product(in.shape, a)})};
}

std::vector<TensorValue> build_squeeze(OpContext& ctx) {
  const TensorValue& in = ctx.input(0);
  bool present = false;
  std::vector<int64_t> axes =
      normalize_axes(ctx, attr_or_input(ctx, "axes", 1, 13, &present), in.rank());
  Shape out;
  for (int64_t d = 0; d < in.rank(); ++d) {
    bool listed = std::find(axes.begin(), axes.end(), d) != axes.end();
    int64_t extent = in.shape[static_cast<size_t>(d)];
    if (listed && extent != 1)
      ctx.fail("cannot squeeze axis " + std::to_string(d) + " of extent " + std::to_string(extent) +
               " (input shape " + shape_str(in.shape) + ")");
    bool drop = present ? listed : extent == 1;
    if (!drop) out.push_back(extent);
  }
  return {reshaped(in, out)};
}

std::vector<TensorValue> build_unsqueeze(OpContext& ctx) {
  const TensorValue& in = ctx.input(0);
  bool present = false;
  std::vector<int64_t> raw = attr_or_input(ctx, "axes", 1, 13, &present);
  if (!present) ctx.fail("missing axes");
  int64_t rank = in.rank() + static_cast<int64_t>(raw.size());
  std::vector<int64_t> axes = normalize_axes(ctx, raw, rank);
  Shape out;
  size_t next = 0;
  for (int64_t d = 0; d < rank; ++d)
    out.push_back(std::find(axes.begin(), axes.end(), d) != axes.end() ? 1 : in.shape[next++]);
  return {reshaped(in, out)};
}

// ---- Transpose, Expand ------------------------------------------------------

std::vector<TensorValue> build_transpose(OpContext& ctx) {
  TensorValue in = ctx.input(0);
  std::vector<int64_t> perm;
  for (int64_t d = in.rank() - 1; d >= 0; --d) perm.push_back(d);
  perm = ctx.node().attr_ints("perm", perm);
  std::vector<bool> seen(in.shape.size(), false);
  if (perm.size() != in.shape.size())
    ctx.fail("perm " + shape_str(perm) +
             " does not have one entry per dimension of an input of rank " +
             std::to_string(in.rank()));
  for (int64_t p : perm) {
    if (p < 0 || p >= in.rank() || seen[static_cast<size_t>(p)])
      ctx.fail("perm " + shape_str(perm) + " is not a permutation of 0.." +
               std::to_string(in.rank() - 1));
    seen[static_cast<size_t>(p)] = true;
  }
  Shape out;
  for (int64_t p : perm) out.push_back(in.shape[static_cast<size_t>(p)]);
  return {TensorValue::of_element(in.dtype, out, [in, perm](const std::vector<Expr>& idx) {
    std::vector<Expr> src(perm.size());
    for (size_t k = 0; k < perm.size(); ++k) src[static_cast<size_t>(perm[k])] = idx[k];
    return element_of(in, src);
  })};
}

std::vector<TensorValue> build_expand(OpContext& ctx) {
  TensorValue in = ctx.input(0);
  std::vector<int64_t> shape = ctx.constant_ints(1);
  Shape out;
  try {
    out = broadcast_shapes({in.shape, shape});
  } catch (const Error& e) {
    ctx.fail("cannot expand a tensor of shape " + shape_str(in.shape) + " to " + shape_str(shape) +
             ": " + e.what());
  }
  return {TensorValue::of_element(in.dtype, out, [in, out](const std::vector<Expr>& idx) {
    return element_of(in, broadcast_indices(in.shape, out, idx));
  })};
}

// ---- Concat, Split, Slice ---------------------------------------------------

std::vector<TensorValue> build_concat(OpContext& ctx) {
  if (!ctx.has_input(0)) ctx.fail("needs at least one input");
  const TensorValue& first = ctx.input(0);
  int64_t axis = normalize_axis(ctx, ctx.node().require_int("axis"), first.rank());
  size_t a = static_cast<size_t>(axis);
  std::vector<TensorValue> parts;
  std::vector<int64_t> begins;
  Shape out = first.shape;
  out[a] = 0;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    const TensorValue& v = ctx.input(i);
    if (v.dtype != first.dtype)
      ctx.fail("input " + std::to_string(i) + " is " + v.dtype.str() + ", input 0 is " +
               first.dtype.str());
    bool compatible = v.rank() == first.rank();
    for (size_t d = 0; compatible && d < v.shape.size(); ++d)
      compatible = d == a || v.shape[d] == first.shape[d];
    if (!compatible)
      ctx.fail("input " + std::to_string(i) + " of shape " + shape_str(v.shape) +
               " does not match input 0 of shape " + shape_str(first.shape) + " outside axis " +
               std::to_string(axis));
    if (v.shape[a] == 0) continue;
    parts.push_back(v);
    begins.push_back(out[a]);
    out[a] += v.shape[a];
  }
  if (parts.size() == 1) return {reshaped(parts[0], out)};
  DataType dtype = first.dtype;
  return {
      TensorValue::of_element(dtype, out, [parts, begins, a, dtype](const std::vector<Expr>& idx) {
        DataType t = index_type(idx);
        Expr e;
        for (size_t k = parts.size(); k-- > 0;) {
          std::vector<Expr> src = idx;
          if (begins[k] != 0) src[a] = idx[a] - imm(begins[k], t);
          Expr v = element_of(parts[k], src);
          e = e ? make_call(dtype, "if_then_else", {idx[a] < imm(begins[k + 1], t), v, e}) : v;
        }
        return e;
      })};
}

// `input` restricted to [begin, begin + extent) along axis a.
TensorValue window(const TensorValue& input, size_t a, int64_t begin, int64_t extent) {
  Shape out = input.shape;
  out[a] = extent;
  return TensorValue::of_element(input.dtype, out, [input, a, begin](const std::vector<Expr>& idx) {
    std::vector<Expr> src = idx;
    if (begin != 0) src[a] = idx[a] + imm(begin, index_type(idx));
    return element_of(input, src);
  });
}

std::vector<TensorValue> build_split(OpContext& ctx) {
  const TensorValue& in = ctx.input(0);
  int64_t axis = normalize_axis(ctx, ctx.node().attr_int("axis", 0), in.rank());
  size_t a = static_cast<size_t>(axis);
  size_t n = ctx.node().outputs.size();
  bool present = false;
  std::vector<int64_t> sizes = attr_or_input(ctx, "split", 1, 13, &present);
  // Split-18's num_outputs: parts of ceil(extent / num_outputs), the last one
  // what remains (smaller when the extent does not divide).
  if (ctx.version() >= 18 && ctx.node().has_attr("num_outputs")) {
    if (present) ctx.fail("input 'split' and attribute 'num_outputs' are both given");
    int64_t parts = ctx.node().attr_int("num_outputs", 0);
    if (parts < 1 || parts != static_cast<int64_t>(n))
      ctx.fail("num_outputs " + std::to_string(parts) + " does not match the node's " +
               std::to_string(n) + " outputs");
    int64_t chunk = (in.shape[a] + parts - 1) / parts;
    sizes.assign(n, chunk);
    sizes.back() = in.shape[a] - chunk * (parts - 1);
    if (sizes.back() < 0)
      ctx.fail("axis " + std::to_string(axis) + " of extent " + std::to_string(in.shape[a]) +
               " does not split into " + std::to_string(n) + " parts of " + std::to_string(chunk));
    present = true;
  }
  if (!present) {
    if (n == 0 || in.shape[a] % static_cast<int64_t>(n) != 0)
      ctx.fail("axis " + std::to_string(axis) + " of extent " + std::to_string(in.shape[a]) +
               " does not split into " + std::to_string(n) + " equal parts");
    sizes.assign(n, in.shape[a] / static_cast<int64_t>(n));
  }
  if (sizes.size() != n)
    ctx.fail("split " + shape_str(sizes) + " has " + std::to_string(sizes.size()) + " parts for " +
             std::to_string(n) + " outputs");
  int64_t sum = 0;
  for (int64_t s : sizes) {
    if (s < 0) ctx.fail("split " + shape_str(sizes) + " has a negative part");
    sum += s;
  }
  if (sum != in.shape[a])
    ctx.fail("split " + shape_str(sizes) + " sums to " + std::to_string(sum) + ", not the extent " +
             std::to_string(in.shape[a]) + " of axis " + std::to_string(axis));
  std::vector<TensorValue> outs;
  int64_t begin = 0;
  for (int64_t s : sizes) {
    outs.push_back(window(in, a, begin, s));
    begin += s;
  }
  return outs;
}

std::vector<TensorValue> build_slice(OpContext& ctx) {
  TensorValue in = ctx.input(0);
  std::vector<int64_t> starts, ends, axes, steps;
  if (ctx.opset() < 10) {
    starts = ctx.node().require_ints("starts");
    ends = ctx.node().require_ints("ends");
    axes = ctx.node().attr_ints("axes");
  } else {
    starts = ctx.constant_ints(1);
    ends = ctx.constant_ints(2);
    if (ctx.has_input(3)) axes = ctx.constant_ints(3);
    if (ctx.has_input(4)) steps = ctx.constant_ints(4);
  }
  if (ends.size() != starts.size())
    ctx.fail("starts " + shape_str(starts) + " and ends " + shape_str(ends) + " differ in length");
  if (axes.empty())
    for (size_t k = 0; k < starts.size(); ++k) axes.push_back(static_cast<int64_t>(k));
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (axes.size() != starts.size() || steps.size() != starts.size())
    ctx.fail("starts, ends, axes and steps must have the same length");
  axes = normalize_axes(ctx, axes, in.rank());

  Shape out = in.shape;
  std::vector<int64_t> first(in.shape.size(), 0), stride(in.shape.size(), 1);
  for (size_t k = 0; k < axes.size(); ++k) {
    size_t a = static_cast<size_t>(axes[k]);
    int64_t dim = in.shape[a], step = steps[k];
    if (step == 0) ctx.fail("step 0 on axis " + std::to_string(a));
    // Clamp in a wide type: starts/ends may be INT64_MIN/MAX.
    auto resolve = [dim](int64_t v, int64_t lo, int64_t hi) {
      __int128 w = v;
      if (w < 0) w += dim;
      return static_cast<int64_t>(std::clamp<__int128>(w, lo, hi));
    };
    int64_t s, e, len;
    if (step > 0) {
      s = resolve(starts[k], 0, dim);
      e = resolve(ends[k], 0, dim);
      len = e > s ? (e - s + step - 1) / step : 0;
    } else {
      s = resolve(starts[k], 0, dim - 1);
      e = resolve(ends[k], -1, dim - 1);
      len = s > e ? (s - e - step - 1) / -step : 0;
    }
    out[a] = len;
    first[a] = s;
    stride[a] = step;
  }
  return {TensorValue::of_element(in.dtype, out, [in, first, stride](const std::vector<Expr>& idx) {
    DataType t = index_type(idx);
    std::vector<Expr> src = idx;
    for (size_t d = 0; d < idx.size(); ++d) {
      if (stride[d] != 1) src[d] = src[d] * imm(stride[d], t);
      if (first[d] != 0) src[d] = src[d] + imm(first[d], t);
    }
    return element_of(in, src);
  })};
}

// ---- Gather, Pad ---------------------------------------------------------------

std::vector<TensorValue> build_gather(OpContext& ctx) {
  TensorValue data = ctx.input(0), indices = ctx.input(1);
  if (!indices.dtype.is_int())
    ctx.fail("indices must be int32 or int64, not " + indices.dtype.str());
  size_t a = static_cast<size_t>(normalize_axis(ctx, ctx.node().attr_int("axis", 0), data.rank()));
  int64_t dim = data.shape[a];
  bool nonnegative = check_known_indices(ctx, indices, {static_cast<int64_t>(a)}, data.shape);
  Shape out(data.shape.begin(), data.shape.begin() + static_cast<std::ptrdiff_t>(a));
  out.insert(out.end(), indices.shape.begin(), indices.shape.end());
  out.insert(out.end(), data.shape.begin() + static_cast<std::ptrdiff_t>(a) + 1, data.shape.end());
  size_t q = indices.shape.size();
  return {TensorValue::of_element(
      data.dtype, out, [data, indices, a, q, dim, nonnegative](const std::vector<Expr>& idx) {
        DataType t = index_type(idx);
        std::vector<Expr> at(idx.begin() + static_cast<std::ptrdiff_t>(a),
                             idx.begin() + static_cast<std::ptrdiff_t>(a + q));
        Expr i = axis_index(indices, at, dim, nonnegative, t);
        std::vector<Expr> src(idx.begin(), idx.begin() + static_cast<std::ptrdiff_t>(a));
        src.push_back(i);
        src.insert(src.end(), idx.begin() + static_cast<std::ptrdiff_t>(a + q), idx.end());
        return element_of(data, src);
      })};
}

std::vector<TensorValue> build_pad(OpContext& ctx) {
  TensorValue in = ctx.input(0);
  std::string mode = ctx.node().attr_string("mode", "constant");
  bool wrap_known = ctx.version() >= 19;  // Pad-19 added wrap
  if (mode != "constant" && mode != "reflect" && mode != "edge" && !(wrap_known && mode == "wrap"))
    ctx.fail("mode '" + mode + "' is not one of constant, reflect, edge" +
             (wrap_known ? ", wrap" : ""));
  std::vector<int64_t> pads;
  std::optional<TensorValue> fill;  // the padding value when it comes from an input
  double fill_attr = 0;
  if (ctx.opset() < 11) {
    pads = ctx.node().has_attr("paddings") ? ctx.node().require_ints("paddings")
                                           : ctx.node().require_ints("pads");
    fill_attr = ctx.node().attr_float("value", 0);
  } else {
    pads = ctx.constant_ints(1);
    if (ctx.has_input(2)) {
      fill = ctx.input(2);
      if (fill->num_elements() != 1) ctx.fail("constant_value must have one element");
      if (fill->dtype != in.dtype)
        ctx.fail("constant_value is " + fill->dtype.str() + ", the input is " + in.dtype.str());
    }
    // Pad-18's axes: pads holds the begins then the ends of these axes only.
    if (ctx.has_input(3)) {
      if (ctx.version() < 18) ctx.fail("input 3 (axes) is new in opset 18");
      std::vector<int64_t> axes = normalize_axes(ctx, ctx.constant_ints(3), in.rank());
      if (pads.size() != 2 * axes.size())
        ctx.fail("pads " + shape_str(pads) + " must have 2 * " + std::to_string(axes.size()) +
                 " entries for axes " + shape_str(axes));
      std::vector<int64_t> all(2 * in.shape.size(), 0);
      for (size_t k = 0; k < axes.size(); ++k) {
        all[static_cast<size_t>(axes[k])] = pads[k];
        all[static_cast<size_t>(axes[k]) + in.shape.size()] = pads[k + axes.size()];
      }
      pads = all;
    }
  }
  size_t rank = in.shape.size();
  if (pads.size() != 2 * rank)
    ctx.fail("pads " + shape_str(pads) + " must have 2 * rank = " + std::to_string(2 * rank) +
             " entries");
  Shape out(rank);
  std::vector<int64_t> before(pads.begin(), pads.begin() + static_cast<std::ptrdiff_t>(rank));
  for (size_t d = 0; d < rank; ++d) {
    out[d] = in.shape[d] + pads[d] + pads[d + rank];
    if (out[d] < 0)
      ctx.fail("pads " + shape_str(pads) + " remove more than all of axis " + std::to_string(d));
    if (mode == "reflect" && (pads[d] >= in.shape[d] || pads[d + rank] >= in.shape[d]) &&
        (pads[d] > 0 || pads[d + rank] > 0))
      ctx.fail("reflect pads " + shape_str(pads) + " must be smaller than the extent of axis " +
               std::to_string(d) + " (" + std::to_string(in.shape[d]) + ")");
    if (mode == "edge" && in.shape[d] == 0 && out[d] > 0)
      ctx.fail("edge padding of the empty axis " + std::to_string(d));
    if (mode == "wrap" && (pads[d] > 0 || pads[d + rank] > 0) &&
        in.shape[d] + std::min<int64_t>(pads[d], 0) + std::min<int64_t>(pads[d + rank], 0) <= 0)
      ctx.fail("wrap padding of axis " + std::to_string(d) + " with no element left to repeat");
  }
  DataType dtype = in.dtype;
  std::vector<int64_t> after(pads.begin() + static_cast<std::ptrdiff_t>(rank), pads.end());
  return {TensorValue::of_element(
      dtype, out, [in, before, after, mode, fill, fill_attr, dtype](const std::vector<Expr>& idx) {
        DataType t = index_type(idx);
        std::vector<Expr> src(idx.size());
        Expr inside;  // constant mode: whether the output element has an input element
        for (size_t d = 0; d < idx.size(); ++d) {
          int64_t n = in.shape[d];
          Expr i = before[d] == 0 ? idx[d] : idx[d] - imm(before[d], t);
          bool low = before[d] > 0, high = after[d] > 0;  // reads past the start / the end
          if (mode == "constant") {
            std::vector<Expr> checks;
            if (low) checks.push_back(i >= imm(0, t));
            if (high) checks.push_back(i < imm(n, t));
            for (const Expr& c : checks) inside = inside ? logical_and(inside, c) : c;
          } else if (mode == "edge") {
            if (low) i = max(i, imm(0, t));
            if (high) i = min(i, imm(n - 1, t));
          } else if (mode == "wrap") {
            // Negative pads crop first; the elements left repeat (onnxruntime's
            // order): position p in the output's copy of them, modulo their count.
            if (low || high) {
              int64_t crop_begin = std::max<int64_t>(0, -before[d]);
              int64_t kept = n - crop_begin - std::max<int64_t>(0, -after[d]);
              Expr p = low ? idx[d] - imm(before[d], t) : idx[d];
              i = floormod(p, imm(kept, t));
              if (crop_begin != 0) i = i + imm(crop_begin, t);
            }
          } else if (low || high) {
            // Reflection about the first and the last element: n-1 - |n-1 - |i||
            // (valid for -(n-1) <= i <= 2(n-1), which the pads check ensures).
            Expr last = imm(n - 1, t);
            Expr a = max(i, imm(0, t) - i);
            i = last - max(last - a, a - last);
          }
          src[d] = i;
        }
        Expr value = element_of(in, src);
        if (!inside) return value;
        Expr pad = fill ? element_of(*fill, std::vector<Expr>(fill->shape.size(), imm(0, t)))
                        : make_const(dtype, fill_attr);
        return make_call(dtype, "if_then_else", {inside, value, pad});
      })};
}

// ---- Identity, Dropout, Constant, Shape ---------------------------------------

std::vector<TensorValue> build_dropout(OpContext& ctx) {
  const TensorValue& in = ctx.input(0);
  if (ctx.opset() < 7 && ctx.node().attr_int("is_test", 1) == 0)
    ctx.fail("training mode (is_test=0) is not supported");
  if (ctx.has_input(2)) {
    const NDArray& training = ctx.constant_input(2);
    if (training.num_elements() != 1) ctx.fail("training_mode must be a scalar");
    if (training.get_int(0) != 0) ctx.fail("training mode is not supported (inference only)");
  }
  std::vector<TensorValue> outs{in};
  if (ctx.node().outputs.size() > 1)
    outs.push_back(TensorValue::of_element(
        DataType::boolean(), in.shape, [](const std::vector<Expr>&) { return make_bool(true); }));
  return outs;
}

std::vector<TensorValue> build_constant(OpContext& ctx) {
  const Node& node = ctx.node();
  if (node.attrs.size() != 1) ctx.fail("needs exactly one value attribute");
  const std::string& name = node.attrs.begin()->first;
  std::shared_ptr<NDArray> v;
  if (name == "value") {
    return {TensorValue::of_constant(node.attr_tensor("value"))};
  } else if (name == "value_float") {
    v = std::make_shared<NDArray>(DataType::float32(), Shape{});
    v->set_float(0, node.attr_float(name, 0));
  } else if (name == "value_floats") {
    std::vector<double> fs = node.attr_floats(name);
    v = std::make_shared<NDArray>(DataType::float32(), Shape{static_cast<int64_t>(fs.size())});
    for (size_t k = 0; k < fs.size(); ++k) v->set_float(static_cast<int64_t>(k), fs[k]);
  } else if (name == "value_int") {
    v = std::make_shared<NDArray>(DataType::int64(), Shape{});
    v->set_int(0, node.attr_int(name, 0));
  } else if (name == "value_ints") {
    std::vector<int64_t> is = node.attr_ints(name);
    v = std::make_shared<NDArray>(DataType::int64(), Shape{static_cast<int64_t>(is.size())});
    for (size_t k = 0; k < is.size(); ++k) v->set_int(static_cast<int64_t>(k), is[k]);
  } else {
    ctx.fail("attribute '" + name + "' is not supported (value, value_float(s), value_int(s) are)");
  }
  return {TensorValue::of_constant(v)};
}

std::vector<TensorValue> build_constant_of_shape(OpContext& ctx) {
  std::vector<int64_t> shape = ctx.constant_ints(0);
  for (int64_t d : shape)
    if (d < 0) ctx.fail("shape " + shape_str(shape) + " has a negative dimension");
  std::shared_ptr<const NDArray> fill = ctx.node().attr_tensor("value");
  if (fill && fill->num_elements() != 1) ctx.fail("value must have one element");
  DataType dtype = fill ? fill->dtype() : DataType::float32();
  Expr v = !fill              ? make_float(0)
           : dtype.is_float() ? make_float(fill->get_float(0), dtype)
                              : make_int(fill->get_int(0), dtype);
  return {TensorValue::of_element(dtype, shape, [v](const std::vector<Expr>&) { return v; })};
}

std::vector<TensorValue> build_shape(OpContext& ctx) {
  const TensorValue& in = ctx.input(0);
  int64_t rank = in.rank();
  auto clamp_bound = [rank](int64_t b) {
    return std::clamp<int64_t>(b < 0 ? b + rank : b, 0, rank);
  };
  int64_t start = 0, end = rank;
  if (ctx.opset() >= 15) {
    start = clamp_bound(ctx.node().attr_int("start", 0));
    end = clamp_bound(ctx.node().attr_int("end", rank));
  }
  int64_t n = std::max<int64_t>(0, end - start);
  auto v = std::make_shared<NDArray>(DataType::int64(), Shape{n});
  for (int64_t k = 0; k < n; ++k) v->set_int(k, in.shape[static_cast<size_t>(start + k)]);
  return {TensorValue::of_constant(v)};
}

std::vector<TensorValue> build_size(OpContext& ctx) {
  auto v = std::make_shared<NDArray>(DataType::int64(), Shape{});
  v->set_int(0, product(ctx.input(0).shape));
  return {TensorValue::of_constant(v)};
}

}  // namespace

std::vector<OpDef> shape_ops() {
  auto injective = &injective_op;
  auto constant = [](std::string name, auto build) {
    return OpDef{std::move(name), OpPattern::Constant, {}, build};
  };
  return {
      injective("Reshape", {1}, build_reshape),
      injective("Flatten", {}, build_flatten),
      injective("Squeeze", {1}, build_squeeze),
      injective("Unsqueeze", {1}, build_unsqueeze),
      injective("Transpose", {}, build_transpose),
      injective("Expand", {1}, build_expand),
      injective("Concat", {}, build_concat),
      injective("Split", {1}, build_split),
      injective("Slice", {1, 2, 3, 4}, build_slice),
      injective("Gather", {}, build_gather),
      injective("Pad", {1, 3}, build_pad),
      injective("Identity", {},
                [](OpContext& ctx) { return std::vector<TensorValue>{ctx.input(0)}; }),
      injective("Dropout", {2}, build_dropout),
      injective("ConstantOfShape", {0}, build_constant_of_shape),
      constant("Constant", build_constant),
      constant("Shape", build_shape),
      constant("Size", build_size),
  };
}

}  // namespace tirc::onnx
