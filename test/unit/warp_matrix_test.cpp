// The warp matrix operations (ir/intrinsic.h): their tensor intrinsics, the
// interpreter's semantics and checks, the race checker's view of them, and the
// verifier's rules. The CUDA generator's side is in cuda_codegen_test.cpp.
#include <catch2/catch.hpp>
#include <string>

#include "eval_test_util.h"
#include "ir/eval/interpreter.h"
#include "ir/text/parser.h"
#include "ir/verify.h"
#include "schedule/tensor_intrin.h"

using namespace tirc;
using namespace tirc::test;

namespace {

PrimFunc parse(const std::string& text) {
  return parse_module("@T.prim_func\n" + text, "mma.tir").functions().front().second;
}

std::string problems(const PrimFunc& f) {
  std::string out;
  for (const Diagnostic& d : verify(f)) out += d.message + "\n";
  return out;
}

// A 32x48 accumulator (row stride 48) and one 16x16 step of a 48x48 float16
// matmul at tile (1, 2) of C: the operations against the loops they stand for.
const char* const kTiles =
    R"(def main(A: T.Buffer((32, 48), "float16"), B: T.Buffer((48, 48), "float16"), C: T.Buffer((32, 48), "float32")):
    Acc = T.alloc_buffer((32, 48), "float32", scope="wmma.accumulator")
    T.evaluate(T.mma_fill(T.address_of(Acc[16, 32]), 48, T.float32(0)))
    for k in range(3):
        T.evaluate(T.mma_sync(T.address_of(Acc[16, 32]), 48, T.address_of(A[16, k * 16]), 48, T.address_of(B[k * 16, 32]), 48))
    T.evaluate(T.mma_store(T.address_of(C[16, 32]), 48, T.address_of(Acc[16, 32]), 48))
)";

const char* const kLoops =
    R"(def main(A: T.Buffer((32, 48), "float16"), B: T.Buffer((48, 48), "float16"), C: T.Buffer((32, 48), "float32")):
    for i, j in T.grid(16, 16):
        C[16 + i, 32 + j] = T.float32(0)
        for k in range(48):
            C[16 + i, 32 + j] = C[16 + i, 32 + j] + T.Cast("float32", A[16 + i, k]) * T.Cast("float32", B[k, 32 + j])
)";

}  // namespace

TEST_CASE("warp matrix: the tensor-core intrinsics describe what they do", "[warp-matrix]") {
  for (const char* name : {"mma_fill_16x16_f32", "mma_sync_16x16x16_f16_f32",
                           "mma_sync_16x16x16_bf16_f32", "mma_store_16x16_f32"}) {
    CAPTURE(name);
    const TensorIntrin* t = find_tensor_intrin(name);
    REQUIRE(t);
    // mma_sync's description is a reduction's update without its init (what
    // tensorize matches after decompose_reduction): the verifier says so.
    if (std::string(name).rfind("mma_sync", 0) == 0)
      CHECK(problems(t->desc) ==
            "main: block update has reduce axes and updates C in place but has no init\n");
    else
      CHECK(problems(t->desc) == "");
    CHECK(problems(t->impl) == "");
    // desc and impl compute the same, bit for bit (products in float32, sums
    // in k order).
    const EquivResult r = check_equivalent(t->desc, t->impl);
    CHECK(r.equal);
    CAPTURE(r.message);
  }
}

TEST_CASE("warp matrix: the interpreter runs them as the loops they replace", "[warp-matrix]") {
  const PrimFunc tiles = parse(kTiles), loops = parse(kLoops);
  CHECK(problems(tiles) == "");
  const EquivResult r = check_equivalent(loops, tiles);
  CAPTURE(r.message);
  CHECK(r.equal);
}

TEST_CASE("warp matrix: tiles that do not fit are errors of the run", "[warp-matrix]") {
  auto run_error = [](const std::string& text) {
    const PrimFunc f = parse(text);
    std::vector<NDArray> inputs = random_inputs(f, 1);
    std::vector<Argument> args;
    for (NDArray& a : inputs) args.push_back({&a});
    try {
      run(f, args, RunOptions{});
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  const std::string head =
      "def main(A: T.Buffer((32, 32), \"float16\"), C: T.Buffer((32, 32), \"float32\")):\n";
  CHECK_THAT(
      run_error(head + "    T.evaluate(T.mma_fill(T.address_of(C[17, 0]), 32, T.float32(1)))\n"),
      Catch::Contains("T.mma_fill: the accumulator tile at C[17, 0] with row stride 32 "
                      "reaches past its storage (1024 elements)"));
  CHECK_THAT(
      run_error(
          head +
          "    T.evaluate(T.mma_store(T.address_of(C[0, 0]), 8, T.address_of(C[16, 0]), 32))\n"),
      Catch::Contains("T.mma_store: the destination tile's row stride 8 is less than 16"));
}

TEST_CASE("warp matrix: the race checker sees every element of a tile", "[warp-matrix][race]") {
  // Two warps (threadIdx.y) fill overlapping tiles: rows 8..15 of both.
  const PrimFunc overlap = parse(R"(def main(C: T.Buffer((32, 16), "float32")):
    for y in T.thread_binding(2, thread="threadIdx.y"):
        T.evaluate(T.mma_fill(T.address_of(C[y * 8, 0]), 16, T.float32(1)))
)");
  CHECK_THAT(race_of(overlap),
             Catch::Contains("race in thread-bound loop y (threadIdx.y): iterations y=0 and y=1 "
                             "both write"));
  // Disjoint tiles, and a tile a warp reads that another writes.
  const PrimFunc disjoint = parse(R"(def main(C: T.Buffer((32, 16), "float32")):
    for y in T.thread_binding(2, thread="threadIdx.y"):
        T.evaluate(T.mma_fill(T.address_of(C[y * 16, 0]), 16, T.float32(1)))
)");
  CHECK(race_of(disjoint) == "");
  const PrimFunc reads =
      parse(R"(def main(C: T.Buffer((32, 16), "float32"), D: T.Buffer((32, 16), "float32")):
    for y in T.thread_binding(2, thread="threadIdx.y"):
        T.evaluate(T.mma_store(T.address_of(D[y * 16, 0]), 16, T.address_of(C[0, 0]), 16))
        T.evaluate(T.mma_fill(T.address_of(C[y * 16, 0]), 16, T.float32(1)))
)");
  CHECK_THAT(race_of(reads), Catch::Contains("race in thread-bound loop y (threadIdx.y)"));
}

TEST_CASE("warp matrix: the verifier's rules", "[warp-matrix]") {
  const std::string head =
      "def main(A: T.Buffer((16, 16), \"float16\"), F: T.Buffer((16, 16), \"float32\"), "
      "C: T.Buffer((16, 16), \"float32\")):\n";
  CHECK_THAT(problems(parse(head + "    C[0, 0] = T.Cast(\"float32\", T.mma_fill(T.address_of(C[0, "
                                   "0]), 16, T.float32(0)))\n")),
             Catch::Contains("T.mma_fill is a statement (T.evaluate) and cannot be part of an "
                             "expression"));
  CHECK_THAT(problems(parse(head + "    T.evaluate(T.mma_sync(T.address_of(C[0, 0]), 16, "
                                   "T.address_of(F[0, 0]), 16, T.address_of(A[0, 0]), 16))\n")),
             Catch::Contains("T.mma_sync: the a tile F has type float32, not float16"));
  CHECK_THAT(
      problems(parse(
          head +
          "    T.evaluate(T.mma_store(T.address_of(A[0, 0]), 16, T.address_of(C[0, 0]), 16))\n")),
      Catch::Contains("T.mma_store: the destination tile A has type float16, not float32"));
  CHECK_THAT(problems(parse(head + "    T.evaluate(T.mma_fill(C.data, 16, T.float32(0)))\n")),
             Catch::Contains("T.mma_fill: the accumulator tile must be T.address_of(buf[...])"));
  CHECK_THAT(
      problems(parse(
          head +
          "    T.evaluate(T.mma_fill(T.address_of(C[0, 0]), T.float32(16), T.float32(0)))\n")),
      Catch::Contains("(a row stride) must be an integer"));
  CHECK(problems(parse(
            head + "    T.evaluate(T.mma_fill(T.address_of(C[0, 0]), 16, T.float32(0)))\n")) == "");
}
