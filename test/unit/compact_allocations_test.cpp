// compact-allocations: an intermediate that one loop fills and reads moves
// into that loop, shrunk to one iteration's part; the result computes what
// the interpreter computes on the input (checking mode: a per-iteration
// allocation inside a parallel loop must not race), and the x86 generator
// agrees. Programs where an iteration could read what it did not write keep
// their allocation where it was.
#include <catch2/catch.hpp>

#include <functional>

#include "ir/functor.h"
#include "ir/lowered_form.h"
#include "ir/text/printer.h"
#include "passes/passes.h"
#include "passes/pipeline.h"
#include "schedule/schedule.h"
#include "x86_test_util.h"

using namespace tirc;
using x86test::tir;

namespace {

// Each Allocate's element count and the loop directly around it ("" at the top).
struct Placement {
  int64_t extent;
  std::string loop;
};

std::vector<Placement> placements(const PrimFunc& f) {
  struct Finder : StmtVisitor {
    std::vector<Placement> out;
    std::vector<std::string> loops;
    void visit_for(const ForNode* n) override {
      loops.push_back(n->loop_var->name);
      StmtVisitor::visit_for(n);
      loops.pop_back();
    }
    void visit_allocate(const AllocateNode* n) override {
      out.push_back({as_const_int(n->extents[0]).value_or(-1), loops.empty() ? "" : loops.back()});
      StmtVisitor::visit_allocate(n);
    }
  } finder;
  finder.visit(f->body);
  return finder.out;
}

// The pass on a lowered-form function: equal to its input under the
// interpreter (races checked) and compiled for every host ISA.
PrimFunc compacted(const PrimFunc& f) {
  PrimFunc out = compact_allocations(f);
  INFO(print_func(out, "main"));
  REQUIRE_NOTHROW(check_lowered_form(out));
  EquivResult eq = check_equivalent(f, out, 3);
  INFO(eq.message);
  REQUIRE(eq.equal);
  x86test::expect_same_all_targets(out);
  return out;
}

const std::string kParams = "A: T.Buffer((4, 64), \"float32\"), C: T.Buffer((4, 64), \"float32\")";
const std::string kViews =
    "    A_1 = T.Buffer((256,), data=A.data)\n"
    "    C_1 = T.Buffer((256,), data=C.data)\n"
    "    B = T.allocate([256], \"float32\", \"global\")\n"
    "    B_1 = T.Buffer((256,), data=B)\n";

}  // namespace

TEST_CASE("compact-allocations: a producer per parallel iteration gets a private 4x16 part",
          "[passes][compact]") {
  PrimFunc f = tir(kParams, kViews +
                                "    for po in T.parallel(4):\n"
                                "        for i, j in T.grid(4, 16):\n"
                                "            B_1[i * 64 + po * 16 + j] = A_1[i * 64 + po * 16 + j] "
                                "* T.float32(2)\n"
                                "        for i2 in range(4):\n"
                                "            for j2 in T.vectorized(16):\n"
                                "                C_1[i2 * 64 + po * 16 + j2] = B_1[i2 * 64 + po * "
                                "16 + j2] + T.float32(1)\n");
  PrimFunc out = compacted(f);
  auto p = placements(out);
  REQUIRE(p.size() == 1);
  CHECK(p[0].extent == 64);
  CHECK(p[0].loop == "po");
  const std::string text = print_func(out, "main");
  CHECK(text.find("B_1[i * 16 + j]") != std::string::npos);
  CHECK(text.find("B_1[i2 * 16 + j2]") != std::string::npos);
}

TEST_CASE("compact-allocations: a stencil's shifted reads stay inside the written halo",
          "[passes][compact]") {
  // B holds 18 elements per iteration (16 plus a halo of 2); C reads B at j+0..j+2.
  PrimFunc f = tir("A: T.Buffer((4, 66), \"float32\"), C: T.Buffer((4, 64), \"float32\")",
                   "    A_1 = T.Buffer((264,), data=A.data)\n"
                   "    C_1 = T.Buffer((256,), data=C.data)\n"
                   "    B = T.allocate([264], \"float32\", \"global\")\n"
                   "    B_1 = T.Buffer((264,), data=B)\n"
                   "    for i in range(4):\n"
                   "        for po in range(4):\n"
                   "            for j in range(18):\n"
                   "                B_1[i * 66 + po * 16 + j] = A_1[i * 66 + po * 16 + j] + "
                   "T.float32(1)\n"
                   "            for j2, k in T.grid(16, 3):\n"
                   "                C_1[i * 64 + po * 16 + j2] = C_1[i * 64 + po * 16 + j2] + "
                   "B_1[i * 66 + po * 16 + j2 + k]\n");
  auto p = placements(compacted(f));
  REQUIRE(p.size() == 1);
  CHECK(p[0].extent == 18);
  CHECK(p[0].loop == "po");
}

TEST_CASE("compact-allocations: a pad split into border and interior writers is one box",
          "[passes][compact]") {
  // What partition-loops makes of a 1-pixel pad computed per channel: head,
  // interior and tail rows, each with head, interior and tail columns: nine
  // stores that cover the 6x6 plane once (the first element of the head
  // row's tail column lies past the interior's, so digits are read from the
  // plane's origin, not nearest).
  std::string pad_rows;
  for (const char* row : {"r0 in range(1)", "r in range(1, 5)", "r5 in range(5, 6)"}) {
    const std::string v = std::string(row).substr(0, std::string(row).find(' '));
    pad_rows += std::string("        for ") + row + ":\n";
    pad_rows += "            P_1[c * 36 + " + v + " * 6] = T.float32(0)\n";
    pad_rows += "            for w_" + v + " in T.vectorized(1, 5):\n";
    pad_rows += "                P_1[c * 36 + " + v + " * 6 + w_" + v + "] = " +
                (v == "r" ? "A_1[c * 16 + r * 4 + w_r - 5]" : std::string("T.float32(0)")) + "\n";
    pad_rows += "            for t_" + v + " in range(5, 6):\n";
    pad_rows += "                P_1[c * 36 + " + v + " * 6 + t_" + v + "] = T.float32(0)\n";
  }
  PrimFunc f = tir("A: T.Buffer((3, 4, 4), \"float32\"), C: T.Buffer((3, 4, 4), \"float32\")",
                   "    A_1 = T.Buffer((48,), data=A.data)\n"
                   "    C_1 = T.Buffer((48,), data=C.data)\n"
                   "    P = T.allocate([108], \"float32\", \"global\")\n"
                   "    P_1 = T.Buffer((108,), data=P)\n"
                   "    for c in T.parallel(3):\n" +
                       pad_rows +
                       "        for h, x, kh, kw in T.grid(4, 4, 3, 3):\n"
                       "            C_1[c * 16 + h * 4 + x] = C_1[c * 16 + h * 4 + x] + "
                       "P_1[c * 36 + h * 6 + kh * 6 + x + kw]\n");
  auto p = placements(compacted(f));
  REQUIRE(p.size() == 1);
  CHECK(p[0].extent == 36);
  CHECK(p[0].loop == "c");
}

TEST_CASE("compact-allocations: an init and its update inside a loop fill what a later nest reads",
          "[passes][compact]") {
  // A contraction's accumulator computed in two column blocks (init, then
  // update, per block) and read by an epilogue over the whole row block.
  PrimFunc f =
      tir("A: T.Buffer((4, 64), \"float32\"), C: T.Buffer((4, 64), \"float32\")",
          kViews.substr(0, kViews.find("    B = ")) +
              "    B = T.allocate([256], \"float32\", \"global\")\n"
              "    B_1 = T.Buffer((256,), data=B)\n"
              "    for po in T.parallel(2):\n"
              "        for jo in range(2):\n"
              "            for i, j in T.grid(4, 16):\n"
              "                B_1[i * 64 + po * 32 + jo * 16 + j] = T.float32(1)\n"
              "            for k, i2, j2 in T.grid(3, 4, 16):\n"
              "                B_1[i2 * 64 + po * 32 + jo * 16 + j2] = B_1[i2 * 64 + po * "
              "32 + jo * 16 + j2] + A_1[i2 * 64 + po * 32 + jo * 16 + j2] * T.float32(2)\n"
              "        for i3 in range(4):\n"
              "            for j3 in T.vectorized(32):\n"
              "                C_1[i3 * 64 + po * 32 + j3] = T.max(B_1[i3 * 64 + po * 32 + "
              "j3], T.float32(0))\n");
  auto p = placements(compacted(f));
  REQUIRE(p.size() == 1);
  CHECK(p[0].extent == 4 * 32);
  CHECK(p[0].loop == "po");
}

TEST_CASE("compact-allocations: an iteration that reads its neighbour's part keeps the allocation",
          "[passes][compact]") {
  // Each iteration after the first also reads the last element the previous one wrote.
  PrimFunc f = tir(kParams, kViews +
                                "    for po in range(4):\n"
                                "        for j in range(64):\n"
                                "            B_1[po * 64 + j] = A_1[po * 64 + j]\n"
                                "        for j2 in range(64):\n"
                                "            C_1[po * 64 + j2] = B_1[po * 64 + j2]\n"
                                "        if po > 0:\n"
                                "            C_1[po * 64] = B_1[po * 64 - 1]\n");
  auto p = placements(compacted(f));
  REQUIRE(p.size() == 1);
  CHECK(p[0].loop == "");
  CHECK(p[0].extent == 256);
}

TEST_CASE("compact-allocations: guarded, read-modify-write and escaping writers are left alone",
          "[passes][compact]") {
  SECTION("the first writer is under an if") {
    PrimFunc f = tir(kParams, kViews +
                                  "    for po in range(4):\n"
                                  "        for j in range(64):\n"
                                  "            if j < 60:\n"
                                  "                B_1[po * 64 + j] = A_1[po * 64 + j]\n"
                                  "        for j2 in range(64):\n"
                                  "            C_1[po * 64 + j2] = B_1[po * 64 + j2]\n");
    auto p = placements(compact_allocations(f));
    REQUIRE(p.size() == 1);
    CHECK(p[0].loop == "");
  }
  SECTION("the first statement reads what the previous iteration wrote") {
    PrimFunc f = tir(kParams, kViews +
                                  "    for po in range(4):\n"
                                  "        for j in range(64):\n"
                                  "            B_1[j] = T.if_then_else(po == 0, T.float32(0), "
                                  "B_1[j]) + A_1[po * 64 + j]\n"
                                  "        for j2 in range(64):\n"
                                  "            C_1[po * 64 + j2] = B_1[j2]\n");
    auto p = placements(compacted(f));
    REQUIRE(p.size() == 1);
    CHECK(p[0].loop == "");
  }
  SECTION("writers that leave a hole") {
    PrimFunc f = tir(kParams, kViews +
                                  "    for po in range(4):\n"
                                  "        for j in range(30):\n"
                                  "            B_1[po * 64 + j] = A_1[po * 64 + j]\n"
                                  "        for j1 in range(31, 64):\n"
                                  "            B_1[po * 64 + j1] = A_1[po * 64 + j1]\n"
                                  "        for j2 in range(64):\n"
                                  "            C_1[po * 64 + j2] = B_1[po * 64 + j2]\n");
    auto p = placements(compact_allocations(f));
    REQUIRE(p.size() == 1);
    CHECK(p[0].loop == "");
  }
  SECTION("a nested update that reads the previous iteration's part before its own init") {
    PrimFunc f =
        tir(kParams, kViews +
                         "    for po in range(4):\n"
                         "        for jo in range(2):\n"
                         "            for j2 in range(32):\n"
                         "                B_1[po * 64 + jo * 32 + j2] = T.if_then_else(po "
                         "== 0, T.float32(0), B_1[po * 64 + jo * 32 + j2 - 64]) + "
                         "T.float32(1)\n"
                         "            for j3 in range(32):\n"
                         "                B_1[po * 64 + jo * 32 + j3] = A_1[po * 64 + jo * "
                         "32 + j3]\n"
                         "        for j4 in range(64):\n"
                         "            C_1[po * 64 + j4] = B_1[po * 64 + j4]\n");
    auto p = placements(compacted(f));
    REQUIRE(p.size() == 1);
    CHECK(p[0].loop == "");
  }
  SECTION("a read after the loop") {
    PrimFunc f = tir(kParams, kViews +
                                  "    for po in range(4):\n"
                                  "        for j in range(64):\n"
                                  "            B_1[po * 64 + j] = A_1[po * 64 + j]\n"
                                  "    for j2 in range(256):\n"
                                  "        C_1[j2] = B_1[j2]\n");
    auto p = placements(compacted(f));
    REQUIRE(p.size() == 1);
    CHECK(p[0].loop == "");
  }
  SECTION("a writer with two loops on one digit (not a dense box)") {
    PrimFunc f = tir(kParams, kViews +
                                  "    for po in range(4):\n"
                                  "        for j, k in T.grid(32, 2):\n"
                                  "            B_1[po * 64 + j + k] = A_1[po * 64 + j + k]\n"
                                  "        for j2 in range(33):\n"
                                  "            C_1[po * 64 + j2] = B_1[po * 64 + j2]\n");
    auto p = placements(compacted(f));
    REQUIRE(p.size() == 1);
    CHECK(p[0].loop == "");
  }
}

TEST_CASE("compact-allocations: compute_at of a producer under a non-dividing parallel split",
          "[passes][compact][partition]") {
  // B = A * 2 computed per 7-row block of C = B + 1 over 100 rows: the last
  // block is guarded until partition-loops makes it a tail of its own.
  IRModule m = parse_module(
      "@T.prim_func\ndef main(A: T.Buffer((100, 32), \"float32\"), C: T.Buffer((100, 32), "
      "\"float32\")):\n"
      "    B = T.alloc_buffer((100, 32))\n"
      "    for i, j in T.grid(100, 32):\n"
      "        with T.block(\"B\"):\n"
      "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"
      "            B[vi, vj] = A[vi, vj] * T.float32(2)\n"
      "    for i, j in T.grid(100, 32):\n"
      "        with T.block(\"C\"):\n"
      "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"
      "            C[vi, vj] = B[vi, vj] + T.float32(1)\n");
  Schedule s(m);
  auto loops = s.get_loops(s.get_block("C"));
  auto is = s.split(loops[0], {nullptr, 7});
  s.parallel(is[0]);
  s.vectorize(loops[1]);
  s.compute_at(s.get_block("B"), is[0]);
  PrimFunc scheduled = s.func("main");
  PrimFunc lowered = lower(scheduled);
  INFO(print_func(lowered, "main"));
  REQUIRE_NOTHROW(check_lowered_form(lowered));
  // The main part's iterations hold 7 rows, the tail's 2, each in storage of its own.
  auto p = placements(lowered);
  REQUIRE(p.size() == 2);
  CHECK(p[0].extent == 7 * 32);
  CHECK(p[0].loop == "i_0");
  CHECK(p[1].extent == 2 * 32);
  CHECK(p[1].loop == "i_0_tail");
  EquivResult eq = check_equivalent(scheduled, lowered, 3);
  INFO(eq.message);
  REQUIRE(eq.equal);
  x86test::expect_same_all_targets(lowered);
}

TEST_CASE("compact-allocations: a convolution row whose columns partition-loops split",
          "[passes][compact][partition]") {
  // Y = a 3x3 window over X with its zero border inlined as a guard, relu
  // computed per output row i (the parallel loop). partition-loops splits i
  // and, in each part, the column loop j into border and middle parts: each
  // part fills its columns (its init, then its update) and together they
  // fill the row the relu reads, so every row part keeps one row of Y.
  IRModule m = parse_module(
      "@T.prim_func\ndef main(X: T.Buffer((8, 10, 4), \"float32\"), W: T.Buffer((3, 3, 4), "
      "\"float32\"), Z: T.Buffer((8, 10, 4), \"float32\")):\n"
      "    Y = T.alloc_buffer((8, 10, 4))\n"
      "    for i, j, c, ki, kj in T.grid(8, 10, 4, 3, 3):\n"
      "        with T.block(\"conv\"):\n"
      "            vi, vj, vc, vki, vkj = T.axis.remap(\"SSSRR\", [i, j, c, ki, kj])\n"
      "            with T.init():\n"
      "                Y[vi, vj, vc] = T.float32(0)\n"
      "            Y[vi, vj, vc] = Y[vi, vj, vc] + T.if_then_else(0 <= vi + vki - 1 and vi + vki - "
      "1 "
      "< 8 and 0 <= vj + vkj - 1 and vj + vkj - 1 < 10, X[vi + vki - 1, vj + vkj - 1, vc], "
      "T.float32(0)) * W[vki, vkj, vc]\n"
      "    for i, j, c in T.grid(8, 10, 4):\n"
      "        with T.block(\"relu\"):\n"
      "            vi, vj, vc = T.axis.remap(\"SSS\", [i, j, c])\n"
      "            Z[vi, vj, vc] = T.max(Y[vi, vj, vc], T.float32(0))\n");
  Schedule s(m);
  auto loops = s.get_loops(s.get_block("conv"));
  s.reverse_compute_at(s.get_block("relu"), loops[0]);
  s.decompose_reduction(s.get_block("conv"), loops[3]);
  s.parallel(loops[0]);
  PrimFunc scheduled = s.func("main");
  PrimFunc lowered = lower(scheduled);
  INFO(print_func(lowered, "main"));
  REQUIRE_NOTHROW(check_lowered_form(lowered));
  auto p = placements(lowered);
  REQUIRE(p.size() == 3);  // the first row, the middle rows, the last row
  for (const Placement& x : p) CHECK(x.extent == 10 * 4);
  EquivResult eq = check_equivalent(scheduled, lowered, 3);
  INFO(eq.message);
  REQUIRE(eq.equal);
  x86test::expect_same_all_targets(lowered);
}

TEST_CASE("compact-allocations: a GPU block's tile moves into its kernel at full size",
          "[passes][compact]") {
  // One block of 64 threads: the tile is the whole buffer, so nothing shrinks,
  // but the CUDA generator needs it inside the blockIdx loop.
  PrimFunc f =
      tir(kParams, kViews +
                       "    for bx in T.thread_binding(1, thread=\"blockIdx.x\"):\n"
                       "        for u in range(1):\n"
                       "            for tx in T.thread_binding(64, thread=\"threadIdx.x\"):\n"
                       "                for i in range(4):\n"
                       "                    B_1[i * 64 + tx] = A_1[i * 64 + tx]\n"
                       "            for tx in T.thread_binding(64, thread=\"threadIdx.x\"):\n"
                       "                for i in range(4):\n"
                       "                    C_1[i * 64 + tx] = B_1[i * 64 + tx] * T.float32(2)\n");
  PrimFunc out = compact_allocations(f);
  INFO(print_func(out, "main"));
  auto p = placements(out);
  REQUIRE(p.size() == 1);
  CHECK(p[0].extent == 256);
  CHECK(p[0].loop == "u");
  EquivResult eq = check_equivalent(f, out, 2);
  INFO(eq.message);
  CHECK(eq.equal);
  // Outside thread-bound loops a move that shrinks nothing is not made.
  PrimFunc cpu = tir(kParams, kViews +
                                  "    for u in range(1):\n"
                                  "        for i, j in T.grid(4, 64):\n"
                                  "            B_1[i * 64 + j] = A_1[i * 64 + j]\n"
                                  "        for i, j in T.grid(4, 64):\n"
                                  "            C_1[i * 64 + j] = B_1[i * 64 + j] * T.float32(2)\n");
  auto q = placements(compact_allocations(cpu));
  REQUIRE(q.size() == 1);
  CHECK(q[0].loop == "");
}

TEST_CASE("compact-allocations: digits of a fused and split copy loop are loops of their own",
          "[passes][compact]") {
  // Each iteration's two rows copied by f in 32 x 4: row f // 16, column
  // (f % 16) * 4 + g, as a fused copy split over threads leaves them.
  PrimFunc f =
      tir(kParams, kViews +
                       "    for po in range(2):\n"
                       "        for f, g in T.grid(32, 4):\n"
                       "            B_1[po * 128 + f // 16 * 64 + f % 16 * 4 + g] = "
                       "A_1[po * 128 + f // 16 * 64 + f % 16 * 4 + g]\n"
                       "        for i, j in T.grid(2, 64):\n"
                       "            C_1[po * 128 + i * 64 + j] = B_1[po * 128 + i * 64 + j] "
                       "* T.float32(2)\n");
  auto p = placements(compacted(f));
  REQUIRE(p.size() == 1);
  CHECK(p[0].extent == 128);
  CHECK(p[0].loop == "po");
  // A loop beside its own digit is not two loops: x % 4 + x * 4 over x < 4
  // writes 4 elements, not the 16 a box of both would claim before the
  // reads of all 16.
  PrimFunc tied = tir(kParams, kViews +
                                   "    for po in range(2):\n"
                                   "        for x in range(4):\n"
                                   "            B_1[po * 16 + x % 4 + x * 4] = A_1[po * 16 + x]\n"
                                   "        for i in range(16):\n"
                                   "            C_1[po * 16 + i] = B_1[po * 16 + i]\n");
  auto q = placements(compact_allocations(tied));
  REQUIRE(q.size() == 1);
  CHECK(q[0].loop == "");
}

TEST_CASE("compact-allocations: digits of a loop outside are part of the base",
          "[passes][compact]") {
  // Two outer loops fused into z (as GPU rules fuse batch loops onto
  // blockIdx.z): z // 2 and z % 2 are fixed in one iteration of u, so each
  // iteration's 16 elements shrink into u.
  PrimFunc f = tir(kParams, kViews +
                                "    for z in range(8):\n"
                                "        for u in range(1):\n"
                                "            for i in range(16):\n"
                                "                B_1[z // 2 * 64 + z % 2 * 16 + i] = "
                                "A_1[z // 2 * 64 + z % 2 * 16 + i]\n"
                                "            for i in range(16):\n"
                                "                C_1[z // 2 * 64 + z % 2 * 16 + i] = "
                                "B_1[z % 2 * 16 + z // 2 * 64 + i] * T.float32(2)\n");
  auto p = placements(compacted(f));
  REQUIRE(p.size() == 1);
  CHECK(p[0].extent == 16);
  CHECK(p[0].loop == "u");
  // A term that reads memory is not fixed by the loops around: B's place
  // depends on A[0], which the iteration itself overwrites.
  PrimFunc loaded = tir(kParams, kViews +
                                     "    for z in range(4):\n"
                                     "        for i in range(16):\n"
                                     "            B_1[T.Cast(\"int32\", A_1[0]) + z * 16 + i] = "
                                     "A_1[z * 16 + i]\n"
                                     "        A_1[0] = T.float32(1)\n"
                                     "        for i in range(16):\n"
                                     "            C_1[T.Cast(\"int32\", A_1[0]) + z * 16 + i] = "
                                     "B_1[T.Cast(\"int32\", A_1[0]) + z * 16 + i]\n");
  auto q = placements(compact_allocations(loaded));
  REQUIRE(q.size() == 1);
  CHECK(q[0].loop == "");
}

namespace {

// A float16 copy per outer iteration into a wide buffer B (rows of 64, 32
// used), read by warp matrix operations as 16x16 tiles with row stride 64:
// `reads` are the tiles' rows (t) and `last` the statement after the copy.
PrimFunc tiles_program(const std::string& rows, const std::string& last,
                       const std::string& scope = "global") {
  return tir(
      "A: T.Buffer((64, 32), \"float16\"), W: T.Buffer((32, 16), \"float16\"), "
      "C: T.Buffer((64, 16), \"float32\")",
      "    A_1 = T.Buffer((2048,), \"float16\", data=A.data)\n"
      "    W_1 = T.Buffer((512,), \"float16\", data=W.data)\n"
      "    C_1 = T.Buffer((1024,), \"float32\", data=C.data)\n"
      "    B = T.allocate([4096], \"float16\", \"" +
          scope +
          "\")\n"
          "    B_1 = T.Buffer((4096,), \"float16\", data=B, scope=\"" +
          scope +
          "\")\n"
          "    for po in range(2):\n"
          "        for i, j in T.grid(32, 32):\n"
          "            B_1[po * 2048 + i * 64 + j] = A_1[po * 1024 + i * 32 + j]\n"
          "        for t in range(" +
          rows +
          "):\n"
          "            T.evaluate(T.mma_fill(T.address_of(C_1[po * 512 + t * 256]), 16, "
          "T.float32(0)))\n"
          "            for u in range(2):\n"
          "                T.evaluate(T.mma_sync(T.address_of(C_1[po * 512 + t * 256]), 16, "
          "T.address_of(B_1[po * 2048 + t * 1024 + u * 16]), 64, T.address_of(W_1[u * "
          "256]), 16))\n" +
          last);
}

// `f`'s tile buffer compacted into the loop po: `extent` elements, the
// tiles read as `tile_read` (their compact address and row stride), the
// lowered form kept and equal to f under the interpreter (warp matrix
// operations: no CPU generator to compare with).
void check_tiles_moved_in(const PrimFunc& f, int64_t extent, const std::string& tile_read) {
  const PrimFunc out = compact_allocations(f);
  const std::string printed = print_func(out, "main");
  INFO(printed);
  auto p = placements(out);
  REQUIRE(p.size() == 1);
  CHECK(p[0].extent == extent);
  CHECK(p[0].loop == "po");
  CHECK(printed.find(tile_read) != std::string::npos);
  REQUIRE_NOTHROW(check_lowered_form(out));
  const EquivResult eq = check_equivalent(f, out, 3);
  INFO(eq.message);
  CHECK(eq.equal);
}

}  // namespace

TEST_CASE("compact-allocations: tiles that tensor cores read move in with their row stride",
          "[passes][compact]") {
  // Each iteration's 32x32 part; the tiles' row stride 64 becomes 32.
  check_tiles_moved_in(tiles_program("2", ""), 1024, "T.address_of(B_1[t * 512 + u * 16]), 32,");

  // A tile past what the copy wrote (t = 2: rows 32 to 47), a tile written
  // by a warp matrix operation, an address taken elsewhere: left alone.
  CHECK(placements(compact_allocations(tiles_program("3", ""))).at(0).loop == "");
  CHECK(placements(compact_allocations(tiles_program(
                       "2",
                       "        T.evaluate(T.mma_store(T.address_of(B_1[po * 2048]), 64, "
                       "T.address_of(C_1[0]), 16))\n")))
            .at(0)
            .loop == "");
  CHECK(placements(compact_allocations(
                       tiles_program("2",
                                     "        T.evaluate(T.mma_fill(T.address_of(C_1[0]), 16, "
                                     "T.Cast(\"float32\", T.address_of(B_1[po * 2048]) == "
                                     "T.address_of(B_1[po * 2048 + 1]))))\n")))
            .at(0)
            .loop == "");
}

TEST_CASE("compact-allocations: tensor-core tiles in shared memory get rows of 80 bytes",
          "[passes][compact]") {
  // Rows of 32 float16 (64 bytes) would put 8 rows' 16-byte pieces into 2
  // groups of 4 banks; spaced to 40 elements they fall into 8.
  check_tiles_moved_in(tiles_program("2", "", "shared"), 32 * 40,
                       "T.address_of(B_1[t * 640 + u * 16]), 40,");
}

TEST_CASE("compact-allocations: a copy loop across the rows keeps shared rows dense",
          "[passes][compact]") {
  // Rows of 32 float16, copied by one loop over all 1024 elements of each
  // part: f * 1 runs across rows, which spacing them would tear apart, so
  // the part is compacted densely (1024 elements, row stride 32).
  const PrimFunc f =
      tir("A: T.Buffer((64, 32), \"float16\"), W: T.Buffer((32, 16), \"float16\"), "
          "C: T.Buffer((64, 16), \"float32\")",
          "    A_1 = T.Buffer((2048,), \"float16\", data=A.data)\n"
          "    W_1 = T.Buffer((512,), \"float16\", data=W.data)\n"
          "    C_1 = T.Buffer((1024,), \"float32\", data=C.data)\n"
          "    B = T.allocate([2048], \"float16\", \"shared\")\n"
          "    B_1 = T.Buffer((2048,), \"float16\", data=B, scope=\"shared\")\n"
          "    for po in range(2):\n"
          "        for f in range(1024):\n"
          "            B_1[po * 1024 + f] = A_1[po * 1024 + f]\n"
          "        for t in range(2):\n"
          "            T.evaluate(T.mma_fill(T.address_of(C_1[po * 512 + t * 256]), 16, "
          "T.float32(0)))\n"
          "            for u in range(2):\n"
          "                T.evaluate(T.mma_sync(T.address_of(C_1[po * 512 + t * 256]), 16, "
          "T.address_of(B_1[po * 1024 + t * 512 + u * 16]), 32, T.address_of(W_1[u * 256]), "
          "16))\n");
  check_tiles_moved_in(f, 1024, "T.address_of(B_1[t * 512 + u * 16]), 32,");
}
