// The general x86 generator on hand-written lowered programs: JIT vs interpreter, bit for bit.
#include "x86_test_util.h"

using namespace tirc;
using namespace tirc::x86test;

namespace {

std::string buf(const std::string& name, int n, const std::string& dtype = "float32") {
  return name + ": T.Buffer((" + std::to_string(n) + ",), \"" + dtype + "\")";
}

}  // namespace

TEST_CASE("x86: serial loop float32 arithmetic", "[x86]") {
  for (int n : {1, 7, 17, 100}) {
    PrimFunc f = tir(buf("A", n) + ", " + buf("B", n) + ", " + buf("C", n),
                     "    for i in range(" + std::to_string(n) +
                         "):\n"
                         "        C[i] = A[i] * B[i] + A[i] / T.float32(4) - T.max(A[i], B[i]) * "
                         "T.min(B[i], T.float32(1))\n");
    expect_same_all_targets(f);
  }
}

TEST_CASE("x86: float64 arithmetic and casts", "[x86]") {
  PrimFunc f =
      tir(buf("A", 33, "float64") + ", " + buf("B", 33, "float32") + ", " + buf("C", 33, "float64"),
          "    for i in range(33):\n"
          "        C[i] = A[i] * T.Cast(\"float64\", B[i]) + T.float64(0.1)\n"
          "        B[i] = T.Cast(\"float32\", A[i] / T.float64(3))\n");
  expect_same_all_targets(f, opts(false, 2, {}));
  expect_same_all_targets(f);
}

TEST_CASE("x86: int32 arithmetic wraps like the interpreter", "[x86]") {
  PrimFunc f =
      tir(buf("A", 17, "int32") + ", " + buf("B", 17, "int32") + ", " + buf("C", 17, "int32"),
          "    for i in range(17):\n"
          "        C[i] = A[i] * B[i] + A[i] * 3 - B[i] + T.min(A[i], B[i]) * T.max(A[i], 5)\n");
  expect_same_all_targets(f, opts(false, 4, {}));
}

TEST_CASE("x86: small integer types wrap", "[x86]") {
  PrimFunc f =
      tir(buf("A", 15, "int8") + ", " + buf("B", 15, "uint8") + ", " + buf("C", 15, "int16") +
              ", " + buf("D", 15, "int64") + ", " + buf("E", 15, "uint32"),
          "    for i in range(15):\n"
          "        A[i] = A[i] * A[i] + T.int8(100)\n"
          "        B[i] = B[i] * B[i] + T.uint8(200)\n"
          "        C[i] = C[i] * T.int16(300)\n"
          "        D[i] = D[i] * D[i] + T.Cast(\"int64\", A[i])\n"
          "        E[i] = E[i] * T.uint32(7) + T.Cast(\"uint32\", B[i])\n");
  expect_same_all_targets(f, opts(false, 4, {}));
}

TEST_CASE("x86: integer division semantics", "[x86]") {
  // Divisors are nonzero: 1 + |B| (B small) and negative constants.
  PrimFunc f = tir(buf("A", 40, "int32") + ", " + buf("B", 40, "int32") + ", " +
                       buf("C", 40, "int32") + ", " + buf("D", 40, "int32") + ", " +
                       buf("E", 40, "int32") + ", " + buf("F", 40, "int32"),
                   "    for i in range(40):\n"
                   "        C[i] = A[i] // (T.abs(B[i]) + 1) + A[i] // -3\n"
                   "        D[i] = A[i] % (T.abs(B[i]) + 1) + A[i] % -3\n"
                   "        E[i] = T.truncdiv(A[i], T.abs(B[i]) + 1) + T.truncdiv(A[i], -3)\n"
                   "        F[i] = T.truncmod(A[i], T.abs(B[i]) + 1) + T.truncmod(A[i], -3) + (i - "
                   "20) // 7 + (i - 20) % 7\n");
  expect_same_all_targets(f, opts(true, 3, {}));
  expect_same_all_targets(f, opts(false, 3, {}));
}

TEST_CASE("x86: int64 division by -1 and of the minimum", "[x86]") {
  PrimFunc f = tir(buf("A", 8, "int64") + ", " + buf("B", 8, "int64"),
                   "    for i in range(8):\n"
                   "        B[i] = T.truncdiv(A[i], T.int64(-1)) + A[i] // T.int64(-1) + "
                   "T.truncmod(A[i], T.int64(-1))\n");
  expect_same_all_targets(f, opts(false, 2, {}));
}

TEST_CASE("x86: division by zero returns an error code", "[x86]") {
  PrimFunc f = tir(buf("A", 4, "int32") + ", " + buf("B", 4, "int32"),
                   "    for i in range(4):\n"
                   "        B[i] = A[i] // (A[i] - A[i])\n");
  for (const Target& t : targets()) {
    MachineCode mc = generate_x86({{"kernel", f}}, {t, false});
    JitModule jit(mc);
    NDArray a(DataType::int32(), {4}), b(DataType::int32(), {4});
    CHECK(call_jit(jit, "kernel", f, {{&a}, {&b}}) != 0);
  }
}

TEST_CASE("x86: comparisons, logic, select and if_then_else", "[x86]") {
  PrimFunc f =
      tir(buf("A", 33) + ", " + buf("B", 33) + ", " + buf("C", 33) + ", " + buf("K", 33, "int32"),
          "    for i in range(33):\n"
          "        C[i] = T.Select(A[i] < B[i] and not (A[i] == T.float32(0)), A[i], B[i] * "
          "T.float32(2))\n"
          "        K[i] = T.Select(K[i] >= 1 or K[i] != -2, K[i] * 2, T.Cast(\"int32\", A[i] <= "
          "B[i]) + T.Cast(\"int32\", A[i] > B[i]) * 4 + T.Cast(\"int32\", A[i] >= B[i]) * 8 + "
          "T.Cast(\"int32\", A[i] != B[i]) * 16)\n"
          "        B[i] = T.if_then_else(i > 0, A[i - 1], T.float32(-7)) + T.if_then_else(i < 32, "
          "A[i + 1], B[i])\n");
  expect_same_all_targets(f, opts(true, 3, {}));
}

TEST_CASE("x86: casts between types", "[x86]") {
  PrimFunc f =
      tir(buf("A", 20) + ", " + buf("I", 20, "int32") + ", " + buf("L", 20, "int64") + ", " +
              buf("U", 20, "uint8") + ", " + buf("D", 20, "float64") + ", " + buf("Q", 20, "bool"),
          "    for i in range(20):\n"
          "        I[i] = T.Cast(\"int32\", A[i] * T.float32(1000000)) + T.Cast(\"int32\", D[i])\n"
          "        L[i] = T.Cast(\"int64\", D[i] * T.float64(1e30)) + T.Cast(\"int64\", U[i])\n"
          "        U[i] = T.Cast(\"uint8\", A[i] * T.float32(300)) + T.Cast(\"uint8\", I[i])\n"
          "        D[i] = T.Cast(\"float64\", L[i]) + T.Cast(\"float64\", I[i]) + "
          "T.Cast(\"float64\", Q[i])\n"
          "        A[i] = T.Cast(\"float32\", L[i]) + T.Cast(\"float32\", U[i])\n"
          "        Q[i] = T.Cast(\"bool\", A[i]) and T.Cast(\"bool\", I[i])\n");
  expect_same_all_targets(f, opts(false, 3, {}));
  expect_same_all_targets(f);
}

TEST_CASE("x86: float to int casts saturate and map NaN to 0", "[x86]") {
  PrimFunc f = tir(buf("A", 6) + ", " + buf("I", 6, "int32") + ", " + buf("U", 6, "uint64") + ", " +
                       buf("L", 6, "int64"),
                   "    for i in range(6):\n"
                   "        I[i] = T.Cast(\"int32\", A[i])\n"
                   "        U[i] = T.Cast(\"uint64\", A[i])\n"
                   "        L[i] = T.Cast(\"int64\", A[i])\n");
  for (const Target& t : targets()) {
    MachineCode mc = generate_x86({{"kernel", f}}, {t, false});
    JitModule jit(mc);
    NDArray a(DataType::float32(), {6}), i1(DataType::int32(), {6}),
        u1(DataType(DataType::Code::UInt, 64), {6}), l1(DataType::int64(), {6});
    const double values[6] = {1e20, -1e20, std::nan(""), 1.5e19, -3.7, 2147483648.0};
    for (int k = 0; k < 6; ++k) a.set_float(k, values[k]);
    NDArray i2 = i1, u2 = u1, l2 = l1, a2 = a;
    run(f, {{&a}, {&i1}, {&u1}, {&l1}});
    REQUIRE(call_jit(jit, "kernel", f, {{&a2}, {&i2}, {&u2}, {&l2}}) == 0);
    CHECK(i1.bitwise_equal(i2));
    CHECK(u1.bitwise_equal(u2));
    CHECK(l1.bitwise_equal(l2));
  }
}

TEST_CASE("x86: let, if/else, nested loops with variable bounds", "[x86]") {
  PrimFunc f = tir(buf("A", 64) + ", " + buf("B", 64),
                   "    for i in range(8):\n"
                   "        for j in range(i, 8):\n"
                   "            x: T.float32 = A[i * 8 + j] * T.float32(2)\n"
                   "            k: T.int32 = i * 8 + j\n"
                   "            if (i + j) % 2 == 0:\n"
                   "                B[k] = x + T.float32(1)\n"
                   "            else:\n"
                   "                B[k] = x - A[k]\n");
  expect_same_all_targets(f);
}

TEST_CASE("x86: unrolled loops, constant and symbolic extents", "[x86]") {
  PrimFunc f = tir(buf("A", 24) + ", " + buf("B", 24) + ", n: T.int32",
                   "    for i in range(3):\n"
                   "        for j in T.unroll(8):\n"
                   "            B[i * 8 + j] = A[i * 8 + j] + T.Cast(\"float32\", j)\n"
                   "    for k in T.unroll(n):\n"
                   "        B[k] = B[k] * T.float32(2)\n");
  Argument n;
  n.int_value = 13;
  expect_same_all_targets(f, opts(true, 2, {n}));
}

TEST_CASE("x86: allocate on the stack", "[x86]") {
  PrimFunc f = parse_func(R"(@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    tmp_data = T.allocate([64], "float32", "global")
    tmp = T.decl_buffer((64,), "float32", data=tmp_data)
    for i in range(64):
        tmp[i] = A[i] * T.float32(2)
    for j in range(64):
        B[j] = tmp[63 - j] + T.float32(1)
)");
  expect_same_all_targets(f);
}

TEST_CASE("x86: scalar parameters and more than six arguments", "[x86]") {
  PrimFunc f =
      tir(buf("A", 9) + ", " + buf("B", 9) + ", " + buf("C", 9) + ", " + buf("D", 9) + ", " +
              buf("E", 9) + ", " + buf("F", 9) + ", " + buf("G", 9) +
              ", s: T.float32, n: T.int32, d: T.float64",
          "    for i in range(n):\n"
          "        G[i] = A[i] + B[i] * s + C[i] + D[i] + E[i] + F[i] + T.Cast(\"float32\", d)\n");
  Argument s, n, d;
  s.float_value = 1.5;
  n.int_value = 7;
  d.float_value = -2.25;
  expect_same_all_targets(f, opts(true, 2, {s, n, d}));
}

TEST_CASE("x86: C entry point follows the SysV ABI", "[x86]") {
  PrimFunc f = tir(buf("A", 4) + ", " + buf("B", 4) + ", s: T.float32, n: T.int32",
                   "    for i in range(n):\n"
                   "        B[i] = A[i] * s\n");
  for (const Target& t : targets()) {
    MachineCode mc = generate_x86({{"k", f}}, {t, false});
    JitModule jit(mc);
    auto fn = reinterpret_cast<int (*)(float*, float*, float, int32_t)>(jit.address("k"));
    float a[4] = {1, 2, 3, 4}, b[4] = {0, 0, 0, 0};
    CHECK(fn(a, b, 2.0f, 3) == 0);
    CHECK(b[0] == 2.0f);
    CHECK(b[2] == 6.0f);
    CHECK(b[3] == 0.0f);
  }
}

TEST_CASE("x86: float16 rounds after every operation like the interpreter", "[x86]") {
  PrimFunc f = tir(
      buf("A", 33, "float16") + ", " + buf("B", 33, "float16") + ", " + buf("C", 33, "float16") +
          ", " + buf("D", 33, "float64") + ", " + buf("E", 33, "float32"),
      "    for i in range(33):\n"
      "        C[i] = A[i] * B[i] + A[i] / B[i] - T.float16(0.1) * A[i]\n"
      "        E[i] = T.Cast(\"float32\", C[i]) + T.Cast(\"float32\", A[i] * T.float16(3.3))\n"
      "        A[i] = T.Cast(\"float16\", D[i]) + T.Cast(\"float16\", E[i] * T.float32(1.001))\n"
      "        B[i] = T.sqrt(T.abs(B[i])) + T.Cast(\"float16\", i * 1000)\n");
  expect_same_all_targets(f, opts(false, 3, {}));
  expect_same_all_targets(f, opts(true, 2, {}));
}

TEST_CASE("x86: float floordiv, floormod, floor/ceil/round", "[x86]") {
  for (DataType t : {DataType::float32(), DataType::float64(), DataType::float16()}) {
    Buffer A = make_buffer("A", t, {20}), B = make_buffer("B", t, {20}),
           C = make_buffer("C", t, {20}), D = make_buffer("D", t, {20});
    Var i = make_var("i");
    Expr a = make_load(A, {i});
    Expr divisor = make_call(t, "fabs", {make_load(B, {i})}) + make_const(t, 0.75);
    Stmt body = make_seq({
        make_store(C,
                   make_binary(ExprKind::FloorDiv, a, divisor) +
                       make_call(t, "floor", {a * make_const(t, 0.3)}),
                   {i}),
        make_store(D,
                   make_binary(ExprKind::FloorMod, a, divisor) +
                       make_call(t, "ceil", {a * make_const(t, 0.3)}) +
                       make_call(t, "round", {a * make_const(t, 0.5)}),
                   {i}),
    });
    PrimFunc f = make_prim_func({{A->data, A}, {B->data, B}, {C->data, C}, {D->data, D}},
                                make_for(i, 0, 20, ForKind::Serial, body));
    expect_same_all_targets(f, opts(false));
    expect_same_all_targets(f);
  }
}

TEST_CASE("x86: several functions in one module", "[x86]") {
  PrimFunc f = tir(buf("A", 5) + ", " + buf("B", 5),
                   "    for i in range(5):\n        B[i] = A[i] + T.float32(1)\n");
  PrimFunc g = tir(buf("A", 5) + ", " + buf("B", 5),
                   "    for i in range(5):\n        B[i] = A[i] * T.float32(3)\n");
  for (const Target& t : targets()) {
    MachineCode mc = generate_x86({{"f", f}, {"g", g}}, {t, false});
    JitModule jit(mc);
    NDArray a(DataType::float32(), {5}), b(DataType::float32(), {5});
    a.set_float(2, 2);
    REQUIRE(call_jit(jit, "f", f, {{&a}, {&b}}) == 0);
    CHECK(b.get_float(2) == 3);
    REQUIRE(call_jit(jit, "g", g, {{&a}, {&b}}) == 0);
    CHECK(b.get_float(2) == 6);
    CHECK_THROWS_AS(jit.address("h"), Error);
  }
}
