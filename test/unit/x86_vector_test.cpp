// Vectorized loops (full vectors + masked tails, broadcast and gather
// operands, the serial fallback) and user-written Ramp / Broadcast vectors.
#include "codegen/x86/emitter.h"
#include "x86_test_util.h"

using namespace tirc;
using namespace tirc::x86test;

namespace {

std::string buf(const std::string& name, int n, const std::string& dtype = "float32") {
  return name + ": T.Buffer((" + std::to_string(n) + ",), \"" + dtype + "\")";
}

}  // namespace

TEST_CASE("x86: vectorized float32 loop with tails", "[x86]") {
  for (int n : {1, 7, 8, 15, 16, 17, 33, 100}) {
    std::string ns = std::to_string(n);
    PrimFunc f = tir(buf("A", n) + ", " + buf("B", n) + ", " + buf("C", n) + ", s: T.float32",
                     "    for i in T.vectorized(" + ns +
                         "):\n"
                         "        C[i] = A[i] * B[i] + T.max(A[i], s) - T.min(B[i], T.float32(1)) "
                         "/ T.float32(4)\n");
    Argument s;
    s.float_value = 0.5;
    for (const Target& t : targets()) {
      INFO("n = " << n);
      GeneratorStats st = expect_same(f, t, opts(true, 2, {s}));
      CHECK(st.vectorized_loops == 1);
      CHECK(st.serial_fallbacks == 0);
    }
  }
}

TEST_CASE("x86: straight-line vector chunks keep each access's own address", "[x86]") {
  // Constant extents of up to four vectors are emitted without a loop, each
  // access's address computed once: several buffers at one index, a
  // stride-2 and a stride-3 (gather) operand, a store read back by the next
  // statement, a guarded load, and a row offset that the chunks share.
  for (int n : {8, 24, 40, 64}) {
    const std::string ns = std::to_string(n);
    PrimFunc f = tir(
        buf("A", 4 * n) + ", " + buf("B", 4 * n) + ", " + buf("C", 4 * n) + ", " + buf("D", 4 * n),
        "    for r in range(2):\n"
        "        for i in T.vectorized(" +
            ns +
            "):\n"
            "            C[r * " +
            ns + " + i] = A[r * " + ns + " + i] * B[r * " + ns +
            " + i] + A[2 * i + 1] - B[3 * i]\n"
            "            D[r * " +
            ns + " + i] = C[r * " + ns + " + i] + T.if_then_else(i < 5, A[i + 7], T.float32(2))\n");
    for (const Target& t : targets()) {
      INFO("n = " << n);
      GeneratorStats st = expect_same(f, t);
      CHECK(st.vectorized_loops == 1);
      CHECK(st.serial_fallbacks == 0);
    }
  }
}

TEST_CASE("x86: vectorized int32 loop wraps and compares", "[x86]") {
  for (int n : {5, 16, 37}) {
    std::string ns = std::to_string(n);
    PrimFunc f =
        tir(buf("A", n, "int32") + ", " + buf("B", n, "int32") + ", " + buf("C", n, "int32"),
            "    for i in T.vectorized(" + ns +
                "):\n"
                "        C[i] = T.Select(A[i] < B[i] or A[i] == 3, A[i] * B[i] + i, T.max(A[i], "
                "B[i]) - T.abs(B[i])) + T.Cast(\"int32\", A[i] != B[i]) + T.Cast(\"int32\", A[i] "
                ">= B[i]) * 2 + T.Cast(\"int32\", not (A[i] <= B[i])) * 4\n");
    for (const Target& t : targets()) {
      GeneratorStats st = expect_same(f, t, opts(false, 3));
      CHECK(st.vectorized_loops == 1);
    }
    expect_same_all_targets(f, opts(true, 2));
  }
}

TEST_CASE("x86: vectorized loads with stride 0, 1 and gathers", "[x86]") {
  PrimFunc f = tir(
      buf("A", 200) + ", " + buf("B", 10) + ", " + buf("C", 200) + ", " + buf("K", 60, "int32") +
          ", " + buf("J", 60, "int32"),
      "    for o in range(3):\n"
      "        for i in T.vectorized(19):\n"
      "            C[o * 50 + i] = A[o * 50 + i] + B[o] * A[i * 3 + o] + A[199 - i]\n"
      "            K[o * 20 + i] = K[o * 20 + i] * J[i * 2 + 1] + T.Cast(\"int32\", A[i * 5])\n");
  for (const Target& t : targets()) {
    GeneratorStats st = expect_same(f, t, opts(true, 2));
    CHECK(st.vectorized_loops == 1);
  }
}

TEST_CASE("x86: vectorized if_then_else reads a guarded load only in its lanes", "[x86]") {
  // A padded row (a convolution's pad block): the load at i - 1 runs only
  // where 1 <= i < n + 1; the false arm's load under the negated condition.
  for (int n : {5, 16, 30}) {
    std::string ns = std::to_string(n), ps = std::to_string(n + 2);
    PrimFunc f = tir(buf("A", n) + ", " + buf("P", n + 2) + ", " + buf("Q", n + 2),
                     "    for i in T.vectorized(" + ps +
                         "):\n"
                         "        P[i] = T.if_then_else(i - 1 >= 0 and i - 1 < " +
                         ns +
                         ", A[i - 1], T.float32(0))\n"
                         "        Q[i] = T.if_then_else(i == 0 or i > " +
                         ns + ", T.float32(-1), A[i - 1]) * T.float32(2)\n");
    for (const Target& t : targets()) {
      INFO("n = " << n);
      GeneratorStats st = expect_same(f, t, opts(true, 2));
      CHECK(st.vectorized_loops == 1);
      CHECK(st.serial_fallbacks == 0);
    }
  }
  // A gather whose other lanes would read gigabytes away (and fault) if the
  // guard did not hold them back; the false arm is the gather here.
  PrimFunc g = tir(buf("A", 1) + ", " + buf("B", 20),
                   "    for i in T.vectorized(20):\n"
                   "        B[i] = T.if_then_else(i < 1, A[i * 100000000], T.float32(3)) + "
                   "T.if_then_else(i >= 1, T.float32(5), A[i * 90000000])\n");
  for (const Target& t : targets()) {
    GeneratorStats st = expect_same(g, t, opts(true, 2));
    CHECK(st.vectorized_loops == 1);
  }
  // A guarded load that does not move with the loop is not vectorized.
  std::string why;
  PrimFunc h = tir(buf("A", 4) + ", " + buf("B", 20) + ", k: T.int32",
                   "    for i in T.vectorized(20):\n"
                   "        B[i] = T.if_then_else(i < k, A[k], T.float32(0))\n");
  CHECK_FALSE(can_vectorize(*h->body.as<ForNode>(), Isa::avx512, &why));
  CHECK(why == "if_then_else whose arms may fault");
}

TEST_CASE("x86: vectorized stride-2 loads (pooling rows)", "[x86]") {
  // Even elements of a row: full vectors use two loads and a permute, the
  // masked last one a gather; A ends at the last element read.
  for (int n : {8, 16, 21, 32, 40}) {
    std::string ns = std::to_string(n);
    PrimFunc f = tir(buf("A", 2 * n + 1) + ", " + buf("B", n),
                     "    for i in T.vectorized(" + ns +
                         "):\n"
                         "        B[i] = T.max(A[i * 2], A[i * 2 + 1]) + A[i * 2 + 2]\n");
    for (const Target& t : targets()) {
      INFO("n = " << n);
      GeneratorStats st = expect_same(f, t, opts(false, 2));
      CHECK(st.vectorized_loops == 1);
    }
  }
}

TEST_CASE("x86: vectorized casts and float32 to int32 saturation", "[x86]") {
  PrimFunc f = tir(buf("A", 21) + ", " + buf("I", 21, "int32") + ", " + buf("C", 21),
                   "    for i in T.vectorized(21):\n"
                   "        I[i] = T.Cast(\"int32\", A[i] * T.float32(3e9)) + T.Cast(\"int32\", "
                   "A[i] < T.float32(0))\n"
                   "        C[i] = T.Cast(\"float32\", I[i]) + T.Cast(\"float32\", i) + "
                   "T.floor(A[i] * T.float32(2.5)) + T.sqrt(T.abs(A[i]))\n");
  for (const Target& t : targets()) {
    GeneratorStats st = expect_same(f, t, opts(false, 3));
    CHECK(st.vectorized_loops == 1);
  }
}

TEST_CASE("x86: vectorized loop with a symbolic extent", "[x86]") {
  PrimFunc f = tir(buf("A", 100) + ", " + buf("B", 100) + ", lo: T.int32, n: T.int32",
                   "    for i in T.vectorized(lo, n):\n"
                   "        B[i] = A[i] + T.float32(1)\n");
  for (int n : {0, 3, 18, 100}) {
    Argument lo, hi;
    lo.int_value = 1;
    hi.int_value = n;
    expect_same_all_targets(f, opts(true, 1, {lo, hi}));
  }
}

TEST_CASE("x86: vectorization falls back to the serial loop when not equivalent", "[x86]") {
  // A read at another index than the store (a recurrence), a Let, an int
  // division; a strided store (a scatter) is vectorized on AVX-512 only
  // (see the scatter test), so it is checked on AVX2 below.
  const char* bodies[] = {
      "    for i in T.vectorized(1, 33):\n        A[i] = A[i - 1] + B[i]\n",
      "    for i in T.vectorized(33):\n        x: T.float32 = B[i]\n        A[i] = x * x\n",
      "    for i in T.vectorized(33):\n        A[i] = T.Cast(\"float32\", i // 3)\n",
  };
  for (const char* body : bodies) {
    PrimFunc f = tir(buf("A", 33) + ", " + buf("B", 33), body);
    INFO(body);
    for (const Target& t : targets()) {
      // Order-dependent on purpose (the recurrence): the race checker would
      // refuse the reference run.
      auto o = opts(true, 2);
      o.check_vectorized = false;
      GeneratorStats st = expect_same(f, t, o);
      CHECK(st.vectorized_loops == 0);
      CHECK(st.serial_fallbacks == 1);
    }
    std::string why;
    auto* loop = f->body.as<ForNode>();
    REQUIRE(loop);
    CHECK_FALSE(can_vectorize(*loop, Isa::avx2, &why));
    CHECK(!why.empty());
  }
}

TEST_CASE("x86: user-written Ramp and Broadcast vectors", "[x86]") {
  PrimFunc f = parse_func(R"(@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32")):
    for i in range(16):
        C[T.Ramp(i * 4, 1, 4)] = A[T.Ramp(i * 4, 1, 4)] + B[T.Ramp(i * 4, 1, 4)] * T.Broadcast(T.float32(2), 4)
)");
  expect_same_all_targets(f);
  PrimFunc g = parse_func(R"(@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32")):
    for i in range(8):
        C[T.Ramp(i * 8, 1, 8)] = A[T.Ramp(i, 8, 8)] - T.Broadcast(B[i], 8)
)");
  expect_same_all_targets(g);
}

TEST_CASE("x86: a vectorized loop with a strided store scatters on AVX-512", "[x86]") {
  // A channels-last copy of a 3-channel image row, vectorized along its
  // contiguous read: lanes store 3 elements apart (full vectors and a masked
  // last one). AVX2 has no scatter: the loop runs serially, same results.
  PrimFunc f = parse_func(R"(@T.prim_func
def main(A: T.Buffer((111,), "float32"), C: T.Buffer((111,), "float32")):
    for c in range(3):
        for w in T.vectorized(37):
            C[w * 3 + c] = A[c * 37 + w] * T.float32(2)
)");
  for (const Target& t : targets()) {
    INFO(t.name());
    GeneratorStats st = expect_same(f, t);
    CHECK(st.serial_fallbacks == (t.isa == Isa::avx512 ? 0 : 1));
  }
  auto* inner = f->body.as<ForNode>()->body.as<ForNode>();
  REQUIRE(inner);
  std::string why;
  CHECK(can_vectorize(*inner, Isa::avx512, &why));
  CHECK_FALSE(can_vectorize(*inner, Isa::avx2, &why));
  CHECK(why.find("does not have stride 1") != std::string::npos);
  // Every lane storing one element is never vectorized.
  PrimFunc g = tir(buf("A", 33) + ", " + buf("B", 33),
                   "    for i in T.vectorized(16):\n        A[3] = B[i]\n");
  CHECK_FALSE(can_vectorize(*g->body.as<ForNode>(), Isa::avx512, &why));
}

TEST_CASE("x86: strided vector stores need AVX-512", "[x86]") {
  PrimFunc f = parse_func(R"(@T.prim_func
def main(A: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32")):
    for i in range(8):
        C[T.Ramp(i, 8, 8)] = A[T.Ramp(i * 8, 1, 8)]
)");
  if (host_supports(Target{Isa::avx512})) expect_same(f, Target{Isa::avx512});
  CHECK_THROWS_AS(generate_x86({{"k", f}}, {Target{Isa::avx2}, false}), Error);
}
