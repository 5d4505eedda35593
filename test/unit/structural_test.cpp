#include <catch2/catch.hpp>

#include "ir/structural.h"

using namespace tirc;

namespace {

const DataType f32 = DataType::float32();

// for i, j: with block(name): vi, vj = remap(i, j); C[vi, vj] = A[vi, vj] <op> 1
PrimFunc elementwise(const std::string& block_name, bool swap_loops = false,
                     ExprKind op = ExprKind::Add, double constant = 1.0,
                     const char* loop_name = "i") {
  Buffer A = make_buffer("A", f32, {16, 32}), C = make_buffer("C", f32, {16, 32});
  Var i = make_var(loop_name), j = make_var("j");
  auto blk = std::make_shared<BlockNode>();
  blk->name = block_name;
  blk->iter_vars = {IterVar{make_var("vi"), Range::from_min_extent(0, 16), IterKind::DataPar, {}},
                    IterVar{make_var("vj"), Range::from_min_extent(0, 32), IterKind::DataPar, {}}};
  Expr vi = blk->iter_vars[0].var, vj = blk->iter_vars[1].var;
  blk->reads = {BufferRegion{A, {Range::from_min_extent(vi, 1), Range::from_min_extent(vj, 1)}}};
  blk->writes = {BufferRegion{C, {Range::from_min_extent(vi, 1), Range::from_min_extent(vj, 1)}}};
  blk->body =
      make_store(C, make_binary(op, make_load(A, {vi, vj}), make_float(constant)), {vi, vj});
  Stmt realize = make_block_realize({i, j}, make_bool(true), blk);
  Stmt loops =
      swap_loops
          ? make_for(j, 0, 32, ForKind::Serial, make_for(i, 0, 16, ForKind::Serial, realize))
          : make_for(i, 0, 16, ForKind::Serial, make_for(j, 0, 32, ForKind::Serial, realize));
  return make_prim_func({Param{A->data, A}, Param{C->data, C}}, loops);
}

}  // namespace

TEST_CASE("expressions compare by shape with free variables matched by position",
          "[arith][structural]") {
  Var x = make_var("x"), y = make_var("y"), z = make_var("z");
  CHECK(structural_equal(x + 1, x + 1));
  CHECK(structural_equal(x + y, y + x));  // first-seen positions agree
  CHECK_FALSE(structural_equal(x + x, x + y));
  CHECK_FALSE(structural_equal(x + y, x + x));
  CHECK_FALSE(structural_equal(x + 1, x + 2));
  CHECK_FALSE(structural_equal(x + 1, x - 1));
  CHECK_FALSE(structural_equal(Expr(x), Expr(make_var("x", DataType::int64()))));
  CHECK_FALSE(structural_equal(make_float(1.0), make_float(1.0, DataType::float64())));
  CHECK(structural_equal(make_string("a"), make_string("a")));
  CHECK_FALSE(structural_equal(make_string("a"), make_string("b")));
  CHECK(structural_hash(x * 2 + z) == structural_hash(y * 2 + x));
  CHECK(structural_hash(x + 1) != structural_hash(x + 2));
  CHECK(structural_equal(Expr(), Expr()));
  CHECK_FALSE(structural_equal(Expr(x), Expr()));
}

TEST_CASE("renamed variables keep programs equal", "[arith][structural]") {
  PrimFunc a = elementwise("C"), b = elementwise("C", false, ExprKind::Add, 1.0, "renamed");
  CHECK(structural_equal(a, b));
  CHECK(structural_hash(a) == structural_hash(b));
  CHECK(structural_diff(a, b).empty());
  CHECK(structural_equal(a->body, b->body));
  CHECK(structural_hash(a->body) == structural_hash(b->body));
}

TEST_CASE("structural differences are found and located", "[arith][structural]") {
  PrimFunc base = elementwise("C");
  PrimFunc swapped = elementwise("C", true);
  CHECK_FALSE(structural_equal(base, swapped));
  CHECK_FALSE(structural_diff(base, swapped).empty());

  PrimFunc other_const = elementwise("C", false, ExprKind::Add, 2.0);
  CHECK_FALSE(structural_equal(base, other_const));
  CHECK(structural_hash(base) != structural_hash(other_const));

  PrimFunc sub = elementwise("C", false, ExprKind::Sub);
  CHECK_FALSE(structural_equal(base, sub));
  std::string diff = structural_diff(base, sub);
  CHECK(diff == "body/For(i)/For(j)/Block(C)/body/value: Add vs Sub");

  PrimFunc renamed_block = elementwise("D");
  CHECK_FALSE(structural_equal(base, renamed_block));
  CHECK(structural_diff(base, renamed_block).find("\"C\" vs \"D\"") != std::string::npos);
}

TEST_CASE("buffers are matched by definition", "[arith][structural]") {
  Buffer A = make_buffer("A", f32, {8}), B = make_buffer("B", f32, {8}),
         A2 = make_buffer("A2", f32, {8});
  Var i = make_var("i");
  // a store reading its own target vs reading another parameter
  auto body = [&](const Buffer& dst, const Buffer& src) {
    return make_for(i, 0, 8, ForKind::Serial, make_store(dst, make_load(src, {i}), {i}));
  };
  PrimFunc self = make_prim_func({Param{A->data, A}, Param{B->data, B}}, body(A, A));
  PrimFunc cross = make_prim_func({Param{A->data, A}, Param{B->data, B}}, body(A, B));
  PrimFunc renamed = make_prim_func({Param{A2->data, A2}, Param{B->data, B}}, body(A2, A2));
  CHECK_FALSE(structural_equal(self, cross));
  CHECK(structural_equal(self, renamed));
  CHECK(structural_hash(self) == structural_hash(renamed));
  // shape and scope are part of a buffer
  Buffer wide = make_buffer("A", f32, {9});
  CHECK_FALSE(structural_equal(
      self, make_prim_func({Param{wide->data, wide}, Param{B->data, B}}, body(wide, wide))));
  Buffer shared = with_scope(A, "shared");
  CHECK_FALSE(structural_equal(
      self,
      make_prim_func({Param{shared->data, shared}, Param{B->data, B}}, body(shared, shared))));
}

TEST_CASE("annotations and loop kinds are compared", "[arith][structural]") {
  Buffer A = make_buffer("A", f32, {8});
  Var i = make_var("i");
  Stmt st = make_store(A, make_float(0.0), {i});
  Stmt plain = make_for(i, 0, 8, ForKind::Serial, st);
  Stmt par = make_for(i, 0, 8, ForKind::Parallel, st);
  Stmt ann = make_for(i, 0, 8, ForKind::Serial, st, {}, {{"pragma_unroll", Expr(4)}});
  Stmt ann2 = make_for(i, 0, 8, ForKind::Serial, st, {}, {{"pragma_unroll", Expr(8)}});
  CHECK_FALSE(structural_equal(plain, par));
  CHECK_FALSE(structural_equal(plain, ann));
  CHECK_FALSE(structural_equal(ann, ann2));
  CHECK(structural_equal(ann,
                         make_for(i, 0, 8, ForKind::Serial, st, {}, {{"pragma_unroll", Expr(4)}})));
}

TEST_CASE("modules compare function by function", "[arith][structural]") {
  IRModule m1, m2, m3;
  m1.add("main", elementwise("C"));
  m1.add("other", elementwise("D"));
  m2.add("other", elementwise("D", false, ExprKind::Add, 1.0, "k"));
  m2.add("main", elementwise("C"));
  m3.add("main", elementwise("C"));
  m3.add("other", elementwise("D", true));
  CHECK(structural_equal(m1, m2));
  CHECK_FALSE(structural_equal(m1, m3));
  IRModule only_main;
  only_main.add("main", elementwise("C"));
  CHECK_FALSE(structural_equal(m1, only_main));
}
