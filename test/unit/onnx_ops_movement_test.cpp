// The data-movement operators of the ONNX operator library (Tile,
// DepthToSpace, SpaceToDepth, Trilu, Range, GatherElements, ScatterElements,
// ScatterND, Resize), each built as a one-node kernel, run in the interpreter
// and compared with a plain C++ reference written here; then compiled with the
// x86 generator.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "ir/text/printer.h"
#include "onnx_op_run.h"

namespace tirc::onnx {
namespace {

using namespace op_test;

using Ints = std::vector<int64_t>;

NDArray from_ints(DataType t, Shape s, const Ints& v) {
  NDArray a(t, s);
  REQUIRE(static_cast<int64_t>(v.size()) == a.num_elements());
  for (size_t k = 0; k < v.size(); ++k) a.set_int(static_cast<int64_t>(k), v[k]);
  return a;
}

NDArray scalar(DataType t, double v) {
  NDArray a(t, {});
  if (t.is_float())
    a.set_float(0, v);
  else
    a.set_int(0, static_cast<int64_t>(v));
  return a;
}

double element(const NDArray& a, int64_t k) {
  return a.dtype().is_float() ? a.get_float(k) : static_cast<double>(a.get_int(k));
}

void set_element(NDArray& a, int64_t k, double v) {
  if (a.dtype().is_float())
    a.set_float(k, v);
  else
    a.set_int(k, static_cast<int64_t>(v));
}

// ---- Tile ---------------------------------------------------------------------

TEST_CASE("Tile repeats each axis, int64 too, zero repeats empty an axis", "[onnx-ops-movement]") {
  NDArray x = random_array(f32, {2, 3}, 1);
  auto r = run_node("Tile", {Input::data(x), Input::constant(ints({2, 3}))}, {}, 13);
  expect_close(r.outputs[0], gather_ref(x, {4, 9}, [](const Ints& i) {
                 return Ints{i[0] % 2, i[1] % 3};
               }));
  NDArray y = random_array(i64, {1, 2, 2}, 2);
  r = run_node("Tile", {Input::data(y), Input::constant(ints({3, 1, 2}))}, {}, 6);
  expect_close(r.outputs[0], gather_ref(y, {3, 2, 4}, [](const Ints& i) {
                 return Ints{0, i[1], i[2] % 2};
               }));
  r = run_node("Tile", {Input::data(x), Input::constant(ints({0, 1}))}, {}, 13);
  CHECK(r.values[0].shape == Shape{0, 3});
}

TEST_CASE("Tile errors name the node", "[onnx-ops-movement]") {
  NDArray x(f32, {2, 3});
  CHECK_THAT(build_error("Tile", {Input::data(x), Input::constant(ints({2}))}, {}, 13),
             Catch::Contains("node 'n' (Tile)") && Catch::Contains("one entry per dimension"));
  CHECK_THAT(build_error("Tile", {Input::data(x), Input::constant(ints({2, -1}))}, {}, 13),
             Catch::Contains("negative"));
  CHECK_THAT(build_error("Tile", {Input::data(x), Input::data(ints({2, 2}))}, {}, 13),
             Catch::Contains("must be known at compile time"));
}

// ---- DepthToSpace, SpaceToDepth -----------------------------------------------

// ONNX's definition of both: x viewed as `view`, transposed by perm, viewed as out.
NDArray view_transpose(const NDArray& x, const Shape& view, const Ints& perm, const Shape& out) {
  Shape transposed;
  for (int64_t p : perm) transposed.push_back(view[static_cast<size_t>(p)]);
  return gather_ref(x, out, [&](const Ints& i) {
    Ints t = unflat(flat(i, out), transposed), v(view.size());
    for (size_t d = 0; d < perm.size(); ++d) v[static_cast<size_t>(perm[d])] = t[d];
    return unflat(flat(v, view), x.shape());
  });
}

TEST_CASE("DepthToSpace in DCR and CRD modes, and SpaceToDepth", "[onnx-ops-movement]") {
  NDArray x = random_array(f32, {2, 8, 2, 3}, 3);
  Attrs b2 = {{"blocksize", int64_t{2}}};
  auto r = run_node("DepthToSpace", {Input::data(x)}, b2, 13);
  expect_close(r.outputs[0],
               view_transpose(x, {2, 2, 2, 2, 2, 3}, {0, 3, 4, 1, 5, 2}, {2, 2, 4, 6}));
  r = run_node("DepthToSpace", {Input::data(x)},
               {{"blocksize", int64_t{2}}, {"mode", std::string("CRD")}}, 11);
  expect_close(r.outputs[0],
               view_transpose(x, {2, 2, 2, 2, 2, 3}, {0, 1, 4, 2, 5, 3}, {2, 2, 4, 6}));
  NDArray y = random_array(i64, {1, 2, 4, 6}, 4);
  r = run_node("SpaceToDepth", {Input::data(y)}, b2, 13);
  expect_close(r.outputs[0],
               view_transpose(y, {1, 2, 2, 2, 3, 2}, {0, 3, 5, 1, 2, 4}, {1, 8, 2, 3}));
  // SpaceToDepth inverts DepthToSpace in DCR mode.
  NDArray back =
      run_node("SpaceToDepth",
               {Input::data(run_node("DepthToSpace", {Input::data(x)}, b2, 13).outputs[0])}, b2, 13)
          .outputs[0];
  expect_close(back, x);
}

TEST_CASE("DepthToSpace and SpaceToDepth errors name the node", "[onnx-ops-movement]") {
  NDArray x(f32, {1, 6, 2, 3});
  CHECK_THAT(build_error("DepthToSpace", {Input::data(x)}, {{"blocksize", int64_t{2}}}, 13),
             Catch::Contains("node 'n' (DepthToSpace)") && Catch::Contains("not a multiple"));
  CHECK_THAT(build_error("DepthToSpace", {Input::data(x)},
                         {{"blocksize", int64_t{1}}, {"mode", std::string("XYZ")}}, 13),
             Catch::Contains("mode 'XYZ'"));
  CHECK_THAT(build_error("DepthToSpace", {Input::data(x)},
                         {{"blocksize", int64_t{1}}, {"mode", std::string("CRD")}}, 10),
             Catch::Contains("needs opset 11"));
  CHECK_THAT(build_error("DepthToSpace", {Input::data(x)}, {}, 13), Catch::Contains("blocksize"));
  CHECK_THAT(build_error("SpaceToDepth", {Input::data(x)}, {{"blocksize", int64_t{2}}}, 13),
             Catch::Contains("not multiples of blocksize 2"));
  CHECK_THAT(build_error("SpaceToDepth", {Input::data(NDArray(f32, {6, 2, 3}))},
                         {{"blocksize", int64_t{1}}}, 13),
             Catch::Contains("rank 4"));
  CHECK_THAT(build_error("SpaceToDepth", {Input::data(x)}, {{"blocksize", int64_t{0}}}, 13),
             Catch::Contains("at least 1"));
}

// ---- Trilu --------------------------------------------------------------------

NDArray trilu_ref(const NDArray& x, bool upper, int64_t k) {
  NDArray y = x;
  size_t r = x.shape().size();
  for (int64_t e = 0; e < x.num_elements(); ++e) {
    Ints i = unflat(e, x.shape());
    int64_t row = i[r - 2], col = i[r - 1];
    bool keep = upper ? col - row >= k : col - row <= k;
    if (!keep) set_element(y, e, 0);
  }
  return y;
}

TEST_CASE("Trilu: upper and lower, k absent, positive, negative, beyond", "[onnx-ops-movement]") {
  NDArray x = random_array(f32, {2, 3, 4}, 5);
  for (int64_t upper : {0, 1}) {
    Attrs a = {{"upper", upper}};
    expect_close(run_node("Trilu", {Input::data(x)}, a, 14).outputs[0], trilu_ref(x, upper, 0));
    for (int64_t k : {1, -1, 7, -9}) {
      INFO("upper " << upper << " k " << k);
      auto r = run_node("Trilu", {Input::data(x), Input::constant(scalar(i64, double(k)))}, a, 14);
      expect_close(r.outputs[0], trilu_ref(x, upper, k));
    }
  }
  NDArray y = random_array(i64, {3, 3}, 6);
  expect_close(run_node("Trilu", {Input::data(y)}, {}, 14).outputs[0], trilu_ref(y, true, 0));
}

TEST_CASE("Trilu errors name the node", "[onnx-ops-movement]") {
  CHECK_THAT(build_error("Trilu", {Input::data(NDArray(f32, {4}))}, {}, 14),
             Catch::Contains("node 'n' (Trilu)") && Catch::Contains("rank 2 or more"));
  NDArray x(f32, {2, 2});
  CHECK_THAT(build_error("Trilu", {Input::data(x), Input::constant(ints({1, 2}))}, {}, 14),
             Catch::Contains("one element"));
  CHECK_THAT(build_error("Trilu", {Input::data(x)}, {{"upper", int64_t{2}}}, 14),
             Catch::Contains("upper must be 0 or 1"));
  CHECK_THAT(build_error("Trilu", {Input::data(x), Input::data(ints({1}))}, {}, 14),
             Catch::Contains("must be known at compile time"));
}

// ---- Range --------------------------------------------------------------------

TEST_CASE("Range folds to a constant for int and float types", "[onnx-ops-movement]") {
  auto range = [](DataType t, double s, double l, double d) {
    auto r = run_node("Range",
                      {Input::constant(scalar(t, s)), Input::constant(scalar(t, l)),
                       Input::constant(scalar(t, d))},
                      {}, 11);
    REQUIRE(r.values[0].value);
    return r.outputs[0];
  };
  expect_close(range(i64, 2, 11, 3), ints({2, 5, 8}));
  expect_close(range(i32, 10, 4, -2), ints({10, 8, 6}, i32));
  expect_close(range(i64, 5, 5, 1), NDArray(i64, {0}));
  expect_close(range(i64, 5, 1, 1), NDArray(i64, {0}));
  expect_close(range(f32, 1, 2.2, 0.5), array(f32, {3}, {1, 1.5, 2}));
  expect_close(range(f32, 0, -1, -0.25), array(f32, {4}, {0, -0.25, -0.5, -0.75}));
}

TEST_CASE("Range errors name the node", "[onnx-ops-movement]") {
  auto err = [](std::vector<Input> ins) { return build_error("Range", ins, {}, 11); };
  CHECK_THAT(err({Input::constant(scalar(i64, 0)), Input::constant(scalar(i64, 4)),
                  Input::constant(scalar(i64, 0))}),
             Catch::Contains("node 'n' (Range)") && Catch::Contains("delta is 0"));
  CHECK_THAT(err({Input::constant(scalar(i64, 0)), Input::constant(scalar(i32, 4)),
                  Input::constant(scalar(i64, 1))}),
             Catch::Contains("limit is int32, start is int64"));
  CHECK_THAT(err({Input::constant(ints({0, 1})), Input::constant(scalar(i64, 4)),
                  Input::constant(scalar(i64, 1))}),
             Catch::Contains("start must be a scalar"));
  CHECK_THAT(err({Input::data(scalar(i64, 0)), Input::constant(scalar(i64, 4)),
                  Input::constant(scalar(i64, 1))}),
             Catch::Contains("must be known at compile time"));
}

// ---- GatherElements -------------------------------------------------------------

NDArray gather_elements_ref(const NDArray& data, const NDArray& idx, size_t axis) {
  return gather_ref(data, idx.shape(), [&](const Ints& i) {
    Ints src = i;
    int64_t j = idx.get_int(flat(i, idx.shape()));
    src[axis] = j < 0 ? j + data.shape()[axis] : j;
    return src;
  });
}

TEST_CASE("GatherElements: run-time and known indices, negative, every axis",
          "[onnx-ops-movement]") {
  NDArray x = random_array(f32, {3, 4}, 7);
  NDArray idx = from_ints(i64, {2, 3}, {0, -1, 2, 3, -4, 1});
  for (int64_t axis : {1, -1}) {
    for (Input in : {Input::data(idx), Input::both(idx), Input::constant(idx)}) {
      auto r = run_node("GatherElements", {Input::data(x), in}, {{"axis", axis}}, 13);
      expect_close(r.outputs[0], gather_elements_ref(x, idx, 1));
    }
  }
  NDArray rows = from_ints(i32, {2, 4}, {0, 2, -1, 1, 2, 0, 0, -3});
  auto r = run_node("GatherElements", {Input::data(x), Input::data(rows)}, {}, 11);
  expect_close(r.outputs[0], gather_elements_ref(x, rows, 0));
  NDArray y = random_array(i64, {2, 2, 3}, 8);
  NDArray k = from_ints(i64, {2, 1, 3}, {1, 0, 1, 0, 0, 1});
  r = run_node("GatherElements", {Input::data(y), Input::data(k)}, {{"axis", int64_t{1}}}, 13);
  expect_close(r.outputs[0], gather_elements_ref(y, k, 1));
}

TEST_CASE("GatherElements errors name the node", "[onnx-ops-movement]") {
  NDArray x(f32, {3, 4});
  CHECK_THAT(
      build_error("GatherElements", {Input::data(x), Input::constant(from_ints(i64, {1, 1}, {4}))},
                  {{"axis", int64_t{1}}}, 13),
      Catch::Contains("node 'n' (GatherElements)") &&
          Catch::Contains("index 4 is out of range for axis 1 of extent 4"));
  CHECK_THAT(build_error("GatherElements", {Input::data(x), Input::data(ints({1}))}, {}, 13),
             Catch::Contains("do not have the rank of data"));
  CHECK_THAT(
      build_error("GatherElements", {Input::data(x), Input::data(NDArray(i64, {1, 5}))}, {}, 13),
      Catch::Contains("exceed data"));
  CHECK_THAT(
      build_error("GatherElements", {Input::data(x), Input::data(NDArray(f32, {1, 1}))}, {}, 13),
      Catch::Contains("indices must be int32 or int64"));
  CHECK_THAT(build_error("GatherElements", {Input::data(x), Input::data(NDArray(i64, {1, 1}))},
                         {{"axis", int64_t{2}}}, 13),
             Catch::Contains("out of range"));
}

// ---- ScatterElements, ScatterND ---------------------------------------------------

double combine(const std::string& reduction, double a, double v) {
  if (reduction == "add") return a + v;
  if (reduction == "mul") return a * v;
  if (reduction == "max") return std::max(a, v);
  if (reduction == "min") return std::min(a, v);
  return v;
}

NDArray scatter_elements_ref(const NDArray& data, const NDArray& idx, const NDArray& upd,
                             size_t axis, const std::string& reduction) {
  NDArray out = data;
  for (int64_t k = 0; k < idx.num_elements(); ++k) {
    Ints i = unflat(k, idx.shape());
    int64_t j = idx.get_int(k);
    i[axis] = j < 0 ? j + data.shape()[axis] : j;
    int64_t at = flat(i, data.shape());
    set_element(out, at, combine(reduction, element(out, at), element(upd, k)));
  }
  return out;
}

NDArray scatter_nd_ref(const NDArray& data, const NDArray& idx, const NDArray& upd,
                       const std::string& reduction) {
  NDArray out = data;
  int64_t k = idx.shape().back();
  int64_t tuples = idx.num_elements() / k;
  int64_t slice =
      data.num_elements() / count(Shape(data.shape().begin(), data.shape().begin() + k));
  for (int64_t t = 0; t < tuples; ++t) {
    Ints pos(data.shape().size(), 0);
    for (int64_t j = 0; j < k; ++j) {
      int64_t v = idx.get_int(t * k + j);
      pos[static_cast<size_t>(j)] = v < 0 ? v + data.shape()[static_cast<size_t>(j)] : v;
    }
    int64_t base = flat(pos, data.shape());
    for (int64_t e = 0; e < slice; ++e)
      set_element(out, base + e,
                  combine(reduction, element(out, base + e), element(upd, t * slice + e)));
  }
  return out;
}

TEST_CASE("ScatterElements: duplicates in order, reductions by opset, negative indices",
          "[onnx-ops-movement]") {
  NDArray x = random_array(f32, {3, 4}, 9);
  NDArray idx = from_ints(i64, {2, 3}, {1, -1, 1, 1, 0, -4});  // repeats (0, 1) and (0, 0)/(1, 0)
  NDArray upd = random_array(f32, {2, 3}, 10);
  for (const char* red : {"none", "add", "mul", "max", "min"}) {
    std::string reduction = red;
    int64_t opset = reduction == "none" ? 13 : reduction == "max" || reduction == "min" ? 18 : 16;
    for (Input in : {Input::data(idx), Input::constant(idx)}) {
      INFO(reduction);
      auto r = run_node("ScatterElements", {Input::data(x), in, Input::data(upd)},
                        {{"axis", int64_t{1}}, {"reduction", reduction}}, opset);
      expect_close(r.outputs[0], scatter_elements_ref(x, idx, upd, 1, reduction));
    }
  }
  NDArray y = random_array(i64, {3, 2}, 11);
  NDArray rows = from_ints(i32, {2, 2}, {2, 0, 2, -3});
  NDArray vals = random_array(i64, {2, 2}, 12);
  auto r =
      run_node("ScatterElements", {Input::data(y), Input::data(rows), Input::data(vals)}, {}, 11);
  expect_close(r.outputs[0], scatter_elements_ref(y, rows, vals, 0, "none"));
}

TEST_CASE("ScatterND: element and slice updates, duplicates, reductions", "[onnx-ops-movement]") {
  NDArray x = random_array(f32, {4, 3, 2}, 13);
  NDArray slices = from_ints(i64, {3, 1}, {2, 0, -2});  // rows 2, 0 and 2 again
  NDArray upd = random_array(f32, {3, 3, 2}, 14);
  NDArray points = from_ints(i64, {2, 2, 3}, {0, 1, 1, 3, 2, 0, -1, -1, -1, 0, 1, 1});
  NDArray pupd = random_array(f32, {2, 2}, 15);
  for (const char* red : {"none", "add", "mul", "max", "min"}) {
    std::string reduction = red;
    INFO(reduction);
    int64_t opset = reduction == "none" ? 11 : reduction == "max" || reduction == "min" ? 18 : 16;
    Attrs a = {{"reduction", reduction}};
    auto r =
        run_node("ScatterND", {Input::data(x), Input::data(slices), Input::data(upd)}, a, opset);
    expect_close(r.outputs[0], scatter_nd_ref(x, slices, upd, reduction));
    r = run_node("ScatterND", {Input::data(x), Input::both(points), Input::data(pupd)}, a, opset);
    expect_close(r.outputs[0], scatter_nd_ref(x, points, pupd, reduction));
  }
  NDArray y = random_array(i64, {2, 2}, 16);
  NDArray one = from_ints(i64, {2}, {1, 0});
  auto r = run_node("ScatterND", {Input::data(y), Input::data(one), Input::data(scalar(i64, 7))},
                    {}, 13);
  expect_close(r.outputs[0],
               scatter_nd_ref(y, from_ints(i64, {1, 2}, {1, 0}), scalar(i64, 7), "none"));
}

TEST_CASE("ScatterElements and ScatterND errors name the node", "[onnx-ops-movement]") {
  NDArray x(f32, {3, 4});
  NDArray idx = from_ints(i64, {1, 2}, {0, 1});
  NDArray upd(f32, {1, 2});
  auto err = [&](const std::string& op, const NDArray& i, const NDArray& u, Attrs a,
                 int64_t opset) {
    return build_error(op, {Input::data(x), Input::data(i), Input::data(u)}, std::move(a), opset);
  };
  CHECK_THAT(err("ScatterElements", idx, upd, {{"reduction", std::string("max")}}, 16),
             Catch::Contains("node 'n' (ScatterElements)") &&
                 Catch::Contains("reduction 'max' needs opset 18"));
  CHECK_THAT(err("ScatterElements", idx, upd, {{"reduction", std::string("add")}}, 13),
             Catch::Contains("reduction 'add' needs opset 16"));
  CHECK_THAT(err("ScatterElements", idx, upd, {{"reduction", std::string("sub")}}, 18),
             Catch::Contains("reduction 'sub' is not one of none, add, mul, max, min"));
  CHECK_THAT(err("ScatterElements", idx, NDArray(f32, {2, 1}), {}, 13),
             Catch::Contains("do not match indices"));
  CHECK_THAT(err("ScatterElements", idx, NDArray(i64, {1, 2}), {}, 13),
             Catch::Contains("updates are int64, data is float32"));
  CHECK_THAT(build_error("ScatterElements",
                         {Input::data(x), Input::constant(from_ints(i64, {1, 1}, {3})),
                          Input::data(NDArray(f32, {1, 1}))},
                         {}, 13),
             Catch::Contains("index 3 is out of range for axis 0 of extent 3"));
  CHECK_THAT(err("ScatterND", from_ints(i64, {1, 3}, {0, 0, 0}), upd, {}, 13),
             Catch::Contains("node 'n' (ScatterND)") && Catch::Contains("between 1 and the rank"));
  CHECK_THAT(err("ScatterND", from_ints(i64, {1, 1}, {0}), upd, {}, 13),
             Catch::Contains("must have shape [1, 4]"));
  CHECK_THAT(err("ScatterND", from_ints(i64, {1, 1}, {0}), NDArray(f32, {1, 4}),
                 {{"reduction", std::string("min")}}, 17),
             Catch::Contains("reduction 'min' needs opset 18"));
  CHECK_THAT(build_error("ScatterND",
                         {Input::data(x), Input::constant(from_ints(i64, {1, 2}, {0, -5})),
                          Input::data(NDArray(f32, {1}))},
                         {}, 13),
             Catch::Contains("index -5 is out of range for axis 1 of extent 4"));
}

// ---- Resize ---------------------------------------------------------------------

struct ResizeAttrs {
  std::string mode = "nearest", transform = "half_pixel", nearest = "round_prefer_floor";
  Ints axes = {};  // Resize-18: the axes scales or sizes list; empty for all
  std::string policy = "stretch";
  bool antialias = false, exclude_outside = false;
};

// ONNX's Resize written out per axis in double precision: the source
// coordinate of each output index, then the nearest index or the two
// neighbours and the weight of the upper one.
NDArray resize_ref(const NDArray& x, const std::vector<double>& scales, const Ints& sizes,
                   const ResizeAttrs& a) {
  const Shape& in = x.shape();
  const int64_t rank = static_cast<int64_t>(in.size());
  Ints axes = a.axes;
  if (axes.empty())
    for (int64_t d = 0; d < rank; ++d) axes.push_back(d);
  for (int64_t& d : axes) d = d < 0 ? d + rank : d;
  // An axis not listed keeps scale 1 and its extent.
  Shape out = in;
  std::vector<double> scale(in.size(), 1.0), length(in.size());
  for (size_t d = 0; d < in.size(); ++d) length[d] = static_cast<double>(in[d]);
  double kept = a.policy == "not_larger" ? 1e30 : 0;  // one scale for keep_aspect_ratio_policy
  for (size_t i = 0; i < axes.size() && a.policy != "stretch"; ++i) {
    double r = static_cast<double>(sizes[i]) / static_cast<double>(in[size_t(axes[i])]);
    kept = a.policy == "not_larger" ? std::min(kept, r) : std::max(kept, r);
  }
  for (size_t i = 0; i < axes.size(); ++i) {
    size_t d = static_cast<size_t>(axes[i]);
    if (!scales.empty()) {
      scale[d] = static_cast<float>(scales[i]);
      length[d] = static_cast<double>(in[d]) * scale[d];
      out[d] = static_cast<int64_t>(std::floor(length[d]));
    } else if (a.policy != "stretch") {
      scale[d] = kept;
      out[d] = static_cast<int64_t>(kept * static_cast<double>(in[d]) + 0.5);
      length[d] = static_cast<double>(out[d]);
    } else {
      out[d] = sizes[i];
      scale[d] = static_cast<double>(sizes[i]) / static_cast<double>(in[d]);
      length[d] = static_cast<double>(sizes[i]);
    }
  }
  auto source = [&](size_t d, int64_t o) {
    double xo = static_cast<double>(o), n = static_cast<double>(in[d]);
    if (out[d] == in[d] && scale[d] == 1) return xo;  // an axis not resized
    if (a.transform == "half_pixel") return (xo + 0.5) / scale[d] - 0.5;
    if (a.transform == "half_pixel_symmetric")
      return n / 2 * (1 - static_cast<double>(out[d]) / length[d]) + (xo + 0.5) / scale[d] - 0.5;
    if (a.transform == "pytorch_half_pixel")
      return length[d] > 1 ? (xo + 0.5) / scale[d] - 0.5 : 0.0;
    if (a.transform == "align_corners")
      return length[d] == 1 ? 0.0 : xo * (n - 1) / (length[d] - 1);
    if (a.transform == "asymmetric") return xo / scale[d];
    return (xo + 0.5) / scale[d];  // tf_half_pixel_for_nn
  };
  auto clamp = [&](size_t d, double v) { return std::min(std::max(v, 0.0), double(in[d] - 1)); };
  NDArray y(x.dtype(), out);
  for (int64_t e = 0; e < y.num_elements(); ++e) {
    Ints o = unflat(e, out);
    // Per axis: (index, weight) pairs.
    std::vector<std::vector<std::pair<int64_t, double>>> taps(in.size());
    for (size_t d = 0; d < in.size(); ++d) {
      double c = source(d, o[d]), lo = std::floor(c), frac = c - lo;
      if (a.mode == "nearest") {
        double i = a.nearest == "floor"               ? lo
                   : a.nearest == "ceil"              ? std::ceil(c)
                   : a.nearest == "round_prefer_ceil" ? (frac >= 0.5 ? lo + 1 : lo)
                                                      : (frac > 0.5 ? lo + 1 : lo);
        taps[d] = {{static_cast<int64_t>(clamp(d, i)), 1.0}};
      } else if (a.antialias && scale[d] < 1) {
        // The triangle filter widened by 1 / scale around c, from the input
        // strictly left of c; edges repeat, or weigh 0 with exclude_outside.
        double left = std::ceil(c) - 1, ratio = c - left, total = 0;
        int64_t start = static_cast<int64_t>(std::floor(-1 / scale[d])) + 1;
        for (int64_t j = start; j < 2 - start; ++j) {
          double w = std::max(0.0, 1 - std::abs((static_cast<double>(j) - ratio) * scale[d]));
          int64_t i = static_cast<int64_t>(left) + j;
          if (a.exclude_outside && (i < 0 || i >= in[d])) w = 0;
          taps[d].push_back({std::clamp<int64_t>(i, 0, in[d] - 1), w});
          total += w;
        }
        for (auto& tap : taps[d]) tap.second /= total;
      } else {
        double cc = clamp(d, c), l = std::floor(cc);
        int64_t li = static_cast<int64_t>(l), hi = std::min(li + 1, in[d] - 1);
        taps[d] = {{li, 1 - (cc - l)}, {hi, cc - l}};
      }
    }
    double v = 0;
    int64_t corners = 1;
    for (auto& t : taps) corners *= static_cast<int64_t>(t.size());
    for (int64_t c = 0; c < corners; ++c) {
      Ints src(in.size());
      double w = 1;
      int64_t rest = c;
      for (size_t d = 0; d < in.size(); ++d) {
        const auto& tap = taps[d][static_cast<size_t>(rest % static_cast<int64_t>(taps[d].size()))];
        rest /= static_cast<int64_t>(taps[d].size());
        src[d] = tap.first;
        w *= tap.second;
      }
      v += w * element(x, flat(src, in));
    }
    set_element(y, e, v);
  }
  return y;
}

NDArray floats(const std::vector<double>& v) {
  return array(f32, {static_cast<int64_t>(v.size())}, v);
}

Attrs attrs_of(const ResizeAttrs& a) {
  Attrs r = {{"mode", a.mode},
             {"coordinate_transformation_mode", a.transform},
             {"nearest_mode", a.nearest}};
  if (!a.axes.empty()) r["axes"] = a.axes;
  if (a.policy != "stretch") r["keep_aspect_ratio_policy"] = a.policy;
  if (a.antialias) r["antialias"] = int64_t{1};
  if (a.exclude_outside) r["exclude_outside"] = int64_t{1};
  return r;
}

// The opset the coordinate modes' tests run at: 13, or 19 for Resize-19's mode.
int64_t opset_for(const ResizeAttrs& a) {
  return a.transform == "half_pixel_symmetric" ? 19 : 13;
}

NodeRun resize(const NDArray& x, const std::vector<double>& scales, const Ints& sizes,
               const ResizeAttrs& a, int64_t opset = 13) {
  std::vector<Input> ins = {Input::data(x), Input::absent()};
  ins.push_back(scales.empty() ? Input::absent() : Input::constant(floats(scales)));
  if (!sizes.empty()) ins.push_back(Input::constant(ints(sizes)));
  return run_node("Resize", ins, attrs_of(a), opset);
}

TEST_CASE("Resize nearest: every nearest_mode and coordinate mode, scales and sizes",
          "[onnx-ops-movement]") {
  NDArray x = random_array(f32, {1, 2, 3, 4}, 17);
  for (const char* t :
       {"half_pixel", "half_pixel_symmetric", "asymmetric", "align_corners", "pytorch_half_pixel",
        "tf_half_pixel_for_nn"})
    for (const char* m : {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"}) {
      ResizeAttrs a{"nearest", t, m};
      INFO(t << " " << m);
      const int64_t opset = opset_for(a);
      expect_close(resize(x, {1, 1, 2, 0.5}, {}, a, opset).outputs[0],
                   resize_ref(x, {1, 1, 2, 0.5}, {}, a));
      expect_close(resize(x, {1, 1, 1.7, 0.7}, {}, a, opset).outputs[0],
                   resize_ref(x, {1, 1, 1.7, 0.7}, {}, a));
      expect_close(resize(x, {}, {1, 1, 5, 7}, a, opset).outputs[0],
                   resize_ref(x, {}, {1, 1, 5, 7}, a));
    }
  // Opset 11 passes an empty scales with sizes, and a roi it ignores.
  NDArray y = random_array(i64, {2, 3}, 18);
  auto r = run_node("Resize",
                    {Input::data(y), Input::constant(NDArray(f32, {0})),
                     Input::constant(NDArray(f32, {0})), Input::constant(ints({4, 6}))},
                    {}, 11);
  expect_close(r.outputs[0], resize_ref(y, {}, {4, 6}, {}));
}

TEST_CASE("Resize nearest by whole factors reads through integer indices", "[onnx-ops-movement]") {
  NDArray x = random_array(f32, {1, 1, 3, 4}, 19);
  ResizeAttrs up{"nearest", "asymmetric", "floor"},
      half{"nearest", "half_pixel", "round_prefer_floor"};
  for (const ResizeAttrs& a : {up, half}) {
    auto r = resize(x, {1, 1, 2, 3}, {}, a);
    expect_close(r.outputs[0], resize_ref(x, {1, 1, 2, 3}, {}, a));
    std::string text = print_func(r.func);
    CHECK(text.find("floor") == std::string::npos);
    CHECK(text.find("// 3") != std::string::npos);
  }
  ResizeAttrs down{"nearest", "asymmetric", "floor"};
  auto r = resize(x, {1, 1, 1, 0.5}, {}, down);
  expect_close(r.outputs[0], resize_ref(x, {1, 1, 1, 0.5}, {}, down));
  CHECK(print_func(r.func).find("floor") == std::string::npos);
}

TEST_CASE("Resize linear: bilinear over the last two axes in every coordinate mode",
          "[onnx-ops-movement]") {
  NDArray x = random_array(f32, {1, 2, 3, 4}, 20);
  for (const char* t : {"half_pixel", "half_pixel_symmetric", "asymmetric", "align_corners",
                        "pytorch_half_pixel"}) {
    ResizeAttrs a{"linear", t, "round_prefer_floor"};
    INFO(t);
    const int64_t opset = opset_for(a);
    expect_close(resize(x, {1, 1, 2, 1.5}, {}, a, opset).outputs[0],
                 resize_ref(x, {1, 1, 2, 1.5}, {}, a));
    expect_close(resize(x, {1, 1, 0.6, 0.6}, {}, a, opset).outputs[0],
                 resize_ref(x, {1, 1, 0.6, 0.6}, {}, a));
    expect_close(resize(x, {}, {1, 2, 1, 7}, a, opset).outputs[0],
                 resize_ref(x, {}, {1, 2, 1, 7}, a));
  }
  // half_pixel_symmetric is Resize-19's.
  CHECK_THAT(build_error("Resize",
                        {Input::data(x), Input::absent(), Input::constant(floats({1, 1, 2, 2}))},
                        attrs_of({"linear", "half_pixel_symmetric", "floor"}), 18),
             Catch::Contains("'half_pixel_symmetric' is Resize-19's; opset 18 means Resize-18"));
  NDArray v = random_array(f32, {1, 3}, 21);  // an axis of extent 1 reads index 0
  ResizeAttrs a{"linear", "half_pixel", "round_prefer_floor"};
  expect_close(resize(v, {3, 2}, {}, a).outputs[0], resize_ref(v, {3, 2}, {}, a));
}

TEST_CASE("Resize-18 axes: scales and sizes list only the given axes", "[onnx-ops-movement]") {
  NDArray x = random_array(f32, {2, 3, 4, 5}, 22);
  for (const char* mode : {"nearest", "linear"}) {
    INFO(mode);
    ResizeAttrs a{mode, "half_pixel", "round_prefer_floor", {-1, 1}};
    auto r = resize(x, {1.6, 2}, {}, a, 18);
    CHECK(r.outputs[0].shape() == Shape{2, 6, 4, 8});
    expect_close(r.outputs[0], resize_ref(x, {1.6, 2}, {}, a));
    ResizeAttrs b{mode, "align_corners", "round_prefer_floor", {2}};
    expect_close(resize(x, {}, {7}, b, 18).outputs[0], resize_ref(x, {}, {7}, b));
  }
  ResizeAttrs twice{"nearest", "half_pixel", "round_prefer_floor", {3, -1}};
  CHECK_THAT(
      build_error("Resize", {Input::data(x), Input::absent(), Input::constant(floats({2, 2}))},
                  attrs_of(twice), 18),
      Catch::Contains("node 'n' (Resize)") && Catch::Contains("repeat axis 3"));
  ResizeAttrs three{"nearest", "half_pixel", "round_prefer_floor", {2, 3}};
  CHECK_THAT(
      build_error("Resize", {Input::data(x), Input::absent(), Input::constant(floats({1, 2, 2}))},
                  attrs_of(three), 18),
      Catch::Contains("one entry per axis in 'axes' (2)"));
}

TEST_CASE("Resize-18 keep_aspect_ratio_policy: one scale over the resized axes",
          "[onnx-ops-movement]") {
  NDArray x = random_array(f32, {1, 2, 4, 6}, 23);
  for (const char* mode : {"nearest", "linear"})
    for (const char* policy : {"not_larger", "not_smaller"}) {
      INFO(mode << " " << policy);
      // 7/4 = 1.75 and 9/6 = 1.5: outputs 6 x 9 (not_larger) or 7 x 11 (not_smaller,
      // 10.5 rounded half up).
      ResizeAttrs a{mode, "half_pixel", "round_prefer_floor", {2, -1}, policy};
      auto r = resize(x, {}, {7, 9}, a, 18);
      CHECK(r.outputs[0].shape() ==
            (std::string(policy) == "not_larger" ? Shape{1, 2, 6, 9} : Shape{1, 2, 7, 11}));
      expect_close(r.outputs[0], resize_ref(x, {}, {7, 9}, a));
      ResizeAttrs b{mode, "asymmetric", "floor", {2, 3}, policy};
      expect_close(resize(x, {}, {3, 5}, b, 18).outputs[0], resize_ref(x, {}, {3, 5}, b));
    }
  // Without axes every axis counts: the ratio 1 of the first two bounds not_larger.
  ResizeAttrs all{"nearest", "half_pixel", "round_prefer_floor", {}, "not_larger"};
  auto r = resize(x, {}, {1, 2, 7, 9}, all, 18);
  CHECK(r.outputs[0].shape() == x.shape());
  expect_close(r.outputs[0], resize_ref(x, {}, {1, 2, 7, 9}, all));
  all.policy = "not_smaller";  // 7/4 resizes the first two axes as well: 2 x 4 x 7 x 11
  r = resize(x, {}, {1, 2, 7, 9}, all, 18);
  CHECK(r.outputs[0].shape() == Shape{2, 4, 7, 11});
  expect_close(r.outputs[0], resize_ref(x, {}, {1, 2, 7, 9}, all));
  ResizeAttrs with_scales{"nearest", "half_pixel", "round_prefer_floor", {}, "not_larger"};
  CHECK_THAT(build_error("Resize",
                         {Input::data(x), Input::absent(), Input::constant(floats({1, 1, 2, 2}))},
                         attrs_of(with_scales), 18),
             Catch::Contains("keep_aspect_ratio_policy needs sizes"));
}

TEST_CASE("Resize-18 antialias: linear downsampling through the widened triangle filter",
          "[onnx-ops-movement]") {
  NDArray x = random_array(f32, {1, 2, 7, 9}, 24);
  for (const char* t : {"half_pixel", "asymmetric", "pytorch_half_pixel"})
    for (bool exclude : {false, true}) {
      INFO(t << " exclude_outside " << exclude);
      ResizeAttrs a{"linear", t, "round_prefer_floor", {}, "stretch", true, exclude};
      // 0.4 (five taps), 0.5 (four), and 1.5: upsampling is plain linear.
      expect_close(resize(x, {1, 1, 0.4, 0.5}, {}, a, 18).outputs[0],
                   resize_ref(x, {1, 1, 0.4, 0.5}, {}, a));
      expect_close(resize(x, {1, 1, 0.3, 1.5}, {}, a, 18).outputs[0],
                   resize_ref(x, {1, 1, 0.3, 1.5}, {}, a));
      ResizeAttrs b = a;
      b.axes = {3};
      expect_close(resize(x, {}, {4}, b, 18).outputs[0], resize_ref(x, {}, {4}, b));
    }
}

TEST_CASE("Resize refuses what it does not support, each by name", "[onnx-ops-movement]") {
  NDArray x(f32, {1, 1, 2, 2});
  auto err = [&](Attrs extra, int64_t opset = 13) {
    Attrs a = {{"mode", std::string("nearest")}};
    for (auto& [k, v] : extra) a[k] = v;
    return build_error("Resize",
                       {Input::data(x), Input::absent(), Input::constant(floats({1, 1, 2, 2}))}, a,
                       opset);
  };
  CHECK_THAT(
      err({{"mode", std::string("cubic")}}),
      Catch::Contains("node 'n' (Resize)") && Catch::Contains("mode 'cubic' is not supported"));
  CHECK_THAT(err({{"antialias", int64_t{1}}}, 18),
             Catch::Contains("antialias=1 is only supported with mode 'linear'"));
  CHECK_THAT(err({{"mode", std::string("linear")},
                  {"coordinate_transformation_mode", std::string("align_corners")},
                  {"antialias", int64_t{1}}},
                 18),
             Catch::Contains("antialias=1 with align_corners is not supported"));
  CHECK_THAT(err({{"exclude_outside", int64_t{1}}}),
             Catch::Contains("exclude_outside=1 is only supported with mode 'linear'"));
  CHECK_THAT(err({{"keep_aspect_ratio_policy", std::string("fit")}}, 18),
             Catch::Contains("keep_aspect_ratio_policy 'fit' is not one of"));
  CHECK_THAT(err({{"coordinate_transformation_mode", std::string("tf_crop_and_resize")}}),
             Catch::Contains("'tf_crop_and_resize' is not supported"));
  CHECK_THAT(err({}, 10), Catch::Contains("Resize-10"));
}

TEST_CASE("Resize errors on its operands name the node", "[onnx-ops-movement]") {
  NDArray x(f32, {1, 1, 2, 2});
  auto err = [&](std::vector<Input> more, Attrs a = {}) {
    std::vector<Input> ins = {Input::data(x)};
    ins.insert(ins.end(), more.begin(), more.end());
    return build_error("Resize", ins, std::move(a), 13);
  };
  CHECK_THAT(err({Input::absent(), Input::constant(floats({1, 2}))}),
             Catch::Contains("node 'n' (Resize)") && Catch::Contains("one entry per dimension"));
  CHECK_THAT(err({Input::absent(), Input::constant(floats({1, 1, 2, 2})),
                  Input::constant(ints({1, 1, 4, 4}))}),
             Catch::Contains("exactly one of scales"));
  CHECK_THAT(err({Input::absent(), Input::constant(floats({1, 1, 0, 2}))}),
             Catch::Contains("not positive"));
  CHECK_THAT(err({Input::absent(), Input::data(floats({1, 1, 2, 2}))}),
             Catch::Contains("must be known at compile time"));
  CHECK_THAT(err({Input::absent(), Input::constant(floats({1, 1, 2, 2}))},
                 {{"mode", std::string("bicubic")}}),
             Catch::Contains("mode 'bicubic' is not one of"));
  CHECK_THAT(err({Input::absent(), Input::constant(floats({1, 1, 2, 2}))},
                 {{"nearest_mode", std::string("up")}}),
             Catch::Contains("nearest_mode 'up'"));
  CHECK_THAT(build_error("Resize",
                         {Input::data(NDArray(i64, {2, 2})), Input::absent(),
                          Input::constant(floats({2, 2}))},
                         {{"mode", std::string("linear")}}, 13),
             Catch::Contains("mode 'linear' on int64 is not supported"));
}

// ---- the x86 code generator -----------------------------------------------------------

TEST_CASE("Data-movement kernels lower and compile for x86", "[onnx-ops-movement]") {
  NDArray x = random_array(f32, {1, 4, 2, 3}, 22);
  NDArray idx = from_ints(i64, {1, 4, 2, 1}, {1, -1, 0, 0, 2, 1, -3, 2});
  NDArray upd = random_array(f32, {1, 4, 2, 1}, 23);
  NDArray rows = from_ints(i64, {2, 2}, {0, 1, 0, 1});
  Attrs b2 = {{"blocksize", int64_t{2}}};
  std::vector<Kernel> kernels = {
      {"Tile", {Input::data(x), Input::constant(ints({2, 1, 1, 2}))}, {}, 13},
      {"DepthToSpace", {Input::data(x)}, b2, 13},
      {"DepthToSpace",
       {Input::data(x)},
       {{"blocksize", int64_t{2}}, {"mode", std::string("CRD")}},
       13},
      {"SpaceToDepth", {Input::data(random_array(f32, {1, 2, 4, 6}, 24))}, b2, 13},
      {"Trilu", {Input::data(x), Input::constant(scalar(i64, 1))}, {{"upper", int64_t{0}}}, 14},
      {"GatherElements", {Input::data(x), Input::data(idx)}, {{"axis", int64_t{-1}}}, 13},
      {"ScatterElements",
       {Input::data(x), Input::data(idx), Input::data(upd)},
       {{"axis", int64_t{3}}, {"reduction", std::string("add")}},
       16},
      {"ScatterND",
       {Input::data(x), Input::data(rows), Input::data(random_array(f32, {2, 2, 3}, 25))},
       {{"reduction", std::string("max")}},
       18},
      {"Resize",
       {Input::data(x), Input::absent(), Input::constant(floats({1, 1, 2, 2}))},
       attrs_of({"nearest", "asymmetric", "floor"}),
       13},
      {"Resize",
       {Input::data(x), Input::absent(), Input::absent(), Input::constant(ints({1, 4, 3, 5}))},
       attrs_of({"nearest", "half_pixel", "round_prefer_ceil"}),
       13},
      {"Resize",
       {Input::data(x), Input::absent(), Input::constant(floats({1, 1, 1.5, 2}))},
       attrs_of({"linear", "half_pixel", "round_prefer_floor"}),
       13},
      // Resize-18: axes, keep_aspect_ratio_policy, antialias with exclude_outside.
      {"Resize",
       {Input::data(x), Input::absent(), Input::constant(floats({1.5, 2}))},
       attrs_of({"linear", "half_pixel", "round_prefer_floor", {-1, 2}}),
       18},
      {"Resize",
       {Input::data(x), Input::absent(), Input::absent(), Input::constant(ints({4, 7}))},
       attrs_of({"nearest", "half_pixel", "round_prefer_floor", {2, 3}, "not_smaller"}),
       18},
      {"Resize",
       {Input::data(random_array(f32, {1, 2, 7, 9}, 26)), Input::absent(),
        Input::constant(floats({1, 1, 0.4, 0.5}))},
       attrs_of({"linear", "half_pixel", "round_prefer_floor", {}, "stretch", true, true}),
       18},
  };
  int compiled = compile_for_x86(kernels);
  CHECK(compiled >= static_cast<int>(kernels.size()));
}

}  // namespace
}  // namespace tirc::onnx
