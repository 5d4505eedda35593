// The frontend's spine: module building (entry function, workspace planning,
// kernel deduplication), folding/inference, fusion and BatchNormalization folding.
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <set>

#include "ir/eval/interpreter.h"
#include "ir/onnx/build_module.h"
#include "ir/onnx/fold.h"
#include "ir/onnx/fuse_ops.h"
#include "ir/onnx/model_pipeline.h"
#include "ir/onnx/pack_weights.h"
#include "ir/structural.h"
#include "ir/text/parser.h"
#include "ir/text/printer.h"
#include "ir/verify.h"
#include "test/unit/onnx_model_test.h"

using namespace tirc;
using namespace tirc::onnx_test;
using onnx::KernelGroup;

namespace {

// Calls of the entry function (the Evaluate statements under its bindings),
// and the statements binding storage on the way.
struct EntryParts {
  std::vector<const CallNode*> calls;
  std::vector<const AllocateConstNode*> consts;
  std::vector<const AllocateNode*> allocs;
  std::vector<const DeclBufferNode*> decls;
};

void collect(const Stmt& s, EntryParts& parts) {
  if (auto* c = s.as<AllocateConstNode>()) {
    parts.consts.push_back(c);
    return collect(c->body, parts);
  }
  if (auto* a = s.as<AllocateNode>()) {
    parts.allocs.push_back(a);
    return collect(a->body, parts);
  }
  if (auto* d = s.as<DeclBufferNode>()) {
    parts.decls.push_back(d);
    return collect(d->body, parts);
  }
  if (auto* seq = s.as<SeqStmtNode>()) {
    for (const Stmt& x : seq->seq) collect(x, parts);
    return;
  }
  auto* e = s.as<EvaluateNode>();
  REQUIRE(e);
  auto* call = e->value.as<CallNode>();
  REQUIRE(call);
  REQUIRE(call_kernel_callee(e->value));
  parts.calls.push_back(call);
}

EntryParts entry_parts(const IRModule& m, const std::string& name = "run") {
  EntryParts parts;
  collect(m.at(name)->body, parts);
  return parts;
}

std::string callee(const CallNode* c) {
  return c->args[0].as<StringImmNode>()->value;
}

// The byte offset of an address_of(ws[offset]) argument; -1 for a plain handle.
int64_t workspace_offset(const Expr& arg) {
  auto* c = arg.as<CallNode>();
  if (!c || c->op != kAddressOf) return -1;
  auto* load = c->args[0].as<BufferLoadNode>();
  REQUIRE(load);
  return *as_const_int(load->indices[0]);
}

std::string attr_string(const PrimFunc& f, const std::string& key) {
  return f->attrs.at(key).as<StringImmNode>()->value;
}

// Runs the entry on the inputs; returns the outputs.
std::vector<NDArray> run_entry(const IRModule& m, std::vector<NDArray> inputs,
                               const std::string& entry = "run") {
  // Every module the frontend builds verifies and survives printing.
  std::string diags;
  for (const Diagnostic& d : verify(m)) diags += d.message + "\n";
  INFO(diags);
  REQUIRE(diags.empty());
  ParseOptions parse_options;
  parse_options.constants = &m.constants();
  IRModule reparsed = parse_module(print_module(m), "<printed>", parse_options);
  REQUIRE(structural_equal(reparsed, m));
  const PrimFunc& f = m.at(entry);
  size_t num_inputs = inputs.size();
  std::vector<NDArray> arrays = std::move(inputs);
  for (NDArray& out : entry_output_arrays(f, num_inputs, entry)) arrays.push_back(std::move(out));
  std::vector<Argument> args;
  for (NDArray& a : arrays) args.push_back(Argument{&a, 0, 0});
  run_module(m, entry, args);
  return std::vector<NDArray>(arrays.begin() + static_cast<long>(num_inputs), arrays.end());
}

void require_close(const NDArray& a, const NDArray& b, double tol = 1e-4) {
  REQUIRE(a.shape() == b.shape());
  for (int64_t i = 0; i < a.num_elements(); ++i) {
    INFO("element " << i);
    REQUIRE(std::abs(a.get_float(i) - b.get_float(i)) <= tol * (1 + std::abs(b.get_float(i))));
  }
}

// Every node in exactly one group, groups after the groups they read.
void require_dependency_order(const onnx::Graph& g, const std::vector<KernelGroup>& groups) {
  std::map<std::string, size_t> group_of_tensor;
  std::set<size_t> seen;
  for (size_t k = 0; k < groups.size(); ++k)
    for (size_t n : groups[k].nodes) {
      REQUIRE(seen.insert(n).second);
      for (const std::string& o : g.nodes[n].outputs) group_of_tensor[o] = k;
    }
  REQUIRE(seen.size() == g.nodes.size());
  for (size_t k = 0; k < groups.size(); ++k)
    for (size_t n : groups[k].nodes)
      for (const std::string& in : g.nodes[n].inputs) {
        auto it = group_of_tensor.find(in);
        if (it != group_of_tensor.end()) REQUIRE(it->second <= k);
      }
}

}  // namespace

TEST_CASE("build_module: entry parameters, attributes, constants and deduplicated kernels",
          "[onnx-model]") {
  GraphMaker gm;
  gm.input("x", {2, 3});
  gm.constant("W.0", filled({2, 3}, 1, 0.5));
  gm.node("Identity", {"x"}, {"out.0"});
  gm.node("Identity", {"W.0"}, {"z"});
  for (const char* t : {"out.0", "z"}) {
    gm.graph.tensors[t].dtype = DataType::float32();
    gm.graph.tensors[t].shape = {2, 3};
    gm.graph.tensors[t].shape_known = true;
  }
  gm.output("out.0");
  gm.output("z");
  IRModule m = onnx::build_module(gm.graph, {KernelGroup{{0}}, KernelGroup{{1}}});

  // Both groups copy a [2, 3] float32 tensor: one kernel, called twice.
  REQUIRE(m.size() == 2);
  REQUIRE(m.functions()[0].first == "identity");
  const PrimFunc& entry = m.at("run");
  CHECK(is_entry(entry));
  CHECK(attr_string(entry, "tirc.io_names") == "x;out.0;z");
  CHECK(*as_const_int(entry->attrs.at("tirc.num_inputs")) == 1);
  REQUIRE(entry->params.size() == 3);
  CHECK(entry->params[0].buffer->name == "x");
  CHECK(entry->params[1].buffer->name == "out_0");
  CHECK(entry->params[2].buffer->name == "z");

  EntryParts parts = entry_parts(m);
  REQUIRE(parts.calls.size() == 2);
  CHECK(callee(parts.calls[0]) == "identity");
  CHECK(callee(parts.calls[1]) == "identity");
  REQUIRE(parts.consts.size() == 1);
  CHECK(parts.consts[0]->constant == "W.0");
  CHECK(parts.allocs.empty());  // no intermediates, no workspace
  REQUIRE(m.find_constant("W.0"));
  // The weight is passed by its binding, the output by the entry's parameter.
  CHECK(parts.calls[1]->args[1].as<VarNode>() == parts.consts[0]->buffer_var.get());
  CHECK(parts.calls[1]->args[2].as<VarNode>() == entry->params[2].var.get());

  std::vector<NDArray> outs = run_entry(m, {filled({2, 3}, -1, 1)});
  require_close(outs[0], filled({2, 3}, -1, 1));
  require_close(outs[1], filled({2, 3}, 1, 0.5));
}

TEST_CASE("build_module: intermediates with disjoint lifetimes share workspace bytes",
          "[onnx-model]") {
  GraphMaker gm;
  gm.input("x", {4, 16});
  std::vector<std::string> chain = {"x", "a", "b", "c", "y"};
  for (size_t k = 1; k < chain.size(); ++k) gm.node("Identity", {chain[k - 1]}, {chain[k]});
  gm.output("y");
  // Built as it is (fold would bypass the identities), one kernel per node.
  onnx::Graph g = gm.graph;
  for (size_t k = 1; k < chain.size(); ++k) {
    g.tensors[chain[k]].dtype = DataType::float32();
    g.tensors[chain[k]].shape = {4, 16};
    g.tensors[chain[k]].shape_known = true;
  }
  IRModule m = onnx::build_module(
      g, {KernelGroup{{0}}, KernelGroup{{1}}, KernelGroup{{2}}, KernelGroup{{3}}});
  EntryParts parts = entry_parts(m);
  REQUIRE(parts.calls.size() == 4);
  REQUIRE(parts.allocs.size() == 1);
  REQUIRE(parts.decls.size() == 1);
  CHECK(parts.allocs[0]->dtype == DataType::uint8());
  // a: calls 0-1, b: 1-2, c: 2-3. a and c never live together.
  int64_t a = workspace_offset(parts.calls[0]->args[2]);
  int64_t b = workspace_offset(parts.calls[1]->args[2]);
  int64_t c = workspace_offset(parts.calls[2]->args[2]);
  CHECK(a == 0);
  CHECK(b == 256);
  CHECK(c == 0);
  CHECK(workspace_offset(parts.calls[1]->args[1]) == a);
  CHECK(workspace_offset(parts.calls[3]->args[1]) == c);
  CHECK(*as_const_int(parts.allocs[0]->extents[0]) == 512);
  CHECK(b % 64 == 0);

  std::vector<NDArray> outs = run_entry(m, {filled({4, 16}, 0, 1)});
  require_close(outs[0], filled({4, 16}, 0, 1));
}

TEST_CASE("build_module: outputs that are inputs, constants or listed twice are copied",
          "[onnx-model]") {
  GraphMaker gm;
  gm.input("x", {3});
  gm.constant("k", filled({3}, 5, 1));
  gm.node("Identity", {"x"}, {"y"});
  gm.graph.tensors["y"] = onnx::TensorInfo{"y", DataType::float32(), {3}, true, nullptr};
  for (const char* o : {"y", "y", "x", "k"}) gm.output(o);
  IRModule m = onnx::build_module(gm.graph, {KernelGroup{{0}}});
  const PrimFunc& entry = m.at("run");
  CHECK(attr_string(entry, "tirc.io_names") == "x;y;y;x;k");
  REQUIRE(entry->params.size() == 5);
  CHECK(entry->params[2].buffer->name == "y_1");
  CHECK(entry->params[3].buffer->name == "x_1");
  EntryParts parts = entry_parts(m);
  REQUIRE(parts.calls.size() == 4);
  // The identity and the copies are the same kernel.
  CHECK(m.size() == 2);
  std::vector<NDArray> outs = run_entry(m, {filled({3}, 1, 1)});
  require_close(outs[0], filled({3}, 1, 1));
  require_close(outs[1], filled({3}, 1, 1));
  require_close(outs[2], filled({3}, 1, 1));
  require_close(outs[3], filled({3}, 5, 1));
}

TEST_CASE("fold: a Shape -> Gather -> Mul -> Concat -> Reshape chain folds to a constant shape",
          "[onnx-model]") {
  GraphMaker gm;
  gm.input("x", {2, 3, 4});
  gm.constant("i0", ints({0}));
  gm.constant("i1", ints({1}));
  gm.constant("i2", ints({2}));
  gm.node("Shape", {"x"}, {"s"});
  gm.node("Gather", {"s", "i0"}, {"d0"}, {{"axis", int64_t{0}}});
  gm.node("Gather", {"s", "i1"}, {"d1"}, {{"axis", int64_t{0}}});
  gm.node("Gather", {"s", "i2"}, {"d2"}, {{"axis", int64_t{0}}});
  gm.node("Mul", {"d1", "d2"}, {"d12"});
  gm.node("Concat", {"d0", "d12"}, {"shape"}, {{"axis", int64_t{0}}});
  gm.node("Reshape", {"x", "shape"}, {"y"});
  gm.output("y");
  onnx::Graph g = onnx::fold_and_infer(gm.graph);
  REQUIRE(g.nodes.size() == 1);
  CHECK(g.nodes[0].op_type == "Reshape");
  const onnx::TensorInfo& shape = g.tensor("shape");
  REQUIRE(shape.value);
  REQUIRE(shape.value->num_elements() == 2);
  CHECK(shape.value->get_int(0) == 2);
  CHECK(shape.value->get_int(1) == 12);
  CHECK(g.tensor("y").shape == onnx::Shape{2, 12});

  IRModule m = graph_to_module(gm.graph);
  std::vector<NDArray> outs = run_entry(m, {filled({2, 3, 4}, 0, 1)});
  require_close(outs[0], filled({2, 12}, 0, 1));
}

TEST_CASE("fold: identities are bypassed, bound inputs become constants", "[onnx-model]") {
  GraphMaker gm;
  gm.input("x", {2});
  gm.input("n", {2});
  gm.node("Identity", {"x"}, {"a"});
  gm.node("Identity", {"a"}, {"y"});
  gm.node("Identity", {"n"}, {"z"});
  gm.output("y");
  gm.output("z");
  onnx::Graph g = onnx::fold_and_infer(gm.graph, {{"n", filled({2}, 7, 1)}});
  CHECK(g.inputs == std::vector<std::string>{"x"});
  // x -> y stays one copy (a graph input listed as output under another name).
  REQUIRE(g.nodes.size() == 1);
  CHECK(g.nodes[0].inputs[0] == "x");
  CHECK(g.nodes[0].outputs[0] == "y");
  REQUIRE(g.tensor("z").value);
  CHECK(g.tensor("z").value->get_float(1) == 8);

  CHECK_THROWS_WITH(onnx::fold_and_infer(gm.graph, {{"q", filled({2}, 0, 1)}}),
                    Catch::Contains("'q'"));
  CHECK_THROWS_WITH(onnx::fold_and_infer(gm.graph, {{"n", filled({3}, 0, 1)}}),
                    Catch::Contains("input 'n'") && Catch::Contains("shape"));
}

TEST_CASE("fold: errors name the input, node or tensor", "[onnx-model]") {
  SECTION("dynamic input dimension") {
    GraphMaker gm;
    gm.input("batch_in", {-1, 3});
    gm.graph.tensors["batch_in"].shape_known = false;
    gm.node("Identity", {"batch_in"}, {"y"});
    gm.output("y");
    CHECK_THROWS_WITH(onnx::fold_and_infer(gm.graph),
                      Catch::Contains("'batch_in'") && Catch::Contains("dimension 0 of [?, 3]") &&
                          Catch::Contains("--shape batch_in=<?>x3"));
    // Binding the input makes it static.
    onnx::Graph g = onnx::fold_and_infer(gm.graph, {{"batch_in", filled({4, 3}, 0, 1)}});
    CHECK(g.tensor("y").shape == onnx::Shape{4, 3});
  }
  SECTION("unsupported operator") {
    GraphMaker gm;
    gm.input("x", {2});
    gm.node("FooBar", {"x"}, {"y"});
    gm.output("y");
    CHECK_THROWS_WITH(onnx::fold_and_infer(gm.graph),
                      "node 'FooBar_0' (FooBar): operator not supported");
    gm.graph.nodes[0].domain = "com.example";
    CHECK_THROWS_WITH(onnx::fold_and_infer(gm.graph), Catch::Contains("domain 'com.example'"));
  }
  SECTION("declared shape mismatch") {
    GraphMaker gm;
    gm.input("x", {2, 3});
    gm.node("Identity", {"x"}, {"y"});
    gm.graph.tensors["y"] = onnx::TensorInfo{"y", DataType::float32(), {3, 2}, true, nullptr};
    gm.output("y");
    CHECK_THROWS_WITH(onnx::fold_and_infer(gm.graph),
                      Catch::Contains("tensor 'y'") && Catch::Contains("[3, 2]"));
  }
}

namespace {

onnx::Graph conv_graph(bool with_bn, bool bias_add_relu) {
  GraphMaker gm;
  gm.input("x", {1, 2, 5, 5});
  gm.constant("w", filled({3, 2, 3, 3}, -0.4, 0.015));
  gm.constant("b", filled({3}, 0.1, 0.2));
  gm.node("Conv", {"x", "w", "b"}, {"c"}, {{"pads", std::vector<int64_t>{1, 1, 1, 1}}});
  std::string last = "c";
  if (with_bn) {
    gm.constant("gamma", filled({3}, 0.5, 0.25));
    gm.constant("beta", filled({3}, -0.2, 0.3));
    gm.constant("mean", filled({3}, 0.05, 0.1));
    gm.constant("var", filled({3}, 0.8, 0.4));
    gm.node("BatchNormalization", {"c", "gamma", "beta", "mean", "var"}, {"bn"},
            {{"epsilon", 1e-3}});
    last = "bn";
  }
  if (bias_add_relu) {
    gm.constant("shift", filled({1, 3, 1, 1}, -0.5, 0.5));
    gm.node("Add", {last, "shift"}, {"d"});
    gm.node("Relu", {"d"}, {"y"});
    last = "y";
  }
  gm.output(last);
  return gm.graph;
}

}  // namespace

TEST_CASE("fuse_ops: Conv + Add + Relu is one kernel", "[onnx-model]") {
  onnx::Graph g = onnx::fold_and_infer(conv_graph(false, true));
  std::vector<KernelGroup> groups = fuse_ops(g);
  REQUIRE(groups.size() == 1);
  CHECK(groups[0].nodes.size() == 3);
  CHECK(fuse_ops(g, false).size() == 3);

  IRModule fused = graph_to_module(conv_graph(false, true));
  REQUIRE(fused.find("conv_add_relu"));
  ModelOptions unfused_options;
  unfused_options.fuse = false;
  IRModule unfused = graph_to_module(conv_graph(false, true), unfused_options);
  CHECK(unfused.size() == 4);
  NDArray x = filled({1, 2, 5, 5}, -1, 0.04);
  require_close(run_entry(fused, {x})[0], run_entry(unfused, {x})[0]);
}

TEST_CASE("fuse_ops: the exported layer-norm chain is at most two kernels", "[onnx-model]") {
  GraphMaker gm;
  gm.input("x", {2, 8});
  NDArray two(DataType::float32(), {});
  two.set_float(0, 2.0);
  NDArray eps(DataType::float32(), {});
  eps.set_float(0, 1e-5);
  gm.constant("two", two);
  gm.constant("eps", eps);
  gm.constant("gamma", filled({8}, 0.5, 0.1));
  gm.constant("beta", filled({8}, -0.3, 0.05));
  std::map<std::string, onnx::AttrValue> axes = {{"axes", std::vector<int64_t>{-1}}};
  gm.node("ReduceMean", {"x"}, {"mean"}, axes);
  gm.node("Sub", {"x", "mean"}, {"d"});
  gm.node("Pow", {"d", "two"}, {"p"});
  gm.node("ReduceMean", {"p"}, {"var"}, axes);
  gm.node("Add", {"var", "eps"}, {"ve"});
  gm.node("Sqrt", {"ve"}, {"sd"});
  gm.node("Div", {"d", "sd"}, {"n"});
  gm.node("Mul", {"n", "gamma"}, {"g"});
  gm.node("Add", {"g", "beta"}, {"y"});
  gm.output("y");
  onnx::Graph g = onnx::fold_and_infer(gm.graph);
  std::vector<KernelGroup> groups = fuse_ops(g);
  CHECK(groups.size() <= 2);
  require_dependency_order(g, groups);

  IRModule m = graph_to_module(gm.graph);
  NDArray x = filled({2, 8}, -2, 0.37);
  NDArray y = run_entry(m, {x})[0];
  NDArray expect(DataType::float32(), {2, 8});
  for (int r = 0; r < 2; ++r) {
    double mean = 0, var = 0;
    for (int c = 0; c < 8; ++c) mean += x.get_float(r * 8 + c) / 8;
    for (int c = 0; c < 8; ++c) var += std::pow(x.get_float(r * 8 + c) - mean, 2) / 8;
    for (int c = 0; c < 8; ++c)
      expect.set_float(r * 8 + c,
                       (x.get_float(r * 8 + c) - mean) / std::sqrt(var + 1e-5) * (0.5 + 0.1 * c) +
                           (-0.3 + 0.05 * c));
  }
  require_close(y, expect);
}

TEST_CASE("fold_batchnorm_into_conv: the folded weights compute the same outputs", "[onnx-model]") {
  onnx::Graph g = onnx::fold_and_infer(conv_graph(true, true));
  onnx::Graph folded = fold_batchnorm_into_conv(g);
  REQUIRE(folded.nodes.size() == g.nodes.size() - 1);
  CHECK(folded.nodes[0].op_type == "Conv");
  CHECK(folded.nodes[0].outputs[0] == "bn");
  // The original weights are left as they were (another node may use them).
  CHECK(folded.tensor("w").value->get_float(0) == Approx(-0.4));
  const NDArray& w2 = *folded.tensor(folded.nodes[0].inputs[1]).value;
  double scale0 = 0.5 / std::sqrt(0.8 + 1e-3);
  CHECK(w2.get_float(0) == Approx(-0.4 * scale0));
  const NDArray& b2 = *folded.tensor(folded.nodes[0].inputs[2]).value;
  CHECK(b2.get_float(0) == Approx((0.1 - 0.05) * scale0 - 0.2));

  // Without folding (one kernel per node) and with it (the pipeline).
  IRModule plain = onnx::build_module(g, fuse_ops(g, false));
  IRModule with_fold = graph_to_module(conv_graph(true, true));
  NDArray x = filled({1, 2, 5, 5}, -1.2, 0.05);
  require_close(run_entry(with_fold, {x})[0], run_entry(plain, {x})[0]);

  SECTION("a Conv output read by another node is not folded") {
    onnx::Graph shared = g;
    shared.outputs.push_back("c");
    CHECK(fold_batchnorm_into_conv(shared).nodes.size() == g.nodes.size());
  }
}

TEST_CASE("pack_constant_weights: a Gemm's constant transB weights are transposed once",
          "[onnx-model]") {
  auto linear = [](bool constant_b) {
    GraphMaker gm;
    gm.input("x", {2, 5});
    if (constant_b)
      gm.constant("w", filled({3, 5}, -0.4, 0.07));
    else
      gm.input("w", {3, 5});
    gm.constant("b", filled({3}, 0.1, 0.2));
    gm.node("Gemm", {"x", "w", "b"}, {"y"}, {{"transB", int64_t{1}}, {"alpha", 0.5}});
    gm.output("y");
    return gm.graph;
  };
  onnx::Graph g = onnx::fold_and_infer(linear(true));
  onnx::Graph packed = onnx::pack_constant_weights(g);
  const onnx::Node& gemm = packed.nodes.at(0);
  CHECK(gemm.attr_int("transB", 1) == 0);
  const NDArray& wt = *packed.tensor(gemm.inputs[1]).value;
  REQUIRE(wt.shape() == Shape{5, 3});
  const NDArray& w = *g.tensor("w").value;
  for (int64_t r = 0; r < 3; ++r)
    for (int64_t c = 0; c < 5; ++c) CHECK(wt.get_float(c * 3 + r) == w.get_float(r * 5 + c));
  // The original, read by no node now, is not kept beside the packed copy.
  CHECK(packed.tensors.count("w") == 0);
  // The pipeline (which packs) computes what the unpacked module computes.
  IRModule plain = onnx::build_module(g, fuse_ops(g, false));
  NDArray x = filled({2, 5}, -1.1, 0.13);
  require_close(run_entry(graph_to_module(linear(true)), {x})[0], run_entry(plain, {x})[0]);
  // A weight that is a graph input is left as it is.
  onnx::Graph input_b = onnx::fold_and_infer(linear(false));
  CHECK(onnx::pack_constant_weights(input_b).nodes.at(0).attr_int("transB", 0) == 1);
}
