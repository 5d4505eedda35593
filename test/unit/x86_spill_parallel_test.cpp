// Register pressure (spills counted through GeneratorStats) and parallel loops.
#include "runtime/tirc_runtime.h"
#include "x86_test_util.h"

using namespace tirc;
using namespace tirc::x86test;

namespace {

// A balanced sum of the products A[(k*5 + i) % 64] * B[(k*3 + 1) % 64] for
// k in [lo, hi): Sethi-Ullman needs log2(hi - lo) + 2 registers for it.
Expr balanced_products(const Buffer& A, const Buffer& B, const Var& i, int lo, int hi) {
  if (hi - lo == 1) {
    Expr ia = floormod(make_int(lo * 5) + i, make_int(64));
    return make_load(A, {ia}) * make_load(B, {make_int((lo * 3 + 1) % 64)});
  }
  int mid = (lo + hi) / 2;
  return balanced_products(A, B, i, lo, mid) + balanced_products(A, B, i, mid, hi);
}

PrimFunc products_func(DataType t, int terms) {
  Buffer A = make_buffer("A", t, {64}), B = make_buffer("B", t, {64}), C = make_buffer("C", t, {8});
  Var i = make_var("i");
  Stmt body = make_store(C, balanced_products(A, B, i, 0, terms), {i});
  return make_prim_func({{A->data, A}, {B->data, B}, {C->data, C}},
                        make_for(i, 0, 8, ForKind::Serial, body));
}

// select(c0, select(...), select(...)) nested `depth` levels on float values.
Expr nested_selects(const Buffer& A, const Var& i, int depth, int& counter) {
  if (depth == 0) {
    int k = counter++;
    return make_load(A, {floormod(i + make_int(k), make_int(64))}) + make_float(k);
  }
  Expr c = make_load(A, {floormod(i * make_int(depth) + make_int(counter), make_int(64))}) <
           make_float(0.5);
  Expr t = nested_selects(A, i, depth - 1, counter);
  Expr f = nested_selects(A, i, depth - 1, counter);
  Expr u = nested_selects(A, i, depth - 1, counter);
  return make_select(c, t * f, f - u);
}

}  // namespace

TEST_CASE("x86: a modest expression tree does not spill", "[x86]") {
  for (const Target& t : targets()) {
    for (DataType dt : {DataType::float32(), DataType::int32(), DataType::float64()}) {
      GeneratorStats s = expect_same(products_func(dt, 40), t, opts(true, 1));
      INFO(t.name() << " " << dt.str());
      CHECK(s.spills == 0);
      CHECK(s.reloads == 0);
    }
  }
}

TEST_CASE("x86: deep float expression trees spill correctly", "[x86]") {
  // 2^13 products need 15 xmm registers; the pool has fewer on both targets.
  PrimFunc f = products_func(DataType::float32(), 1 << 13);
  for (const Target& t : targets()) {
    GeneratorStats s = expect_same(f, t, opts(true, 1));
    INFO(t.name());
    CHECK(s.spills > 0);
    CHECK(s.reloads > 0);
  }
}

TEST_CASE("x86: deep integer expression trees spill correctly", "[x86]") {
  // 2^11 products need 13 general-purpose registers; the pool has 11.
  PrimFunc f = products_func(DataType::int32(), 1 << 11);
  for (const Target& t : targets()) {
    GeneratorStats s = expect_same(f, t, opts(false, 1));
    INFO(t.name());
    CHECK(s.spills > 0);
  }
}

TEST_CASE("x86: nested selects under register pressure", "[x86]") {
  Buffer A = make_buffer("A", DataType::float32(), {64}),
         C = make_buffer("C", DataType::float32(), {8});
  Var i = make_var("i");
  int counter = 0;
  Expr e = nested_selects(A, i, 7, counter);
  PrimFunc f = make_prim_func({{A->data, A}, {C->data, C}},
                              make_for(i, 0, 8, ForKind::Serial, make_store(C, e, {i})));
  for (const Target& t : targets()) {
    GeneratorStats s = expect_same(f, t, opts(true, 2));
    INFO(t.name());
    CHECK(s.spills > 0);
  }
}

TEST_CASE("x86: lazy if_then_else keeps pending values across its arms", "[x86]") {
  // The guarded load sits inside a deep sum, so values are pending when it branches.
  Buffer A = make_buffer("A", DataType::float32(), {64}),
         C = make_buffer("C", DataType::float32(), {64});
  Var i = make_var("i");
  Expr guarded = make_call(DataType::float32(), "if_then_else",
                           {i > make_int(0), make_load(A, {i - make_int(1)}), make_float(-1.0)});
  Expr sum = balanced_products(A, A, i, 0, 64) * guarded + make_load(A, {i});
  PrimFunc f = make_prim_func({{A->data, A}, {C->data, C}},
                              make_for(i, 0, 64, ForKind::Serial, make_store(C, sum, {i})));
  expect_same_all_targets(f);
}

TEST_CASE("x86: parallel loops through tirc_parallel_for", "[x86]") {
  PrimFunc f = parse_func(R"(@T.prim_func
def main(A: T.Buffer((703,), "float32"), B: T.Buffer((703,), "float32"), s: T.float32):
    k: T.int32 = 3
    for i in T.parallel(37):
        t = T.allocate([19], "float32", "global")
        tb = T.decl_buffer((19,), "float32", data=t)
        for j in range(19):
            tb[j] = A[i * 19 + j] * s
        for j in T.parallel(19):
            B[i * 19 + j] = tb[18 - j] + T.Cast("float32", k + i)
)");
  Argument s;
  s.float_value = 0.5;
  for (int threads : {1, 3, 8}) {
    tirc_set_num_threads(threads);
    for (const Target& t : targets()) {
      GeneratorStats st = expect_same(f, t, opts(true, 2, {s}));
      CHECK(st.parallel_loops == 1);
    }
  }
  tirc_set_num_threads(0);
}

TEST_CASE("x86: parallel loop with a symbolic extent and an offset", "[x86]") {
  PrimFunc f = parse_func(R"(@T.prim_func
def main(A: T.Buffer((100,), "int32"), n: T.int32):
    for i in T.parallel(2, n):
        A[i] = A[i] * A[i] + i
)");
  for (int n : {2, 3, 57, 100}) {
    Argument a;
    a.int_value = n;
    expect_same_all_targets(f, opts(false, 1, {a}));
  }
}

TEST_CASE("x86: parallel loops inside a serial loop keep the loop variable", "[x86]") {
  PrimFunc f = parse_func(R"(@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    for o in range(4):
        for i in T.parallel(16):
            B[o * 16 + i] = A[o * 16 + i] + T.Cast("float32", o)
)");
  tirc_set_num_threads(4);
  expect_same_all_targets(f);
  tirc_set_num_threads(0);
}
