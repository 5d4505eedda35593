// The channels-last layout pass (ir/onnx/layout.h): which operators follow
// it, where Transposes remain, and that the model computes the same values
// as in ONNX's layout, interpreted and compiled for both x86 targets.
#include <catch2/catch.hpp>

#include <limits>

#include "ir/onnx/fold.h"
#include "ir/onnx/layout.h"
#include "ir/onnx/model_pipeline.h"
#include "ir/onnx/op.h"
#include "model_test_util.h"
#include "onnx_model_test.h"
#include "tuner/auto_schedule.h"

namespace tirc::test {
namespace {

using onnx_test::filled;
using onnx_test::GraphMaker;

// A small MobileNet/SqueezeNet-like graph: a conv, a depthwise conv with a
// clip, a residual Add, a broadcast per-channel Mul by a constant, a max
// pool, two 1x1 convs concatenated on channels, a global average pool,
// Flatten and Gemm; `y` (after the pool) is also a graph output.
onnx::Graph mixed_graph() {
  GraphMaker gm;
  gm.graph.opset = 13;
  gm.input("x", {1, 3, 9, 9});
  gm.constant("w1", filled({16, 3, 3, 3}, -0.3, 0.0015));
  gm.constant("b1", filled({16}, -0.1, 0.015));
  gm.node("Conv", {"x", "w1", "b1"}, {"c1"},
          {{"pads", std::vector<int64_t>{1, 1, 1, 1}}, {"strides", std::vector<int64_t>{2, 2}}});
  gm.node("Relu", {"c1"}, {"r1"});
  gm.constant("wd", filled({16, 1, 3, 3}, -0.2, 0.003));
  gm.node("Conv", {"r1", "wd"}, {"d"},
          {{"pads", std::vector<int64_t>{1, 1, 1, 1}}, {"group", int64_t{16}}});
  gm.constant("lo", filled({}, 0, 0));
  gm.constant("hi", filled({}, 0.5, 0));
  gm.node("Clip", {"d", "lo", "hi"}, {"dc"});
  gm.node("Add", {"dc", "r1"}, {"a"});
  gm.constant("scale", filled({16, 1, 1}, 0.5, 0.0625));
  gm.node("Mul", {"a", "scale"}, {"m"});
  gm.node("MaxPool", {"m"}, {"y"},
          {{"kernel_shape", std::vector<int64_t>{2, 2}}, {"strides", std::vector<int64_t>{2, 2}}});
  gm.constant("e1", filled({16, 16, 1, 1}, -0.25, 0.002));
  gm.constant("e2", filled({6, 16, 1, 1}, 0.2, -0.005));
  gm.node("Conv", {"y", "e1"}, {"p1"});
  gm.node("Conv", {"y", "e2"}, {"p2"});
  gm.node("Concat", {"p1", "p2"}, {"cat"}, {{"axis", int64_t{1}}});
  gm.node("GlobalAveragePool", {"cat"}, {"g"});
  gm.node("Flatten", {"g"}, {"f"});
  gm.constant("fc", filled({22, 5}, -0.2, 0.004));
  gm.node("Gemm", {"f", "fc"}, {"out"});
  gm.output("out");
  gm.output("y");
  return gm.graph;
}

int count(const onnx::Graph& g, const std::string& op, bool channels_last) {
  int n = 0;
  for (const onnx::Node& node : g.nodes)
    n += node.op_type == op && (node.domain == onnx::kChannelsLastDomain) == channels_last;
  return n;
}

IRModule build(const onnx::Graph& g, ModelOptions::Layout layout,
               size_t blocked_weights_bytes = onnx::kBlockedWeightsBytes) {
  ModelOptions options;
  options.layout = layout;
  options.blocked_weights_bytes = blocked_weights_bytes;
  return graph_to_module(g, options);
}

}  // namespace

TEST_CASE("layout: convolutions, pools and what lies between them go channels-last",
          "[onnx-model][layout]") {
  onnx::Graph g = onnx::fold_and_infer(mixed_graph());
  CHECK(onnx::prefers_channels_last(g));
  // Every weight blocked that can be (the default blocks only big ones).
  onnx::Graph c = onnx::fold_and_infer(onnx::convert_to_channels_last(g, 0));
  CHECK(count(c, "Conv", true) == 4);
  CHECK(count(c, "Conv", false) == 0);
  for (const char* op : {"Relu", "Clip", "Add", "Mul", "Concat"}) {
    INFO(op);
    CHECK(count(c, op, false) == 1);
    CHECK(count(c, op, true) == 0);  // elementwise operators keep ai.onnx
  }
  CHECK(count(c, "MaxPool", true) == 1);
  CHECK(count(c, "GlobalAveragePool", true) == 1);
  // Transposes remain only at the edges: into the first conv, out to the
  // output y and to Flatten; the constant ones were folded.
  CHECK(count(c, "Transpose", true) == 3);
  // The Mul's per-channel constant became [1, 1, 1, C]; conv weights [kh,
  // kw, C, M], or [M / 16, C, kh, kw, 16] without groups when 16 divides M.
  std::vector<onnx::Shape> weights;
  for (const onnx::Node& n : c.nodes) {
    if (n.op_type == "Mul") CHECK(c.tensor(n.inputs[1]).shape == onnx::Shape{1, 1, 1, 16});
    if (n.op_type == "Conv") weights.push_back(c.tensor(n.inputs[1]).shape);
  }
  CHECK(weights == std::vector<onnx::Shape>{
                       {1, 3, 3, 3, 16}, {3, 3, 1, 16}, {1, 16, 1, 1, 16}, {1, 1, 16, 6}});
  // By default these small weights are not blocked.
  weights.clear();
  onnx::Graph d = onnx::fold_and_infer(onnx::convert_to_channels_last(g));
  for (const onnx::Node& n : d.nodes)
    if (n.op_type == "Conv") weights.push_back(d.tensor(n.inputs[1]).shape);
  CHECK(weights ==
        std::vector<onnx::Shape>{{3, 3, 3, 16}, {3, 3, 1, 16}, {1, 1, 16, 16}, {1, 1, 16, 6}});
  // Nor with no size big enough (what a GPU target asks for).
  weights.clear();
  onnx::Graph e =
      onnx::fold_and_infer(onnx::convert_to_channels_last(g, std::numeric_limits<size_t>::max()));
  for (const onnx::Node& n : e.nodes)
    if (n.op_type == "Conv") weights.push_back(e.tensor(n.inputs[1]).shape);
  CHECK(weights ==
        std::vector<onnx::Shape>{{3, 3, 3, 16}, {3, 3, 1, 16}, {1, 1, 16, 16}, {1, 1, 16, 6}});
  CHECK(onnx::blocks_conv_weights(1, {512, 512, 3, 3}));
  CHECK(!onnx::blocks_conv_weights(1, {512, 512, 3, 3}, std::numeric_limits<size_t>::max()));
}

TEST_CASE("layout: channels-last computes what NCHW computes, interpreted and compiled",
          "[onnx-model][layout]") {
  const NDArray x = filled({1, 3, 9, 9}, -1, 0.01);
  const std::vector<NDArray> want =
      run_entry(build(mixed_graph(), ModelOptions::Layout::Nchw), {x});
  for (size_t blocked_bytes : {size_t{0}, onnx::kBlockedWeightsBytes}) {
    const IRModule nhwc = build(mixed_graph(), ModelOptions::Layout::Nhwc, blocked_bytes);
    std::vector<std::optional<Target>> targets = {std::nullopt};
    for (Isa isa : {Isa::avx512, Isa::avx2})
      if (host_supports(Target{isa})) targets.push_back(Target{isa});
    for (const auto& t : targets) {
      // The plain nests, and the default schedules for 1 and 2 threads; the
      // interpreter runs them in race-checking mode.
      std::vector<std::pair<std::string, IRModule>> variants = {{"plain", nhwc}};
      for (int threads : {1, 2}) {
        RuleContext cx;
        cx.cpu = host_cpu_model(t ? *t : host_target());
        cx.cpu.threads = threads;
        variants.emplace_back("scheduled for " + std::to_string(threads) + " thread(s)",
                              auto_schedule(nhwc, cx).schedule.mod());
      }
      for (const auto& [what, m] : variants) {
        INFO((t ? t->name() : "interpreter") << ", " << what << ", blocked from " << blocked_bytes);
        const std::vector<NDArray> got = run_entry(m, {x}, t, RunOptions::checked());
        REQUIRE(got.size() == want.size());
        for (size_t i = 0; i < got.size(); ++i) CHECK(compare_tensors(got[i], want[i]).empty());
      }
    }
  }
}

TEST_CASE("layout: what stays in ONNX's layout", "[onnx-model][layout]") {
  SECTION("the default: channels-last for depthwise or whole blocks of 16 channels") {
    // A conv with M output channels, then one with M2 (0: none); depthwise
    // when M2 is negative.
    auto prefers = [](int64_t m, int64_t m2) {
      GraphMaker gm;
      gm.input("x", {1, 2, 5, 5});
      gm.constant("w", filled({m, 2, 3, 3}, -0.4, 0.015));
      gm.node("Conv", {"x", "w"}, {"c"}, {{"pads", std::vector<int64_t>{1, 1, 1, 1}}});
      std::string out = "c";
      if (m2 != 0) {
        const bool depthwise = m2 < 0;
        gm.constant("w2", filled({depthwise ? m : m2, depthwise ? 1 : m, 3, 3}, -0.4, 0.015));
        gm.node("Conv", {"c", "w2"}, {"y"}, {{"group", depthwise ? m : int64_t{1}}});
        out = "y";
      }
      gm.output(out);
      return onnx::prefers_channels_last(onnx::fold_and_infer(gm.graph));
    };
    CHECK_FALSE(prefers(3, 0));
    CHECK(prefers(32, 0));
    CHECK(prefers(32, 16));
    CHECK_FALSE(prefers(32, 10));  // a 10-class convolution
    CHECK(prefers(3, -1));         // depthwise
  }
  SECTION("grouped (not depthwise) convolutions, run-time weights and lone pools") {
    GraphMaker gm;
    gm.input("x", {1, 4, 6, 6});
    gm.input("wr", {4, 4, 1, 1});
    gm.constant("wg", filled({4, 2, 3, 3}, -0.4, 0.015));
    gm.node("Conv", {"x", "wg"}, {"g"}, {{"group", int64_t{2}}});
    gm.node("Conv", {"x", "wr"}, {"r"});
    gm.node("MaxPool", {"x"}, {"p"}, {{"kernel_shape", std::vector<int64_t>{2, 2}}});
    gm.output("g");
    gm.output("r");
    gm.output("p");
    onnx::Graph c =
        onnx::fold_and_infer(onnx::convert_to_channels_last(onnx::fold_and_infer(gm.graph)));
    CHECK(count(c, "Conv", false) == 2);
    CHECK(count(c, "MaxPool", false) == 1);
    CHECK(count(c, "Transpose", true) == 0);
  }
  SECTION("an elementwise operator with an NCHW activation operand") {
    GraphMaker gm;
    gm.input("x", {1, 2, 5, 5});
    gm.input("z", {1, 2, 5, 5});
    gm.constant("w", filled({2, 1, 3, 3}, -0.4, 0.015));
    gm.node("Conv", {"x", "w"}, {"c"},
            {{"group", int64_t{2}}, {"pads", std::vector<int64_t>{1, 1, 1, 1}}});
    gm.node("Add", {"c", "z"}, {"y"});
    gm.output("y");
    onnx::Graph c =
        onnx::fold_and_infer(onnx::convert_to_channels_last(onnx::fold_and_infer(gm.graph)));
    CHECK(count(c, "Conv", true) == 1);
    CHECK(count(c, "Add", false) == 1);
    for (const onnx::Node& n : c.nodes)
      if (n.op_type == "Add") CHECK(c.tensor(n.inputs[0]).shape == onnx::Shape{1, 2, 5, 5});
  }
}

}  // namespace tirc::test
