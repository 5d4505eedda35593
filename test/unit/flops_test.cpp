// count_flops (ir/flops.h): the FLOPs a function performs, the same before
// and after scheduling and lowering.
#include <catch2/catch.hpp>

#include "codegen_test_util.h"
#include "ir/flops.h"
#include "ir/text/parser.h"
#include "passes/pipeline.h"
#include "schedule/schedule.h"

using namespace tirc;

namespace {

PrimFunc example(const std::string& file) {
  return parse_module(read_example(file)).functions().front().second;
}

}  // namespace

TEST_CASE("flops: a matmul counts 2 * M * N * K, scheduled and lowered too", "[flops]") {
  PrimFunc f = example("matmul.tir");
  CHECK(count_flops(f) == 2 * 64 * 64 * 64);
  Schedule s(parse_module(read_example("matmul.tir")));
  auto loops = s.get_loops(s.get_block("C"));
  auto is = s.split(loops[0], {nullptr, 8});
  s.reorder({is[0], loops[2], is[1], loops[1]});
  s.vectorize(loops[1]);
  s.decompose_reduction(s.get_block("C"), loops[2]);
  CHECK(count_flops(s.func("main")) == 2 * 64 * 64 * 64);
  CHECK(count_flops(lower(s.func("main"))) == 2 * 64 * 64 * 64);
}

TEST_CASE("flops: windows, inits with arithmetic, math calls, unknown extents", "[flops]") {
  // conv2d_nchw: 8 output channels x 8 x 8 pixels, 4 x 3 x 3 taps, a multiply
  // and an add each; the pad copies without arithmetic.
  CHECK(count_flops(example("conv2d_nchw.tir")) == 2 * 8 * 8 * 8 * 4 * 3 * 3);
  // An init that computes (C = A[i] * 2) runs once per output element.
  PrimFunc init = parse_module(
                      "@T.prim_func\ndef main(A: T.Buffer((4,), \"float32\"), B: T.Buffer((4, 5), "
                      "\"float32\"), C: T.Buffer((4,), \"float32\")):\n"
                      "    for i, k in T.grid(4, 5):\n"
                      "        with T.block(\"C\"):\n"
                      "            vi, vk = T.axis.remap(\"SR\", [i, k])\n"
                      "            with T.init():\n"
                      "                C[vi] = A[vi] * T.float32(2)\n"
                      "            C[vi] = T.max(C[vi], B[vi, vk])\n")
                      .functions()
                      .front()
                      .second;
  CHECK(count_flops(init) == 4 * 5 + 4);
  // exp, sqrt and a division per element; integer arithmetic not at all.
  PrimFunc calls = parse_module(
                       "@T.prim_func\ndef main(A: T.Buffer((8,), \"float32\"), B: T.Buffer((8,), "
                       "\"float32\"), I: T.Buffer((8,), \"int32\")):\n"
                       "    for i in range(8):\n"
                       "        B[i] = T.exp(A[i]) / T.sqrt(A[i])\n"
                       "        I[i] = I[i] * 3 + 1\n")
                       .functions()
                       .front()
                       .second;
  CHECK(count_flops(calls) == 8 * 3);
  PrimFunc dynamic = parse_module(
                         "@T.prim_func\ndef main(A: T.Buffer((8,), \"float32\"), n: T.int32):\n"
                         "    for i in range(n):\n"
                         "        A[i] = A[i] + T.float32(1)\n")
                         .functions()
                         .front()
                         .second;
  CHECK_FALSE(count_flops(dynamic));
}
