// Legality of parallel, vectorize and bind is a proof that distinct
// iterations touch distinct elements (schedule/iteration_conflict.h). Each
// hole found in the earlier, sampled check is pinned here with its program,
// primitive and refusal; the sound schedules next to them stay accepted.
#include "schedule_loops_test_util.h"

using namespace tirc;
using namespace tirc::loops_test;

namespace {

IRModule parse(const std::string& text) {
  return parse_module(text, "conflict.tir");
}

// C[vi] += A[vi] under i, j whose binding ignores j.
const char* kIgnoresJ = R"(@T.prim_func
def main(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    for i, j in T.grid(16, 4):
        with T.block("C"):
            vi = T.axis.spatial(16, i)
            T.reads(C[vi], A[vi])
            T.writes(C[vi])
            C[vi] = C[vi] + A[vi]
)";

// vi = (i * 4 + j) // 4 with j up to 7: (i=0, j=4) and (i=1, j=0) both give 1.
const char* kOverlappingSplit = R"(@T.prim_func
def main(A: T.Buffer((32,), "float32"), C: T.Buffer((16,), "float32")):
    for i, j in T.grid(4, 8):
        with T.block("C"):
            vi = T.axis.spatial(16, (i * 4 + j) // 4)
            T.reads(A[vi])
            T.writes(C[vi])
            C[vi] = A[vi]
)";

// A histogram: the spatial claim on vi does not make H[vi % 8] distinct.
const char* kHistogram = R"(@T.prim_func
def main(A: T.Buffer((64,), "float32"), H: T.Buffer((8,), "float32")):
    for i in range(64):
        with T.block("H"):
            vi = T.axis.spatial(64, i)
            T.reads(H[vi % 8], A[vi])
            T.writes(H[vi % 8])
            H[vi % 8] = H[vi % 8] + A[vi]
)";

// S[vi] += A[vi, vj] with vj (wrongly) declared spatial.
const char* kRowSum = R"(@T.prim_func
def main(A: T.Buffer((8, 16), "float32"), S: T.Buffer((8,), "float32")):
    for i, j in T.grid(8, 16):
        with T.block("S"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(S[vi], A[vi, vj])
            T.writes(S[vi])
            S[vi] = S[vi] + A[vi, vj]
)";

// A scan: iteration i reads what iteration i - 1 wrote.
const char* kScan = R"(@T.prim_func
def main(A: T.Buffer((64,), "float32"), C: T.Buffer((65,), "float32")):
    for i in range(64):
        with T.block("C"):
            vi = T.axis.spatial(64, i)
            T.reads(C[vi], A[vi])
            T.writes(C[vi + 1])
            C[vi + 1] = C[vi] + A[vi]
)";

// Elementwise over a 2-D buffer with a loop of extent `n`.
std::string elementwise(int64_t n) {
  std::string s = std::to_string(n);
  return "@T.prim_func\ndef main(A: T.Buffer((" + s + ", 4), \"float32\"), B: T.Buffer((" + s +
         ", 4), \"float32\")):\n    for i, j in T.grid(" + s +
         ", 4):\n        with T.block(\"B\"):\n            vi, vj = T.axis.remap(\"SS\", [i, j])\n"
         "            B[vi, vj] = A[vi, vj] * T.float32(2)\n";
}

}  // namespace

TEST_CASE("parallel of an innermost loop whose block ignores it is refused",
          "[schedule][loops][conflict]") {
  IRModule m = parse(kIgnoresJ);
  Schedule sch(m);
  std::vector<LoopRV> loops = sch.get_loops(sch.get_block("C"));
  expect_refused(
      sch, [&] { sch.parallel(loops[1]); },
      "parallel: block C writes C at the same place in every iteration of loop j");
  expect_refused(
      sch, [&] { sch.vectorize(loops[1]); },
      "vectorize: block C writes C at the same place in every iteration of loop j");
  expect_refused(
      sch, [&] { sch.bind(loops[1], "threadIdx.x"); },
      "bind: block C writes C at the same place in every iteration of loop j");
  // The loop that feeds vi is fine.
  sch.parallel(loops[0]);
  expect_sound(m, sch);
}

TEST_CASE("parallel of a loop whose iterations meet through floordiv is refused",
          "[schedule][loops][conflict]") {
  IRModule m = parse(kOverlappingSplit);
  Schedule sch(m);
  std::vector<LoopRV> loops = sch.get_loops(sch.get_block("C"));
  expect_refused(
      sch, [&] { sch.parallel(loops[0]); },
      "parallel: cannot prove the iterations of loop i write distinct elements of C (block C)");
}

TEST_CASE("a spatial annotation is not taken on trust", "[schedule][loops][conflict]") {
  {
    IRModule m = parse(kHistogram);
    Schedule sch(m);
    LoopRV i = sch.get_loops(sch.get_block("H"))[0];
    expect_refused(
        sch, [&] { sch.parallel(i); },
        "parallel: cannot prove the iterations of loop i write distinct elements of H (block H)");
  }
  {
    IRModule m = parse(kRowSum);
    Schedule sch(m);
    std::vector<LoopRV> loops = sch.get_loops(sch.get_block("S"));
    expect_refused(
        sch, [&] { sch.vectorize(loops[1]); },
        "vectorize: block S writes S at the same place in every iteration of loop j");
    sch.parallel(loops[0]);
    expect_sound(m, sch);
  }
}

TEST_CASE("a loop whose iterations read what others write is refused",
          "[schedule][loops][conflict]") {
  IRModule m = parse(kScan);
  Schedule sch(m);
  LoopRV i = sch.get_loops(sch.get_block("C"))[0];
  expect_refused(
      sch, [&] { sch.parallel(i); },
      "parallel: cannot prove that no iteration of loop i reads an element of C that another "
      "iteration writes (block C)");
  expect_refused(
      sch, [&] { sch.vectorize(i); }, "vectorize: cannot prove that no iteration of loop i reads");
}

TEST_CASE("a primitive that would make a parallel loop race is refused",
          "[schedule][loops][conflict]") {
  // D[vi + vj]: with i outside, the iterations of j write distinct elements;
  // with j outside (after reorder), (i=1, j=0) and (i=0, j=1) meet.
  const char* diagonal = R"(@T.prim_func
def main(A: T.Buffer((8, 8), "float32"), D: T.Buffer((15,), "float32")):
    for i, j in T.grid(8, 8):
        with T.block("D"):
            vi, vj = T.axis.remap("SS", [i, j])
            D[vi + vj] = A[vi, vj]
)";
  IRModule m = parse(diagonal);
  Schedule sch(m);
  std::vector<LoopRV> loops = sch.get_loops(sch.get_block("D"));
  sch.parallel(loops[1]);
  expect_refused(
      sch,
      [&] {
        sch.reorder({loops[1], loops[0]});
      },
      "reorder: parallel loop j would race: cannot prove the iterations of loop j write distinct "
      "elements of D (block D)");
  expect_sound(m, sch);
}

TEST_CASE("split, fused and tiled loops are proved independent", "[schedule][loops][conflict]") {
  const IRModule matmul = example("matmul.tir");
  {
    // Outer tile loop of a split: iterations cover 16-row bands.
    Schedule sch(matmul);
    std::vector<LoopRV> loops = sch.get_loops(sch.get_block("C"));
    std::vector<LoopRV> ij = sch.split(loops[0], {nullptr, 16});
    sch.parallel(ij[0]);
    sch.vectorize(sch.split(loops[1], {nullptr, 8})[1]);
    expect_sound(matmul, sch);
  }
  {
    // i and j fused, then split again: the flat offset is the fused index.
    Schedule sch(matmul);
    std::vector<LoopRV> loops = sch.get_loops(sch.get_block("C"));
    LoopRV fused = sch.fuse({loops[0], loops[1]});
    std::vector<LoopRV> parts = sch.split(fused, {nullptr, 4});
    sch.parallel(parts[0]);
    expect_sound(matmul, sch);
  }
  {
    // The inner part of a split made the outer loop: iterations interleave
    // (ji, ji + 8, ...) without meeting.
    Schedule sch(matmul);
    std::vector<LoopRV> loops = sch.get_loops(sch.get_block("C"));
    std::vector<LoopRV> j = sch.split(loops[1], {nullptr, 8});
    sch.reorder({j[1], loops[0], j[0]});
    sch.parallel(j[1]);
    expect_sound(matmul, sch);
  }
  {
    // The reduction loop itself is never parallel.
    Schedule sch(matmul);
    std::vector<LoopRV> loops = sch.get_loops(sch.get_block("C"));
    expect_refused(
        sch, [&] { sch.parallel(loops[2]); }, "parallel: loop k binds reduce variable");
  }
}

// Y[c, p // 7, p % 7] over flattened pixels p (a convolution's output).
const char* kPixels = R"(@T.prim_func
def main(A: T.Buffer((4, 49), "float32"), Y: T.Buffer((4, 7, 7), "float32")):
    for c, p in T.grid(4, 49):
        with T.block("Y"):
            vc, vp = T.axis.remap("SS", [c, p])
            T.reads(A[vc, vp])
            T.writes(Y[vc, vp // 7, vp % 7])
            Y[vc, vp // 7, vp % 7] = A[vc, vp]
)";

// The same with iteration p also writing pixel p + 1: neighbours meet.
const char* kPixelsOverlap = R"(@T.prim_func
def main(A: T.Buffer((4, 49), "float32"), Y: T.Buffer((4, 7, 8), "float32")):
    for c, p in T.grid(4, 48):
        with T.block("Y"):
            vc, vp = T.axis.remap("SS", [c, p])
            T.reads(A[vc, vp])
            T.writes(Y[vc, vp // 7, vp % 7], Y[vc, (vp + 1) // 7, (vp + 1) % 7])
            Y[vc, vp // 7, vp % 7] = A[vc, vp]
            Y[vc, (vp + 1) // 7, (vp + 1) % 7] = A[vc, vp + 1]
)";

TEST_CASE("dimensions indexed [p // E, p % E] are one dimension indexed p",
          "[schedule][loops][conflict]") {
  {
    // Blocks of pixels in parallel, channels inside: only the merged
    // dimension tells the blocks apart.
    const IRModule m = parse(kPixels);
    Schedule sch(m);
    std::vector<LoopRV> loops = sch.get_loops(sch.get_block("Y"));
    std::vector<LoopRV> p = sch.split(loops[1], {nullptr, 8});
    sch.reorder({p[0], loops[0], p[1]});
    sch.parallel(p[0]);
    expect_sound(m, sch);
  }
  {
    const IRModule m = parse(kPixelsOverlap);
    Schedule sch(m);
    std::vector<LoopRV> loops = sch.get_loops(sch.get_block("Y"));
    std::vector<LoopRV> p = sch.split(loops[1], {nullptr, 8});
    sch.reorder({p[0], loops[0], p[1]});
    expect_refused(
        sch, [&] { sch.parallel(p[0]); },
        "parallel: cannot prove the iterations of loop p_0 write distinct elements of Y (block Y)");
  }
}

TEST_CASE("blockize refuses an unlisted block between the listed ones",
          "[schedule][blockize][conflict]") {
  const char* three = R"(@T.prim_func
def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32"), D: T.Buffer((8,), "float32")):
    for i in range(8):
        with T.block("B"):
            vi = T.axis.spatial(8, i)
            B[vi] = A[vi]
        with T.block("C"):
            vi = T.axis.spatial(8, i)
            C[vi] = B[vi]
        with T.block("D"):
            vi = T.axis.spatial(8, i)
            D[vi] = C[vi]
)";
  IRModule m = parse(three);
  Schedule sch(m);
  std::vector<BlockRV> outer{sch.get_block("B"), sch.get_block("D")};
  expect_refused(
      sch, [&] { sch.blockize(outer); }, "are not consecutive: block C lies between them");
}

TEST_CASE("the parallel legality check costs the same at any extent",
          "[schedule][loops][conflict]") {
  // Not a timing assertion (speed is measured in benchmarks): the check
  // gives the same answer at extents where sampling would be impossible.
  for (int64_t n : {64, 4096, 1000000}) {
    IRModule m = parse(elementwise(n));
    Schedule sch(m);
    std::vector<LoopRV> loops = sch.get_loops(sch.get_block("B"));
    sch.parallel(loops[0]);
    sch.vectorize(loops[1]);
    CHECK(sch.trace().size() >= 2);
  }
}

TEST_CASE("a shared-scope tile is each GPU block's own, not each thread's",
          "[schedule][loops][conflict]") {
  // Every row of blocks copies the same row of A into a tile and uses it.
  const std::string text = R"(@T.prim_func
def main(A: T.Buffer((16,), "float32"), C: T.Buffer((4, 16), "float32")):
    for i, j in T.grid(4, 16):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = A[vj] * T.float32(2)
)";
  for (const char* scope : {"shared", "global"}) {
    INFO(scope);
    IRModule m = parse(text);
    Schedule sch(m);
    const BlockRV c = sch.get_block("C");
    const BlockRV tile = sch.cache_read(c, 0, scope);
    std::vector<LoopRV> loops = sch.get_loops(c);
    sch.compute_at(tile, loops[0]);
    if (std::string(scope) == "shared") {
      // Each block has its own tile: the rows of blocks never meet on it.
      sch.bind(loops[0], "blockIdx.x");
      expect_sound(m, sch);
    } else {
      expect_refused(
          sch, [&] { sch.bind(loops[0], "blockIdx.x"); },
          "bind: block A_global writes A_global at the same place in every iteration of loop i");
    }
  }
  // Threads of one block do share it.
  IRModule m = parse(text);
  Schedule sch(m);
  const BlockRV c = sch.get_block("C");
  const BlockRV tile = sch.cache_read(c, 0, "shared");
  std::vector<LoopRV> loops = sch.get_loops(c);
  sch.compute_at(tile, loops[0]);
  expect_refused(
      sch, [&] { sch.bind(loops[0], "threadIdx.x"); },
      "bind: block A_shared writes A_shared at the same place in every iteration of loop i");
}

namespace {

// 64x32 tiles copied at offsets (o, p) by their fused rows and columns.
const char* kTileCopy = R"(@T.prim_func
def main(A: T.Buffer((128, 64), "float32"), S: T.Buffer((128, 64), "float32")):
    for o, p, i, j in T.grid(2, 2, 64, 32):
        with T.block("S"):
            vi = T.axis.spatial(128, o * 64 + i)
            vj = T.axis.spatial(64, p * 32 + j)
            T.reads(A[vi, vj])
            T.writes(S[vi, vj])
            S[vi, vj] = A[vi, vj]
)";

// f // 32, f % W over 2048 values of f: distinct elements for W = 32, not for 16.
std::string flat_copy(int w) {
  const std::string shape = "(" + std::to_string(2048 / 32) + ", " + std::to_string(w) + ")";
  const std::string at = "S[vf // 32, vf % " + std::to_string(w) + "]";
  return R"(@T.prim_func
def main(A: T.Buffer((2048,), "float32"), S: T.Buffer()" +
         shape + R"(, "float32")):
    for f in range(2048):
        with T.block("S"):
            vf = T.axis.spatial(2048, f)
            T.reads(A[vf])
            T.writes()" +
         at + R"()
            )" +
         at +
         R"( = A[vf]
)";
}

// The copy's fused loop split over threads z, y, x with each thread's serial
// copies (f0) outside them in the index but inside them in the nest, and a
// vector of 8 innermost: f = (((f0 * 2 + f1) * 2 + f2) * 32 + f3) * 8 + f4.
std::vector<LoopRV> split_over_threads(Schedule& sch, LoopRV fused) {
  std::vector<LoopRV> f = sch.split(fused, {nullptr, 2, 2, 32, 8});
  sch.reorder({f[1], f[2], f[3], f[0], f[4]});
  return f;
}

TEST_CASE("a tile copied by fused loops split over threads is proved independent",
          "[schedule][loops][conflict]") {
  {
    // Rows f // 32 and columns f % 32 * ... at the tile's offset: after
    // simplification the digits of f are spread over both indices; merged
    // (row * 32 + column) they are f again, whose middle digit f1 is a
    // loop with inner digits both above (f0) and below it.
    const IRModule m = parse(kTileCopy);
    Schedule sch(m);
    std::vector<LoopRV> loops = sch.get_loops(sch.get_block("S"));
    std::vector<LoopRV> f = split_over_threads(sch, sch.fuse({loops[2], loops[3]}));
    sch.parallel(f[1]);
    sch.vectorize(f[4]);
    expect_sound(m, sch);
  }
  for (int w : {32, 16}) {
    const IRModule m = parse(flat_copy(w));
    Schedule sch(m);
    std::vector<LoopRV> f = split_over_threads(sch, sch.get_loops(sch.get_block("S"))[0]);
    if (w == 32) {
      sch.parallel(f[3]);
      expect_sound(m, sch);
    } else {
      // f3 = 0 and f3 = 2 (f = 0 and 16) write S[0, 0] both.
      expect_refused(
          sch, [&] { sch.parallel(f[3]); },
          "parallel: cannot prove the iterations of loop f_3 write distinct elements of S");
    }
  }
}

}  // namespace
