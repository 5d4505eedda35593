// Data-movement operators. Tile, DepthToSpace, SpaceToDepth, Trilu,
// GatherElements and Resize are injective (every output element is an input
// element, zero, or for linear Resize a blend of a few, at indices computed
// from the output indices) and return expressions; Range is a value known at
// compile time; ScatterElements and ScatterND emit blocks: a copy of the data,
// then one update per element of `updates`, in order.
#include <algorithm>
#include <climits>
#include <cmath>
#include <optional>

#include "ir/onnx/ops/axis_util.h"
#include "ir/onnx/ops/operand.h"
#include "ir/onnx/ops/ops.h"

namespace tirc::onnx {
namespace {

using axis_util::index_type;
using axis_util::normalize_axis;
using axis_util::product;
using axis_util::shape_str;

void require_rank(const OpContext& ctx, const TensorValue& v, int64_t rank, const char* what) {
  if (v.rank() != rank)
    ctx.fail(std::string(what) + " must have rank " + std::to_string(rank) + ", not shape " +
             shape_str(v.shape));
}

void require_index_type(const OpContext& ctx, const TensorValue& indices) {
  if (!indices.dtype.is_int())
    ctx.fail("indices must be int32 or int64, not " + indices.dtype.str());
}

// ---- Tile ---------------------------------------------------------------------

std::vector<TensorValue> build_tile(OpContext& ctx) {
  TensorValue in = ctx.input(0);
  require_rank(ctx, ctx.input(1), 1, "repeats");
  std::vector<int64_t> repeats = ctx.constant_ints(1);
  if (repeats.size() != in.shape.size())
    ctx.fail("repeats " + shape_str(repeats) +
             " does not have one entry per dimension of an input of rank " +
             std::to_string(in.rank()));
  Shape out(in.shape.size());
  for (size_t d = 0; d < out.size(); ++d) {
    if (repeats[d] < 0) ctx.fail("repeats " + shape_str(repeats) + " has a negative entry");
    out[d] = in.shape[d] * repeats[d];
  }
  return {TensorValue::of_element(in.dtype, out, [in, repeats](const std::vector<Expr>& idx) {
    DataType t = index_type(idx);
    std::vector<Expr> src = idx;
    for (size_t d = 0; d < idx.size(); ++d) {
      // An empty axis has no element to compute; a single repeat reads idx itself.
      if (in.shape[d] == 1)
        src[d] = make_int(0, t);
      else if (repeats[d] != 1 && in.shape[d] > 0)
        src[d] = floormod(idx[d], make_int(in.shape[d], t));
    }
    return element_of(in, src);
  })};
}

// ---- DepthToSpace, SpaceToDepth -----------------------------------------------

int64_t blocksize_of(const OpContext& ctx) {
  int64_t b = ctx.node().require_int("blocksize");
  if (b < 1) ctx.fail("blocksize " + std::to_string(b) + " must be at least 1");
  return b;
}

std::vector<TensorValue> build_depth_to_space(OpContext& ctx) {
  TensorValue in = ctx.input(0);
  require_rank(ctx, in, 4, "the input");
  int64_t b = blocksize_of(ctx);
  if (ctx.opset() < 11 && ctx.node().has_attr("mode"))
    ctx.fail("attribute 'mode' needs opset 11 (the model imports opset " +
             std::to_string(ctx.opset()) + ")");
  std::string mode = ctx.node().attr_string("mode", "DCR");
  if (mode != "DCR" && mode != "CRD") ctx.fail("mode '" + mode + "' is not one of DCR, CRD");
  int64_t c = in.shape[1];
  if (c % (b * b) != 0)
    ctx.fail("the input's " + std::to_string(c) +
             " channels are not a multiple of blocksize^2 = " + std::to_string(b * b));
  int64_t oc = c / (b * b);
  Shape out{in.shape[0], oc, in.shape[2] * b, in.shape[3] * b};
  bool dcr = mode == "DCR";
  return {TensorValue::of_element(in.dtype, out, [in, b, oc, dcr](const std::vector<Expr>& idx) {
    DataType t = index_type(idx);
    Expr bh = floormod(idx[2], make_int(b, t)), bw = floormod(idx[3], make_int(b, t));
    Expr offset = bh * make_int(b, t) + bw;  // the position within the block
    // DCR: channels are (block row, block column, channel); CRD: (channel, block row, column).
    Expr channel = dcr ? offset * make_int(oc, t) + idx[1] : idx[1] * make_int(b * b, t) + offset;
    return element_of(
        in, {idx[0], channel, floordiv(idx[2], make_int(b, t)), floordiv(idx[3], make_int(b, t))});
  })};
}

std::vector<TensorValue> build_space_to_depth(OpContext& ctx) {
  TensorValue in = ctx.input(0);
  require_rank(ctx, in, 4, "the input");
  int64_t b = blocksize_of(ctx);
  if (in.shape[2] % b != 0 || in.shape[3] % b != 0)
    ctx.fail("the input's height and width " + shape_str({in.shape[2], in.shape[3]}) +
             " are not multiples of blocksize " + std::to_string(b));
  int64_t c = in.shape[1];
  Shape out{in.shape[0], c * b * b, in.shape[2] / b, in.shape[3] / b};
  return {TensorValue::of_element(in.dtype, out, [in, b, c](const std::vector<Expr>& idx) {
    DataType t = index_type(idx);
    // Output channels are (block row, block column, channel).
    Expr block = floordiv(idx[1], make_int(c, t));
    Expr h = idx[2] * make_int(b, t) + floordiv(block, make_int(b, t));
    Expr w = idx[3] * make_int(b, t) + floormod(block, make_int(b, t));
    return element_of(in, {idx[0], floormod(idx[1], make_int(c, t)), h, w});
  })};
}

// ---- Trilu --------------------------------------------------------------------

std::vector<TensorValue> build_trilu(OpContext& ctx) {
  TensorValue in = ctx.input(0);
  if (in.rank() < 2)
    ctx.fail("the input must have rank 2 or more, not shape " + shape_str(in.shape));
  int64_t upper = ctx.node().attr_int("upper", 1);
  if (upper != 0 && upper != 1) ctx.fail("upper must be 0 or 1, not " + std::to_string(upper));
  int64_t k = 0;
  if (ctx.has_input(1)) {
    std::vector<int64_t> ks = ctx.constant_ints(1);
    if (ks.size() != 1) ctx.fail("k must have one element, not " + std::to_string(ks.size()));
    k = ks[0];
  }
  size_t r = in.shape.size();
  int64_t rows = in.shape[r - 2], cols = in.shape[r - 1];
  // col - row lies in [1 - rows, cols - 1]: a k beyond keeps all or nothing,
  // and clamped it fits the index type.
  k = std::clamp<int64_t>(k, -rows, cols);
  DataType dtype = in.dtype;
  return {TensorValue::of_element(
      dtype, in.shape, [in, upper, k, r, dtype](const std::vector<Expr>& idx) {
        DataType t = index_type(idx);
        Expr diagonal = idx[r - 1] - idx[r - 2];  // col - row
        Expr keep = upper ? diagonal >= make_int(k, t) : diagonal <= make_int(k, t);
        return make_select(keep, element_of(in, idx), make_const(dtype, 0));
      })};
}

// ---- Range --------------------------------------------------------------------

std::vector<TensorValue> build_range(OpContext& ctx) {
  const NDArray& start = ctx.constant_input(0);
  const NDArray& limit = ctx.constant_input(1);
  const NDArray& delta = ctx.constant_input(2);
  DataType t = start.dtype();
  const char* names[] = {"start", "limit", "delta"};
  const NDArray* args[] = {&start, &limit, &delta};
  for (size_t i = 0; i < 3; ++i) {
    if (args[i]->num_elements() != 1)
      ctx.fail(std::string(names[i]) + " must be a scalar, not shape " +
               shape_str(args[i]->shape()));
    if (args[i]->dtype() != t)
      ctx.fail(std::string(names[i]) + " is " + args[i]->dtype().str() + ", start is " + t.str());
  }
  bool integral = t == DataType::int16() || t == DataType::int32() || t == DataType::int64();
  if (!integral && t != DataType::float32() && t != DataType::float64())
    ctx.fail("type " + t.str() + " is not one of float32, float64, int16, int32, int64");
  int64_t n = 0;
  if (integral) {
    __int128 s = start.get_int(0), d = delta.get_int(0), span = __int128{limit.get_int(0)} - s;
    if (d == 0) ctx.fail("delta is 0");
    // ceil(span / d), at least 0.
    if (span != 0 && (span > 0) == (d > 0)) {
      __int128 count = (span < 0 ? -span : span) + (d < 0 ? -d : d) - 1;
      count /= d < 0 ? -d : d;
      if (count > INT32_MAX) ctx.fail("the range has more than 2^31 - 1 elements");
      n = static_cast<int64_t>(count);
    }
  } else {
    double s = start.get_float(0), l = limit.get_float(0), d = delta.get_float(0);
    if (d == 0) ctx.fail("delta is 0");
    double count = std::ceil((l - s) / d);
    if (!std::isfinite(count) || count > INT32_MAX)
      ctx.fail("the range from " + std::to_string(s) + " to " + std::to_string(l) + " by " +
               std::to_string(d) + " is too long");
    n = count > 0 ? static_cast<int64_t>(count) : 0;
  }
  auto v = std::make_shared<NDArray>(t, Shape{n});
  // output[i] = start + i * delta, as ONNX defines it.
  for (int64_t i = 0; i < n; ++i) {
    if (integral)
      v->set_int(i, start.get_int(0) + i * delta.get_int(0));
    else
      v->set_float(i, start.get_float(0) + static_cast<double>(i) * delta.get_float(0));
  }
  return {TensorValue::of_constant(v)};
}

// ---- GatherElements -------------------------------------------------------------

// The shapes GatherElements and ScatterElements need: indices of data's rank,
// no larger than data outside the axis; returns the normalized axis.
size_t element_axis(const OpContext& ctx, const TensorValue& data, const TensorValue& indices) {
  require_index_type(ctx, indices);
  if (data.rank() < 1) ctx.fail("data must have rank 1 or more");
  if (indices.rank() != data.rank())
    ctx.fail("indices of shape " + shape_str(indices.shape) + " do not have the rank of data " +
             shape_str(data.shape));
  size_t a = static_cast<size_t>(normalize_axis(ctx, ctx.node().attr_int("axis", 0), data.rank()));
  for (size_t d = 0; d < data.shape.size(); ++d)
    if (d != a && indices.shape[d] > data.shape[d])
      ctx.fail("indices of shape " + shape_str(indices.shape) + " exceed data of shape " +
               shape_str(data.shape) + " on axis " + std::to_string(d));
  if (data.shape[a] == 0 && product(indices.shape) > 0)
    ctx.fail("axis " + std::to_string(a) + " of data is empty");
  return a;
}

std::vector<TensorValue> build_gather_elements(OpContext& ctx) {
  TensorValue data = ctx.input(0), indices = ctx.input(1);
  size_t a = element_axis(ctx, data, indices);
  int64_t dim = data.shape[a];
  bool nonnegative = check_known_indices(ctx, indices, {static_cast<int64_t>(a)}, data.shape);
  return {TensorValue::of_element(
      data.dtype, indices.shape,
      [data, indices, a, dim, nonnegative](const std::vector<Expr>& idx) {
        std::vector<Expr> src = idx;
        src[a] = axis_index(indices, idx, dim, nonnegative, index_type(idx));
        return element_of(data, src);
      })};
}

// ---- ScatterElements, ScatterND -------------------------------------------------

using Combine = std::function<Expr(Expr current, Expr update)>;

// The `reduction` attribute: none (opset 11), add and mul (16), max and min (18).
Combine scatter_reduction(const OpContext& ctx, DataType dtype) {
  std::string r = ctx.node().attr_string("reduction", "none");
  int64_t since = r == "none"                ? 11
                  : r == "add" || r == "mul" ? 16
                  : r == "max" || r == "min" ? 18
                                             : 0;
  if (since == 0) ctx.fail("reduction '" + r + "' is not one of none, add, mul, max, min");
  if (ctx.opset() < since)
    ctx.fail("reduction '" + r + "' needs opset " + std::to_string(since) +
             " (the model imports opset " + std::to_string(ctx.opset()) + ")");
  if (r != "none" && dtype.is_bool()) ctx.fail("reduction '" + r + "' on bool is not supported");
  if (r == "add") return [](Expr a, Expr v) { return a + v; };
  if (r == "mul") return [](Expr a, Expr v) { return a * v; };
  if (r == "max") return [](Expr a, Expr v) { return max(a, v); };
  if (r == "min") return [](Expr a, Expr v) { return min(a, v); };
  return [](Expr, Expr v) { return v; };
}

// out = data, then out[position(i)] = combine(out[position(i)], updates[i])
// for every index i of updates in row-major order (one serial block: duplicate
// positions are updated in turn).
std::vector<TensorValue> emit_scatter(
    OpContext& ctx, const TensorValue& data, const TensorValue& updates,
    const std::function<std::vector<Expr>(const std::vector<Expr>&)>& position) {
  Combine combine = scatter_reduction(ctx, data.dtype);
  if (updates.dtype != data.dtype)
    ctx.fail("updates are " + updates.dtype.str() + ", data is " + data.dtype.str());
  KernelBuilder& kb = ctx.kernel();
  Buffer out = ctx.output_buffer(0, data.dtype, data.shape);
  kb.emit_elementwise(out->name + "_copy", out,
                      [data](const std::vector<Expr>& i) { return element_of(data, i); });
  if (product(updates.shape) > 0)
    kb.emit_reduction(
        out->name + "_update", out, updates.shape, position, {},
        [out, position](const std::vector<Expr>& i) { return make_load(out, position(i)); },
        [updates](const std::vector<Expr>& i, const std::vector<Expr>&) {
          return element_of(updates, i);
        },
        combine);
  return {TensorValue::of_buffer(out, data.shape)};
}

std::vector<TensorValue> build_scatter_elements(OpContext& ctx) {
  check_readable_operands(ctx, {});
  TensorValue data = ctx.input(0), indices = ctx.input(1), updates = ctx.input(2);
  size_t a = element_axis(ctx, data, indices);
  if (updates.shape != indices.shape)
    ctx.fail("updates of shape " + shape_str(updates.shape) + " do not match indices of shape " +
             shape_str(indices.shape));
  int64_t dim = data.shape[a];
  bool nonnegative = check_known_indices(ctx, indices, {static_cast<int64_t>(a)}, data.shape);
  return emit_scatter(ctx, data, updates,
                      [indices, a, dim, nonnegative](const std::vector<Expr>& i) {
                        std::vector<Expr> at = i;
                        at[a] = axis_index(indices, i, dim, nonnegative, index_type(i));
                        return at;
                      });
}

std::vector<TensorValue> build_scatter_nd(OpContext& ctx) {
  check_readable_operands(ctx, {});
  TensorValue data = ctx.input(0), indices = ctx.input(1), updates = ctx.input(2);
  require_index_type(ctx, indices);
  if (data.rank() < 1 || indices.rank() < 1) ctx.fail("data and indices must have rank 1 or more");
  size_t q = indices.shape.size();
  int64_t k = indices.shape[q - 1];
  if (k < 1 || k > data.rank())
    ctx.fail("the last dimension of indices " + shape_str(indices.shape) +
             " must be between 1 and the rank of data " + shape_str(data.shape));
  // updates: indices.shape[:-1] + data.shape[k:]
  Shape expected(indices.shape.begin(), indices.shape.end() - 1);
  expected.insert(expected.end(), data.shape.begin() + k, data.shape.end());
  if (updates.shape != expected)
    ctx.fail("updates of shape " + shape_str(updates.shape) + " must have shape " +
             shape_str(expected) + " for indices " + shape_str(indices.shape) + " and data " +
             shape_str(data.shape));
  for (int64_t d = 0; d < k; ++d)
    if (data.shape[static_cast<size_t>(d)] == 0 && product(updates.shape) > 0)
      ctx.fail("axis " + std::to_string(d) + " of data is empty");
  // The last dimension of indices runs over axes 0..k-1.
  std::vector<int64_t> axes;
  for (int64_t d = 0; d < k; ++d) axes.push_back(d);
  bool nonnegative = check_known_indices(ctx, indices, axes, data.shape);
  Shape dims = data.shape;
  return emit_scatter(
      ctx, data, updates, [indices, dims, q, k, nonnegative](const std::vector<Expr>& i) {
        DataType t = index_type(i);
        std::vector<Expr> at(i.begin(), i.begin() + static_cast<std::ptrdiff_t>(q - 1));
        at.push_back(Expr());
        std::vector<Expr> pos;
        for (int64_t j = 0; j < k; ++j) {
          at.back() = make_int(j, t);
          pos.push_back(axis_index(indices, at, dims[static_cast<size_t>(j)], nonnegative, t));
        }
        pos.insert(pos.end(), i.begin() + static_cast<std::ptrdiff_t>(q - 1), i.end());
        return pos;
      });
}

// ---- Resize ---------------------------------------------------------------------

enum class Transform {
  HalfPixel,
  HalfPixelSymmetric,
  PytorchHalfPixel,
  AlignCorners,
  Asymmetric,
  TfHalfPixelForNN
};
enum class Rounding { RoundPreferFloor, RoundPreferCeil, Floor, Ceil };

// One axis of a resize: the extents and the scale and resized length ONNX's
// coordinate formulas use (the given scale and input * scale, or with sizes
// output / input and the output extent).
struct ResizeAxis {
  int64_t in = 1, out = 1;
  float scale = 1;
  double length = 1;
};

// Float32 arithmetic on numbers known at compile time and on expressions, so
// that one formula gives both a kernel's expression and the table of its
// values that recognizes a simple index (the identity, x * k + c, x // k).
float lit(float, double v) {
  return static_cast<float>(v);
}
Expr lit(const Expr&, double v) {
  return make_float(static_cast<float>(v), DataType::float32());
}
float floor_of(float v) {
  return std::floor(v);
}
Expr floor_of(const Expr& v) {
  return make_call(DataType::float32(), "floor", {v});
}
float ceil_of(float v) {
  return std::ceil(v);
}
Expr ceil_of(const Expr& v) {
  return make_call(DataType::float32(), "ceil", {v});
}
float clamp_of(float v, float hi) {
  return std::min(std::max(v, 0.0f), hi);
}
Expr clamp_of(const Expr& v, float hi) {
  return min(max(v, lit(v, 0)), lit(v, hi));
}

// The input coordinate of output coordinate x (coordinate_transformation_mode).
template <class F>
F source_coordinate(const ResizeAxis& a, Transform mode, const F& x) {
  switch (mode) {
    case Transform::HalfPixel:
      return (x + lit(x, 0.5)) / lit(x, a.scale) - lit(x, 0.5);
    case Transform::HalfPixelSymmetric: {
      // Resize-19: half_pixel with the input's center kept at the output's
      // center when the output extent is the resized length rounded down.
      const double offset = static_cast<double>(a.in) / 2 * (1 - static_cast<double>(a.out) / a.length);
      return lit(x, offset) + (x + lit(x, 0.5)) / lit(x, a.scale) - lit(x, 0.5);
    }
    case Transform::PytorchHalfPixel:
      return a.length > 1 ? (x + lit(x, 0.5)) / lit(x, a.scale) - lit(x, 0.5) : lit(x, 0);
    case Transform::AlignCorners:
      return a.length == 1 ? lit(x, 0)
                           : x * lit(x, static_cast<double>(a.in - 1)) / lit(x, a.length - 1);
    case Transform::Asymmetric:
      return x / lit(x, a.scale);
    case Transform::TfHalfPixelForNN:
      return (x + lit(x, 0.5)) / lit(x, a.scale);
  }
  return x;
}

// The input index nearest to coordinate c (nearest_mode), in [0, in - 1].
template <class F>
F nearest_index(const ResizeAxis& a, Rounding r, const F& c) {
  F i = r == Rounding::RoundPreferFloor  ? ceil_of(c - lit(c, 0.5))
        : r == Rounding::RoundPreferCeil ? floor_of(c + lit(c, 0.5))
        : r == Rounding::Floor           ? floor_of(c)
                                         : ceil_of(c);
  return clamp_of(i, static_cast<float>(a.in - 1));
}

// An integer index of the output index x along one axis: x * mul + add or
// x // div when every value agrees (div 0: not that form).
struct SimpleIndex {
  int64_t mul = 0, add = 0, div = 0;
  Expr of(const Expr& x) const {
    DataType t = x.dtype();
    if (div > 0) return div == 1 ? x : floordiv(x, make_int(div, t));
    Expr e = mul == 0 ? make_int(0, t) : mul == 1 ? x : x * make_int(mul, t);
    return add == 0 ? e : e + make_int(add, t);
  }
};

std::optional<SimpleIndex> simple_index(const std::vector<int64_t>& table) {
  if (table.empty()) return SimpleIndex{1, 0, 0};
  int64_t add = table[0], mul = table.size() > 1 ? table[1] - table[0] : 0;
  bool affine = true, quotient = true;
  int64_t div = 1;
  while (div < static_cast<int64_t>(table.size()) && table[static_cast<size_t>(div)] == 0) ++div;
  for (size_t x = 0; x < table.size(); ++x) {
    int64_t v = table[x], xi = static_cast<int64_t>(x);
    affine = affine && v == xi * mul + add;
    quotient = quotient && v == xi / div;
  }
  if (affine) return SimpleIndex{mul, add, 0};
  if (quotient) return SimpleIndex{0, 0, div};
  return std::nullopt;
}

// The value a string attribute names (`fallback` when absent). A name in
// `refused` is ONNX's but not supported; any other name is not ONNX's.
template <class E>
E attr_choice(const OpContext& ctx, const std::string& attr, const std::string& fallback,
              const std::vector<std::pair<std::string, E>>& names,
              const std::vector<std::string>& refused = {}) {
  std::string v = ctx.node().attr_string(attr, fallback);
  for (const auto& [name, e] : names)
    if (name == v) return e;
  if (std::find(refused.begin(), refused.end(), v) != refused.end())
    ctx.fail(attr + " '" + v + "' is not supported");
  std::string all;
  for (const auto& [name, e] : names) all += (all.empty() ? "" : ", ") + name;
  ctx.fail(attr + " '" + v + "' is not one of " + all);
}

struct ResizeSpec {
  std::vector<ResizeAxis> axes;
  Transform transform = Transform::HalfPixel;
  Rounding rounding = Rounding::RoundPreferFloor;
  bool linear = false;
  bool antialias = false, exclude_outside = false;
};

// Whether the axis is not resized: an output index reads the same input index
// (as onnxruntime reads it; tf_half_pixel_for_nn would shift it by half a pixel).
bool unscaled(const ResizeAxis& a) {
  return a.in == a.out && a.scale == 1;
}

// The index expression of one axis for mode nearest.
Expr nearest_axis_index(const ResizeSpec& s, const ResizeAxis& a, const Expr& x) {
  if (unscaled(a)) return x;
  std::vector<int64_t> table;
  for (int64_t o = 0; o < a.out; ++o) {
    float c = source_coordinate(a, s.transform, static_cast<float>(o));
    table.push_back(static_cast<int64_t>(nearest_index(a, s.rounding, c)));
  }
  if (std::optional<SimpleIndex> simple = simple_index(table)) return simple->of(x);
  Expr c = source_coordinate(a, s.transform, make_cast(DataType::float32(), x));
  return make_cast(x.dtype(), nearest_index(a, s.rounding, c));
}

// Whether linear interpolation along this axis reads input index x at output index x.
bool identity_axis(const ResizeSpec& s, const ResizeAxis& a) {
  if (unscaled(a)) return true;
  if (a.in != a.out) return false;
  for (int64_t o = 0; o < a.out; ++o)
    if (source_coordinate(a, s.transform, static_cast<float>(o)) != static_cast<float>(o))
      return false;
  return true;
}

Expr interpolate(const TensorValue& in, const ResizeSpec& s, const std::vector<size_t>& axes,
                 size_t k, std::vector<Expr> src, const std::vector<Expr>& idx);

// Linear interpolation along a downsampled axis with antialias=1, as ONNX
// defines it: the triangle filter widened by 1 / scale, over the 2 - 2 * start
// inputs around the coordinate c (start = floor(-1 / scale) + 1, counted from
// the input left of c, strictly left when c is whole), its weights normalized.
// Inputs beyond the edges repeat the edge, or with exclude_outside weigh 0.
Expr antialias_blend(const TensorValue& in, const ResizeSpec& s, const std::vector<size_t>& axes,
                     size_t k, std::vector<Expr> src, const std::vector<Expr>& idx) {
  size_t d = axes[k];
  const ResizeAxis& a = s.axes[d];
  DataType t = idx[d].dtype();
  Expr c = source_coordinate(a, s.transform, make_cast(DataType::float32(), idx[d]));
  Expr left = ceil_of(c) - lit(c, 1);
  Expr ratio = c - left;
  int64_t start = static_cast<int64_t>(std::floor(-1.0f / a.scale)) + 1;
  std::optional<Expr> sum, total;
  for (int64_t j = start; j < 2 - start; ++j) {
    Expr arg = (lit(c, static_cast<double>(j)) - ratio) * lit(c, a.scale);
    Expr w = max(lit(c, 0), lit(c, 1) - max(arg, lit(c, 0) - arg));
    Expr i = make_cast(t, left) + make_int(j, t);
    if (s.exclude_outside)
      w = make_select(i < make_int(0, t), lit(c, 0),
                      make_select(make_int(a.in - 1, t) < i, lit(c, 0), w));
    src[d] = min(max(i, make_int(0, t)), make_int(a.in - 1, t));
    Expr v = interpolate(in, s, axes, k + 1, src, idx) * w;
    sum = sum ? *sum + v : v;
    total = total ? *total + w : w;
  }
  return *sum / *total;
}

// in[src] blended along `axes` (from position k on): (1 - w) * lower + w * upper.
Expr interpolate(const TensorValue& in, const ResizeSpec& s, const std::vector<size_t>& axes,
                 size_t k, std::vector<Expr> src, const std::vector<Expr>& idx) {
  if (k == axes.size()) return element_of(in, src);
  size_t d = axes[k];
  const ResizeAxis& a = s.axes[d];
  DataType t = idx[d].dtype();
  if (s.antialias && a.scale < 1) return antialias_blend(in, s, axes, k, std::move(src), idx);
  Expr c = clamp_of(source_coordinate(a, s.transform, make_cast(DataType::float32(), idx[d])),
                    static_cast<float>(a.in - 1));
  Expr lower = floor_of(c);
  Expr w = c - lower;
  Expr lo = make_cast(t, lower);
  src[d] = lo;
  Expr v_lo = interpolate(in, s, axes, k + 1, src, idx);
  src[d] = min(lo + make_int(1, t), make_int(a.in - 1, t));
  Expr v_hi = interpolate(in, s, axes, k + 1, src, idx);
  return v_lo * (lit(w, 1) - w) + v_hi * w;
}

ResizeSpec resize_spec(OpContext& ctx, const TensorValue& in, Shape* out_shape) {
  const Node& n = ctx.node();
  if (ctx.opset() < 11)
    ctx.fail("Resize-10 (opset " + std::to_string(ctx.opset()) +
             ") is not supported; Resize-11 and later are");
  ResizeSpec s;
  s.linear =
      attr_choice<bool>(ctx, "mode", "nearest", {{"nearest", false}, {"linear", true}}, {"cubic"});
  s.transform = attr_choice<Transform>(ctx, "coordinate_transformation_mode", "half_pixel",
                                       {{"half_pixel", Transform::HalfPixel},
                                        {"half_pixel_symmetric", Transform::HalfPixelSymmetric},
                                        {"pytorch_half_pixel", Transform::PytorchHalfPixel},
                                        {"align_corners", Transform::AlignCorners},
                                        {"asymmetric", Transform::Asymmetric},
                                        {"tf_half_pixel_for_nn", Transform::TfHalfPixelForNN}},
                                       {"tf_crop_and_resize"});
  if (s.transform == Transform::HalfPixelSymmetric && ctx.version() < 19)
    ctx.fail("coordinate_transformation_mode 'half_pixel_symmetric' is Resize-19's; opset " +
             std::to_string(ctx.opset()) + " means Resize-" + std::to_string(ctx.version()));
  s.rounding = attr_choice<Rounding>(ctx, "nearest_mode", "round_prefer_floor",
                                     {{"round_prefer_floor", Rounding::RoundPreferFloor},
                                      {"round_prefer_ceil", Rounding::RoundPreferCeil},
                                      {"floor", Rounding::Floor},
                                      {"ceil", Rounding::Ceil}});
  // Both change linear interpolation only (antialias only where it downsamples);
  // exclude_outside changes nothing there without antialias.
  s.antialias = n.attr_int("antialias", 0) != 0;
  s.exclude_outside = n.attr_int("exclude_outside", 0) != 0;
  if (s.antialias && !s.linear) ctx.fail("antialias=1 is only supported with mode 'linear'");
  if (s.antialias && s.transform == Transform::AlignCorners)
    ctx.fail("antialias=1 with align_corners is not supported");
  if (s.exclude_outside && !s.linear)
    ctx.fail("exclude_outside=1 is only supported with mode 'linear'");
  // keep_aspect_ratio_policy: 0 stretches each axis to its size, -1 (not_larger)
  // and +1 (not_smaller) resize every listed axis by one scale.
  int policy = attr_choice<int>(ctx, "keep_aspect_ratio_policy", "stretch",
                                {{"stretch", 0}, {"not_larger", -1}, {"not_smaller", 1}});

  // scales (input 2) or sizes (input 3); an empty scales stands for absent.
  std::vector<double> scales;
  if (ctx.has_input(2)) {
    const NDArray& a = ctx.constant_input(2);
    if (!a.dtype().is_float()) ctx.fail("scales must be a float tensor, not " + a.dtype().str());
    for (int64_t k = 0; k < a.num_elements(); ++k) scales.push_back(a.get_float(k));
  }
  std::vector<int64_t> sizes;
  if (ctx.has_input(3)) sizes = ctx.constant_ints(3);
  if (scales.empty() == sizes.empty())
    ctx.fail("needs exactly one of scales (input 2) and sizes (input 3)");
  size_t rank = in.shape.size();
  // axes (Resize-18): scales or sizes list only these axes, the others keep their extent.
  std::vector<size_t> listed;
  if (n.has_attr("axes")) {
    for (int64_t d :
         axis_util::normalize_axes(ctx, n.attr_ints("axes"), static_cast<int64_t>(rank)))
      listed.push_back(static_cast<size_t>(d));
  } else {
    for (size_t d = 0; d < rank; ++d) listed.push_back(d);
  }
  if (scales.size() + sizes.size() != listed.size())
    ctx.fail(std::string(scales.empty() ? "sizes " + shape_str(sizes) : "scales") +
             (n.has_attr("axes") ? " must have one entry per axis in 'axes' ("
                                 : " must have one entry per dimension of an input of rank ") +
             std::to_string(listed.size()) + (n.has_attr("axes") ? ")" : ""));
  for (size_t d = 0; d < rank; ++d)
    if (in.shape[d] == 0) ctx.fail("cannot resize the empty axis " + std::to_string(d));
  // One scale for every listed axis, as keep_aspect_ratio_policy asks: the
  // smallest or largest size / input ratio.
  for (size_t i = 0; i < sizes.size(); ++i)
    if (sizes[i] < 1)
      ctx.fail("size " + std::to_string(sizes[i]) + " of axis " + std::to_string(listed[i]) +
               " is not positive");
  std::optional<float> kept;
  if (policy != 0) {
    if (sizes.empty()) ctx.fail("keep_aspect_ratio_policy needs sizes (input 3), not scales");
    for (size_t i = 0; i < listed.size(); ++i) {
      float r = static_cast<float>(static_cast<double>(sizes[i]) /
                                   static_cast<double>(in.shape[listed[i]]));
      if (!kept || (policy < 0 ? r < *kept : r > *kept)) kept = r;
    }
  }
  out_shape->assign(rank, 0);
  s.axes.assign(rank, ResizeAxis{});
  for (size_t d = 0; d < rank; ++d) {
    ResizeAxis& a = s.axes[d];
    a.in = a.out = in.shape[d];
    a.length = static_cast<double>(a.in);
    (*out_shape)[d] = a.out;
  }
  for (size_t i = 0; i < listed.size(); ++i) {
    size_t d = listed[i];
    ResizeAxis& a = s.axes[d];
    if (!scales.empty()) {
      if (!(scales[i] > 0))
        ctx.fail("scale " + std::to_string(scales[i]) + " of axis " + std::to_string(d) +
                 " is not positive");
      a.scale = static_cast<float>(scales[i]);
      a.length = static_cast<double>(a.in) * static_cast<double>(a.scale);
      a.out = static_cast<int64_t>(std::floor(a.length));
    } else if (kept) {
      // The output extent rounds scale * input half up (ONNX's definition).
      a.scale = *kept;
      a.out = static_cast<int64_t>(
          std::floor(static_cast<double>(*kept) * static_cast<double>(a.in) + 0.5));
      a.length = static_cast<double>(a.out);
    } else {
      a.out = sizes[i];
      a.scale = static_cast<float>(static_cast<double>(a.out) / static_cast<double>(a.in));
      a.length = static_cast<double>(a.out);
    }
    if (a.out > INT32_MAX) ctx.fail("axis " + std::to_string(d) + " is resized beyond 2^31");
    (*out_shape)[d] = a.out;
  }
  return s;
}

std::vector<TensorValue> build_resize(OpContext& ctx) {
  TensorValue in = ctx.input(0);
  Shape out;
  ResizeSpec s = resize_spec(ctx, in, &out);
  if (!s.linear)
    return {TensorValue::of_element(in.dtype, out, [in, s](const std::vector<Expr>& idx) {
      std::vector<Expr> src;
      for (size_t d = 0; d < idx.size(); ++d)
        src.push_back(nearest_axis_index(s, s.axes[d], idx[d]));
      return element_of(in, src);
    })};
  if (in.dtype != DataType::float32())
    ctx.fail("mode 'linear' on " + in.dtype.str() + " is not supported (float32 is)");
  // Axes of extent 1 read index 0; the others blend unless they map x to x.
  std::vector<size_t> blended, single;
  for (size_t d = 0; d < s.axes.size(); ++d) {
    if (s.axes[d].in == 1)
      single.push_back(d);
    else if (!identity_axis(s, s.axes[d]))
      blended.push_back(d);
  }
  if (blended.size() > 3)
    ctx.fail("mode 'linear' over " + std::to_string(blended.size()) +
             " axes is not supported (up to 3 are)");
  return {TensorValue::of_element(in.dtype, out,
                                  [in, s, blended, single](const std::vector<Expr>& idx) {
                                    std::vector<Expr> src = idx;
                                    for (size_t d : single) src[d] = make_int(0, idx[d].dtype());
                                    return interpolate(in, s, blended, 0, src, idx);
                                  })};
}

}  // namespace

std::vector<OpDef> movement_ops() {
  auto blocks = [](std::string name, auto build) {
    return OpDef{std::move(name), OpPattern::Complex, {}, build};
  };
  return {
      injective_op("Tile", {1}, build_tile),
      injective_op("DepthToSpace", {}, build_depth_to_space),
      injective_op("SpaceToDepth", {}, build_space_to_depth),
      injective_op("Trilu", {1}, build_trilu),
      injective_op("GatherElements", {}, build_gather_elements),
      injective_op("Resize", {1, 2, 3}, build_resize),
      OpDef{"Range", OpPattern::Constant, {0, 1, 2}, build_range},
      blocks("ScatterElements", build_scatter_elements),
      blocks("ScatterND", build_scatter_nd),
  };
}

}  // namespace tirc::onnx
