// Symbolic dimensions: what import records of dim_params, binding them
// (--dim, --shape, input data) with its diagnostics, the error for what is
// left unbound, and what the entry function and its C header say about them.
#include <catch2/catch.hpp>

#include "codegen/object/c_header.h"
#include "ir/eval/interpreter.h"
#include "ir/onnx/bind_dims.h"
#include "ir/onnx/fold.h"
#include "ir/onnx/import.h"
#include "ir/onnx/model_pipeline.h"
#include "test/unit/onnx_model_test.h"

using namespace tirc;
using onnx::DimBindings;
using onnx::Shape;

namespace {

const std::string kDir = std::string(TIRC_SOURCE_DIR) + "/test/onnx/symbolic/";

// test/onnx/symbolic/matmul_add.onnx: x [batch, seq, 32], m [batch, seq, 16],
// value_info xw and output y [batch, seq, 16].
onnx::Graph matmul_add() {
  return onnx::import_model_file(kDir + "matmul_add.onnx");
}

DimBindings::Dim dim(const std::string& name, int64_t value) {
  return {name, value, "--dim " + name + "=" + std::to_string(value)};
}

DimBindings::InputShape shape(const std::string& input, Shape s) {
  std::string text = "--shape " + input + "=";
  for (size_t d = 0; d < s.size(); ++d) text.append(d ? "x" : "").append(std::to_string(s[d]));
  return {input, std::move(s), text};
}

onnx::Graph bind(onnx::Graph g, DimBindings b) {
  return onnx::bind_dimensions(std::move(g), b);
}

std::string attr_text(const PrimFunc& f, const std::string& key) {
  auto it = f->attrs.find(key);
  if (it == f->attrs.end()) return "(absent)";
  return it->second.as<StringImmNode>()->value;
}

}  // namespace

TEST_CASE("import records dim_params and anonymous dimensions", "[onnx-dims]") {
  const onnx::Graph g = matmul_add();
  const onnx::TensorInfo& x = g.tensor("x");
  CHECK(x.shape == Shape{-1, -1, 32});
  CHECK_FALSE(x.shape_known);
  CHECK(x.dim_params == std::vector<std::string>{"batch", "seq", ""});
  CHECK(onnx::describe_shape(x) == "[batch, seq, 32]");
  CHECK(g.tensor("xw").dim_params == std::vector<std::string>{"batch", "seq", ""});  // value_info
  CHECK(g.tensor("y").dim_params == std::vector<std::string>{"batch", "seq", ""});   // output
  CHECK(g.tensor("w").dim_params.empty());  // an initializer

  const onnx::Graph a = onnx::import_model_file(kDir + "anonymous.onnx");
  CHECK(a.tensor("x").dim_params == std::vector<std::string>{"?", ""});
  CHECK(onnx::describe_shape(a.tensor("x")) == "[?, 32]");
  CHECK(a.tensor("z").shape.empty());  // declared without a shape
  CHECK_FALSE(a.tensor("z").shape_known);
}

TEST_CASE("a --dim binds a dim_param in inputs, value_info and outputs", "[onnx-dims]") {
  const onnx::Graph g = bind(matmul_add(), {.dims = {dim("batch", 2), dim("seq", 5)}});
  for (const char* name : {"x", "m", "xw", "y"}) {
    INFO(name);
    CHECK(g.tensor(name).shape[0] == 2);
    CHECK(g.tensor(name).shape[1] == 5);
    CHECK(g.tensor(name).shape_known);
  }
  // The names stay, for the entry function to document.
  CHECK(g.tensor("x").dim_params == std::vector<std::string>{"batch", "seq", ""});
  // One of two: x stays symbolic, and folding names what is left.
  const onnx::Graph half = bind(matmul_add(), {.dims = {dim("batch", 2)}});
  CHECK(half.tensor("x").shape == Shape{2, -1, 32});
  CHECK_FALSE(half.tensor("x").shape_known);
  CHECK_THROWS_WITH(onnx::fold_and_infer(half),
                    "graph input 'x': dimension 1 of [2, seq, 32] is the symbolic dimension "
                    "'seq', which nothing binds (tirc compiles static shapes): pass --dim seq=N "
                    "or --shape x=2x<seq>x32");
  // The same dimension given twice with one value is fine.
  CHECK_NOTHROW(bind(matmul_add(), {.dims = {dim("seq", 5), dim("seq", 5), dim("batch", 1)}}));
}

TEST_CASE("a --shape fixes an input and binds the dim_params it names", "[onnx-dims]") {
  const onnx::Graph g = bind(matmul_add(), {.shapes = {shape("x", {3, 7, 32})}});
  CHECK(g.tensor("x").shape == Shape{3, 7, 32});
  CHECK(g.tensor("m").shape == Shape{3, 7, 16});  // shares batch and seq with x
  CHECK(g.tensor("y").shape == Shape{3, 7, 16});
  CHECK(g.tensor("m").shape_known);
  // --dim and --shape together, agreeing.
  CHECK_NOTHROW(
      bind(matmul_add(), {.dims = {dim("batch", 3)}, .shapes = {shape("x", {3, 7, 32})}}));
}

TEST_CASE("binding errors name both sources, or what exists", "[onnx-dims]") {
  SECTION("--dim against --shape") {
    CHECK_THROWS_WITH(
        bind(matmul_add(), {.dims = {dim("batch", 3)}, .shapes = {shape("x", {2, 5, 32})}}),
        "dimension 'batch' is bound to 3 by --dim batch=3 and to 2 by --shape x=2x5x32 "
        "(dimension 0 of 'x')");
  }
  SECTION("two --dim") {
    CHECK_THROWS_WITH(bind(matmul_add(), {.dims = {dim("seq", 3), dim("seq", 4)}}),
                      "dimension 'seq' is bound to 3 by --dim seq=3 and to 4 by --dim seq=4");
  }
  SECTION("two inputs sharing a dim_param") {
    CHECK_THROWS_WITH(
        bind(matmul_add(), {.shapes = {shape("x", {2, 5, 32}), shape("m", {3, 5, 16})}}),
        "dimension 'batch' is bound to 2 by --shape x=2x5x32 (dimension 0 of 'x') and to 3 by "
        "--shape m=3x5x16 (dimension 0 of 'm')");
  }
  SECTION("an input file against a flag") {
    DimBindings b{.dims = {dim("seq", 7)}, .data = {{{2, 5, 32}, "input file 'x.npy'"}}};
    CHECK_THROWS_WITH(bind(matmul_add(), b),
                      "dimension 'seq' is bound to 7 by --dim seq=7 and to 5 by input file "
                      "'x.npy' (dimension 1 of 'x')");
  }
  SECTION("no such dim_param or input") {
    CHECK_THROWS_WITH(bind(matmul_add(), {.dims = {dim("batchsize", 1)}}),
                      "--dim batchsize=1: the model has no symbolic dimension 'batchsize' (it "
                      "has: batch, seq)");
    CHECK_THROWS_WITH(bind(matmul_add(), {.shapes = {shape("input", {1})}}),
                      "--shape input=1: the model has no input 'input' (its inputs: x, m)");
    onnx_test::GraphMaker gm;
    gm.input("a", {2});
    CHECK_THROWS_WITH(onnx::bind_dimensions(gm.graph, {.dims = {dim("n", 1)}}),
                      Catch::Contains("(it has none)"));
  }
  SECTION("a shape that disagrees with the model") {
    CHECK_THROWS_WITH(bind(matmul_add(), {.shapes = {shape("x", {2, 5})}}),
                      "--shape x=2x5: graph input 'x' has 3 dimensions [batch, seq, 32], not 2");
    CHECK_THROWS_WITH(
        bind(matmul_add(), {.shapes = {shape("x", {2, 5, 16})}}),
        "--shape x=2x5x16: dimension 2 of graph input 'x' [batch, seq, 32] is 32, not 16");
  }
}

TEST_CASE("input data binds what the flags leave, and only symbolic inputs", "[onnx-dims]") {
  DimBindings b{.data = {{{2, 5, 32}, "input file 'x.npy'"}, {{2, 5, 16}, "input file 'm.npy'"}}};
  const onnx::Graph g = bind(matmul_add(), b);
  CHECK(g.tensor("y").shape == Shape{2, 5, 16});
  // Data for a static input binds nothing: the caller compares it with the
  // compiled shape as for any model.
  onnx_test::GraphMaker gm;
  gm.input("a", {2, 3});
  const onnx::Graph s = onnx::bind_dimensions(gm.graph, {.data = {{{4, 4}, "input file 'a.npy'"}}});
  CHECK(s.tensor("a").shape == Shape{2, 3});
  // The data's rank must match.
  CHECK_THROWS_WITH(bind(matmul_add(), {.data = {{{2, 5}, "input file 'x.npy'"}}}),
                    "input file 'x.npy': graph input 'x' has 3 dimensions [batch, seq, 32], not 2");
}

TEST_CASE("anonymous dimensions and shapeless inputs take a --shape", "[onnx-dims]") {
  const onnx::Graph a = onnx::import_model_file(kDir + "anonymous.onnx");
  CHECK_THROWS_WITH(onnx::fold_and_infer(a),
                    "graph input 'x': dimension 0 of [?, 32] is anonymous ('?'), which nothing "
                    "binds (tirc compiles static shapes): pass --shape x=<?>x32");
  const onnx::Graph x_only = bind(a, {.shapes = {shape("x", {4, 32})}});
  CHECK_THROWS_WITH(onnx::fold_and_infer(x_only),
                    Catch::Contains("graph input 'z': the model declares no shape") &&
                        Catch::Contains("--shape z="));
  const onnx::Graph g = bind(a, {.shapes = {shape("x", {4, 32}), shape("z", {3, 2})}});
  CHECK(g.tensor("x").shape == Shape{4, 32});
  CHECK(g.tensor("z").shape == Shape{3, 2});
  CHECK(g.tensor("z").dim_params == std::vector<std::string>{"?", "?"});
  CHECK(onnx::fold_and_infer(g).tensor("r").shape == Shape{3, 2});
}

TEST_CASE("a bound model's entry and header say what was bound", "[onnx-dims]") {
  ModelOptions options;
  options.dims.dims = {dim("batch", 2), dim("seq", 5)};
  const IRModule m = import_onnx_module(kDir + "matmul_add.onnx", options);
  const PrimFunc& entry = m.at("run");
  CHECK(attr_text(entry, kIoDimsAttr) == "batch,seq,32;batch,seq,16;batch,seq,16");
  CHECK(entry_io_dims(entry) == std::vector<std::vector<std::string>>{{"batch", "seq", "32"},
                                                                      {"batch", "seq", "16"},
                                                                      {"batch", "seq", "16"}});
  const std::string h = write_c_header("net", {{"net_run", entry}});
  CHECK_THAT(h, Catch::Contains("/*   compiled for the symbolic dimensions batch=2, seq=5 */\n"
                                "/*   input 0 \"x\": float32[batch=2, seq=5, 32] */\n"
                                "/*   input 1 \"m\": float32[batch=2, seq=5, 16] */\n"
                                "/*   output 0 \"y\": float32[batch=2, seq=5, 16] */\n"));

  // The compiled model computes what the interpreter does on the parts.
  NDArray x = onnx_test::filled({2, 5, 32}, -1, 0.01), mm = onnx_test::filled({2, 5, 16}, 0.5, 0);
  NDArray y(DataType::float32(), {2, 5, 16});
  run_module(m, "run", {{&x}, {&mm}, {&y}});
  const NDArray& w = *m.find_constant("w");
  for (int64_t i = 0; i < 10; ++i)
    for (int64_t j = 0; j < 16; ++j) {
      double want = 0.5 + static_cast<double>(j) / 4;
      for (int64_t k = 0; k < 32; ++k) want += x.get_float(i * 32 + k) * w.get_float(k * 16 + j);
      CHECK(y.get_float(i * 16 + j) == Approx(want).epsilon(1e-5).margin(1e-5));
    }

  // A static model's entry has no such attribute (its header is unchanged).
  const IRModule s =
      import_onnx_module(std::string(TIRC_SOURCE_DIR) + "/examples/models/mlp/model.onnx");
  CHECK(attr_text(s.at("run"), kIoDimsAttr) == "(absent)");

  // Names that could end the comment are quoted; a wrong count is refused.
  Annotations attrs = entry->attrs;
  attrs[kIoDimsAttr] = make_string("b*/,seq,32;b*/,seq,16;b*/,seq,16");
  const std::string h2 =
      write_c_header("net", {{"net_run", make_prim_func(entry->params, entry->body, attrs)}});
  CHECK_THAT(h2, Catch::Contains("float32[\"b*\\/\"=2, seq=5, 32]"));
  attrs[kIoDimsAttr] = make_string("batch,seq;batch,seq,16;batch,seq,16");
  CHECK_THROWS_WITH(
      write_c_header("net", {{"net_run", make_prim_func(entry->params, entry->body, attrs)}}),
      Catch::Contains("gives 2 dimensions for parameter 'x', which has 3"));
}
