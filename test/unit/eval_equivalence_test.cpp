#include <catch2/catch.hpp>

#include "eval_test_util.h"

using namespace tirc;
using namespace tirc::test;

TEST_CASE("random inputs are deterministic small integers", "[eval]") {
  PrimFunc f = matmul(8);
  std::vector<NDArray> a = random_inputs(f, 42), b = random_inputs(f, 42), c = random_inputs(f, 43);
  REQUIRE(a.size() == 3);
  CHECK(a[0].bitwise_equal(b[0]));
  CHECK_FALSE(a[0].bitwise_equal(c[0]));
  bool all_small = true, some_nonzero = false;
  for (int64_t i = 0; i < a[0].num_elements(); ++i) {
    double v = a[0].get_float(i);
    all_small = all_small && v == static_cast<int>(v) && v >= -4 && v <= 4;
    some_nonzero = some_nonzero || v != 0;
  }
  CHECK(all_small);
  CHECK(some_nonzero);
  std::vector<NDArray> wide = random_inputs(f, 42, false);
  CHECK(wide[0].get_float(0) != static_cast<int>(wide[0].get_float(0)));
}

TEST_CASE("check_equivalent accepts reordered loops and rejects a changed program", "[eval]") {
  EquivResult same = check_equivalent(matmul(8, "ijk"), matmul(8, "kji"), 2, 5);
  CHECK(same.equal);
  CHECK(same.message.empty());
  EquivResult differ = check_equivalent(matmul(8, "ijk"), matmul(8, "ikj", true), 2, 5);
  CHECK_FALSE(differ.equal);
  CHECK_THAT(differ.message, Catch::Contains("buffer C[0, 0]") && Catch::Contains(" vs "));
}

TEST_CASE("check_equivalent tolerances", "[eval]") {
  Buffer A = make_buffer("A", f32, {4});
  Var i = make_var("i");
  PrimFunc exact =
      func_of({A}, serial(i, 4, make_store(A, make_load(A, {i}) * make_float(1.0), {i})));
  PrimFunc off =
      func_of({A}, serial(i, 4, make_store(A, make_load(A, {i}) + make_float(1e-3), {i})));
  CHECK_FALSE(check_equivalent(exact, off).equal);
  CHECK(check_equivalent(exact, off, 3, 0, true, 0, 1e-2).equal);
  CHECK_FALSE(check_equivalent(exact, off, 3, 0, true, 0, 1e-4).equal);
}

TEST_CASE("check_equivalent reports mismatched signatures as errors", "[eval]") {
  CHECK_THROWS_WITH(check_equivalent(matmul(8), matmul(4)), Catch::Contains("(A)"));
  Buffer A = make_buffer("A", f32, {4});
  Buffer A64 = make_buffer("A", DataType::float64(), {4});
  Stmt nop = make_evaluate(make_int(0));
  CHECK_THROWS_WITH(check_equivalent(func_of({A}, nop), func_of({A64}, nop)),
                    Catch::Contains("parameter 0 (A)") && Catch::Contains("float64"));
  CHECK_THROWS_WITH(check_equivalent(func_of({A}, nop), func_of({A, A64}, nop)),
                    Catch::Contains("parameters"));
}

TEST_CASE("first_mismatch compares bit for bit or within a tolerance", "[eval][equiv]") {
  NDArray a(DataType::float32(), {4}), b(DataType::float32(), {4});
  for (int64_t i = 0; i < 4; ++i) a.set_float(i, 1.0 + static_cast<double>(i));
  b = a;
  CHECK(a.first_mismatch(b) == -1);
  b.set_float(2, 3.0001);
  CHECK(a.first_mismatch(b) == 2);              // bit for bit
  CHECK(a.first_mismatch(b, 1e-4, 0) == -1);    // within rtol
  CHECK(a.first_mismatch(b, 1e-6, 1e-6) == 2);  // outside
  b.set_float(2, NAN);
  CHECK(a.first_mismatch(b, 1, 1) == 2);  // NaN only equals NaN
  a.set_float(2, NAN);
  CHECK(a.first_mismatch(b, 1e-4, 0) == -1);
  a.set_float(3, INFINITY);
  b.set_float(3, 1e30);
  CHECK(a.first_mismatch(b, 1, 1) == 3);  // infinity only equals itself
  NDArray x(DataType::int32(), {2}), y(DataType::int32(), {2});
  y.set_int(1, 1);
  CHECK(x.first_mismatch(y, 1, 1) == 1);  // integers are always exact
}
