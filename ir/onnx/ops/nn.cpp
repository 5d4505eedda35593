// Neural-network operators: convolutions, matrix products, pooling and
// batch normalization. The contractions and pools emit one reduction block
// each. Pools and ConvTranspose read padding inline (if_then_else(in_bounds,
// X[...], pad value)); Conv writes a padded copy of X first (see build_conv).
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "ir/onnx/ops/ops.h"

namespace tirc::onnx {

namespace {

using Indices = std::vector<Expr>;

// Index arithmetic that leaves out the identities (x * 1, x + 0), so the
// printed blocks read like hand-written ones.
Expr plus(const Expr& e, int64_t c) {
  return c == 0 ? e : c > 0 ? e + make_int(c) : e - make_int(-c);
}
Expr times(const Expr& e, int64_t c) {
  return c == 1 ? e : e * make_int(c);
}

std::string ints_str(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

int64_t product(const Shape& s) {
  return std::accumulate(s.begin(), s.end(), int64_t{1}, std::multiplies<>());
}

Expr zero_of(DataType t) {
  return make_const(t, 0);
}
Expr call_sqrt(const Expr& x) {
  return make_call(x.dtype(), "sqrt", {x});
}

// The lowest value of t: the identity of max.
Expr lowest_of(DataType t) {
  if (t.is_float()) return make_float(-std::numeric_limits<double>::infinity(), t);
  if (t.is_uint()) return make_int(0, t);
  return make_int(
      t.bits() >= 64 ? std::numeric_limits<int64_t>::min() : -(int64_t{1} << (t.bits() - 1)), t);
}

void require_float(OpContext& ctx, const TensorValue& v, const char* what) {
  if (!v.dtype.is_float())
    ctx.fail(std::string(what) + " has type " + v.dtype.str() + "; floating point required");
}

// The input as something cheap to read many times: a reduction reads each
// input element many times, so an inlined expression is computed once first.
TensorValue readable(OpContext& ctx, size_t i, const std::string& hint) {
  const TensorValue& v = ctx.input(i);
  if (v.buffer || (v.value && v.num_elements() == 1)) return v;
  return TensorValue::of_buffer(ctx.kernel().materialize(v, hint), v.shape);
}

Expr in_range(const Expr& idx, int64_t lo, int64_t hi, Expr cond, bool check_lo, bool check_hi) {
  auto conj = [&](Expr c) { cond = cond ? logical_and(cond, c) : c; };
  if (check_lo) conj(idx >= make_int(lo));
  if (check_hi) conj(idx < make_int(hi));
  return cond;
}

// ---- sliding windows (Conv, pooling) ----------------------------------------------

// Window geometry of one spatial dimension.
struct Window {
  int64_t in = 0, kernel = 1, stride = 1, dilation = 1, pad_begin = 0, pad_end = 0, out = 0;
  int64_t span() const { return (kernel - 1) * dilation + 1; }
};

struct WindowAttrs {
  std::vector<int64_t> kernel, strides, dilations, pads;
  std::string auto_pad;
  bool ceil_mode = false;
};

// Reads kernel_shape (given: from W for Conv), strides, dilations, pads,
// auto_pad and ceil_mode, checking their lengths, and computes the output size.
// (Attributes a given opset does not define are absent, so reading them
// whatever the opset is harmless.)
std::vector<Window> windows(OpContext& ctx, const Shape& in_spatial, std::vector<int64_t> kernel,
                            bool has_ceil_mode = true) {
  const Node& n = ctx.node();
  size_t k = in_spatial.size();
  auto list = [&](const char* name, int64_t fallback, size_t len) {
    std::vector<int64_t> v = n.attr_ints(name, std::vector<int64_t>(len, fallback));
    if (v.size() != len)
      ctx.fail("attribute '" + std::string(name) + "' has " + std::to_string(v.size()) +
               " values " + ints_str(v) + ", expected " + std::to_string(len));
    return v;
  };
  std::vector<int64_t> strides = list("strides", 1, k);
  std::vector<int64_t> dilations = list("dilations", 1, k);
  std::vector<int64_t> pads = list("pads", 0, 2 * k);
  std::string auto_pad = n.attr_string("auto_pad", "NOTSET");
  bool ceil_mode = has_ceil_mode && n.attr_int("ceil_mode", 0) != 0;
  if (auto_pad != "NOTSET" && auto_pad != "VALID" && auto_pad != "SAME_UPPER" &&
      auto_pad != "SAME_LOWER")
    ctx.fail("unknown auto_pad '" + auto_pad + "'");
  std::vector<Window> ws(k);
  for (size_t d = 0; d < k; ++d) {
    Window& w = ws[d];
    w.in = in_spatial[d];
    w.kernel = kernel[d];
    w.stride = strides[d];
    w.dilation = dilations[d];
    if (w.kernel < 1 || w.stride < 1 || w.dilation < 1)
      ctx.fail("kernel " + ints_str(kernel) + ", strides " + ints_str(strides) + " and dilations " +
               ints_str(dilations) + " must be positive");
    if (auto_pad == "NOTSET") {
      w.pad_begin = pads[d];
      w.pad_end = pads[d + k];
      if (w.pad_begin < 0 || w.pad_end < 0) ctx.fail("negative pads " + ints_str(pads));
      int64_t room = w.in + w.pad_begin + w.pad_end - w.span();
      if (room < 0)
        ctx.fail("the window (" + std::to_string(w.span()) + ") is larger than the padded input (" +
                 std::to_string(w.in + w.pad_begin + w.pad_end) + ") in spatial dimension " +
                 std::to_string(d));
      w.out = (ceil_mode ? (room + w.stride - 1) / w.stride : room / w.stride) + 1;
      // The last window must start inside the input or its leading padding.
      if (ceil_mode && (w.out - 1) * w.stride >= w.in + w.pad_begin) --w.out;
    } else if (auto_pad == "VALID") {
      int64_t room = w.in - w.span();
      if (room < 0)
        ctx.fail("the window is larger than the input in spatial dimension " + std::to_string(d));
      w.out = (ceil_mode ? (room + w.stride - 1) / w.stride : room / w.stride) + 1;
    } else {
      w.out = (w.in + w.stride - 1) / w.stride;
      int64_t total = std::max<int64_t>(0, (w.out - 1) * w.stride + w.span() - w.in);
      w.pad_begin = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      w.pad_end = total - w.pad_begin;
    }
  }
  return ws;
}

// The input position a window element reads: o * stride + r * dilation - pad_begin.
Expr window_index(const Window& w, const Expr& o, const Expr& r) {
  Expr pos = times(o, w.stride);
  pos = w.kernel == 1 ? pos : pos + times(r, w.dilation);
  return plus(pos, -w.pad_begin);
}

// Whether some window of w reads outside the input (its padding).
bool reads_padding(const Window& w) {
  return w.pad_begin > 0 ||
         (w.out - 1) * w.stride + (w.kernel - 1) * w.dilation - w.pad_begin >= w.in;
}

// The bounds check a window read needs (null when every read is inside).
Expr window_in_bounds(const std::vector<Window>& ws, const std::vector<Expr>& idx) {
  Expr cond;
  for (size_t d = 0; d < ws.size(); ++d) {
    const Window& w = ws[d];
    bool low = w.pad_begin > 0;
    bool high = (w.out - 1) * w.stride + (w.kernel - 1) * w.dilation - w.pad_begin >= w.in;
    cond = in_range(idx[d], 0, w.in, cond, low, high);
  }
  return cond;
}

Expr guarded(const Expr& cond, const std::function<Expr()>& read, const Expr& otherwise) {
  if (!cond) return read();
  return make_call(otherwise.dtype(), "if_then_else", {cond, read(), otherwise});
}

// ---- activation layouts ---------------------------------------------------------

// Where an activation keeps its channels: NCHW (ONNX's order: N, C, spatial...)
// or channels-last (N, spatial..., C), the layout of the operators that
// ir/onnx/layout.h puts in the kChannelsLastDomain. The builders below work
// in ONNX's order and convert indices and shapes where they touch buffers.
struct ActLayout {
  bool channels_last = false;

  template <class T>
  std::vector<T> to_physical(std::vector<T> v) const {
    if (channels_last && v.size() > 2) std::rotate(v.begin() + 1, v.begin() + 2, v.end());
    return v;
  }
  template <class T>
  std::vector<T> to_onnx(std::vector<T> v) const {
    if (channels_last && v.size() > 2) std::rotate(v.begin() + 1, v.end() - 1, v.end());
    return v;
  }
};

ActLayout layout_of(const OpContext& ctx) {
  return ActLayout{ctx.node().domain == kChannelsLastDomain};
}

// x read with indices in ONNX's order; its shape in ONNX's order too.
TensorValue in_onnx_order(const TensorValue& x, const ActLayout& layout) {
  if (!layout.channels_last) return x;
  return TensorValue::of_element(x.dtype, layout.to_onnx(x.shape), [x, layout](const Indices& i) {
    return x.load(layout.to_physical(i));
  });
}

// float16 and bfloat16 products are summed in float32 and rounded once at the
// end (what cuBLAS's and onnxruntime's half-precision GEMMs and convolutions
// compute, and what tensor cores do).
DataType accumulation_type(DataType t) {
  return t == DataType::float16() || t == DataType::bfloat16() ? DataType::float32() : t;
}

// A reduction `name` into y: the buffer it sums into (y itself, or a float32
// one where y is half-precision), its operands cast to that buffer's type,
// and the rounding into y after it.
struct Accumulation {
  Buffer sum;
  DataType t;  // sum's type

  Accumulation(OpContext& ctx, const std::string& name, const Buffer& y, const Shape& shape)
      : sum(accumulation_type(y->dtype) == y->dtype
                ? y
                : ctx.kernel().alloc(name + "_acc", accumulation_type(y->dtype), shape)),
        t(sum->dtype) {}

  Expr operator()(const Expr& e) const { return e.dtype() == t ? e : make_cast(t, e); }

  void round_into(OpContext& ctx, const std::string& name, const Buffer& y) const {
    if (sum == y) return;
    ctx.kernel().emit_elementwise(name + "_round", y, [s = sum, t = y->dtype](const Indices& i) {
      return make_cast(t, make_load(s, i));
    });
  }
};

// ---- Conv ---------------------------------------------------------------------------

// When a window of `ws` reaches outside x: a copy of x padded with `fill`
// (a block "pad" of its own, covering exactly the positions the windows
// read), and ws rewritten to read it without padding. Otherwise x as it is.
// x is read in ONNX's order; the copy is stored in `layout`'s.
TensorValue padded_for_windows(OpContext& ctx, const TensorValue& x, std::vector<Window>& ws,
                               const Expr& fill, const std::string& hint,
                               const ActLayout& layout = {}) {
  if (!std::any_of(ws.begin(), ws.end(), reads_padding)) return x;
  const std::vector<Window> original = ws;
  Shape padded{x.shape[0], x.shape[1]};
  for (Window& win : ws) {
    win.in = (win.out - 1) * win.stride + (win.kernel - 1) * win.dilation + 1;
    win.pad_begin = 0;
    padded.push_back(win.in);
  }
  Buffer xp = ctx.kernel().alloc(x.buffer ? x.buffer->name + "_pad" : hint, x.dtype,
                                 layout.to_physical(padded));
  ctx.kernel().emit_elementwise("pad", xp, [&](const Indices& physical) {
    const Indices i = layout.to_onnx(physical);
    Indices xi{i[0], i[1]};
    Expr cond;
    for (size_t d = 0; d < original.size(); ++d) {
      xi.push_back(plus(i[d + 2], -original[d].pad_begin));
      cond = in_range(xi.back(), 0, original[d].in, cond, original[d].pad_begin > 0,
                      ws[d].in - original[d].pad_begin > original[d].in);
    }
    return guarded(
        cond, [&] { return x.load(xi); }, fill);
  });
  return in_onnx_order(TensorValue::of_buffer(xp, layout.to_physical(padded)), layout);
}

// A 2-D convolution without groups as a matrix product over the output
// pixels: Y[n, m, p] += W[m, c, r, s] * X'[n, c, r, s, p] with p = oh * OW +
// ow, so the register tile's columns run along p, which is contiguous in Y
// whatever the output's width. A 1x1 convolution with unit strides and no
// padding reads X itself (X' is X's pixels); otherwise X' is an im2col copy
// of the windows (zeros for padding), worth its cost where rows are narrow
// (a 7-wide output row fills 7 of 16 lanes) or a strided 1x1 convolution
// would read every other element. Indices stay affine after flattening
// (p // OW * OW + p % OW is p).
// Returns Y, or null (nothing emitted) when the direct form suits better.
Buffer conv_over_pixels(OpContext& ctx, const TensorValue& x, const TensorValue& w,
                        const std::optional<TensorValue>& bias, const std::vector<Window>& ws,
                        const Shape& out_shape) {
  if (ws.size() != 2) return nullptr;
  const Window &wh = ws[0], &ww = ws[1];
  const bool pointwise =
      wh.kernel == 1 && ww.kernel == 1 && !reads_padding(wh) && !reads_padding(ww);
  const bool unit = pointwise && wh.stride == 1 && ww.stride == 1;
  if (!pointwise && ww.out >= 16) return nullptr;
  const int64_t N = x.shape[0], C = x.shape[1], M = w.shape[0], OW = ww.out;
  const int64_t P = wh.out * ww.out;
  const DataType t = x.dtype;
  TensorValue src = x;
  Shape reduce{C};
  if (!unit) {
    // col[n, c, r, s, oh, ow] = X at the window position (0 in the padding).
    Shape col_shape{N, C, wh.kernel, ww.kernel, wh.out, ww.out};
    Buffer col = ctx.kernel().alloc(x.buffer ? x.buffer->name + "_col" : "conv_col", t, col_shape);
    ctx.kernel().emit_elementwise("im2col", col, [&](const Indices& i) {
      Indices xi{i[0], i[1], window_index(wh, i[4], i[2]), window_index(ww, i[5], i[3])};
      Expr cond = window_in_bounds(ws, {xi[2], xi[3]});
      return cond ? guarded(
                        cond, [&] { return x.load(xi); }, zero_of(t))
                  : x.load(xi);
    });
    src = TensorValue::of_buffer(col, col_shape);
    reduce = {C, wh.kernel, ww.kernel};
  }
  Buffer y = ctx.output_buffer(0, t, out_shape);
  const Accumulation acc(ctx, "conv", y, out_shape);
  ctx.kernel().iterate_pixels(out_shape);
  const Expr ow_extent = make_int(OW);
  auto pixel = [ow_extent](const Expr& p) {
    return std::pair<Expr, Expr>{floordiv(p, ow_extent), floormod(p, ow_extent)};
  };
  ctx.kernel().emit_reduction(
      "conv", acc.sum, Shape{N, M, P},
      [=](const Indices& i) {
        auto [oh, ow] = pixel(i[2]);
        return Indices{i[0], i[1], oh, ow};
      },
      reduce, [=](const Indices& i) { return bias ? acc(bias->load({i[1]})) : zero_of(acc.t); },
      [=](const Indices& i, const Indices& r) {
        auto [oh, ow] = pixel(i[2]);
        Expr in =
            unit ? src.load({i[0], r[0], oh, ow}) : src.load({i[0], r[0], r[1], r[2], oh, ow});
        Indices wi{i[1], r[0]};
        wi.push_back(unit ? make_int(0) : r[1]);
        wi.push_back(unit ? make_int(0) : r[2]);
        return acc(in) * acc(w.load(wi));
      },
      [](Expr sum, Expr v) { return sum + v; });
  acc.round_into(ctx, "conv", y);
  return y;
}

// Conv's weights read in ONNX's order [M, C / group, k...]: channels-last
// convolutions take them as [k..., C / group, M] (the layout pass transposes
// the constant), so that consecutive output channels are contiguous, or
// blocked as [M / B, C / group, k..., B] (ir/onnx/layout.h).
TensorValue weights_in_onnx_order(const TensorValue& w, const ActLayout& layout, size_t spatial) {
  if (!layout.channels_last || w.rank() < 3) return w;
  if (w.shape.size() == spatial + 3) {  // blocked [M / B, C / group, k..., B]
    const int64_t b = w.shape.back();
    Shape shape{w.shape[0] * b};
    shape.insert(shape.end(), w.shape.begin() + 1, w.shape.end() - 1);
    return TensorValue::of_element(w.dtype, shape, [w, b](const Indices& i) {
      Indices v{floordiv(i[0], make_int(b))};
      v.insert(v.end(), i.begin() + 1, i.end());
      v.push_back(floormod(i[0], make_int(b)));
      return w.load(v);
    });
  }
  const size_t r = w.shape.size();
  auto to_onnx = [r](const auto& v) {
    std::decay_t<decltype(v)> o{v[r - 1], v[r - 2]};
    o.insert(o.end(), v.begin(), v.end() - 2);
    return o;
  };
  auto to_physical = [](const Indices& o) {
    Indices v(o.begin() + 2, o.end());
    v.push_back(o[1]);
    v.push_back(o[0]);
    return v;
  };
  return TensorValue::of_element(w.dtype, to_onnx(w.shape), [w, to_physical](const Indices& i) {
    return w.load(to_physical(i));
  });
}

std::vector<TensorValue> build_conv(OpContext& ctx) {
  const Node& n = ctx.node();
  const ActLayout layout = layout_of(ctx);
  // Channels-last X computed inline (a transpose from ONNX's layout) is read
  // once by the pad stage when there is one, so it is materialized only
  // without padding (below).
  TensorValue x = layout.channels_last ? ctx.input(0) : readable(ctx, 0, "conv_input");
  TensorValue w = readable(ctx, 1, "conv_weight");
  const std::string x_name = x.buffer ? x.buffer->name + "_pad" : "conv_pad";
  x = in_onnx_order(x, layout);
  // Blocked channels-last weights [M / B, C, k..., B] (ir/onnx/layout.h).
  const TensorValue w_blocked = w;
  const bool blocked = layout.channels_last && w.rank() == x.rank() + 1;
  w = weights_in_onnx_order(w, layout, x.shape.size() - 2);
  require_float(ctx, x, "X");
  if (w.dtype != x.dtype) ctx.fail("W has type " + w.dtype.str() + ", X " + x.dtype.str());
  if (x.rank() < 3)
    ctx.fail("X must have rank 3 or more (N, C, spatial...), has shape " + ints_str(x.shape));
  if (w.rank() != x.rank())
    ctx.fail("W has rank " + std::to_string(w.rank()) + ", X rank " + std::to_string(x.rank()));
  int64_t group = n.attr_int("group", 1);
  int64_t N = x.shape[0], C = x.shape[1], M = w.shape[0];
  if (group < 1 || C % group != 0 || M % group != 0)
    ctx.fail("group " + std::to_string(group) + " must divide the input channels (" +
             std::to_string(C) + ") and the output channels (" + std::to_string(M) + ")");
  int64_t Cg = C / group, Mg = M / group;
  if (w.shape[1] != Cg)
    ctx.fail("W has " + std::to_string(w.shape[1]) + " input channels per group, expected " +
             std::to_string(Cg) + " (X has " + std::to_string(C) + " channels in " +
             std::to_string(group) + " groups)");
  Shape in_spatial(x.shape.begin() + 2, x.shape.end());
  std::vector<int64_t> kernel(w.shape.begin() + 2, w.shape.end());
  if (n.has_attr("kernel_shape") && n.attr_ints("kernel_shape") != kernel)
    ctx.fail("kernel_shape " + ints_str(n.attr_ints("kernel_shape")) +
             " does not match W's spatial shape " + ints_str(kernel));
  std::vector<Window> ws = windows(ctx, in_spatial, kernel, /*has_ceil_mode=*/false);
  std::optional<TensorValue> bias;
  if (ctx.has_input(2)) {
    bias = ctx.input(2);
    if (bias->shape != Shape{M})
      ctx.fail("B has shape " + ints_str(bias->shape) + ", expected [" + std::to_string(M) + "]");
    if (bias->dtype != x.dtype)
      ctx.fail("B has type " + bias->dtype.str() + ", X " + x.dtype.str());
  }

  Shape out_shape{N, M};
  Shape reduce{Cg};
  for (const Window& win : ws) {
    out_shape.push_back(win.out);
    reduce.push_back(win.kernel);
  }
  DataType t = x.dtype;
  if (group == 1 && !layout.channels_last)
    if (Buffer y = conv_over_pixels(ctx, x, w, bias, ws, out_shape))
      return {TensorValue::of_buffer(y, out_shape)};
  // A window that reaches outside X reads a zero-padded copy, so the
  // reduction is plain loads, Y += Xp[..] * W[..]: the contraction the
  // default schedule tiles in registers.
  std::vector<Window> rd = ws;  // the windows as the reduction reads them
  if (layout.channels_last && !std::any_of(ws.begin(), ws.end(), reads_padding))
    x = in_onnx_order(readable(ctx, 0, "conv_input"), layout);
  x = padded_for_windows(ctx, x, rd, zero_of(t), x_name, layout);
  auto window = [=](Indices xi, const Indices& out, const Indices& r) {
    for (size_t d = 0; d < rd.size(); ++d) xi.push_back(window_index(rd[d], out[d], r[d + 1]));
    return xi;
  };
  auto weight = [=](const Expr& m, const Indices& r) {
    Indices wi{m, r[0]};
    wi.insert(wi.end(), r.begin() + 1, r.end());
    return w.load(wi);
  };
  const Shape y_shape = layout.to_physical(out_shape);
  Buffer y = ctx.output_buffer(0, t, y_shape);
  const Accumulation acc(ctx, "conv", y, y_shape);
  auto bias_at = [bias, acc](const Expr& m) {
    return bias ? acc(bias->load({m})) : zero_of(acc.t);
  };
  auto add = [](Expr sum, Expr v) { return sum + v; };
  if (blocked) {
    // Output channel m = mb * B + mi over (n, spatial..., mb, mi): the
    // weights a block of B channels needs are one contiguous panel.
    if (group != 1) ctx.fail("blocked weights need group 1");
    const int64_t b = w_blocked.shape.back();
    Shape space{N};
    space.insert(space.end(), out_shape.begin() + 2, out_shape.end());
    space.insert(space.end(), {M / b, b});
    const size_t k = rd.size();
    auto channel = [b, k](const Indices& s) { return times(s[k + 1], b) + s[k + 2]; };
    ctx.kernel().emit_reduction(
        "conv", acc.sum, space,
        [=](const Indices& s) {
          Indices at(s.begin(), s.begin() + long(k) + 1);
          at.push_back(channel(s));
          return at;
        },
        reduce, [=](const Indices& s) { return bias_at(channel(s)); },
        [=](const Indices& s, const Indices& r) {
          Indices out(s.begin() + 1, s.begin() + 1 + long(k));
          Indices wi{s[k + 1]};
          wi.insert(wi.end(), r.begin(), r.end());
          wi.push_back(s[k + 2]);
          return acc(x.load(window({s[0], r[0]}, out, r))) * acc(w_blocked.load(wi));
        },
        add);
    acc.round_into(ctx, "conv", y);
    return {TensorValue::of_buffer(y, y_shape)};
  }
  if (group == 1 || Mg == 1) {
    // Output channel m reads input channels m * Cg + r0 (r0 alone without groups).
    ctx.kernel().emit_reduction(
        "conv", acc.sum, reduce, [=](const Indices& i) { return bias_at(layout.to_onnx(i)[1]); },
        [=](const Indices& physical, const Indices& r) {
          const Indices i = layout.to_onnx(physical);
          Expr channel = group == 1 ? r[0] : Cg == 1 ? i[1] : times(i[1], Cg) + r[0];
          Indices out(i.begin() + 2, i.end());
          return acc(x.load(window({i[0], channel}, out, r))) * acc(weight(i[1], r));
        },
        add);
    acc.round_into(ctx, "conv", y);
    return {TensorValue::of_buffer(y, y_shape)};
  }
  // Groups of several output channels: the group is a loop of its own, over
  // (n, g, m, spatial...), writing channel g * Mg + m from channels g * Cg + r0;
  // channels-last iterates (n, spatial..., g, m), channels innermost.
  const Shape spatial(out_shape.begin() + 2, out_shape.end());
  Shape space{N};
  if (!layout.channels_last) space.insert(space.end(), {group, Mg});
  space.insert(space.end(), spatial.begin(), spatial.end());
  if (layout.channels_last) space.insert(space.end(), {group, Mg});
  // Space indices in the (n, g, m, spatial...) order.
  auto grouped = [layout](Indices s) {
    if (layout.channels_last) std::rotate(s.begin() + 1, s.end() - 2, s.end());
    return s;
  };
  auto channel_of = [Mg](const Indices& i) { return times(i[1], Mg) + i[2]; };
  ctx.kernel().emit_reduction(
      "conv", acc.sum, space,
      [=](const Indices& s) {
        const Indices i = grouped(s);
        Indices at{i[0], channel_of(i)};
        at.insert(at.end(), i.begin() + 3, i.end());
        return layout.to_physical(at);
      },
      reduce, [=](const Indices& s) { return bias_at(channel_of(grouped(s))); },
      [=](const Indices& s, const Indices& r) {
        const Indices i = grouped(s);
        Expr channel = Cg == 1 ? i[1] : times(i[1], Cg) + r[0];
        Indices out(i.begin() + 3, i.end());
        return acc(x.load(window({i[0], channel}, out, r))) * acc(weight(channel_of(i), r));
      },
      add);
  acc.round_into(ctx, "conv", y);
  return {TensorValue::of_buffer(y, y_shape)};
}

// ---- ConvTranspose --------------------------------------------------------------------

std::vector<TensorValue> build_conv_transpose(OpContext& ctx) {
  const Node& n = ctx.node();
  TensorValue x = readable(ctx, 0, "convt_input");
  TensorValue w = readable(ctx, 1, "convt_weight");
  require_float(ctx, x, "X");
  if (w.dtype != x.dtype) ctx.fail("W has type " + w.dtype.str() + ", X " + x.dtype.str());
  if (x.rank() < 3)
    ctx.fail("X must have rank 3 or more (N, C, spatial...), has shape " + ints_str(x.shape));
  if (w.rank() != x.rank())
    ctx.fail("W has rank " + std::to_string(w.rank()) + ", X rank " + std::to_string(x.rank()));
  int64_t group = n.attr_int("group", 1);
  int64_t N = x.shape[0], C = x.shape[1];
  if (group < 1 || C % group != 0)
    ctx.fail("group " + std::to_string(group) + " must divide the input channels (" +
             std::to_string(C) + ")");
  if (w.shape[0] != C)
    ctx.fail("W has " + std::to_string(w.shape[0]) + " input channels, X " + std::to_string(C));
  int64_t Cg = C / group, Mg = w.shape[1], M = Mg * group;
  size_t k = static_cast<size_t>(x.rank() - 2);
  std::vector<int64_t> kernel(w.shape.begin() + 2, w.shape.end());
  if (n.has_attr("kernel_shape") && n.attr_ints("kernel_shape") != kernel)
    ctx.fail("kernel_shape " + ints_str(n.attr_ints("kernel_shape")) +
             " does not match W's spatial shape " + ints_str(kernel));
  auto list = [&](const char* name, int64_t fallback, size_t len) {
    std::vector<int64_t> v = n.attr_ints(name, std::vector<int64_t>(len, fallback));
    if (v.size() != len)
      ctx.fail("attribute '" + std::string(name) + "' has " + std::to_string(v.size()) +
               " values, expected " + std::to_string(len));
    return v;
  };
  std::vector<int64_t> strides = list("strides", 1, k), dilations = list("dilations", 1, k),
                       output_padding = list("output_padding", 0, k), pads = list("pads", 0, 2 * k);
  std::string auto_pad = n.attr_string("auto_pad", "NOTSET");
  if (auto_pad != "NOTSET" && auto_pad != "VALID" && auto_pad != "SAME_UPPER" &&
      auto_pad != "SAME_LOWER")
    ctx.fail("unknown auto_pad '" + auto_pad + "'");
  std::vector<int64_t> output_shape = n.attr_ints("output_shape");
  // output_shape may include the batch and channel dimensions.
  if (output_shape.size() == k + 2)
    output_shape.erase(output_shape.begin(), output_shape.begin() + 2);
  if (!output_shape.empty() && output_shape.size() != k)
    ctx.fail("output_shape " + ints_str(output_shape) + " must have " + std::to_string(k) +
             " values");

  std::vector<Window> ws(k);
  for (size_t d = 0; d < k; ++d) {
    Window& win = ws[d];
    win.in = x.shape[d + 2];
    win.kernel = kernel[d];
    win.stride = strides[d];
    win.dilation = dilations[d];
    if (win.stride < 1 || win.dilation < 1) ctx.fail("strides and dilations must be positive");
    int64_t full = win.stride * (win.in - 1) + output_padding[d] + win.span();
    if (!output_shape.empty() || auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      win.out = !output_shape.empty() ? output_shape[d] : win.in * win.stride;
      int64_t total = full - win.out;
      // More padding at the end unless SAME_LOWER (onnxruntime's rule; the
      // node tests follow it). Negative total padding extends the output.
      win.pad_begin = auto_pad == "SAME_LOWER" ? total - total / 2 : total / 2;
      win.pad_end = total - win.pad_begin;
    } else {
      if (auto_pad == "NOTSET") {
        win.pad_begin = pads[d];
        win.pad_end = pads[d + k];
      }
      win.out = full - win.pad_begin - win.pad_end;
    }
    if (win.out < 1)
      ctx.fail("output size " + std::to_string(win.out) + " in spatial dimension " +
               std::to_string(d));
  }
  std::optional<TensorValue> bias;
  if (ctx.has_input(2)) {
    bias = ctx.input(2);
    if (bias->shape != Shape{M})
      ctx.fail("B has shape " + ints_str(bias->shape) + ", expected [" + std::to_string(M) + "]");
  }
  Shape out_shape{N, M};
  Shape reduce{Cg};
  for (const Window& win : ws) {
    out_shape.push_back(win.out);
    reduce.push_back(win.kernel);
  }
  Buffer y = ctx.output_buffer(0, x.dtype, out_shape);
  const Accumulation acc(ctx, "conv_transpose", y, out_shape);
  ElementFn init = [bias, acc](const Indices& i) {
    return bias ? acc(bias->load({i[1]})) : zero_of(acc.t);
  };
  // Gather form: y[o] takes x[q] * w[r] for every q * stride + r * dilation - pad = o.
  ctx.kernel().emit_reduction(
      "conv_transpose", acc.sum, reduce, init,
      [=](const Indices& i, const Indices& r) {
        // Output channel m belongs to group m / Mg, as column m % Mg of W.
        Expr g, column = i[1];
        if (group != 1) {
          g = Mg == 1 ? i[1] : floordiv(i[1], make_int(Mg));
          column = Mg == 1 ? make_int(0) : floormod(i[1], make_int(Mg));
        }
        Expr channel = g ? times(g, Cg) + r[0] : r[0];
        Expr cond;
        Indices xi{i[0], channel};
        for (size_t d = 0; d < k; ++d) {
          const Window& win = ws[d];
          Expr num = plus(win.kernel == 1 ? i[d + 2] : i[d + 2] - times(r[d + 1], win.dilation),
                          win.pad_begin);
          Expr q = win.stride == 1 ? num : floordiv(num, make_int(win.stride));
          if (win.stride != 1) {
            Expr divides = floormod(num, make_int(win.stride)) == make_int(0);
            cond = cond ? logical_and(cond, divides) : divides;
          }
          cond = in_range(num, 0, 0, cond, true, false);
          cond = in_range(q, 0, win.in, cond, false, true);
          xi.push_back(q);
        }
        Indices wi{channel, column};
        wi.insert(wi.end(), r.begin() + 1, r.end());
        return guarded(
            cond, [&] { return acc(x.load(xi)) * acc(w.load(wi)); }, zero_of(acc.t));
      },
      [](Expr sum, Expr v) { return sum + v; });
  acc.round_into(ctx, "conv_transpose", y);
  return {TensorValue::of_buffer(y, out_shape)};
}

// ---- Gemm, MatMul -------------------------------------------------------------------

std::vector<TensorValue> build_gemm(OpContext& ctx) {
  const Node& n = ctx.node();
  TensorValue a = readable(ctx, 0, "gemm_a");
  TensorValue b = readable(ctx, 1, "gemm_b");
  if (!a.dtype.is_float() && !a.dtype.is_integer()) ctx.fail("A has type " + a.dtype.str());
  if (b.dtype != a.dtype) ctx.fail("B has type " + b.dtype.str() + ", A " + a.dtype.str());
  if (a.rank() != 2 || b.rank() != 2)
    ctx.fail("A and B must be matrices, have shapes " + ints_str(a.shape) + " and " +
             ints_str(b.shape));
  double alpha = n.attr_float("alpha", 1.0), beta = n.attr_float("beta", 1.0);
  bool ta = n.attr_int("transA", 0) != 0, tb = n.attr_int("transB", 0) != 0;
  int64_t M = ta ? a.shape[1] : a.shape[0], K = ta ? a.shape[0] : a.shape[1];
  int64_t Kb = tb ? b.shape[1] : b.shape[0], N = tb ? b.shape[0] : b.shape[1];
  if (K != Kb)
    ctx.fail("inner dimensions differ: A " + ints_str(a.shape) + (ta ? " (transposed)" : "") +
             ", B " + ints_str(b.shape) + (tb ? " (transposed)" : ""));
  Shape out_shape{M, N};
  std::optional<TensorValue> c;
  if (ctx.has_input(2) && beta != 0) {
    c = ctx.input(2);
    if (c->dtype != a.dtype) ctx.fail("C has type " + c->dtype.str() + ", A " + a.dtype.str());
    bool ok = c->rank() <= 2;
    for (int64_t d = 0; ok && d < c->rank(); ++d) {
      int64_t want = out_shape[static_cast<size_t>(2 - c->rank() + d)];
      ok = c->shape[static_cast<size_t>(d)] == want || c->shape[static_cast<size_t>(d)] == 1;
    }
    if (!ok)
      ctx.fail("C of shape " + ints_str(c->shape) + " does not broadcast to " +
               ints_str(out_shape));
  }
  Buffer y = ctx.output_buffer(0, a.dtype, out_shape);
  const Accumulation in_t(ctx, "gemm", y, out_shape);
  const DataType t = in_t.t;
  ElementFn init = [c, beta, t, out_shape, in_t](const Indices& i) {
    if (!c) return zero_of(t);
    Expr v = in_t(c->load(broadcast_indices(c->shape, out_shape, i)));
    return beta == 1 ? v : v * make_const(t, beta);
  };
  ctx.kernel().emit_reduction(
      "gemm", in_t.sum, {K}, init,
      [=](const Indices& i, const Indices& r) {
        Expr av = in_t(ta ? a.load({r[0], i[0]}) : a.load({i[0], r[0]}));
        Expr bv = in_t(tb ? b.load({i[1], r[0]}) : b.load({r[0], i[1]}));
        return alpha == 1 ? av * bv : (av * make_const(t, alpha)) * bv;
      },
      [](Expr acc, Expr v) { return acc + v; });
  in_t.round_into(ctx, "gemm", y);
  return {TensorValue::of_buffer(y, out_shape)};
}

std::vector<TensorValue> build_matmul(OpContext& ctx) {
  TensorValue a = readable(ctx, 0, "matmul_a");
  TensorValue b = readable(ctx, 1, "matmul_b");
  if (!a.dtype.is_float() && !a.dtype.is_integer()) ctx.fail("A has type " + a.dtype.str());
  if (b.dtype != a.dtype) ctx.fail("B has type " + b.dtype.str() + ", A " + a.dtype.str());
  if (a.rank() < 1 || b.rank() < 1) ctx.fail("MatMul operands must have rank 1 or more");
  // A 1-D operand is a row (A) or column (B) whose unit dimension is dropped.
  Shape sa = a.shape, sb = b.shape;
  bool a_vec = sa.size() == 1, b_vec = sb.size() == 1;
  if (a_vec) sa.insert(sa.begin(), 1);
  if (b_vec) sb.push_back(1);
  int64_t M = sa[sa.size() - 2], K = sa.back(), Kb = sb[sb.size() - 2], N = sb.back();
  if (K != Kb)
    ctx.fail("inner dimensions differ: A " + ints_str(a.shape) + ", B " + ints_str(b.shape));
  Shape batch_a(sa.begin(), sa.end() - 2), batch_b(sb.begin(), sb.end() - 2), batch;
  try {
    batch = broadcast_shapes({batch_a, batch_b});
  } catch (const Error& e) {
    ctx.fail("batch dimensions: " + e.message());
  }
  Shape out_shape = batch;
  if (!a_vec) out_shape.push_back(M);
  if (!b_vec) out_shape.push_back(N);
  Buffer y = ctx.output_buffer(0, a.dtype, out_shape);
  const Accumulation in_t(ctx, "matmul", y, out_shape);
  size_t nb = batch.size();
  ctx.kernel().emit_reduction(
      "matmul", in_t.sum, {K}, zero_of(in_t.t),
      [=](const Indices& i, const Indices& r) {
        Indices bi(i.begin(), i.begin() + static_cast<long>(nb));
        Indices ai = broadcast_indices(batch_a, batch, bi),
                bj = broadcast_indices(batch_b, batch, bi);
        size_t p = nb;
        if (!a_vec) ai.push_back(i[p++]);
        ai.push_back(r[0]);
        bj.push_back(r[0]);
        if (!b_vec) bj.push_back(i[p++]);
        return in_t(a.load(ai)) * in_t(b.load(bj));
      },
      [](Expr acc, Expr v) { return acc + v; });
  in_t.round_into(ctx, "matmul", y);
  return {TensorValue::of_buffer(y, out_shape)};
}

// ---- pooling -----------------------------------------------------------------------

void require_pool_input(OpContext& ctx, const TensorValue& x) {
  if (x.rank() < 3)
    ctx.fail("X must have rank 3 or more (N, C, spatial...), has shape " + ints_str(x.shape));
}

// The windows of a pooling node over X's spatial dimensions, its output shape
// and the extents of the window (reduction) loops.
struct PoolGeometry {
  std::vector<Window> windows;
  Shape out_shape, reduce;
};

PoolGeometry pool_geometry(OpContext& ctx, const TensorValue& x) {
  std::vector<int64_t> kernel = ctx.node().require_ints("kernel_shape");
  Shape in_spatial(x.shape.begin() + 2, x.shape.end());
  if (kernel.size() != in_spatial.size())
    ctx.fail("kernel_shape " + ints_str(kernel) +
             " must have one value per spatial dimension of X " + ints_str(x.shape));
  PoolGeometry g{windows(ctx, in_spatial, kernel), {x.shape[0], x.shape[1]}, {}};
  for (const Window& w : g.windows) {
    g.out_shape.push_back(w.out);
    g.reduce.push_back(w.kernel);
  }
  return g;
}

// X at window element r of output position i, or `outside` in the padding.
Expr pooled_load(const TensorValue& x, const std::vector<Window>& ws, const Indices& i,
                 const Indices& r, const Expr& outside) {
  Indices xi{i[0], i[1]}, pos;
  for (size_t d = 0; d < ws.size(); ++d) pos.push_back(window_index(ws[d], i[d + 2], r[d]));
  xi.insert(xi.end(), pos.begin(), pos.end());
  return guarded(
      window_in_bounds(ws, pos), [&] { return x.load(xi); }, outside);
}

std::vector<TensorValue> build_max_pool(OpContext& ctx) {
  const Node& n = ctx.node();
  if (n.outputs.size() > 1 && !n.outputs[1].empty())
    ctx.fail("the Indices output is not supported");
  const ActLayout layout = layout_of(ctx);
  TensorValue x = readable(ctx, 0, "pool_input");
  const std::string pad_name = x.buffer ? x.buffer->name + "_pad" : "pool_pad";
  x = in_onnx_order(x, layout);
  require_pool_input(ctx, x);
  if (!x.dtype.is_float() && !x.dtype.is_integer()) ctx.fail("X has type " + x.dtype.str());
  // storage_order only changes the Indices output, which is refused above.
  PoolGeometry g = pool_geometry(ctx, x);
  DataType t = x.dtype;
  // Padding reads the lowest value: a padded copy makes the window plain
  // loads, max(C, X[..]), which the contraction emitter keeps in registers.
  x = padded_for_windows(ctx, x, g.windows, lowest_of(t), pad_name, layout);
  const Shape y_shape = layout.to_physical(g.out_shape);
  Buffer y = ctx.output_buffer(0, t, y_shape);
  ctx.kernel().emit_reduction(
      "max_pool", y, g.reduce, lowest_of(t),
      [=](const Indices& i, const Indices& r) {
        return pooled_load(x, g.windows, layout.to_onnx(i), r, lowest_of(t));
      },
      [](Expr acc, Expr v) { return max(acc, v); });
  return {TensorValue::of_buffer(y, y_shape)};
}

// How many window elements of output position o lie in [lo, hi): the divisor
// of an average. Constant folded when every window has the same count.
Expr window_count(const Window& w, const Expr& o, int64_t lo, int64_t hi) {
  bool full = true;
  for (int64_t p = 0; p < w.out && full; ++p) {
    int64_t first = p * w.stride - w.pad_begin, last = first + (w.kernel - 1) * w.dilation;
    full = first >= lo && last < hi;
  }
  if (full) return make_int(w.kernel);
  // Elements r with lo <= start + r * dil < hi: r from ceil((lo - start) / dil)
  // to floor((hi - 1 - start) / dil), clamped to [0, kernel - 1].
  Expr start = plus(times(o, w.stride), -w.pad_begin);
  auto over_dilation = [&](Expr e) {
    return w.dilation == 1 ? e : floordiv(e, make_int(w.dilation));
  };
  Expr first = max(over_dilation(make_int(lo + w.dilation - 1) - start), make_int(0));
  Expr last = min(over_dilation(make_int(hi - 1) - start), make_int(w.kernel - 1));
  return max(last - first + make_int(1), make_int(0));
}

std::vector<TensorValue> build_average_pool(OpContext& ctx) {
  const Node& n = ctx.node();
  const ActLayout layout = layout_of(ctx);
  TensorValue x = in_onnx_order(readable(ctx, 0, "pool_input"), layout);
  require_pool_input(ctx, x);
  require_float(ctx, x, "X");
  bool include_pad = n.attr_int("count_include_pad", 0) != 0;
  PoolGeometry g = pool_geometry(ctx, x);
  const std::vector<Window>& ws = g.windows;
  const Shape out_shape = layout.to_physical(g.out_shape);
  DataType t = x.dtype;
  Buffer y = ctx.output_buffer(0, t, out_shape);
  ctx.kernel().emit_reduction(
      "avg_pool_sum", y, g.reduce, zero_of(t),
      [=](const Indices& i, const Indices& r) {
        return pooled_load(x, ws, layout.to_onnx(i), r, zero_of(t));
      },
      [](Expr acc, Expr v) { return acc + v; });
  // The divisor: window elements inside the input, or inside the padded input
  // with count_include_pad (a ceil_mode window past the padding counts less).
  ctx.kernel().emit_elementwise("avg_pool", y, [=](const Indices& physical) {
    const Indices i = layout.to_onnx(physical);
    Expr count;
    int64_t constant = 1;
    for (size_t d = 0; d < ws.size(); ++d) {
      const Window& w = ws[d];
      Expr c = include_pad ? window_count(w, i[d + 2], -w.pad_begin, w.in + w.pad_end)
                           : window_count(w, i[d + 2], 0, w.in);
      if (auto v = as_const_int(c))
        constant *= *v;
      else
        count = count ? count * c : c;
    }
    Expr divisor = make_const(t, static_cast<double>(constant));
    if (count) divisor = constant == 1 ? make_cast(t, count) : make_cast(t, times(count, constant));
    return make_load(y, physical) / divisor;
  });
  return {TensorValue::of_buffer(y, out_shape)};
}

std::vector<TensorValue> build_global_pool(OpContext& ctx, bool average) {
  const ActLayout layout = layout_of(ctx);
  TensorValue x = in_onnx_order(readable(ctx, 0, "pool_input"), layout);
  require_pool_input(ctx, x);
  if (average) require_float(ctx, x, "X");
  Shape out_shape{x.shape[0], x.shape[1]}, reduce(x.shape.begin() + 2, x.shape.end());
  out_shape.resize(x.shape.size(), 1);
  out_shape = layout.to_physical(out_shape);
  DataType t = x.dtype;
  Buffer y = ctx.output_buffer(0, t, out_shape);
  auto read = [x, layout](const Indices& physical, const Indices& r) {
    const Indices i = layout.to_onnx(physical);
    Indices xi{i[0], i[1]};
    xi.insert(xi.end(), r.begin(), r.end());
    return x.load(xi);
  };
  if (!average) {
    ctx.kernel().emit_reduction("global_max_pool", y, reduce, lowest_of(t), read,
                                [](Expr acc, Expr v) { return max(acc, v); });
    return {TensorValue::of_buffer(y, out_shape)};
  }
  // The sums in a buffer of their own, not divided in place in y: the
  // division then reads what the sum wrote and writes what it does not read,
  // so that a schedule can compute it where each sum is complete (the GPU
  // rules: in the sum's thread, one kernel).
  Buffer sum = ctx.kernel().alloc(y->name + "_sum", t, out_shape);
  ctx.kernel().emit_reduction("global_avg_pool_sum", sum, reduce, zero_of(t), read,
                              [](Expr acc, Expr v) { return acc + v; });
  double count = static_cast<double>(product(reduce));
  ctx.kernel().emit_elementwise("global_avg_pool", y, [sum, t, count](const Indices& i) {
    return make_load(sum, i) / make_const(t, count);
  });
  return {TensorValue::of_buffer(y, out_shape)};
}

// ---- BatchNormalization ----------------------------------------------------------------

std::vector<TensorValue> build_batch_norm(OpContext& ctx) {
  const Node& n = ctx.node();
  if (n.attr_int("training_mode", 0) != 0)
    ctx.fail("training_mode 1 is not supported (inference only)");
  for (size_t o = 1; o < n.outputs.size(); ++o)
    if (!n.outputs[o].empty())
      ctx.fail("only the Y output is supported (inference); output " + std::to_string(o) +
               " is used");
  const TensorValue& x = ctx.input(0);
  require_float(ctx, x, "X");
  if (x.rank() < 2) ctx.fail("X must have rank 2 or more, has shape " + ints_str(x.shape));
  // Before opset 9, spatial=0 gives the parameters one value per (C, D1, ...).
  bool per_activation = ctx.opset() < 9 && n.attr_int("spatial", 1) == 0;
  Shape param_shape{x.shape[1]};
  if (per_activation) param_shape.assign(x.shape.begin() + 1, x.shape.end());
  const char* names[] = {"scale", "B", "mean", "var"};
  std::vector<TensorValue> params;
  for (size_t k = 1; k <= 4; ++k) {
    const TensorValue& p = ctx.input(k);
    if (p.dtype != x.dtype)
      ctx.fail(std::string(names[k - 1]) + " has type " + p.dtype.str() + ", X " + x.dtype.str());
    if (p.num_elements() != product(param_shape) || (p.rank() != 1 && p.shape != param_shape))
      ctx.fail(std::string(names[k - 1]) + " has shape " + ints_str(p.shape) + ", expected " +
               ints_str(param_shape));
    params.push_back(p);
  }
  double epsilon = n.attr_float("epsilon", 1e-5);
  DataType t = x.dtype;
  return {TensorValue::of_element(t, x.shape, [=](const Indices& i) {
    Indices pi{i[1]};
    if (per_activation) {
      pi.assign(i.begin() + 1, i.end());
      if (params[0].rank() == 1) {  // flattened (C * D1 * ...) parameters
        Expr flat = i[1];
        for (size_t d = 2; d < i.size(); ++d) flat = times(flat, x.shape[d]) + i[d];
        pi = {flat};
      }
    }
    Expr normalized =
        (x.load(i) - params[2].load(pi)) / call_sqrt(params[3].load(pi) + make_const(t, epsilon));
    return normalized * params[0].load(pi) + params[1].load(pi);
  })};
}

OpDef complex_op(std::string op, std::function<std::vector<TensorValue>(OpContext&)> build) {
  return OpDef{std::move(op), OpPattern::Complex, {}, std::move(build)};
}

}  // namespace

std::vector<OpDef> nn_ops() {
  std::vector<OpDef> ops;
  ops.push_back(complex_op("Conv", build_conv));
  ops.push_back(complex_op("ConvTranspose", build_conv_transpose));
  ops.push_back(complex_op("Gemm", build_gemm));
  ops.push_back(complex_op("MatMul", build_matmul));
  ops.push_back(complex_op("MaxPool", build_max_pool));
  ops.push_back(complex_op("AveragePool", build_average_pool));
  ops.push_back(
      complex_op("GlobalAveragePool", [](OpContext& ctx) { return build_global_pool(ctx, true); }));
  ops.push_back(
      complex_op("GlobalMaxPool", [](OpContext& ctx) { return build_global_pool(ctx, false); }));
  ops.push_back(OpDef{"BatchNormalization", OpPattern::Injective, {}, build_batch_norm});
  return ops;
}

}  // namespace tirc::onnx
