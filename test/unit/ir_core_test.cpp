#include <catch2/catch.hpp>

#include "ir/functor.h"
#include "ir/substitute.h"

using namespace tirc;

TEST_CASE("dtype names round-trip", "[ir][dtype]") {
  for (const char* name : {"float32", "float16", "bfloat16", "int8", "int16", "int32", "int64", "uint8",
                           "bool", "float32x8", "int32x4", "handle"}) {
    auto t = DataType::parse(name);
    REQUIRE(t);
    CHECK(t->str() == name);
  }
  CHECK_FALSE(DataType::parse("float7"));
  CHECK_FALSE(DataType::parse("int32x1"));
  CHECK_FALSE(DataType::parse("banana"));
  CHECK(DataType::parse("float32x8")->lanes() == 8);
}

TEST_CASE("expression construction type-checks", "[ir][expr]") {
  Var i = make_var("i"), j = make_var("j");
  Expr e = i * 4 + j;
  REQUIRE(e.as<BinaryNode>());
  CHECK(e.kind() == ExprKind::Add);
  CHECK(e.dtype() == DataType::int32());
  CHECK((e < 10).dtype() == DataType::boolean());

  Var f = make_var("x", DataType::float32());
  CHECK_THROWS_AS(make_binary(ExprKind::Add, f, i), Error);
  CHECK_THROWS_AS(make_not(i), Error);
  CHECK_THROWS_AS(make_binary(ExprKind::And, i, j), Error);

  // literals adopt the other operand's type
  Var k = make_var("k", DataType::int64());
  CHECK((k + 1).dtype() == DataType::int64());
  CHECK(make_ramp(i, 1, 8).dtype() == DataType::int32().with_lanes(8));
}

TEST_CASE("loads carry the buffer element type and vector lanes", "[ir][expr]") {
  Buffer A = make_buffer("A", DataType::float32(), {128, 64});
  Var i = make_var("i");
  CHECK(make_load(A, {i, i}).dtype() == DataType::float32());
  CHECK(make_load(A, {i, make_ramp(i, 1, 16)}).dtype() == DataType::float32().with_lanes(16));
  CHECK(const_num_elements(A) == 128 * 64);
}

TEST_CASE("mutators share untouched subtrees", "[ir][functor]") {
  Var i = make_var("i"), j = make_var("j");
  Buffer A = make_buffer("A", DataType::float32(), {16, 16});
  Stmt s = make_for(i, 0, 16, ForKind::Serial,
                    make_seq({make_store(A, make_float(1.0), {i, 0}), make_store(A, make_float(2.0), {j, 1})}));
  Stmt same = substitute(s, VarMap{{make_var("unused").get(), Expr(3)}});
  CHECK(same.same_as(s));

  Stmt t = substitute(s, VarMap{{j.get(), Expr(5)}});
  REQUIRE_FALSE(t.same_as(s));
  auto* seq = t.as<ForNode>()->body.as<SeqStmtNode>();
  REQUIRE(seq);
  CHECK(seq->seq[0].same_as(s.as<ForNode>()->body.as<SeqStmtNode>()->seq[0]));
  CHECK(is_const_int(seq->seq[1].as<BufferStoreNode>()->indices[0], 5));
}

TEST_CASE("diagnostics render with a caret", "[ir][error]") {
  SourceLoc loc{std::make_shared<std::string>("x.tir"), std::make_shared<std::string>("ab\n  cd\n"), 2, 3};
  CHECK(Error("bad", loc).render() == "x.tir:2:3: error: bad\n  cd\n  ^\n");
}
