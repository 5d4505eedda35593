#include <catch2/catch.hpp>

#include "eval_test_util.h"

using namespace tirc;
using namespace tirc::test;

TEST_CASE("an out-of-bounds load names the buffer, the indices and the block", "[eval]") {
  Buffer A = make_buffer("A", f32, {4, 4}), B = make_buffer("B", f32, {4, 4});
  Var i = make_var("i"), j = make_var("j"), vi = make_var("vi"), vj = make_var("vj");
  Block blk = make_block("shift", {spatial(vi, 0, 4), spatial(vj, 0, 4)},
                         make_store(B, make_load(A, {vi, vj + 1}), {vi, vj}));
  PrimFunc f = func_of(
      {A, B},
      root_block(serial(i, 4, serial(j, 4, make_block_realize({i, j}, make_bool(true), blk)))));
  std::vector<NDArray> arrays = {NDArray(f32, {4, 4}), NDArray(f32, {4, 4})};
  try {
    run(f, args_of(arrays));
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK_THAT(e.message(), Catch::Contains("load from A[0, 4]") &&
                                Catch::Contains("shape [4, 4]") &&
                                Catch::Contains("block \"shift\""));
  }
}

TEST_CASE("an out-of-bounds store carries the statement's source location", "[eval]") {
  Buffer B = make_buffer("B", i32, {4});
  Var i = make_var("i");
  auto store = std::make_shared<BufferStoreNode>(B, make_int(1), std::vector<Expr>{i});
  store->loc.file = std::make_shared<const std::string>("k.py");
  store->loc.line = 7;
  store->loc.col = 9;
  PrimFunc f = func_of({B}, serial(i, 5, store));
  NDArray b(i32, {4});
  try {
    run(f, {Argument{&b}});
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK_THAT(e.message(), Catch::Contains("store to B[4]"));
    CHECK(e.loc().line == 7);
    CHECK(e.loc().col == 9);
  }
}

TEST_CASE("division by zero inside a kernel is an error naming the block", "[eval]") {
  Buffer A = make_buffer("A", i32, {4}), B = make_buffer("B", i32, {4});
  Var i = make_var("i"), vi = make_var("vi");
  Block blk = make_block("div", {spatial(vi, 0, 4)},
                         make_store(B, floordiv(make_int(12), make_load(A, {vi})), {vi}));
  PrimFunc f =
      func_of({A, B}, root_block(serial(i, 4, make_block_realize({i}, make_bool(true), blk))));
  NDArray a(i32, {4}), b(i32, {4});
  for (int k = 0; k < 4; ++k) a.set_int(k, 3 - k);
  CHECK_THROWS_WITH(run(f, {Argument{&a}, Argument{&b}}),
                    Catch::Contains("division by zero") && Catch::Contains("block \"div\""));
  CHECK(b.get_int(0) == 4);  // earlier iterations ran
}

TEST_CASE("argument mismatches and unbound variables are errors", "[eval]") {
  PrimFunc f = matmul(4);
  std::vector<NDArray> ok = random_inputs(f, 0);
  std::vector<NDArray> bad = ok;
  bad[1] = NDArray(f32, {4, 5});
  CHECK_THROWS_WITH(run(f, args_of(bad)),
                    Catch::Contains("parameter B") && Catch::Contains("(4, 5)"));
  CHECK_THROWS_WITH(run(f, {Argument{&ok[0]}}), Catch::Contains("3 arguments"));
  CHECK_THROWS_WITH(run(f, {Argument{&ok[0]}, Argument{}, Argument{&ok[2]}}),
                    Catch::Contains("parameter B"));

  Buffer A = make_buffer("A", i32, {4});
  Var free_var = make_var("free");
  CHECK_THROWS_WITH(run(func_of({A}, make_store(A, free_var, {0})), {Argument{&ok[0]}}),
                    Catch::Contains("free"));
  Buffer ghost = make_buffer("ghost", i32, {4});
  NDArray a(i32, {4});
  CHECK_THROWS_WITH(run(func_of({A}, make_store(A, make_load(ghost, {0}), {0})), {Argument{&a}}),
                    Catch::Contains("ghost"));
}
