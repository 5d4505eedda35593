// The layout and reduction operators of the ONNX operator library, each built
// as a one-node kernel, run in the interpreter and compared with a plain C++
// reference written here; then compiled with the x86 generator.
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <limits>
#include <map>

#include "onnx_op_run.h"

namespace tirc::onnx {
namespace {

using namespace op_test;

// ---- Reshape, Flatten, Squeeze, Unsqueeze ---------------------------------------------

NDArray with_shape(const NDArray& a, const Shape& s) {
  return gather_ref(a, s,
                    [&](const std::vector<int64_t>& i) { return unflat(flat(i, s), a.shape()); });
}

TEST_CASE("Reshape: 0 copies, -1 infers, allowzero, size-1 shapes", "[onnx-ops-b]") {
  NDArray x = random_array(f32, {2, 3, 4}, 1);
  auto r = run_node("Reshape", {Input::data(x), Input::constant(ints({4, 0, -1}))}, {}, 14);
  expect_close(r.outputs[0], with_shape(x, {4, 3, 2}));
  r = run_node("Reshape", {Input::data(x), Input::constant(ints({-1}))}, {}, 13);
  expect_close(r.outputs[0], with_shape(x, {24}));
  NDArray y = random_array(i64, {1, 6, 1, 4}, 2);
  r = run_node("Reshape", {Input::data(y), Input::constant(ints({6, 1, 4}))}, {}, 13);
  expect_close(r.outputs[0], with_shape(y, {6, 1, 4}));
  NDArray empty(f32, {0, 3, 4});
  r = run_node("Reshape", {Input::data(empty), Input::constant(ints({3, 4, 0}))},
               {{"allowzero", int64_t{1}}}, 14);
  CHECK(r.values[0].shape == Shape{3, 4, 0});
  r = run_node("Reshape", {Input::data(x)}, {{"shape", std::vector<int64_t>{6, 4}}}, 1);
  expect_close(r.outputs[0], with_shape(x, {6, 4}));
}

TEST_CASE("Reshape errors name the node", "[onnx-ops-b]") {
  NDArray x(f32, {2, 3, 4});
  CHECK_THAT(build_error("Reshape", {Input::data(x), Input::constant(ints({-1, -1}))}, {}, 14),
             Catch::Contains("node 'n' (Reshape)") && Catch::Contains("more than one -1"));
  CHECK_THAT(build_error("Reshape", {Input::data(x), Input::constant(ints({5, -1}))}, {}, 14),
             Catch::Contains("cannot infer"));
  CHECK_THAT(build_error("Reshape", {Input::data(x), Input::constant(ints({5, 5}))}, {}, 14),
             Catch::Contains("cannot reshape"));
  CHECK_THAT(build_error("Reshape", {Input::data(x), Input::data(ints({4, 6}))}, {}, 14),
             Catch::Contains("must be known at compile time"));
  CHECK_THAT(build_error("Reshape", {Input::data(x), Input::constant(ints({0, -1}))},
                         {{"allowzero", int64_t{1}}}, 14),
             Catch::Contains("both -1 and 0"));
}

TEST_CASE("Flatten at positive and negative axes", "[onnx-ops-b]") {
  NDArray x = random_array(f32, {2, 3, 4, 5}, 3);
  for (int64_t axis : {0, 1, 2, 4, -1, -3}) {
    int64_t a = axis < 0 ? axis + 4 : axis;
    int64_t outer = 1;
    for (int64_t d = 0; d < a; ++d) outer *= x.shape()[static_cast<size_t>(d)];
    auto r = run_node("Flatten", {Input::data(x)}, {{"axis", axis}}, 13);
    expect_close(r.outputs[0], with_shape(x, {outer, 120 / outer}));
  }
  auto r = run_node("Flatten", {Input::data(x)}, {}, 13);
  CHECK(r.values[0].shape == Shape{2, 60});
  CHECK_THAT(build_error("Flatten", {Input::data(x)}, {{"axis", int64_t{5}}}, 13),
             Catch::Contains("out of range"));
}

TEST_CASE("Squeeze and Unsqueeze: attribute before opset 13, input from 13", "[onnx-ops-b]") {
  NDArray x = random_array(f32, {1, 3, 1, 5}, 4);
  auto r = run_node("Squeeze", {Input::data(x), Input::constant(ints({-2}))}, {}, 13);
  expect_close(r.outputs[0], with_shape(x, {1, 3, 5}));
  r = run_node("Squeeze", {Input::data(x)}, {{"axes", std::vector<int64_t>{0}}}, 11);
  expect_close(r.outputs[0], with_shape(x, {3, 1, 5}));
  r = run_node("Squeeze", {Input::data(x)}, {}, 13);
  expect_close(r.outputs[0], with_shape(x, {3, 5}));
  CHECK_THAT(build_error("Squeeze", {Input::data(x), Input::constant(ints({1}))}, {}, 13),
             Catch::Contains("cannot squeeze axis 1"));

  NDArray y = random_array(i64, {3, 4}, 5);
  r = run_node("Unsqueeze", {Input::data(y), Input::constant(ints({-1, 0}))}, {}, 13);
  expect_close(r.outputs[0], with_shape(y, {1, 3, 4, 1}));
  r = run_node("Unsqueeze", {Input::data(y)}, {{"axes", std::vector<int64_t>{1}}}, 11);
  expect_close(r.outputs[0], with_shape(y, {3, 1, 4}));
  CHECK_THAT(build_error("Unsqueeze", {Input::data(y), Input::constant(ints({1, 1}))}, {}, 13),
             Catch::Contains("repeat"));
  CHECK_THAT(build_error("Unsqueeze", {Input::data(y)}, {{"axes", std::vector<int64_t>{1}}}, 13),
             Catch::Contains("replaced by input 1"));
}

// ---- Transpose, Expand ------------------------------------------------------------

TEST_CASE("Transpose: default reverses, perm on int64", "[onnx-ops-b]") {
  NDArray x = random_array(f32, {2, 3, 4}, 6);
  auto r = run_node("Transpose", {Input::data(x)}, {}, 13);
  expect_close(r.outputs[0], gather_ref(x, {4, 3, 2}, [](const std::vector<int64_t>& i) {
                 return std::vector<int64_t>{i[2], i[1], i[0]};
               }));
  NDArray y = random_array(i64, {2, 3, 4}, 7);
  r = run_node("Transpose", {Input::data(y)}, {{"perm", std::vector<int64_t>{1, 2, 0}}}, 13);
  expect_close(r.outputs[0], gather_ref(y, {3, 4, 2}, [](const std::vector<int64_t>& i) {
                 return std::vector<int64_t>{i[2], i[0], i[1]};
               }));
  CHECK_THAT(
      build_error("Transpose", {Input::data(x)}, {{"perm", std::vector<int64_t>{0, 0, 1}}}, 13),
      Catch::Contains("not a permutation"));
  CHECK_THAT(build_error("Transpose", {Input::data(x)}, {{"perm", std::vector<int64_t>{0, 1}}}, 13),
             Catch::Contains("one entry per dimension"));
}

TEST_CASE("Expand broadcasts both ways", "[onnx-ops-b]") {
  NDArray x = random_array(f32, {3, 1}, 8);
  auto r = run_node("Expand", {Input::data(x), Input::constant(ints({2, 1, 6}))}, {}, 13);
  expect_close(r.outputs[0], gather_ref(x, {2, 3, 6}, [](const std::vector<int64_t>& i) {
                 return std::vector<int64_t>{i[1], 0};
               }));
  CHECK_THAT(build_error("Expand", {Input::data(x), Input::constant(ints({2, 4}))}, {}, 13),
             Catch::Contains("cannot expand"));
}

// ---- Concat, Split, Slice -------------------------------------------------------

TEST_CASE("Concat of several inputs along a negative axis, and of int64", "[onnx-ops-b]") {
  NDArray a = random_array(f32, {2, 1, 3}, 9), b = random_array(f32, {2, 4, 3}, 10),
          c = random_array(f32, {2, 2, 3}, 11);
  auto r = run_node("Concat", {Input::data(a), Input::data(b), Input::data(c)},
                    {{"axis", int64_t{-2}}}, 13);
  NDArray want(f32, {2, 7, 3});
  for (int64_t k = 0; k < want.num_elements(); ++k) {
    auto i = unflat(k, want.shape());
    const NDArray& src = i[1] < 1 ? a : i[1] < 5 ? b : c;
    int64_t j = i[1] < 1 ? i[1] : i[1] < 5 ? i[1] - 1 : i[1] - 5;
    want.set_float(k, src.get_float(flat({i[0], j, i[2]}, src.shape())));
  }
  expect_close(r.outputs[0], want);

  auto s = run_node(
      "Concat", {Input::data(ints({1, 2})), Input::data(ints({3})), Input::constant(ints({-7, 8}))},
      {{"axis", int64_t{0}}}, 13);
  expect_close(s.outputs[0], ints({1, 2, 3, -7, 8}));
  CHECK_THAT(build_error("Concat", {Input::data(a), Input::data(NDArray(f32, {3, 1, 3}))},
                         {{"axis", int64_t{1}}}, 13),
             Catch::Contains("does not match input 0"));
  CHECK_THAT(build_error("Concat", {Input::data(a), Input::data(NDArray(i64, {2, 1, 3}))},
                         {{"axis", int64_t{1}}}, 13),
             Catch::Contains("is int64"));
  CHECK_THAT(build_error("Concat", {Input::data(a)}, {{"axis", int64_t{3}}}, 13),
             Catch::Contains("out of range"));
}

TEST_CASE("Split: equal parts, split attribute (opset 11) and input (opset 13)", "[onnx-ops-b]") {
  NDArray x = random_array(f32, {2, 6}, 12);
  auto part = [&](int64_t begin, int64_t n) {
    return gather_ref(x, {2, n}, [begin](const std::vector<int64_t>& i) {
      return std::vector<int64_t>{i[0], i[1] + begin};
    });
  };
  auto r = run_node("Split", {Input::data(x)}, {{"axis", int64_t{-1}}}, 13, 3);
  for (int k = 0; k < 3; ++k) expect_close(r.outputs[static_cast<size_t>(k)], part(2 * k, 2));
  r = run_node("Split", {Input::data(x), Input::constant(ints({1, 3, 2}))}, {{"axis", int64_t{1}}},
               13, 3);
  expect_close(r.outputs[0], part(0, 1));
  expect_close(r.outputs[1], part(1, 3));
  expect_close(r.outputs[2], part(4, 2));
  r = run_node("Split", {Input::data(x)},
               {{"axis", int64_t{1}}, {"split", std::vector<int64_t>{4, 2}}}, 11, 2);
  expect_close(r.outputs[0], part(0, 4));
  expect_close(r.outputs[1], part(4, 2));
  CHECK_THAT(build_error("Split", {Input::data(x)}, {{"axis", int64_t{1}}}, 13, 4),
             Catch::Contains("does not split into 4 equal parts"));
  CHECK_THAT(build_error("Split", {Input::data(x), Input::constant(ints({1, 2}))},
                         {{"axis", int64_t{1}}}, 13, 2),
             Catch::Contains("sums to 3"));
}

TEST_CASE("Split version 18: num_outputs, the last part smaller", "[onnx-ops-b]") {
  NDArray x = random_array(f32, {2, 7}, 40);
  auto part = [&](int64_t begin, int64_t n) {
    return gather_ref(x, {2, n}, [begin](const std::vector<int64_t>& i) {
      return std::vector<int64_t>{i[0], i[1] + begin};
    });
  };
  // ceil(7 / 3) = 3: parts of 3, 3 and the remaining 1.
  auto r = run_node("Split", {Input::data(x)}, {{"axis", int64_t{1}}, {"num_outputs", int64_t{3}}},
                    18, 3);
  expect_close(r.outputs[0], part(0, 3));
  expect_close(r.outputs[1], part(3, 3));
  expect_close(r.outputs[2], part(6, 1));
  // ceil(7 / 4) = 2: 2, 2, 2, 1; at opset 21 too (Split-18).
  r = run_node("Split", {Input::data(x)}, {{"axis", int64_t{-1}}, {"num_outputs", int64_t{4}}}, 21,
               4);
  for (int k = 0; k < 3; ++k) expect_close(r.outputs[static_cast<size_t>(k)], part(2 * k, 2));
  expect_close(r.outputs[3], part(6, 1));
  // The split input still works at 18.
  r = run_node("Split", {Input::data(x), Input::constant(ints({5, 2}))}, {{"axis", int64_t{1}}}, 18,
               2);
  expect_close(r.outputs[0], part(0, 5));
  expect_close(r.outputs[1], part(5, 2));
  CHECK_THAT(build_error("Split", {Input::data(x)},
                         {{"axis", int64_t{1}}, {"num_outputs", int64_t{3}}}, 18, 2),
             Catch::Contains("num_outputs 3 does not match the node's 2 outputs"));
  CHECK_THAT(build_error("Split", {Input::data(x), Input::constant(ints({5, 2}))},
                         {{"axis", int64_t{1}}, {"num_outputs", int64_t{2}}}, 18, 2),
             Catch::Contains("both given"));
  // ceil(5 / 4) = 2 leaves -1 for the last part.
  CHECK_THAT(build_error("Split", {Input::data(random_array(f32, {5}, 41))},
                         {{"num_outputs", int64_t{4}}}, 18, 4),
             Catch::Contains("axis 0 of extent 5 does not split into 4 parts of 2"));
}

// Python's slice semantics, written out: the selected positions of one axis.
std::vector<int64_t> slice_positions(int64_t dim, int64_t start, int64_t end, int64_t step) {
  auto fix = [dim](int64_t v, int64_t lo, int64_t hi) {
    if (v < 0) v = v < -dim ? lo : v + dim;
    return std::min(std::max(v, lo), hi);
  };
  std::vector<int64_t> out;
  if (step > 0) {
    for (int64_t i = fix(start, 0, dim); i < fix(end, 0, dim); i += step) out.push_back(i);
  } else {
    for (int64_t i = fix(start, -1, dim - 1); i > fix(end, -1, dim - 1); i += step)
      out.push_back(i);
  }
  return out;
}

NDArray slice_ref(const NDArray& x, const std::vector<int64_t>& starts,
                  const std::vector<int64_t>& ends, std::vector<int64_t> axes,
                  std::vector<int64_t> steps) {
  int64_t rank = static_cast<int64_t>(x.shape().size());
  std::vector<std::vector<int64_t>> pos;
  for (int64_t d : x.shape()) {
    std::vector<int64_t> all;
    for (int64_t i = 0; i < d; ++i) all.push_back(i);
    pos.push_back(all);
  }
  if (axes.empty())
    for (size_t k = 0; k < starts.size(); ++k) axes.push_back(static_cast<int64_t>(k));
  if (steps.empty()) steps.assign(starts.size(), 1);
  for (size_t k = 0; k < starts.size(); ++k) {
    size_t a = static_cast<size_t>(axes[k] < 0 ? axes[k] + rank : axes[k]);
    pos[a] = slice_positions(x.shape()[a], starts[k], ends[k], steps[k]);
  }
  Shape out;
  for (auto& p : pos) out.push_back(static_cast<int64_t>(p.size()));
  return gather_ref(x, out, [&](const std::vector<int64_t>& i) {
    std::vector<int64_t> src;
    for (size_t d = 0; d < i.size(); ++d) src.push_back(pos[d][static_cast<size_t>(i[d])]);
    return src;
  });
}

TEST_CASE("Slice: negative steps, clamping, INT64 bounds, negative axes", "[onnx-ops-b]") {
  NDArray x = random_array(f32, {6, 5, 4}, 13);
  struct Case {
    std::vector<int64_t> starts, ends, axes, steps;
  };
  std::vector<Case> cases = {
      {{1, 0}, {4, 3}, {0, 1}, {}},
      {{-1}, {kMin}, {-2}, {-1}},
      {{kMax, 1}, {0, 100}, {2, 0}, {-2, 2}},
      {{-100}, {kMax}, {1}, {3}},
      {{3, -2, 0}, {-7, 0, 4}, {0, 1, 2}, {-1, -1, 3}},
      {{10}, {20}, {0}, {1}},  // empty
      {{0, 0}, {-1, 2}, {}, {}},
  };
  for (const Case& c : cases) {
    std::vector<Input> ins{Input::data(x), Input::constant(ints(c.starts)),
                           Input::constant(ints(c.ends))};
    ins.push_back(c.axes.empty() ? Input::absent() : Input::constant(ints(c.axes)));
    ins.push_back(c.steps.empty() ? Input::absent() : Input::constant(ints(c.steps)));
    NDArray want = slice_ref(x, c.starts, c.ends, c.axes, c.steps);
    if (want.num_elements() == 0) {  // an empty result: only its shape
      const OpDef* def = find_op("", "Slice");
      Graph g = graph_of(13);
      Node node = node_of("Slice", 5, 1, {}, {true, true, true, !c.axes.empty(), !c.steps.empty()});
      KernelBuilder kb("k");
      std::vector<TensorValue> vals{
          TensorValue::of_buffer(kb.add_param("x", f32, x.shape()), x.shape())};
      for (size_t i = 1; i < ins.size(); ++i)
        vals.push_back(ins[i].known
                           ? TensorValue::of_constant(std::make_shared<NDArray>(ins[i].array))
                           : TensorValue{});
      OpContext ctx(g, node, vals, kb);
      CHECK(def->build(ctx)[0].shape == want.shape());
      continue;
    }
    expect_close(run_node("Slice", ins, {}, 13).outputs[0], want);
  }
  // Opset 1: attributes.
  auto r = run_node("Slice", {Input::data(x)},
                    {{"starts", std::vector<int64_t>{1, -3}},
                     {"ends", std::vector<int64_t>{kMax, -1}},
                     {"axes", std::vector<int64_t>{0, 2}}},
                    1);
  expect_close(r.outputs[0], slice_ref(x, {1, -3}, {kMax, -1}, {0, 2}, {}));
  CHECK_THAT(build_error("Slice",
                         {Input::data(x), Input::constant(ints({0})), Input::constant(ints({1})),
                          Input::constant(ints({0})), Input::constant(ints({0}))},
                         {}, 13),
             Catch::Contains("step 0"));
  CHECK_THAT(
      build_error("Slice",
                  {Input::data(x), Input::constant(ints({0})), Input::constant(ints({1, 2}))}, {},
                  13),
      Catch::Contains("differ in length"));
  CHECK_THAT(build_error("Slice",
                         {Input::data(x), Input::constant(ints({0, 0})),
                          Input::constant(ints({1, 1})), Input::constant(ints({1, -2}))},
                         {}, 13),
             Catch::Contains("repeat"));
}

// ---- Gather, Pad ------------------------------------------------------------------

NDArray gather_axis_ref(const NDArray& data, const NDArray& idx, int64_t axis) {
  Shape out(data.shape().begin(), data.shape().begin() + axis);
  out.insert(out.end(), idx.shape().begin(), idx.shape().end());
  out.insert(out.end(), data.shape().begin() + axis + 1, data.shape().end());
  size_t q = idx.shape().size();
  int64_t dim = data.shape()[static_cast<size_t>(axis)];
  return gather_ref(data, out, [&](const std::vector<int64_t>& i) {
    std::vector<int64_t> at(i.begin() + axis, i.begin() + axis + static_cast<int64_t>(q));
    int64_t j = idx.get_int(flat(at, idx.shape()));
    if (j < 0) j += dim;
    std::vector<int64_t> src(i.begin(), i.begin() + axis);
    src.push_back(j);
    src.insert(src.end(), i.begin() + axis + static_cast<int64_t>(q), i.end());
    return src;
  });
}

TEST_CASE("Gather: run-time and known indices, negative indices, int64 data", "[onnx-ops-b]") {
  NDArray x = random_array(f32, {3, 5, 2}, 14);
  NDArray idx(i64, {2, 2});
  for (int64_t k = 0; k < 4; ++k)
    idx.set_int(k, std::vector<int64_t>{0, -1, 3, -5}[static_cast<size_t>(k)]);
  for (Input in : {Input::data(idx), Input::both(idx), Input::constant(idx)}) {
    auto r = run_node("Gather", {Input::data(x), in}, {{"axis", int64_t{-2}}}, 13);
    expect_close(r.outputs[0], gather_axis_ref(x, idx, 1));
  }
  NDArray y = random_array(i64, {4, 3}, 15);
  NDArray idx32 = ints({2, -4, 1}, i32);
  expect_close(run_node("Gather", {Input::data(y), Input::data(idx32)}, {}, 13).outputs[0],
               gather_axis_ref(y, idx32, 0));
  NDArray scalar(i64, {});
  scalar.set_int(0, -1);
  auto r =
      run_node("Gather", {Input::data(y), Input::constant(scalar)}, {{"axis", int64_t{1}}}, 13);
  expect_close(r.outputs[0], gather_axis_ref(y, scalar, 1));
  CHECK(r.values[0].shape == Shape{4});
  NDArray big(i64, {300});
  CHECK_THAT(build_error("Transpose", {Input::constant(big)}, {}, 13),
             Catch::Contains("node 'n' (Transpose): input 0 is a constant of 300 elements"));
  CHECK_THAT(build_error("Gather", {Input::data(y), Input::constant(ints({4}))}, {}, 13),
             Catch::Contains("index 4 is out of range"));
  CHECK_THAT(build_error("Gather", {Input::data(y), Input::data(array(f32, {1}, {0}))}, {}, 13),
             Catch::Contains("indices must be"));
}

NDArray pad_ref(const NDArray& x, const std::vector<int64_t>& pads, const std::string& mode,
                double value) {
  size_t rank = x.shape().size();
  Shape out;
  for (size_t d = 0; d < rank; ++d) out.push_back(x.shape()[d] + pads[d] + pads[d + rank]);
  NDArray y(x.dtype(), out);
  for (int64_t k = 0; k < y.num_elements(); ++k) {
    auto i = unflat(k, out);
    bool inside = true;
    for (size_t d = 0; d < rank; ++d) {
      int64_t n = x.shape()[d], j = i[d] - pads[d];
      if (mode == "edge") j = std::min(std::max(j, int64_t{0}), n - 1);
      if (mode == "reflect") j = j < 0 ? -j : j >= n ? 2 * (n - 1) - j : j;
      inside = inside && j >= 0 && j < n;
      i[d] = j;
    }
    double v = inside ? x.get_float(flat(i, x.shape())) : value;
    y.set_float(k, v);
  }
  return y;
}

TEST_CASE("Pad: constant, reflect, edge; pads attribute and input", "[onnx-ops-b]") {
  NDArray x = random_array(f32, {1, 3, 4, 5}, 16);
  std::vector<int64_t> pads{0, 0, 1, 2, 0, 1, 2, 3};
  NDArray fill(f32, {});
  fill.set_float(0, 1.5);
  auto r = run_node("Pad", {Input::data(x), Input::constant(ints(pads)), Input::data(fill)},
                    {{"mode", std::string("constant")}}, 13);
  expect_close(r.outputs[0], pad_ref(x, pads, "constant", 1.5));
  r = run_node("Pad", {Input::data(x), Input::constant(ints(pads))},
               {{"mode", std::string("reflect")}}, 13);
  expect_close(r.outputs[0], pad_ref(x, pads, "reflect", 0));
  NDArray xi = random_array(i32, {1, 3, 4, 5}, 17);
  r = run_node("Pad", {Input::data(xi), Input::constant(ints(pads))},
               {{"mode", std::string("edge")}}, 13);
  expect_close(r.outputs[0], pad_ref(xi, pads, "edge", 0));
  r = run_node("Pad", {Input::data(xi), Input::constant(ints(pads))},
               {{"mode", std::string("reflect")}}, 13);
  expect_close(r.outputs[0], pad_ref(xi, pads, "reflect", 0));
  // Opset 2: attributes; negative pads crop.
  std::vector<int64_t> crop{0, -1, 2, 0, 0, 0, -1, 1};
  r = run_node("Pad", {Input::data(x)}, {{"pads", crop}, {"value", 2.0}}, 2);
  NDArray want = pad_ref(gather_ref(x, {1, 2, 4, 5},
                                    [](const std::vector<int64_t>& i) {
                                      return std::vector<int64_t>{i[0], i[1] + 1, i[2], i[3]};
                                    }),
                         {0, 0, 2, 0, 0, 0, -1, 1}, "constant", 2.0);
  expect_close(r.outputs[0], want);
  CHECK_THAT(build_error("Pad", {Input::data(x), Input::constant(ints(pads))},
                         {{"mode", std::string("wrap")}}, 13),
             Catch::Contains("mode 'wrap'"));
  CHECK_THAT(build_error("Pad", {Input::data(x), Input::constant(ints({0, 0, 4, 0, 0, 0, 0, 0}))},
                         {{"mode", std::string("reflect")}}, 13),
             Catch::Contains("smaller than the extent"));
  CHECK_THAT(build_error("Pad", {Input::data(x), Input::constant(ints({0, 0}))}, {}, 13),
             Catch::Contains("2 * rank"));
}

// numpy's pad(mode="wrap") after negative pads crop (onnxruntime's order): per
// axis, the source positions of the output, built by repeating the kept
// positions cyclically before and after them.
NDArray wrap_pad_ref(const NDArray& x, const std::vector<int64_t>& pads) {
  size_t rank = x.shape().size();
  std::vector<std::vector<int64_t>> source(rank);
  for (size_t d = 0; d < rank; ++d) {
    int64_t n = x.shape()[d], lo = pads[d], hi = pads[d + rank];
    std::vector<int64_t> kept;
    for (int64_t j = std::max<int64_t>(0, -lo); j < n - std::max<int64_t>(0, -hi); ++j)
      kept.push_back(j);
    auto cyclic = [&kept](int64_t k) {
      int64_t m = static_cast<int64_t>(kept.size());
      return kept[static_cast<size_t>((k % m + m) % m)];
    };
    std::vector<int64_t>& src = source[d];
    for (int64_t k = -std::max<int64_t>(lo, 0);
         k < static_cast<int64_t>(kept.size()) + std::max<int64_t>(hi, 0); ++k)
      src.push_back(cyclic(k));
  }
  Shape out;
  for (const auto& src : source) out.push_back(static_cast<int64_t>(src.size()));
  return gather_ref(x, out, [&](const std::vector<int64_t>& i) {
    std::vector<int64_t> from;
    for (size_t d = 0; d < rank; ++d) from.push_back(source[d][static_cast<size_t>(i[d])]);
    return from;
  });
}

TEST_CASE("Pad version 18: axes input; version 19: wrap", "[onnx-ops-b]") {
  NDArray x = random_array(f32, {1, 3, 4, 5}, 42);
  // axes [2, -1]: pads are begin(2), begin(3), end(2), end(3).
  NDArray fill(f32, {});
  fill.set_float(0, -2.5);
  auto r = run_node("Pad",
                    {Input::data(x), Input::constant(ints({1, 2, 0, 3})), Input::data(fill),
                     Input::constant(ints({2, -1}))},
                    {}, 18);
  expect_close(r.outputs[0], pad_ref(x, {0, 0, 1, 2, 0, 0, 0, 3}, "constant", -2.5));
  for (const char* mode : {"edge", "reflect"}) {
    INFO(mode);
    r = run_node("Pad",
                 {Input::data(x), Input::constant(ints({2, 1})), Input::absent(),
                  Input::constant(ints({-2}))},
                 {{"mode", std::string(mode)}}, 21);
    expect_close(r.outputs[0], pad_ref(x, {0, 0, 2, 0, 0, 0, 1, 0}, mode, 0));
  }
  // wrap, pads longer than the axis, and after a crop of the other end.
  for (std::vector<int64_t> pads : {std::vector<int64_t>{0, 0, 2, 7, 0, 0, 3, 1},
                                    std::vector<int64_t>{0, 1, -1, 3, 0, 0, 2, -2}}) {
    r = run_node("Pad", {Input::data(x), Input::constant(ints(pads))},
                 {{"mode", std::string("wrap")}}, 19);
    expect_close(r.outputs[0], wrap_pad_ref(x, pads));
  }
  NDArray xi = random_array(i64, {3, 4}, 43);
  r = run_node(
      "Pad",
      {Input::data(xi), Input::constant(ints({5, 1})), Input::absent(), Input::constant(ints({1}))},
      {{"mode", std::string("wrap")}}, 21);
  expect_close(r.outputs[0], wrap_pad_ref(xi, {0, 5, 0, 1}));
  CHECK_THAT(build_error("Pad", {Input::data(x), Input::constant(ints({0, 0, 1, 1, 0, 0, 1, 1}))},
                         {{"mode", std::string("wrap")}}, 18),
             Catch::Contains("mode 'wrap' is not one of constant, reflect, edge"));
  CHECK_THAT(build_error("Pad", {Input::data(x), Input::constant(ints({0, 0, 1, 1, 0, 0, 1, 1}))},
                         {{"mode", std::string("circular")}}, 19),
             Catch::Contains("is not one of constant, reflect, edge, wrap"));
  CHECK_THAT(build_error("Pad",
                         {Input::data(x), Input::constant(ints({1, 1})), Input::absent(),
                          Input::constant(ints({0}))},
                         {}, 17),
             Catch::Contains("input 3 (axes) is new in opset 18"));
  CHECK_THAT(build_error("Pad",
                         {Input::data(x), Input::constant(ints({1, 1, 1})), Input::absent(),
                          Input::constant(ints({0, 1}))},
                         {}, 18),
             Catch::Contains("must have 2 * 2 entries for axes [0, 1]"));
  CHECK_THAT(build_error("Pad",
                         {Input::data(x), Input::constant(ints({1, -3})), Input::absent(),
                          Input::constant(ints({1}))},
                         {{"mode", std::string("wrap")}}, 19),
             Catch::Contains("wrap padding of axis 1 with no element left to repeat"));
}

// ---- Identity, Dropout, Constant, Shape, Size, ConstantOfShape ---------------------------

TEST_CASE("Identity and Dropout pass the input; Dropout's mask is all true", "[onnx-ops-b]") {
  NDArray x = random_array(f32, {3, 4}, 18);
  expect_close(run_node("Identity", {Input::data(x)}, {}, 16).outputs[0], x);
  NDArray ratio(f32, {});
  ratio.set_float(0, 0.5);
  auto r =
      run_node("Dropout", {Input::data(x), Input::constant(ratio)}, {{"seed", int64_t{0}}}, 13, 2);
  expect_close(r.outputs[0], x);
  NDArray ones(DataType::boolean(), {3, 4});
  for (int64_t k = 0; k < 12; ++k) ones.set_int(k, 1);
  expect_close(r.outputs[1], ones);
  NDArray training(DataType::boolean(), {});
  training.set_int(0, 1);
  CHECK_THAT(
      build_error("Dropout", {Input::data(x), Input::constant(ratio), Input::constant(training)},
                  {}, 13),
      Catch::Contains("training mode"));
}

TEST_CASE("Constant, Shape, Size and ConstantOfShape give values", "[onnx-ops-b]") {
  auto tensor = std::make_shared<const NDArray>(array(f32, {2}, {1.5, -2}));
  auto r = run_node("Constant", {}, {{"value", tensor}}, 13);
  expect_close(r.outputs[0], *tensor);
  CHECK(r.values[0].value);
  expect_close(
      run_node("Constant", {}, {{"value_floats", std::vector<double>{0.25, 4}}}, 13).outputs[0],
      array(f32, {2}, {0.25, 4}));
  expect_close(
      run_node("Constant", {}, {{"value_ints", std::vector<int64_t>{7, -8}}}, 13).outputs[0],
      ints({7, -8}));
  NDArray seven(i64, {});
  seven.set_int(0, 7);
  expect_close(run_node("Constant", {}, {{"value_int", int64_t{7}}}, 13).outputs[0], seven);
  CHECK_THAT(build_error("Constant", {}, {{"sparse_value", tensor}}, 13),
             Catch::Contains("'sparse_value'"));

  NDArray x = random_array(f32, {3, 4, 5}, 19);
  expect_close(run_node("Shape", {Input::data(x)}, {}, 13).outputs[0], ints({3, 4, 5}));
  expect_close(run_node("Shape", {Input::data(x)}, {{"start", int64_t{-2}}}, 15).outputs[0],
               ints({4, 5}));
  expect_close(
      run_node("Shape", {Input::data(x)}, {{"start", int64_t{1}}, {"end", int64_t{-1}}}, 15)
          .outputs[0],
      ints({4}));
  expect_close(
      run_node("Shape", {Input::data(x)}, {{"start", int64_t{-10}}, {"end", int64_t{10}}}, 15)
          .outputs[0],
      ints({3, 4, 5}));
  CHECK(run_node("Shape", {Input::data(x)}, {{"start", int64_t{2}}, {"end", int64_t{1}}}, 15)
            .values[0]
            .shape == Shape{0});
  NDArray sixty(i64, {});
  sixty.set_int(0, 60);
  expect_close(run_node("Size", {Input::data(x)}, {}, 13).outputs[0], sixty);

  auto one = std::make_shared<const NDArray>(ints({3}, i32));
  NDArray want(i32, {2, 3});
  for (int64_t k = 0; k < 6; ++k) want.set_int(k, 3);
  expect_close(
      run_node("ConstantOfShape", {Input::constant(ints({2, 3}))}, {{"value", one}}, 9).outputs[0],
      want);
}

// ---- reductions ---------------------------------------------------------------------

// Reduces x over `axes` (all when empty) with f(values) per output element.
NDArray reduce_ref(const NDArray& x, std::vector<int64_t> axes, bool keepdims,
                   const std::function<double(const std::vector<double>&)>& f) {
  int64_t rank = static_cast<int64_t>(x.shape().size());
  std::vector<bool> red(static_cast<size_t>(rank), axes.empty());
  for (int64_t a : axes) red[static_cast<size_t>(a < 0 ? a + rank : a)] = true;
  Shape kept;
  for (size_t d = 0; d < red.size(); ++d) kept.push_back(red[d] ? 1 : x.shape()[d]);
  std::vector<std::vector<double>> groups(static_cast<size_t>(count(kept)));
  for (int64_t k = 0; k < x.num_elements(); ++k) {
    auto i = unflat(k, x.shape());
    for (size_t d = 0; d < red.size(); ++d)
      if (red[d]) i[d] = 0;
    groups[static_cast<size_t>(flat(i, kept))].push_back(x.get_float(k));
  }
  Shape out;
  for (size_t d = 0; d < red.size(); ++d)
    if (!red[d] || keepdims) out.push_back(kept[d]);
  NDArray y(x.dtype(), out);
  for (size_t g = 0; g < groups.size(); ++g) y.set_float(static_cast<int64_t>(g), f(groups[g]));
  return y;
}

double sum_of(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s;
}

TEST_CASE("ReduceSum/Mean/Max/Min: axes, keepdims, opset forms", "[onnx-ops-b]") {
  NDArray x = random_array(f32, {3, 4, 5}, 20);
  auto mean = [](const std::vector<double>& v) {
    return sum_of(v) / static_cast<double>(v.size());
  };
  auto mx = [](const std::vector<double>& v) { return *std::max_element(v.begin(), v.end()); };
  auto mn = [](const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); };
  for (bool keep : {true, false}) {
    for (bool leave : {false, true}) {
      Attrs a{{"keepdims", int64_t{keep}}, {"axes", std::vector<int64_t>{0, -1}}};
      expect_close(run_node("ReduceMean", {Input::data(x)}, a, 13, 1, leave).outputs[0],
                   reduce_ref(x, {0, 2}, keep, mean));
      expect_close(run_node("ReduceMax", {Input::data(x)}, a, 13, 1, leave).outputs[0],
                   reduce_ref(x, {0, 2}, keep, mx));
      expect_close(run_node("ReduceMin", {Input::data(x)}, a, 11, 1, leave).outputs[0],
                   reduce_ref(x, {0, 2}, keep, mn));
      expect_close(run_node("ReduceSum", {Input::data(x), Input::constant(ints({-2}))},
                            {{"keepdims", int64_t{keep}}}, 13, 1, leave)
                       .outputs[0],
                   reduce_ref(x, {1}, keep, sum_of));
    }
  }
  // Empty axes: everything (a 0-d result without keepdims).
  auto r = run_node("ReduceMean", {Input::data(x)}, {{"keepdims", int64_t{0}}}, 13);
  CHECK(r.values[0].shape.empty());
  expect_close(r.outputs[0], reduce_ref(x, {}, false, mean));
  expect_close(run_node("ReduceSum", {Input::data(x), Input::constant(NDArray(i64, {0}))}, {}, 13)
                   .outputs[0],
               reduce_ref(x, {}, true, sum_of));
  expect_close(
      run_node("ReduceSum", {Input::data(x)}, {{"axes", std::vector<int64_t>{1}}}, 11).outputs[0],
      reduce_ref(x, {1}, true, sum_of));
  // noop_with_empty_axes: the input.
  expect_close(run_node("ReduceSum", {Input::data(x), Input::constant(NDArray(i64, {0}))},
                        {{"noop_with_empty_axes", int64_t{1}}}, 13)
                   .outputs[0],
               x);
  // int64
  NDArray y = random_array(i64, {4, 3}, 21);
  expect_close(
      run_node("ReduceSum", {Input::data(y), Input::constant(ints({0}))}, {}, 13).outputs[0],
      reduce_ref(y, {0}, true, sum_of));
  expect_close(
      run_node("ReduceMax", {Input::data(y)}, {{"axes", std::vector<int64_t>{1}}}, 13).outputs[0],
      reduce_ref(y, {1}, true, mx));
  CHECK_THAT(build_error("ReduceMean", {Input::data(x)}, {{"axes", std::vector<int64_t>{3}}}, 13),
             Catch::Contains("out of range"));
  CHECK_THAT(build_error("ReduceSum", {Input::data(x)}, {{"axes", std::vector<int64_t>{0}}}, 13),
             Catch::Contains("replaced by input 1"));
  CHECK_THAT(build_error("ReduceMean", {Input::data(y)}, {}, 13),
             Catch::Contains("int64 is not supported"));
}

TEST_CASE("ReduceSumSquare, Prod, L1, L2, LogSum, LogSumExp", "[onnx-ops-b]") {
  NDArray x = random_array(f32, {2, 3, 4}, 22);
  NDArray pos = x;
  for (int64_t k = 0; k < pos.num_elements(); ++k) pos.set_float(k, std::abs(x.get_float(k)) + 0.5);
  Attrs a{{"axes", std::vector<int64_t>{1}}, {"keepdims", int64_t{0}}};
  auto apply = [](auto g) {
    return [g](const std::vector<double>& v) {
      double s = 0;
      for (double e : v) s += g(e);
      return s;
    };
  };
  expect_close(run_node("ReduceSumSquare", {Input::data(x)}, a, 13).outputs[0],
               reduce_ref(x, {1}, false, apply([](double e) { return e * e; })));
  expect_close(run_node("ReduceL1", {Input::data(x)}, a, 13).outputs[0],
               reduce_ref(x, {1}, false, apply([](double e) { return std::abs(e); })));
  expect_close(run_node("ReduceL2", {Input::data(x)}, a, 13).outputs[0],
               reduce_ref(x, {1}, false, [&](const std::vector<double>& v) {
                 return std::sqrt(apply([](double e) { return e * e; })(v));
               }));
  expect_close(run_node("ReduceLogSum", {Input::data(pos)}, a, 13).outputs[0],
               reduce_ref(pos, {1}, false,
                          [](const std::vector<double>& v) { return std::log(sum_of(v)); }));
  expect_close(run_node("ReduceLogSumExp", {Input::data(x)}, a, 13).outputs[0],
               reduce_ref(x, {1}, false, [&](const std::vector<double>& v) {
                 return std::log(apply([](double e) { return std::exp(e); })(v));
               }));
  expect_close(run_node("ReduceProd", {Input::data(x)}, a, 13).outputs[0],
               reduce_ref(x, {1}, false, [](const std::vector<double>& v) {
                 double p = 1;
                 for (double e : v) p *= e;
                 return p;
               }));
}

TEST_CASE("Reduce* version 18: axes from input 1, noop_with_empty_axes", "[onnx-ops-b]") {
  NDArray x = random_array(f32, {3, 4, 5}, 44);
  NDArray pos = x;
  for (int64_t k = 0; k < pos.num_elements(); ++k) pos.set_float(k, std::abs(x.get_float(k)) + 0.5);
  using Values = const std::vector<double>&;
  auto fold = [](double init, auto g) {
    return [init, g](Values v) {
      double a = init;
      for (double e : v) a = g(a, e);
      return a;
    };
  };
  struct Case {
    const char* op;
    std::function<double(Values)> f;
    bool positive = false;  // the input must be positive (a logarithm)
  };
  const Case cases[] = {
      {"ReduceMean", [](Values v) { return sum_of(v) / static_cast<double>(v.size()); }},
      {"ReduceMax", [](Values v) { return *std::max_element(v.begin(), v.end()); }},
      {"ReduceMin", [](Values v) { return *std::min_element(v.begin(), v.end()); }},
      {"ReduceProd", fold(1, [](double a, double e) { return a * e; })},
      {"ReduceSumSquare", fold(0, [](double a, double e) { return a + e * e; })},
      {"ReduceL1", fold(0, [](double a, double e) { return a + std::abs(e); })},
      {"ReduceL2",
       [&](Values v) {
         return std::sqrt(fold(0, [](double a, double e) { return a + e * e; })(v));
       }},
      {"ReduceLogSum", [](Values v) { return std::log(sum_of(v)); }, true},
      {"ReduceLogSumExp",
       [&](Values v) {
         return std::log(fold(0, [](double a, double e) { return a + std::exp(e); })(v));
       }},
  };
  for (const Case& c : cases) {
    INFO(c.op);
    const NDArray& in = c.positive ? pos : x;
    for (int64_t opset : {18, 21}) {
      for (bool keep : {true, false}) {
        Attrs a{{"keepdims", int64_t{keep}}};
        expect_close(
            run_node(c.op, {Input::data(in), Input::constant(ints({0, -1}))}, a, opset, 1, true)
                .outputs[0],
            reduce_ref(in, {0, 2}, keep, c.f), 1e-5, 1e-5);
      }
    }
    // No axes, or empty axes: all of them, unless noop_with_empty_axes.
    expect_close(run_node(c.op, {Input::data(in)}, {{"keepdims", int64_t{0}}}, 18).outputs[0],
                 reduce_ref(in, {}, false, c.f), 1e-5, 1e-5);
    expect_close(
        run_node(c.op, {Input::data(in), Input::constant(NDArray(i64, {0}))}, {}, 18).outputs[0],
        reduce_ref(in, {}, true, c.f), 1e-5, 1e-5);
    // noop_with_empty_axes reduces each element alone: |x| for ReduceL2.
    NDArray alone = in;
    for (int64_t k = 0; k < in.num_elements(); ++k) alone.set_float(k, c.f({in.get_float(k)}));
    expect_close(
        run_node(c.op, {Input::data(in)}, {{"noop_with_empty_axes", int64_t{1}}}, 18).outputs[0],
        alone, 1e-5, 1e-5);
    CHECK_THAT(build_error(c.op, {Input::data(in)}, {{"axes", std::vector<int64_t>{0}}}, 18),
               Catch::Contains("attribute 'axes' was replaced by input 1 in opset 18"));
    CHECK_THAT(build_error(c.op, {Input::data(in), Input::constant(ints({0}))}, {}, 17),
               Catch::Contains("axes must be an attribute before opset 18"));
    CHECK_THAT(build_error(c.op, {Input::data(in), Input::data(ints({0}))}, {}, 18),
               Catch::Contains("must be known at compile time"));
  }
}

TEST_CASE("ReduceMax and ReduceMin version 20 take bool: any and all", "[onnx-ops-b]") {
  NDArray b = random_array(DataType::boolean(), {4, 3, 2}, 45);
  b.set_int(0, 1);  // one row all true, one all false
  b.set_int(1, 1);
  b.set_int(2, 0);
  b.set_int(3, 0);
  auto any = [](const std::vector<double>& v) { return *std::max_element(v.begin(), v.end()); };
  auto all = [](const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); };
  for (bool keep : {true, false}) {
    for (bool leave : {false, true}) {
      Attrs a{{"keepdims", int64_t{keep}}};
      expect_close(
          run_node("ReduceMax", {Input::data(b), Input::constant(ints({-1}))}, a, 20, 1, leave)
              .outputs[0],
          reduce_ref(b, {2}, keep, any));
      expect_close(
          run_node("ReduceMin", {Input::data(b), Input::constant(ints({1, 2}))}, a, 21, 1, leave)
              .outputs[0],
          reduce_ref(b, {1, 2}, keep, all));
    }
  }
  expect_close(run_node("ReduceMax", {Input::data(b)}, {}, 20).outputs[0],
               reduce_ref(b, {}, true, any));
  CHECK_THAT(build_error("ReduceMax", {Input::data(b), Input::constant(ints({0}))}, {}, 18),
             Catch::Contains("input type bool is not supported before opset 20"));
  CHECK_THAT(build_error("ReduceSum", {Input::data(b), Input::constant(ints({0}))}, {}, 21),
             Catch::Contains("input type bool is not supported"));
}

// Softmax of x over the dims in `axes` (a group per combination of the others).
NDArray softmax_ref(const NDArray& x, const std::vector<int64_t>& axes, bool log) {
  NDArray m = reduce_ref(x, axes, true, [](const std::vector<double>& v) {
    return *std::max_element(v.begin(), v.end());
  });
  NDArray e(f32, x.shape());
  Shape kept = m.shape();
  auto group = [&](int64_t k) {
    auto i = unflat(k, x.shape());
    for (size_t d = 0; d < i.size(); ++d)
      if (kept[d] == 1) i[d] = 0;
    return flat(i, kept);
  };
  for (int64_t k = 0; k < x.num_elements(); ++k)
    e.set_float(k, std::exp(x.get_float(k) - m.get_float(group(k))));
  NDArray s = reduce_ref(e, axes, true, sum_of);
  NDArray y(f32, x.shape());
  for (int64_t k = 0; k < x.num_elements(); ++k) {
    double sh = x.get_float(k) - m.get_float(group(k));
    y.set_float(k,
                log ? sh - std::log(s.get_float(group(k))) : std::exp(sh) / s.get_float(group(k)));
  }
  return y;
}

TEST_CASE("Softmax and LogSoftmax: one axis from opset 13, coerced 2-D before", "[onnx-ops-b]") {
  NDArray x = random_array(f32, {3, 4, 5}, 23);
  for (bool log : {false, true}) {
    const char* op = log ? "LogSoftmax" : "Softmax";
    expect_close(run_node(op, {Input::data(x)}, {}, 13).outputs[0], softmax_ref(x, {2}, log));
    expect_close(run_node(op, {Input::data(x)}, {{"axis", int64_t{0}}}, 13).outputs[0],
                 softmax_ref(x, {0}, log));
    expect_close(run_node(op, {Input::data(x)}, {{"axis", int64_t{-2}}}, 13, 1, true).outputs[0],
                 softmax_ref(x, {1}, log));
    // Opset 11: axis 1 (the default) normalizes over dims 1 and 2 together.
    expect_close(run_node(op, {Input::data(x)}, {}, 11).outputs[0], softmax_ref(x, {1, 2}, log));
    expect_close(run_node(op, {Input::data(x)}, {{"axis", int64_t{-1}}}, 11).outputs[0],
                 softmax_ref(x, {2}, log));
    expect_close(run_node(op, {Input::data(x)}, {{"axis", int64_t{0}}}, 1).outputs[0],
                 softmax_ref(x, {0, 1, 2}, log));
    CHECK_THAT(build_error(op, {Input::data(x)}, {{"axis", int64_t{3}}}, 13),
               Catch::Contains("out of range"));
  }
  // Large inputs stay finite: the maximum is subtracted first.
  NDArray big = array(f32, {2, 4}, {10000, 10001, 10002, 10003, 0, 1, 2, 3});
  expect_close(run_node("Softmax", {Input::data(big)}, {}, 13).outputs[0],
               softmax_ref(big, {1}, false));
  expect_close(run_node("LogSoftmax", {Input::data(big)}, {}, 13).outputs[0],
               softmax_ref(big, {1}, true));
}

struct LayerNormRef {
  NDArray y, mean, inv;
};

LayerNormRef layer_norm_ref(const NDArray& x, const NDArray& w, const NDArray* b, int64_t axis,
                            double eps) {
  int64_t rank = static_cast<int64_t>(x.shape().size());
  if (axis < 0) axis += rank;
  std::vector<int64_t> axes;
  for (int64_t d = axis; d < rank; ++d) axes.push_back(d);
  LayerNormRef r;
  r.mean = reduce_ref(x, axes, true, [](const std::vector<double>& v) {
    return sum_of(v) / static_cast<double>(v.size());
  });
  r.inv = reduce_ref(x, axes, true, [&](const std::vector<double>& v) {
    double m = sum_of(v) / static_cast<double>(v.size()), s = 0;
    for (double e : v) s += (e - m) * (e - m);
    return 1 / std::sqrt(s / static_cast<double>(v.size()) + eps);
  });
  r.y = NDArray(f32, x.shape());
  int64_t inner = count(w.shape());
  for (int64_t k = 0; k < x.num_elements(); ++k) {
    int64_t g = k / count(Shape(x.shape().begin() + axis, x.shape().end()));
    double v = (x.get_float(k) - r.mean.get_float(g)) * r.inv.get_float(g) * w.get_float(k % inner);
    if (b) v += b->get_float(k % count(b->shape()));
    r.y.set_float(k, v);
  }
  return r;
}

TEST_CASE("LayerNormalization: axis, epsilon, Mean and InvStdDev outputs", "[onnx-ops-b]") {
  NDArray x = random_array(f32, {2, 3, 4}, 24);
  NDArray w = random_array(f32, {3, 4}, 25), b = random_array(f32, {3, 4}, 26);
  auto r = run_node("LayerNormalization", {Input::data(x), Input::data(w), Input::data(b)},
                    {{"axis", int64_t{-2}}, {"epsilon", 1e-3}}, 17, 3);
  LayerNormRef want = layer_norm_ref(x, w, &b, 1, 1e-3);
  expect_close(r.outputs[0], want.y, 1e-4, 1e-5);
  expect_close(r.outputs[1], want.mean, 1e-4, 1e-5);
  expect_close(r.outputs[2], want.inv, 1e-4, 1e-5);
  // As kernel outputs: the parameters follow the node's output order.
  r = run_node("LayerNormalization", {Input::data(x), Input::data(w), Input::data(b)},
               {{"axis", int64_t{-2}}, {"epsilon", 1e-3}}, 17, 3, true);
  REQUIRE(r.func->params.size() == 6);
  for (size_t k = 0; k < 3; ++k) CHECK(r.func->params[3 + k].buffer == r.values[k].buffer);
  expect_close(r.outputs[0], want.y, 1e-4, 1e-5);
  expect_close(r.outputs[2], want.inv, 1e-4, 1e-5);
  NDArray w1 = random_array(f32, {4}, 27);
  r = run_node("LayerNormalization", {Input::data(x), Input::data(w1)}, {}, 17, 1, true);
  expect_close(r.outputs[0], layer_norm_ref(x, w1, nullptr, -1, 1e-5).y, 1e-4, 1e-5);
  r = run_node("LayerNormalization",
               {Input::data(x), Input::data(NDArray(f32, {2, 3, 4})), Input::data(x)},
               {{"axis", int64_t{0}}}, 17, 1);
  expect_close(r.outputs[0], x);  // scale 0, bias x
  CHECK_THAT(build_error("LayerNormalization", {Input::data(x), Input::data(w1)},
                         {{"stash_type", int64_t{2}}}, 17),
             Catch::Contains("stash_type 2"));
  CHECK_THAT(
      build_error("LayerNormalization", {Input::data(x), Input::data(NDArray(f32, {3}))}, {}, 17),
      Catch::Contains("do not broadcast"));
}

TEST_CASE("Reductions read inlined inputs: Softmax of a Transpose in one kernel", "[onnx-ops-b]") {
  NDArray x = random_array(f32, {4, 3}, 28);
  Graph g = graph_of(13);
  KernelBuilder kb("k");
  Buffer px = kb.add_param("x", f32, {4, 3});
  Node t = node_of("Transpose", 1, 1, {});
  OpContext tctx(g, t, {TensorValue::of_buffer(px, {4, 3})}, kb);
  TensorValue xt = find_op("", "Transpose")->build(tctx)[0];
  REQUIRE(xt.element);
  Node s = node_of("Softmax", 1, 1, {{"axis", int64_t{1}}});
  OpContext sctx(g, s, {xt}, kb, {true});
  TensorValue y = find_op("", "Softmax")->build(sctx)[0];
  REQUIRE(y.buffer);
  PrimFunc f = kb.finish();
  REQUIRE(f->params.size() == 2);
  NDArray out(f32, {3, 4});
  NDArray in = x;
  run(f, {{&in, 0, 0}, {&out, 0, 0}});
  NDArray xtr = gather_ref(x, {3, 4}, [](const std::vector<int64_t>& i) {
    return std::vector<int64_t>{i[1], i[0]};
  });
  expect_close(out, softmax_ref(xtr, {1}, false));
}

// ---- the x86 code generator -----------------------------------------------------------

TEST_CASE("Shape and reduction kernels lower and compile for x86", "[onnx-ops-b]") {
  NDArray x = random_array(f32, {2, 3, 4}, 29);
  NDArray idx = ints({2, -1, 0});
  std::vector<Kernel> kernels = {
      {"Reshape", {Input::data(x), Input::constant(ints({4, -1}))}, {}, 14},
      {"Flatten", {Input::data(x)}, {}, 13},
      {"Transpose", {Input::data(x)}, {{"perm", std::vector<int64_t>{2, 0, 1}}}, 13},
      {"Concat", {Input::data(x), Input::data(x)}, {{"axis", int64_t{1}}}, 13},
      {"Split", {Input::data(x)}, {{"axis", int64_t{2}}}, 13, 2},
      {"Slice",
       {Input::data(x), Input::constant(ints({-1})), Input::constant(ints({kMin})),
        Input::constant(ints({2})), Input::constant(ints({-2}))},
       {},
       13},
      {"Gather", {Input::data(x), Input::data(idx)}, {{"axis", int64_t{2}}}, 13},
      {"Gather", {Input::data(random_array(i64, {5, 2}, 3)), Input::data(idx)}, {}, 13},
      {"Squeeze", {Input::data(random_array(f32, {1, 3}, 4))}, {}, 13},
      {"Unsqueeze", {Input::data(x), Input::constant(ints({1}))}, {}, 13},
      {"Expand",
       {Input::data(random_array(f32, {3, 1}, 5)), Input::constant(ints({2, 3, 4}))},
       {},
       13},
      {"Pad",
       {Input::data(x), Input::constant(ints({0, 1, 2, 0, 1, 1}))},
       {{"mode", std::string("constant")}},
       13},
      {"Pad",
       {Input::data(x), Input::constant(ints({0, 1, 2, 0, 1, 1}))},
       {{"mode", std::string("reflect")}},
       13},
      {"Pad",
       {Input::data(x), Input::constant(ints({0, 1, 2, 0, 1, 1}))},
       {{"mode", std::string("edge")}},
       13},
      {"Dropout", {Input::data(x)}, {}, 13, 2},
      {"ReduceSum", {Input::data(x), Input::constant(ints({1}))}, {{"keepdims", int64_t{0}}}, 13},
      {"ReduceMean", {Input::data(x)}, {}, 13},
      {"ReduceMax", {Input::data(x)}, {{"axes", std::vector<int64_t>{0, 2}}}, 13},
      {"ReduceMin", {Input::data(x)}, {{"axes", std::vector<int64_t>{-1}}}, 13},
      {"ReduceLogSumExp", {Input::data(x)}, {{"axes", std::vector<int64_t>{-1}}}, 13},
      {"ReduceMean", {Input::data(x), Input::constant(ints({0, 2}))}, {}, 18},
      {"ReduceL2", {Input::data(x), Input::constant(ints({-1}))}, {{"keepdims", int64_t{0}}}, 21},
      {"ReduceMax",
       {Input::data(random_array(DataType::boolean(), {2, 3, 4}, 8)), Input::constant(ints({1}))},
       {},
       20},
      {"ReduceMin",
       {Input::data(random_array(DataType::boolean(), {2, 3, 4}, 9)), Input::constant(ints({2}))},
       {{"keepdims", int64_t{0}}},
       20},
      {"Split", {Input::data(x)}, {{"axis", int64_t{1}}, {"num_outputs", int64_t{2}}}, 18, 2},
      {"Pad",
       {Input::data(x), Input::constant(ints({1, 2})), Input::absent(), Input::constant(ints({1}))},
       {{"mode", std::string("reflect")}},
       18},
      {"Pad",
       {Input::data(x), Input::constant(ints({0, 1, 5, 0, -1, 2}))},
       {{"mode", std::string("wrap")}},
       19},
      {"Softmax", {Input::data(x)}, {}, 13},
      {"LogSoftmax", {Input::data(x)}, {}, 11},
      {"LayerNormalization",
       {Input::data(x), Input::data(random_array(f32, {4}, 6)),
        Input::data(random_array(f32, {4}, 7))},
       {},
       17,
       3},
  };
  int compiled = compile_for_x86(kernels);
  CHECK(compiled >= static_cast<int>(kernels.size()));
}

}  // namespace
}  // namespace tirc::onnx
