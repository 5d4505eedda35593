// The tuner's datasets: LoopTune's 2197 matmuls, the conv set and the
// depthwise set, their fixed split, and kernels that verify and compute what
// they say.
#include <catch2/catch.hpp>
#include <set>

#include "ir/eval/interpreter.h"
#include "ir/text/printer.h"
#include "ir/verify.h"
#include "tuner/dataset.h"

using namespace tirc;

namespace {

void check_verifies(const DatasetEntry& e) {
  INFO(e.name);
  REQUIRE(e.func);
  for (const Diagnostic& d : verify(e.func, e.name)) FAIL(d.message);
}

int count_test(const std::vector<DatasetEntry>& set) {
  int n = 0;
  for (const DatasetEntry& e : set) n += e.test;
  return n;
}

// Small integers, so every sum of products is exact in float32.
NDArray small_ints(std::vector<int64_t> shape, int seed) {
  NDArray a(DataType::float32(), std::move(shape));
  for (int64_t i = 0; i < a.num_elements(); ++i) a.set_float(i, double((i * 7 + seed) % 9 - 4));
  return a;
}

}  // namespace

TEST_CASE("the LoopTune matmul set has 2197 shapes and a fixed split", "[dataset]") {
  // Building all 2197 kernels takes about 45 ms (Release), so no test needs the shapes alone.
  const std::vector<DatasetEntry> set = matmul_looptune_dataset();
  REQUIRE(set.size() == 2197);
  CHECK(set.front().name == "mm_64_64_64");
  CHECK(set[1].name == "mm_64_64_80");
  CHECK(set.back().name == "mm_256_256_256");
  std::set<std::string> names;
  for (const DatasetEntry& e : set) names.insert(e.name);
  CHECK(names.size() == set.size());

  // The split is pinned: it must not change with the platform or the build.
  CHECK(count_test(set) == 446);  // 20.3%
  std::vector<std::string> first_test;
  for (const DatasetEntry& e : set)
    if (e.test && first_test.size() < 4) first_test.push_back(e.name);
  CHECK(first_test ==
        std::vector<std::string>{"mm_64_64_224", "mm_64_64_240", "mm_64_80_80", "mm_64_80_176"});
  for (const DatasetEntry& e : set) CHECK(e.test == in_test_split(e.name));

  const std::vector<MatmulShape> shapes = matmul_looptune_shapes();
  REQUIRE(shapes.size() == set.size());
  for (size_t i = 0; i < shapes.size(); ++i) CHECK(shapes[i].name() == set[i].name);
  for (const DatasetEntry& e : set) check_verifies(e);
}

TEST_CASE("the conv set has 108 shapes in both layouts and a fixed split", "[dataset]") {
  const std::vector<DatasetEntry> set = conv_dataset();
  REQUIRE(set.size() == 108);
  CHECK(set.front().name == "conv_nchw_16_16_7_k1");
  CHECK(set.back().name == "conv_nhwc_64_64_28_k3");
  std::set<std::string> names;
  for (const DatasetEntry& e : set) names.insert(e.name);
  CHECK(names.size() == set.size());
  CHECK(count_test(set) == 19);  // 17.6%
  std::vector<std::string> first_test;
  for (const DatasetEntry& e : set)
    if (e.test && first_test.size() < 3) first_test.push_back(e.name);
  CHECK(first_test == std::vector<std::string>{"conv_nchw_16_32_7_k1", "conv_nchw_16_32_7_k3",
                                               "conv_nchw_16_64_7_k1"});
  for (const DatasetEntry& e : set) CHECK(e.test == in_test_split(e.name));
  for (const DatasetEntry& e : set) check_verifies(e);
}

TEST_CASE("a dataset matmul computes A x B in the interpreter", "[dataset]") {
  const MatmulShape s{3, 5, 4};
  const PrimFunc f = matmul_func(s);
  INFO(print_func(f, s.name()));
  for (const Diagnostic& d : verify(f, s.name())) FAIL(d.message);
  NDArray a = small_ints({3, 4}, 1), b = small_ints({4, 5}, 2), c(DataType::float32(), {3, 5});
  run(f, {{&a}, {&b}, {&c}});
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 5; ++j) {
      double want = 0;
      for (int64_t k = 0; k < 4; ++k) want += a.get_float(i * 4 + k) * b.get_float(k * 5 + j);
      CHECK(c.get_float(i * 5 + j) == want);
    }
}

TEST_CASE("dataset convolutions compute a zero-padded convolution in the interpreter",
          "[dataset]") {
  const int64_t C = 3, M = 2, H = 5;
  for (ConvLayout layout : {ConvLayout::Nchw, ConvLayout::Nhwc})
    for (int64_t K : {1, 3}) {
      const ConvShape s{C, M, H, K, layout};
      const bool nhwc = layout == ConvLayout::Nhwc;
      const PrimFunc f = conv_func(s);
      INFO(print_func(f, s.name()));
      for (const Diagnostic& d : verify(f, s.name())) FAIL(d.message);
      NDArray x =
          small_ints(nhwc ? std::vector<int64_t>{1, H, H, C} : std::vector<int64_t>{1, C, H, H}, 3);
      NDArray w =
          small_ints(nhwc ? std::vector<int64_t>{K, K, C, M} : std::vector<int64_t>{M, C, K, K}, 4);
      NDArray y(DataType::float32(),
                nhwc ? std::vector<int64_t>{1, H, H, M} : std::vector<int64_t>{1, M, H, H});
      run(f, {{&x}, {&w}, {&y}});
      auto xa = [&](int64_t c, int64_t h, int64_t v) {
        return x.get_float(nhwc ? (h * H + v) * C + c : (c * H + h) * H + v);
      };
      auto wa = [&](int64_t m, int64_t c, int64_t r, int64_t t) {
        return w.get_float(nhwc ? ((r * K + t) * C + c) * M + m : ((m * C + c) * K + r) * K + t);
      };
      const int64_t pad = K / 2;
      for (int64_t m = 0; m < M; ++m)
        for (int64_t h = 0; h < H; ++h)
          for (int64_t v = 0; v < H; ++v) {
            double want = 0;
            for (int64_t c = 0; c < C; ++c)
              for (int64_t r = 0; r < K; ++r)
                for (int64_t t = 0; t < K; ++t) {
                  const int64_t ih = h + r - pad, iw = v + t - pad;
                  if (ih >= 0 && ih < H && iw >= 0 && iw < H)
                    want += xa(c, ih, iw) * wa(m, c, r, t);
                }
            INFO(s.name() << " m=" << m << " h=" << h << " w=" << v);
            CHECK(y.get_float(nhwc ? (h * H + v) * M + m : (m * H + h) * H + v) == want);
          }
    }
}

TEST_CASE("the depthwise set: 20 shapes, each channel convolved alone", "[dataset]") {
  std::set<std::string> names;
  for (const DepthwiseShape& s : depthwise_shapes()) names.insert(s.name());
  CHECK(names.size() == 20);
  CHECK(names.count("dw_64_14_k3"));

  const int64_t C = 3, H = 5, K = 3;
  const DepthwiseShape s{C, H, K};
  const PrimFunc f = depthwise_func(s);
  INFO(print_func(f, s.name()));
  for (const Diagnostic& d : verify(f, s.name())) FAIL(d.message);
  CHECK(s.flops() == 2.0 * C * H * H * K * K);
  NDArray x = small_ints({1, C, H, H}, 3), w = small_ints({C, 1, K, K}, 4);
  NDArray y(DataType::float32(), {1, C, H, H});
  run(f, {{&x}, {&w}, {&y}});
  for (int64_t c = 0; c < C; ++c)
    for (int64_t h = 0; h < H; ++h)
      for (int64_t v = 0; v < H; ++v) {
        double want = 0;
        for (int64_t r = 0; r < K; ++r)
          for (int64_t t = 0; t < K; ++t) {
            const int64_t ih = h + r - 1, iw = v + t - 1;
            if (ih >= 0 && ih < H && iw >= 0 && iw < H)
              want += x.get_float((c * H + ih) * H + iw) * w.get_float((c * K + r) * K + t);
          }
        INFO("c=" << c << " h=" << h << " w=" << v);
        CHECK(y.get_float((c * H + h) * H + v) == want);
      }
}
