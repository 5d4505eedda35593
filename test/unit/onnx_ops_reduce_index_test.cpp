// ArgMax, ArgMin, TopK, CumSum, InstanceNormalization, GroupNormalization and
// Einsum, each built as a one-node kernel, run in the interpreter and compared
// with a plain C++ reference written here; then compiled with the x86
// generator. Also the bool masks of the comparison and logical operators.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <numeric>

#include "onnx_op_run.h"

namespace tirc::onnx {
namespace {

using namespace op_test;

// The dims of `shape` other than `axis`; idx(outer, p) the full index with p at axis.
struct AlongAxis {
  Shape shape;
  size_t axis;
  Shape outer() const {
    Shape s = shape;
    s[axis] = 1;
    return s;
  }
  std::vector<int64_t> at(int64_t outer_flat, int64_t p) const {
    std::vector<int64_t> i = unflat(outer_flat, outer());
    i[axis] = p;
    return i;
  }
};

// Without keepdims the size-1 axis of a keepdims result is dropped (same data).
NDArray drop_axis(NDArray kept, size_t axis) {
  Shape s = kept.shape();
  s.erase(s.begin() + static_cast<std::ptrdiff_t>(axis));
  NDArray out(kept.dtype(), s);
  for (int64_t k = 0; k < out.num_elements(); ++k) out.set_int(k, kept.get_int(k));
  return out;
}

// ---- ArgMax, ArgMin -------------------------------------------------------------------

NDArray arg_ref(const NDArray& x, int64_t axis, bool keepdims, bool last, bool is_max) {
  size_t a = static_cast<size_t>(axis < 0 ? axis + static_cast<int64_t>(x.shape().size()) : axis);
  AlongAxis along{x.shape(), a};
  NDArray out(i64, along.outer());
  for (int64_t o = 0; o < out.num_elements(); ++o) {
    int64_t best = 0;
    bool nan = false;  // a NaN wins (the first, or the last), as in numpy
    for (int64_t p = 0; p < x.shape()[a]; ++p) {
      double v = x.get_float(flat(along.at(o, p), x.shape()));
      double b = x.get_float(flat(along.at(o, best), x.shape()));
      if (std::isnan(v)) {
        if (!nan || last) best = p;
        nan = true;
      } else if (!nan && ((is_max ? v > b : v < b) || (last && v == b))) {
        best = p;
      }
    }
    out.set_int(o, best);
  }
  return keepdims ? out : drop_axis(out, a);
}

TEST_CASE("ArgMax and ArgMin: axis, keepdims, ties first or last, NaN", "[onnx-ops-ri]") {
  // Rows with ties; an int64 tensor with ties everywhere.
  NDArray x = array(f32, {3, 4}, {1, 5, 5, 2, -1, -1, -3, -3, 7, 0, 7, 0});
  NDArray y = random_array(i64, {2, 3, 4}, 1);
  for (int64_t v = 0; v < y.num_elements(); ++v) y.set_int(v, y.get_int(v) % 3);
  for (bool is_max : {true, false}) {
    const char* op = is_max ? "ArgMax" : "ArgMin";
    for (bool keep : {true, false})
      for (bool last : {false, true})
        for (int64_t axis : {0, -1}) {
          INFO(op << " keepdims " << keep << " last " << last << " axis " << axis);
          Attrs a{
              {"axis", axis}, {"keepdims", int64_t{keep}}, {"select_last_index", int64_t{last}}};
          auto r = run_node(op, {Input::data(x)}, a, 13, 1, !keep);
          expect_close(r.outputs[0], arg_ref(x, axis, keep, last, is_max));
          expect_close(run_node(op, {Input::data(y)}, a, 12).outputs[0],
                       arg_ref(y, axis, keep, last, is_max));
        }
    NDArray with_nan = array(f32, {3, 3}, {1, NAN, 3, NAN, 5, NAN, -INFINITY, -INFINITY, 0});
    for (bool last : {false, true})
      expect_close(run_node(op, {Input::data(with_nan)},
                            {{"axis", int64_t{1}}, {"select_last_index", int64_t{last}}}, 13)
                       .outputs[0],
                   arg_ref(with_nan, 1, true, last, is_max));
    // A vector reduces to a 0-d position without keepdims.
    NDArray v = array(f32, {4}, {2, -1, 7, 7});
    auto r = run_node(op, {Input::data(v)}, {{"keepdims", int64_t{0}}}, 13);
    CHECK(r.values[0].shape.empty());
    expect_close(r.outputs[0], arg_ref(v, 0, false, false, is_max));
    // Defaults: axis 0, keepdims, first index; opset 11 has no select_last_index.
    expect_close(run_node(op, {Input::data(y)}, {}, 11).outputs[0],
                 arg_ref(y, 0, true, false, is_max));
  }
}

TEST_CASE("ArgMax refusals name the node", "[onnx-ops-ri]") {
  NDArray x(f32, {2, 3});
  CHECK_THAT(build_error("ArgMax", {Input::data(x)}, {{"select_last_index", int64_t{1}}}, 11),
             Catch::Contains("node 'n' (ArgMax)") && Catch::Contains("needs opset 12"));
  CHECK_THAT(build_error("ArgMin", {Input::data(NDArray(DataType::boolean(), {2}))}, {}, 13),
             Catch::Contains("bool is not a numeric type"));
  CHECK_THAT(build_error("ArgMax", {Input::data(NDArray(f32, {}))}, {}, 13),
             Catch::Contains("at least one dimension"));
  CHECK_THAT(build_error("ArgMax", {Input::data(x)}, {{"axis", int64_t{2}}}, 13),
             Catch::Contains("out of range"));
}

// ---- TopK -------------------------------------------------------------------------------

struct TopKRef {
  NDArray values, indices;
};

// A stable sort of each line: ties keep the lower index first.
TopKRef top_k_ref(const NDArray& x, int64_t axis, int64_t k, bool largest) {
  size_t a = static_cast<size_t>(axis < 0 ? axis + static_cast<int64_t>(x.shape().size()) : axis);
  AlongAxis along{x.shape(), a};
  Shape out_shape = x.shape();
  out_shape[a] = k;
  AlongAxis out_along{out_shape, a};
  TopKRef r{NDArray(x.dtype(), out_shape), NDArray(i64, out_shape)};
  for (int64_t o = 0; o < count(along.outer()); ++o) {
    std::vector<int64_t> order(static_cast<size_t>(x.shape()[a]));
    std::iota(order.begin(), order.end(), 0);
    auto value = [&](int64_t p) { return x.get_float(flat(along.at(o, p), x.shape())); };
    // NaN is greater than every number (onnxruntime's order).
    auto greater = [](double u, double v) { return u > v || (std::isnan(u) && !std::isnan(v)); };
    std::stable_sort(order.begin(), order.end(), [&](int64_t p, int64_t q) {
      return largest ? greater(value(p), value(q)) : greater(value(q), value(p));
    });
    for (int64_t p = 0; p < k; ++p) {
      int64_t at = flat(out_along.at(o, p), out_shape);
      r.values.set_float(at, value(order[static_cast<size_t>(p)]));
      r.indices.set_int(at, order[static_cast<size_t>(p)]);
    }
  }
  return r;
}

NDArray scalar_i64(int64_t v) {
  NDArray a(i64, {});
  a.set_int(0, v);
  return a;
}

TEST_CASE("TopK: largest and smallest, ties lower index first, NaN, k as input or attribute",
          "[onnx-ops-ri]") {
  NDArray x = array(f32, {3, 5}, {3, 1, 3, 2, 3, 0, -1, 4, 4, -1, 2, 2, 2, 2, 2});
  for (bool largest : {true, false})
    for (int64_t axis : {-1, 0})
      for (bool leave : {false, true}) {
        INFO("largest " << largest << " axis " << axis << " leave " << leave);
        int64_t k = axis == 0 ? 2 : 3;
        auto r = run_node("TopK", {Input::data(x), Input::constant(ints({k}))},
                          {{"axis", axis}, {"largest", int64_t{largest}}}, 11, 2, leave);
        TopKRef want = top_k_ref(x, axis, k, largest);
        expect_close(r.outputs[0], want.values);
        expect_close(r.outputs[1], want.indices);
      }
  NDArray with_nan = array(f32, {2, 4}, {1, NAN, 3, NAN, NAN, -INFINITY, 2, -INFINITY});
  for (bool largest : {true, false}) {
    auto r = run_node("TopK", {Input::data(with_nan), Input::constant(ints({4}))},
                      {{"largest", int64_t{largest}}}, 11, 2);
    TopKRef want = top_k_ref(with_nan, -1, 4, largest);
    expect_close(r.outputs[0], want.values);
    expect_close(r.outputs[1], want.indices);
  }
  NDArray y = random_array(i32, {2, 3, 4}, 2);
  auto r = run_node("TopK", {Input::data(y), Input::constant(ints({4}))},
                    {{"axis", int64_t{2}}, {"sorted", int64_t{0}}}, 11, 2);
  expect_close(r.outputs[1], top_k_ref(y, 2, 4, true).indices);
  r = run_node("TopK", {Input::data(x), Input::constant(ints({1}))}, {}, 10, 2);
  expect_close(r.outputs[0], top_k_ref(x, -1, 1, true).values);
  r = run_node("TopK", {Input::data(x)}, {{"k", int64_t{2}}}, 1, 2);
  expect_close(r.outputs[1], top_k_ref(x, -1, 2, true).indices);
}

TEST_CASE("TopK refusals name the node", "[onnx-ops-ri]") {
  NDArray x(f32, {2, 3});
  CHECK_THAT(build_error("TopK", {Input::data(x), Input::constant(ints({4}))}, {}, 11, 2),
             Catch::Contains("node 'n' (TopK)") && Catch::Contains("k 4 is outside [1, 3]"));
  CHECK_THAT(build_error("TopK", {Input::data(x), Input::data(ints({2}))}, {}, 11, 2),
             Catch::Contains("must be known at compile time"));
  CHECK_THAT(build_error("TopK", {Input::data(x), Input::constant(ints({1, 2}))}, {}, 11, 2),
             Catch::Contains("one element"));
  CHECK_THAT(
      build_error("TopK", {Input::data(x), Input::constant(ints({1}))}, {{"k", int64_t{1}}}, 10, 2),
      Catch::Contains("replaced by input 1"));
  CHECK_THAT(build_error("TopK", {Input::data(x), Input::constant(ints({1}))},
                         {{"largest", int64_t{0}}}, 10, 2),
             Catch::Contains("needs opset 11"));
  CHECK_THAT(build_error("TopK", {Input::data(x)}, {}, 9, 2), Catch::Contains("'k'"));
}

// ---- CumSum ---------------------------------------------------------------------------

NDArray cumsum_ref(const NDArray& x, int64_t axis, bool exclusive, bool reverse) {
  size_t a = static_cast<size_t>(axis < 0 ? axis + static_cast<int64_t>(x.shape().size()) : axis);
  AlongAxis along{x.shape(), a};
  int64_t n = x.shape()[a];
  NDArray y(x.dtype(), x.shape());
  for (int64_t o = 0; o < count(along.outer()); ++o) {
    double sum = 0;
    for (int64_t s = 0; s < n; ++s) {
      int64_t p = reverse ? n - 1 - s : s;
      int64_t at = flat(along.at(o, p), x.shape());
      if (!exclusive) sum += x.get_float(at);
      y.set_float(at, sum);
      if (exclusive) sum += x.get_float(at);
    }
  }
  return y;
}

TEST_CASE("CumSum: exclusive, reverse, axis as a scalar or one-element tensor", "[onnx-ops-ri]") {
  NDArray x = random_array(f32, {3, 4}, 3);
  for (bool exclusive : {false, true})
    for (bool reverse : {false, true})
      for (int64_t axis : {0, -1}) {
        INFO("exclusive " << exclusive << " reverse " << reverse << " axis " << axis);
        Attrs a{{"exclusive", int64_t{exclusive}}, {"reverse", int64_t{reverse}}};
        auto r = run_node("CumSum", {Input::data(x), Input::constant(scalar_i64(axis))}, a, 14);
        expect_close(r.outputs[0], cumsum_ref(x, axis, exclusive, reverse));
      }
  NDArray y = random_array(i64, {2, 5}, 4);
  expect_close(
      run_node("CumSum", {Input::data(y), Input::constant(ints({1}, i32))}, {}, 11, 1, true)
          .outputs[0],
      cumsum_ref(y, 1, false, false));
}

TEST_CASE("CumSum refusals name the node", "[onnx-ops-ri]") {
  NDArray x(f32, {2, 3});
  CHECK_THAT(
      build_error("CumSum", {Input::data(x), Input::data(scalar_i64(0))}, {}, 14),
      Catch::Contains("node 'n' (CumSum)") && Catch::Contains("must be known at compile time"));
  CHECK_THAT(build_error("CumSum", {Input::data(x), Input::constant(ints({0, 1}))}, {}, 14),
             Catch::Contains("scalar or a one-element tensor"));
  CHECK_THAT(build_error("CumSum", {Input::data(x), Input::constant(scalar_i64(2))}, {}, 14),
             Catch::Contains("out of range"));
}

// ---- InstanceNormalization, GroupNormalization --------------------------------------------

// X (N, C, ...) normalized per (n, group of C / groups channels); scale and
// bias per group (param_per_group) or per channel.
NDArray group_norm_ref(const NDArray& x, const NDArray& scale, const NDArray& bias, int64_t groups,
                       bool param_per_group, double eps) {
  int64_t n = x.shape()[0], c = x.shape()[1], size = count(x.shape()) / (n * c);
  int64_t per = c / groups * size;  // elements of one (n, group)
  NDArray y(f32, x.shape());
  for (int64_t s = 0; s < n * groups; ++s) {
    double mean = 0, var = 0;
    for (int64_t e = 0; e < per; ++e) mean += x.get_float(s * per + e);
    mean /= static_cast<double>(per);
    for (int64_t e = 0; e < per; ++e) var += std::pow(x.get_float(s * per + e) - mean, 2);
    var /= static_cast<double>(per);
    for (int64_t e = 0; e < per; ++e) {
      int64_t at = s * per + e, channel = at / size % c;
      int64_t p = param_per_group ? channel / (c / groups) : channel;
      double v = (x.get_float(at) - mean) / std::sqrt(var + eps);
      y.set_float(at, v * scale.get_float(p) + bias.get_float(p));
    }
  }
  return y;
}

TEST_CASE("InstanceNormalization: per-channel statistics, scale and bias", "[onnx-ops-ri]") {
  NDArray x = random_array(f32, {2, 3, 2, 3}, 5);
  NDArray s = random_array(f32, {3}, 6), b = random_array(f32, {3}, 7);
  auto r = run_node("InstanceNormalization", {Input::data(x), Input::data(s), Input::data(b)},
                    {{"epsilon", 1e-2}}, 6, 1, true);
  expect_close(r.outputs[0], group_norm_ref(x, s, b, 3, false, 1e-2), 1e-4, 1e-5);
  NDArray x3 = random_array(f32, {1, 3, 5}, 8);
  r = run_node("InstanceNormalization", {Input::data(x3), Input::data(s), Input::data(b)}, {}, 6);
  expect_close(r.outputs[0], group_norm_ref(x3, s, b, 3, false, 1e-5), 1e-4, 1e-5);
}

TEST_CASE("GroupNormalization: scale per group in opset 18, per channel in 21", "[onnx-ops-ri]") {
  NDArray x = random_array(f32, {2, 6, 3}, 9);
  NDArray sg = random_array(f32, {3}, 10), bg = random_array(f32, {3}, 11);
  auto r = run_node("GroupNormalization", {Input::data(x), Input::data(sg), Input::data(bg)},
                    {{"num_groups", int64_t{3}}, {"epsilon", 1e-3}}, 18);
  expect_close(r.outputs[0], group_norm_ref(x, sg, bg, 3, true, 1e-3), 1e-4, 1e-5);
  NDArray sc = random_array(f32, {6}, 12), bc = random_array(f32, {6}, 13);
  r = run_node("GroupNormalization", {Input::data(x), Input::data(sc), Input::data(bc)},
               {{"num_groups", int64_t{2}}}, 21, 1, true);
  expect_close(r.outputs[0], group_norm_ref(x, sc, bc, 2, false, 1e-5), 1e-4, 1e-5);
  r = run_node("GroupNormalization", {Input::data(x), Input::data(sc), Input::data(bc)},
               {{"num_groups", int64_t{6}}, {"stash_type", int64_t{1}}}, 21);
  expect_close(r.outputs[0], group_norm_ref(x, sc, bc, 6, false, 1e-5), 1e-4, 1e-5);
}

TEST_CASE("Normalization refusals name the node", "[onnx-ops-ri]") {
  NDArray x(f32, {2, 6, 3}), s3(f32, {3}), s6(f32, {6});
  CHECK_THAT(
      build_error("InstanceNormalization",
                  {Input::data(NDArray(f32, {2, 3})), Input::data(s3), Input::data(s3)}, {}, 6),
      Catch::Contains("node 'n' (InstanceNormalization)") && Catch::Contains("rank 3 or more"));
  CHECK_THAT(build_error("InstanceNormalization",
                         {Input::data(x), Input::data(s3), Input::data(s6)}, {}, 6),
             Catch::Contains("scale has shape [3], expected [6]"));
  CHECK_THAT(build_error("GroupNormalization", {Input::data(x), Input::data(s6), Input::data(s6)},
                         {{"num_groups", int64_t{3}}}, 18),
             Catch::Contains("one value per group before opset 21"));
  CHECK_THAT(build_error("GroupNormalization", {Input::data(x), Input::data(s6), Input::data(s6)},
                         {{"num_groups", int64_t{4}}}, 21),
             Catch::Contains("does not divide"));
  CHECK_THAT(build_error("GroupNormalization", {Input::data(x), Input::data(s6), Input::data(s6)},
                         {{"num_groups", int64_t{3}}, {"stash_type", int64_t{0}}}, 21),
             Catch::Contains("stash_type 0"));
  CHECK_THAT(
      build_error("GroupNormalization", {Input::data(x), Input::data(s6), Input::data(s6)}, {}, 21),
      Catch::Contains("'num_groups'"));
  CHECK_THAT(
      build_error("InstanceNormalization",
                  {Input::data(random_array(i32, {1, 3, 2}, 1)), Input::data(s3), Input::data(s3)},
                  {}, 6),
      Catch::Contains("not a float type"));
}

// ---- Einsum ---------------------------------------------------------------------------------

// Sums the product of the operands over every assignment of the letters
// (terms without "..."); the output holds the letters of `out` in order.
NDArray einsum_ref(const std::vector<std::string>& terms, const std::string& out,
                   const std::vector<NDArray>& xs) {
  std::map<char, int64_t> extent;
  for (size_t k = 0; k < terms.size(); ++k)
    for (size_t d = 0; d < terms[k].size(); ++d)
      extent[terms[k][d]] = std::max(extent[terms[k][d]], xs[k].shape()[d]);
  std::vector<char> letters;
  Shape all;
  for (const auto& [c, e] : extent) {
    letters.push_back(c);
    all.push_back(e);
  }
  Shape out_shape;
  for (char c : out) out_shape.push_back(extent[c]);
  NDArray y(xs[0].dtype(), out_shape);
  std::vector<double> acc(static_cast<size_t>(count(out_shape)), 0.0);
  for (int64_t a = 0; a < count(all); ++a) {
    std::vector<int64_t> at = unflat(a, all);
    auto value_of = [&](char c) {
      return at[static_cast<size_t>(std::find(letters.begin(), letters.end(), c) -
                                    letters.begin())];
    };
    double p = 1;
    for (size_t k = 0; k < terms.size(); ++k) {
      std::vector<int64_t> idx;
      for (size_t d = 0; d < terms[k].size(); ++d)
        idx.push_back(xs[k].shape()[d] == 1 ? 0 : value_of(terms[k][d]));
      p *= xs[k].get_float(flat(idx, xs[k].shape()));
    }
    std::vector<int64_t> oi;
    for (char c : out) oi.push_back(value_of(c));
    acc[static_cast<size_t>(flat(oi, out_shape))] += p;
  }
  for (size_t k = 0; k < acc.size(); ++k) y.set_float(static_cast<int64_t>(k), acc[k]);
  return y;
}

std::vector<Input> data_inputs(const std::vector<NDArray>& xs) {
  std::vector<Input> ins;
  for (const NDArray& x : xs) ins.push_back(Input::data(x));
  return ins;
}

TEST_CASE("Einsum: matmuls, transposes, reductions, outer products, diagonals", "[onnx-ops-ri]") {
  struct Case {
    std::string equation;
    std::vector<std::string> terms;
    std::string out;  // the output's letters (the implicit ones written out)
    std::vector<Shape> shapes;
  };
  std::vector<Case> cases = {
      {"bij,bjk->bik", {"bij", "bjk"}, "bik", {{2, 3, 4}, {2, 4, 2}}},
      {"bhqd,bhkd->bhqk", {"bhqd", "bhkd"}, "bhqk", {{1, 2, 3, 4}, {1, 2, 2, 4}}},
      {"ij,jk->ik", {"ij", "jk"}, "ik", {{3, 4}, {4, 2}}},
      {"ij,jk", {"ij", "jk"}, "ik", {{3, 4}, {4, 2}}},
      {"ij->ji", {"ij"}, "ji", {{3, 4}}},
      {"ij->i", {"ij"}, "i", {{3, 4}}},
      {"i,j->ij", {"i", "j"}, "ij", {{3}, {4}}},
      {"i,i", {"i", "i"}, "", {{5}, {5}}},
      {"ii->i", {"ii"}, "i", {{3, 3}}},
      {"ii", {"ii"}, "", {{3, 3}}},
      {"ij,jk,kl->il", {"ij", "jk", "kl"}, "il", {{2, 3}, {3, 2}, {2, 3}}},
      {"ij,ij->ij", {"ij", "ij"}, "ij", {{1, 3}, {2, 3}}},
      {"ba", {"ba"}, "ab", {{3, 2}}},
      {" i j -> j i ", {"ij"}, "ji", {{2, 3}}},
  };
  uint64_t seed = 20;
  for (const Case& c : cases) {
    INFO(c.equation);
    std::vector<NDArray> xs;
    for (const Shape& s : c.shapes) xs.push_back(random_array(f32, s, ++seed));
    auto r = run_node("Einsum", data_inputs(xs), {{"equation", c.equation}}, 12, 1, true);
    expect_close(r.outputs[0], einsum_ref(c.terms, c.out, xs), 1e-5, 1e-5);
  }
  // Ellipses: the same as letters, and broadcast (1 against 2).
  NDArray a = random_array(f32, {2, 3, 4}, 40), b = random_array(f32, {2, 4, 2}, 41);
  expect_close(
      run_node("Einsum", {Input::data(a), Input::data(b)}, {{"equation", "...ij,...jk->...ik"}}, 12)
          .outputs[0],
      einsum_ref({"bij", "bjk"}, "bik", {a, b}), 1e-5, 1e-5);
  NDArray a1 = random_array(f32, {1, 3, 4}, 42);
  expect_close(
      run_node("Einsum", {Input::data(a1), Input::data(b)}, {{"equation", "...ij,...jk"}}, 12)
          .outputs[0],
      einsum_ref({"bij", "bjk"}, "bik", {a1, b}), 1e-5, 1e-5);
  NDArray v = random_array(f32, {2, 3, 4}, 43);
  expect_close(run_node("Einsum", {Input::data(v)}, {{"equation", "i...->..."}}, 12).outputs[0],
               einsum_ref({"ijk"}, "jk", {v}), 1e-5, 1e-5);
  NDArray m = random_array(i64, {3, 4}, 44), n = random_array(i64, {4}, 45);
  expect_close(run_node("Einsum", {Input::data(m), Input::data(n)}, {{"equation", "ij,j->i"}}, 12)
                   .outputs[0],
               einsum_ref({"ij", "j"}, "i", {m, n}));
}

TEST_CASE("Einsum refusals name the node", "[onnx-ops-ri]") {
  NDArray a(f32, {2, 3}), b(f32, {4, 5});
  auto error = [&](const std::string& eq, const std::vector<NDArray>& xs) {
    return build_error("Einsum", data_inputs(xs), {{"equation", eq}}, 12);
  };
  CHECK_THAT(error("ij,jk->ik", {a, b}), Catch::Contains("node 'n' (Einsum)") &&
                                             Catch::Contains("subscript 'j' has extents 3 and 4"));
  CHECK_THAT(error("ij->ii", {a}), Catch::Contains("'i' is repeated"));
  CHECK_THAT(error("ij->k", {a}), Catch::Contains("'k' is in no input term"));
  CHECK_THAT(error("ij", {a, a}), Catch::Contains("1 input terms for 2 inputs"));
  CHECK_THAT(error("ijk", {a}), Catch::Contains("does not match input 0"));
  CHECK_THAT(error("i2", {a}), Catch::Contains("subscripts are letters"));
  CHECK_THAT(error("i......", {a}), Catch::Contains("more than one ellipsis"));
  CHECK_THAT(error("...j->j", {a}), Catch::Contains("has no '...'"));
  CHECK_THAT(error("...i,...i", {NDArray(f32, {2, 3}), NDArray(f32, {4, 3})}),
             Catch::Contains("do not broadcast"));
  CHECK_THAT(error("", {a}), Catch::Contains("'equation'"));
  CHECK_THAT(build_error("Einsum", {Input::data(a), Input::data(random_array(i64, {3}, 1))},
                         {{"equation", "ij,j"}}, 12),
             Catch::Contains("input 1 has type int64, input 0 float32"));
}

// ---- bool masks -----------------------------------------------------------------------------

TEST_CASE("Comparison and logical operators write bool masks as kernel outputs", "[onnx-ops-ri]") {
  NDArray x = random_array(f32, {2, 3}, 50), y = random_array(f32, {3}, 51);
  NDArray p = random_array(DataType::boolean(), {2, 3}, 52),
          q = random_array(DataType::boolean(), {2, 3}, 53);
  auto mask = [](const NDArray& a, const std::function<bool(int64_t)>& f) {
    NDArray m(DataType::boolean(), a.shape());
    for (int64_t k = 0; k < m.num_elements(); ++k) m.set_int(k, f(k));
    return m;
  };
  auto xv = [&](int64_t k) { return x.get_float(k); };
  auto yv = [&](int64_t k) { return y.get_float(k % 3); };
  std::vector<std::pair<std::string, std::function<bool(int64_t)>>> compares = {
      {"Equal", [&](int64_t k) { return xv(k) == yv(k); }},
      {"Less", [&](int64_t k) { return xv(k) < yv(k); }},
      {"Greater", [&](int64_t k) { return xv(k) > yv(k); }},
      {"LessOrEqual", [&](int64_t k) { return xv(k) <= yv(k); }},
      {"GreaterOrEqual", [&](int64_t k) { return xv(k) >= yv(k); }},
  };
  for (const auto& [op, f] : compares) {
    INFO(op);
    expect_close(run_node(op, {Input::data(x), Input::data(y)}, {}, 16, 1, true).outputs[0],
                 mask(x, f));
  }
  auto pv = [&](int64_t k) { return p.get_int(k) != 0; };
  auto qv = [&](int64_t k) { return q.get_int(k) != 0; };
  expect_close(run_node("And", {Input::data(p), Input::data(q)}, {}, 7, 1, true).outputs[0],
               mask(p, [&](int64_t k) { return pv(k) && qv(k); }));
  expect_close(run_node("Or", {Input::data(p), Input::data(q)}, {}, 7, 1, true).outputs[0],
               mask(p, [&](int64_t k) { return pv(k) || qv(k); }));
  expect_close(run_node("Xor", {Input::data(p), Input::data(q)}, {}, 7, 1, true).outputs[0],
               mask(p, [&](int64_t k) { return pv(k) != qv(k); }));
  expect_close(run_node("Not", {Input::data(p)}, {}, 1, 1, true).outputs[0],
               mask(p, [&](int64_t k) { return !pv(k); }));
}

// ---- the x86 code generator -----------------------------------------------------------------

TEST_CASE("Index reduction, normalization and Einsum kernels compile for x86", "[onnx-ops-ri]") {
  NDArray x = random_array(f32, {2, 3, 4}, 60);
  NDArray ties = array(f32, {2, 4}, {1, 3, 3, 0, 2, 2, -1, 2});
  NDArray with_nan = array(f32, {2, 4}, {1, NAN, 3, NAN, 0, 2, -INFINITY, 2});
  NDArray c3 = random_array(f32, {3}, 61);
  std::vector<Kernel> kernels = {
      {"ArgMax", {Input::data(x)}, {{"axis", int64_t{1}}}, 13},
      {"ArgMin", {Input::data(ties)}, {{"axis", int64_t{-1}}, {"keepdims", int64_t{0}}}, 13},
      {"ArgMax",
       {Input::data(ties)},
       {{"axis", int64_t{1}}, {"select_last_index", int64_t{1}}},
       13},
      {"ArgMax", {Input::data(random_array(i64, {3, 5}, 62))}, {{"axis", int64_t{1}}}, 13},
      {"ArgMin", {Input::data(with_nan)}, {{"axis", int64_t{1}}}, 13},
      {"TopK", {Input::data(with_nan), Input::constant(ints({4}))}, {}, 11, 2},
      {"TopK", {Input::data(ties), Input::constant(ints({3}))}, {}, 11, 2},
      {"TopK",
       {Input::data(x), Input::constant(ints({2}))},
       {{"axis", int64_t{1}}, {"largest", int64_t{0}}},
       11,
       2},
      {"CumSum", {Input::data(x), Input::constant(ints({2}))}, {}, 14},
      {"CumSum",
       {Input::data(random_array(i64, {3, 4}, 63)), Input::constant(ints({0}))},
       {{"exclusive", int64_t{1}}, {"reverse", int64_t{1}}},
       14},
      {"InstanceNormalization", {Input::data(x), Input::data(c3), Input::data(c3)}, {}, 6},
      {"GroupNormalization",
       {Input::data(random_array(f32, {2, 4, 3}, 64)), Input::data(random_array(f32, {4}, 65)),
        Input::data(random_array(f32, {4}, 66))},
       {{"num_groups", int64_t{2}}},
       21},
      {"Einsum",
       {Input::data(x), Input::data(random_array(f32, {2, 4, 3}, 67))},
       {{"equation", std::string("bij,bjk->bik")}},
       12},
      {"Einsum", {Input::data(x)}, {{"equation", std::string("ijk->kji")}}, 12},
      {"Einsum",
       {Input::data(random_array(f32, {3, 3}, 68)), Input::data(c3)},
       {{"equation", std::string("ii,i->")}},
       12},
      {"Less", {Input::data(x), Input::data(random_array(f32, {4}, 69))}, {}, 13},
  };
  int compiled = compile_for_x86(kernels);
  CHECK(compiled >= static_cast<int>(kernels.size()));
}

}  // namespace
}  // namespace tirc::onnx
