#include <catch2/catch.hpp>
#include <cmath>

#include "eval_test_util.h"

using namespace tirc;
using namespace tirc::test;

TEST_CASE("matmul with init matches a hand-computed product", "[eval]") {
  const int n = 8;
  PrimFunc f = matmul(n);
  std::vector<NDArray> arrays = random_inputs(f, 7);
  // C starts as garbage: init must overwrite it.
  for (int64_t i = 0; i < n * n; ++i) arrays[2].set_float(i, 1000.0 + static_cast<double>(i));
  std::vector<NDArray> in = arrays;
  run(f, args_of(arrays));
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      float want = 0;
      for (int k = 0; k < n; ++k)
        want += static_cast<float>(in[0].get_float(i * n + k) * in[1].get_float(k * n + j));
      CHECK(arrays[2].get_float(i * n + j) == want);
    }
  CHECK(arrays[0].bitwise_equal(in[0]));
}

TEST_CASE("init runs exactly once per output, also for a reduce domain not starting at 0",
          "[eval]") {
  // for i, k: block(vi = i, vk = k + 2) with vk in [2, 5):
  //   init: Count[vi] += 1; S[vi] = 0      body: S[vi] += A[vi, vk]
  Buffer A = make_buffer("A", f32, {3, 5}), S = make_buffer("S", f32, {3}),
         Count = make_buffer("Count", i32, {3});
  Var i = make_var("i"), k = make_var("k"), vi = make_var("vi"), vk = make_var("vk");
  Stmt init = make_seq(
      {make_store(Count, make_load(Count, {vi}) + 1, {vi}), make_store(S, make_float(0.0), {vi})});
  Stmt body = make_store(S, make_load(S, {vi}) + make_load(A, {vi, vk}), {vi});
  Block blk = make_block("S", {spatial(vi, 0, 3), reduce(vk, 2, 3)}, body, init);
  Stmt loops = serial(i, 3, serial(k, 3, make_block_realize({i, k + 2}, make_bool(true), blk)));
  PrimFunc f = func_of({A, S, Count}, root_block(loops));
  std::vector<NDArray> arrays = random_inputs(f, 3);
  for (int64_t x = 0; x < 3; ++x) arrays[2].set_int(x, 0);
  std::vector<NDArray> in = arrays;
  run(f, args_of(arrays));
  for (int x = 0; x < 3; ++x) {
    CHECK(arrays[2].get_int(x) == 1);
    double want = 0;
    for (int y = 2; y < 5; ++y) want += in[0].get_float(x * 5 + y);
    CHECK(arrays[1].get_float(x) == want);
  }
}

TEST_CASE("a false block predicate skips the block, domain checks included", "[eval]") {
  Buffer A = make_buffer("A", f32, {6}), B = make_buffer("B", f32, {8});
  Var i = make_var("i"), vi = make_var("vi");
  Block blk = make_block("B", {spatial(vi, 0, 6)},
                         make_store(B, make_load(A, {vi}) * make_float(2.0), {vi}));
  PrimFunc guarded = func_of({A, B}, root_block(serial(i, 8, make_block_realize({i}, i < 6, blk))));
  std::vector<NDArray> arrays = {NDArray(f32, {6}), NDArray(f32, {8})};
  for (int x = 0; x < 6; ++x) arrays[0].set_float(x, x + 1);
  for (int x = 0; x < 8; ++x) arrays[1].set_float(x, -1);
  run(guarded, args_of(arrays));
  for (int x = 0; x < 6; ++x) CHECK(arrays[1].get_float(x) == 2.0 * (x + 1));
  CHECK(arrays[1].get_float(6) == -1);
  CHECK(arrays[1].get_float(7) == -1);

  PrimFunc unguarded =
      func_of({A, B}, root_block(serial(i, 8, make_block_realize({i}, make_bool(true), blk))));
  CHECK_THROWS_WITH(run(unguarded, args_of(arrays)), Catch::Contains("block \"B\"") &&
                                                         Catch::Contains("vi = 6") &&
                                                         Catch::Contains("[0, 6)"));
}

TEST_CASE("loops of every kind run serially in order", "[eval]") {
  Buffer B = make_buffer("B", i32, {16});
  Var i = make_var("i"), j = make_var("j");
  // B[i*4 + j] = counter order check: each iteration stores the previous element + 1.
  Expr idx = i * 4 + j;
  Stmt store = make_store(
      B, make_call(i32, "if_then_else", {idx > 0, make_load(B, {max(idx - 1, 0)}) + 1, 0}), {idx});
  for (ForKind outer : {ForKind::Parallel, ForKind::ThreadBinding, ForKind::Unrolled}) {
    Stmt s = make_for(i, 0, 4, outer, make_for(j, 0, 4, ForKind::Vectorized, store),
                      outer == ForKind::ThreadBinding ? "threadIdx.x" : "");
    PrimFunc f = func_of({B}, s);
    NDArray b(i32, {16});
    run(f, {Argument{&b}});
    for (int x = 0; x < 16; ++x) CHECK(b.get_int(x) == x);
  }
}

TEST_CASE("vector Ramp and Broadcast loads and stores go lane by lane", "[eval]") {
  Buffer A = make_buffer("A", f32, {8}), B = make_buffer("B", f32, {4}),
         I = make_buffer("I", i32, {4});
  // B[0:4] = A[ramp(0, 2, 4)] + broadcast(1.5); I[ramp(3, -1, 4)] = ramp(10, 5, 4)
  Stmt s = make_seq(
      {make_store(B, make_load(A, {make_ramp(0, 2, 4)}) + make_broadcast(make_float(1.5), 4),
                  {make_ramp(0, 1, 4)}),
       make_store(I, make_ramp(10, 5, 4), {make_ramp(3, -1, 4)})});
  PrimFunc f = func_of({A, B, I}, s);
  std::vector<NDArray> arrays = {NDArray(f32, {8}), NDArray(f32, {4}), NDArray(i32, {4})};
  for (int x = 0; x < 8; ++x) arrays[0].set_float(x, x * 10);
  run(f, args_of(arrays));
  for (int x = 0; x < 4; ++x) {
    CHECK(arrays[1].get_float(x) == x * 20 + 1.5);
    CHECK(arrays[2].get_int(3 - x) == 10 + 5 * x);
  }
  // A vector access whose last lane is out of bounds is caught.
  PrimFunc oob =
      func_of({A, B, I}, make_store(B, make_load(A, {make_ramp(5, 1, 4)}), {make_ramp(0, 1, 4)}));
  CHECK_THROWS_WITH(run(oob, args_of(arrays)), Catch::Contains("A[8]"));
}

TEST_CASE("Allocate and DeclBuffer provide scratch storage, poisoned until written", "[eval]") {
  Buffer A = make_buffer("A", f32, {4}), B = make_buffer("B", f32, {4});
  Var i = make_var("i");
  Var data = make_var("scratch", DataType::handle());
  auto scratch = std::make_shared<BufferNode>(*make_buffer("scratch", f32, {4}));
  scratch->data = data;
  Buffer T = scratch;
  Stmt fill = serial(i, 4, make_store(T, make_load(A, {i}) * make_float(3.0), {i}));
  Stmt copy = serial(i, 4, make_store(B, make_load(T, {3 - i}), {i}));
  std::vector<NDArray> arrays = {NDArray(f32, {4}), NDArray(f32, {4})};
  for (int x = 0; x < 4; ++x) arrays[0].set_float(x, x + 1);

  SECTION("DeclBuffer over an Allocate") {
    Stmt body =
        std::make_shared<AllocateNode>(data, f32, std::vector<Expr>{4}, "global",
                                       std::make_shared<DeclBufferNode>(T, make_seq({fill, copy})));
    run(func_of({A, B}, body), args_of(arrays));
    for (int x = 0; x < 4; ++x) CHECK(arrays[1].get_float(x) == 3.0 * (4 - x));
  }
  SECTION("Allocate with the buffer used undeclared") {
    Stmt body = std::make_shared<AllocateNode>(data, f32, std::vector<Expr>{4}, "global",
                                               make_seq({fill, copy}));
    run(func_of({A, B}, body), args_of(arrays));
    for (int x = 0; x < 4; ++x) CHECK(arrays[1].get_float(x) == 3.0 * (4 - x));
  }
  SECTION("DeclBuffer with its own storage") {
    run(func_of({A, B}, std::make_shared<DeclBufferNode>(T, make_seq({fill, copy}))),
        args_of(arrays));
    for (int x = 0; x < 4; ++x) CHECK(arrays[1].get_float(x) == 3.0 * (4 - x));
  }
  SECTION("reading before writing shows the poison") {
    Stmt body = std::make_shared<AllocateNode>(data, f32, std::vector<Expr>{4}, "global", copy);
    run(func_of({A, B}, body), args_of(arrays));
    for (int x = 0; x < 4; ++x) CHECK(std::isnan(arrays[1].get_float(x)));
  }
}

TEST_CASE("block alloc_buffers are fresh per entry and match_buffer views a region", "[eval]") {
  Buffer A = make_buffer("A", f32, {4, 4}), B = make_buffer("B", f32, {4, 4});
  Buffer local = make_buffer("local", f32, {2}, "local");
  Buffer sub = make_buffer("sub", f32, {2, 2});
  Var i = make_var("i"), vi = make_var("vi");
  // Block "copy" (vi in [0, 2)): sub = A[2*vi : 2*vi+2, 1:3]; local[0] = sub[1, 1]; B[vi, 0] =
  // local[0] + local[1] (poisoned)
  auto blk = std::make_shared<BlockNode>();
  blk->name = "copy";
  blk->iter_vars = {spatial(vi, 0, 2)};
  blk->alloc_buffers = {local};
  blk->match_buffers = {MatchBufferRegion{sub, BufferRegion{A, {{vi * 2, 2}, {1, 2}}}}};
  blk->body = make_seq({make_store(local, make_load(sub, {1, 1}), {0}),
                        make_store(B, make_load(local, {0}), {vi, 0}),
                        make_store(B, make_load(local, {1}), {vi, 1})});
  PrimFunc f =
      func_of({A, B}, root_block(serial(i, 2, make_block_realize({i}, make_bool(true), blk))));
  std::vector<NDArray> arrays = {NDArray(f32, {4, 4}), NDArray(f32, {4, 4})};
  for (int x = 0; x < 16; ++x) arrays[0].set_float(x, x);
  run(f, args_of(arrays));
  CHECK(arrays[1].get_float(0 * 4 + 0) == 1 * 4 + 2);  // A[1, 2]
  CHECK(arrays[1].get_float(1 * 4 + 0) == 3 * 4 + 2);  // A[3, 2]
  CHECK(std::isnan(arrays[1].get_float(0 * 4 + 1)));
  CHECK(std::isnan(arrays[1].get_float(1 * 4 + 1)));
}

TEST_CASE("LetStmt, IfThenElse and Evaluate", "[eval]") {
  Buffer A = make_buffer("A", i32, {4}), B = make_buffer("B", i32, {4});
  Var i = make_var("i"), x = make_var("x");
  Stmt body = serial(i, 4,
                     std::make_shared<LetStmtNode>(
                         x, make_load(A, {i}) * 2,
                         make_seq({make_evaluate(x + 1), make_if(x > 4, make_store(B, x + 1, {i}),
                                                                 make_store(B, 0 - x, {i}))})));
  NDArray a(i32, {4}), b(i32, {4});
  for (int k = 0; k < 4; ++k) a.set_int(k, k);
  run(func_of({A, B}, body), {Argument{&a}, Argument{&b}});
  CHECK(b.get_int(0) == 0);
  CHECK(b.get_int(1) == -2);
  CHECK(b.get_int(2) == -4);
  CHECK(b.get_int(3) == 7);
}

TEST_CASE("if_then_else evaluates only the taken side, Select both", "[eval]") {
  Buffer A = make_buffer("A", f32, {4}), B = make_buffer("B", f32, {8});
  Var i = make_var("i");
  Expr guarded = make_call(f32, "if_then_else", {i < 4, make_load(A, {i}), make_float(-1.0)});
  NDArray a(f32, {4}), b(f32, {8});
  for (int k = 0; k < 4; ++k) a.set_float(k, k);
  run(func_of({A, B}, serial(i, 8, make_store(B, guarded, {i}))), {Argument{&a}, Argument{&b}});
  for (int k = 0; k < 8; ++k) CHECK(b.get_float(k) == (k < 4 ? k : -1));
  Expr eager = make_select(i < 4, make_load(A, {i}), make_float(-1.0));
  CHECK_THROWS_WITH(
      run(func_of({A, B}, serial(i, 8, make_store(B, eager, {i}))), {Argument{&a}, Argument{&b}}),
      Catch::Contains("A[4]"));
}

TEST_CASE("scalar parameters and symbolic shapes bind from the arguments", "[eval]") {
  Var n = make_var("n"), scale = make_var("scale", f32);
  Buffer A = make_buffer("A", f32, {n});
  Var i = make_var("i");
  Stmt body = serial(i, n, make_store(A, make_load(A, {i}) * scale, {i}));
  PrimFunc f = make_prim_func({Param{A->data, A}, Param{scale, nullptr}}, body);
  NDArray a(f32, {5});
  for (int k = 0; k < 5; ++k) a.set_float(k, k);
  Argument s;
  s.float_value = 2.5;
  run(f, {Argument{&a}, s});
  for (int k = 0; k < 5; ++k) CHECK(a.get_float(k) == 2.5 * k);
  NDArray wrong(DataType::float64(), {5});
  CHECK_THROWS_WITH(run(f, {Argument{&wrong}, s}), Catch::Contains("parameter A"));
}

TEST_CASE("a scalar parameter used as a buffer extent must match the argument", "[eval]") {
  Var n = make_var("n");
  Buffer A = make_buffer("A", f32, {n});
  Var i = make_var("i");
  PrimFunc f = make_prim_func({Param{A->data, A}, Param{n, nullptr}},
                              serial(i, n, make_store(A, make_float(1.0), {i})));
  NDArray a(f32, {6});
  Argument extent;
  extent.int_value = 6;
  run(f, {Argument{&a}, extent});
  CHECK(a.get_float(5) == 1);
  extent.int_value = 5;
  CHECK_THROWS_WITH(run(f, {Argument{&a}, extent}),
                    Catch::Contains("parameter A") && Catch::Contains("(5)"));
}

TEST_CASE("a scalar stored through vector indices fills every lane", "[eval]") {
  Buffer B = make_buffer("B", DataType::int8(), {4});
  NDArray b(DataType::int8(), {4});
  run(func_of({B}, make_store(B, make_int(7, DataType::int8()), {make_ramp(0, 1, 4)})),
      {Argument{&b}});
  for (int k = 0; k < 4; ++k) CHECK(b.get_int(k) == 7);
}
