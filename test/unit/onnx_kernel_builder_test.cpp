// The ONNX kernel builder: the blocks it emits are proper TensorIR that
// verifies, prints, parses back, runs in the interpreter and lowers.
#include <catch2/catch.hpp>

#include "ir/eval/interpreter.h"
#include "ir/onnx/kernel_builder.h"
#include "ir/structural.h"
#include "ir/text/parser.h"
#include "ir/text/printer.h"
#include "ir/verify.h"
#include "passes/pipeline.h"

using namespace tirc;
using namespace tirc::onnx;

namespace {

const DataType f32 = DataType::float32();

// Verifies, round-trips through text and lowers f; returns the printed text.
std::string check_well_formed(const PrimFunc& f) {
  auto diags = verify(f, "k");
  for (const Diagnostic& d : diags) FAIL(d.message);
  std::string text = print_func(f, "k");
  IRModule back = parse_module(text, "k.tir");
  INFO(text);
  CHECK(structural_equal(back.at("k"), f));
  CHECK(print_func(back.at("k"), "k") == text);
  PrimFunc lowered = lower(f);
  CHECK_NOTHROW(check_lowered_form(lowered));
  return text;
}

NDArray iota(DataType t, std::vector<int64_t> shape, double start = 0) {
  NDArray a(t, std::move(shape));
  for (int64_t i = 0; i < a.num_elements(); ++i) a.set_float(i, start + static_cast<double>(i));
  return a;
}

}  // namespace

TEST_CASE("broadcast_shapes follows numpy", "[onnx-ops-a][kernel-builder]") {
  CHECK(broadcast_shapes({{2, 3}, {3}}) == Shape{2, 3});
  CHECK(broadcast_shapes({{4, 1, 5}, {3, 1}, {}}) == Shape{4, 3, 5});
  CHECK(broadcast_shapes({{1}, {1, 1}}) == Shape{1, 1});
  CHECK_THROWS_WITH(broadcast_shapes({{2, 3}, {4, 3}}), Catch::Contains("do not broadcast"));
  std::vector<Expr> idx = {make_var("a"), make_var("b"), make_var("c")};
  auto b = broadcast_indices({3, 1}, {4, 3, 5}, idx);
  REQUIRE(b.size() == 2);
  CHECK(b[0].same_as(idx[1]));
  CHECK(is_const_int(b[1], 0));
}

TEST_CASE("TensorValue loads buffers, expressions and immediates", "[onnx-ops-a][kernel-builder]") {
  auto c = std::make_shared<NDArray>(DataType::int64(), std::vector<int64_t>{1});
  c->set_int(0, int64_t{1} << 40);
  TensorValue v = TensorValue::of_constant(c);
  CHECK(v.num_elements() == 1);
  Expr e = v.load({make_int(0)});
  REQUIRE(e.as<IntImmNode>());
  CHECK(e.dtype() == DataType::int64());
  CHECK(e.as<IntImmNode>()->value == int64_t{1} << 40);

  auto big = std::make_shared<NDArray>(f32, std::vector<int64_t>{2, 2});
  CHECK_THROWS_WITH(TensorValue::of_constant(big).load({make_int(0), make_int(0)}),
                    Catch::Contains("no buffer"));
  CHECK_THROWS_WITH(v.load({}), Catch::Contains("read with 0 indices"));

  Buffer b = make_buffer("x", f32, {2, 3});
  TensorValue bv = TensorValue::of_buffer(b, {2, 3});
  CHECK(bv.num_elements() == 6);
  CHECK(bv.load({make_int(1), make_int(2)}).as<BufferLoadNode>());
}

TEST_CASE("elementwise and reduction blocks build a well-formed kernel",
          "[onnx-ops-a][kernel-builder]") {
  KernelBuilder k("k");
  Buffer x = k.add_param("x.in", f32, {2, 3});
  Buffer y = k.add_param("x.in", f32, {3});
  Buffer out = k.add_param("out", f32, {2});
  CHECK(x->name == "x_in");
  CHECK(y->name == "x_in_1");
  CHECK(k.unique_name("in") == "in_");
  CHECK(k.unique_name("T") == "T_");
  CHECK(k.unique_name("0:x") == "_0_x");
  // t = x + y (broadcast), materialized; out = sum over the last axis of t * 2.
  Shape s = broadcast_shapes({{2, 3}, {3}});
  TensorValue xv = TensorValue::of_buffer(x, {2, 3}), yv = TensorValue::of_buffer(y, {3});
  TensorValue sum = TensorValue::of_element(f32, s, [=](const std::vector<Expr>& i) {
    return xv.load(broadcast_indices(xv.shape, s, i)) + yv.load(broadcast_indices(yv.shape, s, i));
  });
  Buffer t = k.materialize(sum, "t");
  CHECK(k.materialize(TensorValue::of_buffer(t, s), "again") == t);
  k.emit_reduction(
      "reduce", out, {3}, make_float(0.0),
      [&](const std::vector<Expr>& i, const std::vector<Expr>& r) {
        return make_load(t, {i[0], r[0]}) * make_float(2.0);
      },
      [](Expr a, Expr v) { return a + v; });
  PrimFunc f = k.finish();
  std::string text = check_well_formed(f);
  CHECK(text.find("t = T.alloc_buffer((2, 3), \"float32\")") != std::string::npos);
  CHECK(text.find("T.axis.remap(\"SR\"") != std::string::npos);
  CHECK(text.find("with T.init():") != std::string::npos);

  NDArray a = iota(f32, {2, 3}), bb = iota(f32, {3}, 10), o(f32, {2});
  run(f, {{&a}, {&bb}, {&o}});
  // row 0: (0+10)+(1+11)+(2+12) = 36, *2 = 72; row 1: (3+4+5)+33 = 45, *2 = 90.
  CHECK(o.get_float(0) == 72);
  CHECK(o.get_float(1) == 90);
}

TEST_CASE("rank-0 outputs and write_to", "[onnx-ops-a][kernel-builder]") {
  KernelBuilder k("k");
  Buffer x = k.add_param("x", DataType::int64(), {4});
  Buffer total = k.add_param("total", DataType::int64(), {});
  Buffer copy = k.add_param("copy", DataType::int64(), {4});
  Buffer acc = k.alloc("acc", DataType::int64(), {});
  k.emit_reduction(
      "sum", acc, {4}, make_int(0, DataType::int64()),
      [&](const std::vector<Expr>&, const std::vector<Expr>& r) { return make_load(x, {r[0]}); },
      [](Expr a, Expr v) { return a + v; });
  k.write_to(TensorValue::of_buffer(acc, {}), total, "total");
  TensorValue xv = TensorValue::of_buffer(x, {4});
  k.write_to(xv, copy, "copy");
  CHECK_THROWS_WITH(k.write_to(xv, total, "bad"), Catch::Contains("cannot write"));
  CHECK_THROWS_WITH(
      k.emit_elementwise("bad", copy, [](const std::vector<Expr>&) { return make_float(1.0); }),
      Catch::Contains("float32 stored into copy of type int64"));
  PrimFunc f = k.finish();
  check_well_formed(f);
  NDArray a = iota(DataType::int64(), {4}, 5), t(DataType::int64(), {}), c(DataType::int64(), {4});
  run(f, {{&a}, {&t}, {&c}});
  CHECK(t.get_int(0) == 5 + 6 + 7 + 8);
  CHECK(c.get_int(3) == 8);
}
