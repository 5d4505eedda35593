// decompose_reduction, rfactor, blockize, tensorize and the tensor
// intrinsic registry.
#include <catch2/catch.hpp>

#include "schedule/tensor_intrin.h"
#include "schedule_reduction_programs.h"
#include "schedule_reduction_util.h"

namespace tirc::test {
namespace {

constexpr const char* kNoReduceVarInside = R"(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((32, 64), "float32"), A_red: T.Buffer((32,), "float32")):
    for k1, ax0 in T.grid(64, 32):
        with T.block("A_red"):
            v_ax0, v_k1 = T.axis.remap("SR", [ax0, k1])
            with T.init():
                A_red[v_ax0] = T.float32(0)
            A_red[v_ax0] = A_red[v_ax0] + A[v_ax0, v_k1]
)";

constexpr const char* kSubtractReduction = R"(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((32, 64), "float32"), A_red: T.Buffer((32,), "float32")):
    for ax0, k1 in T.grid(32, 64):
        with T.block("A_red"):
            v_ax0, v_k1 = T.axis.remap("SR", [ax0, k1])
            with T.init():
                A_red[v_ax0] = T.float32(0)
            A_red[v_ax0] = A_red[v_ax0] - A[v_ax0, v_k1]
)";

constexpr const char* kNonIdentityInit = R"(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((32, 64), "float32"), B: T.Buffer((32,), "float32"), A_red: T.Buffer((32,), "float32")):
    for ax0, k1 in T.grid(32, 64):
        with T.block("A_red"):
            v_ax0, v_k1 = T.axis.remap("SR", [ax0, k1])
            with T.init():
                A_red[v_ax0] = B[v_ax0]
            A_red[v_ax0] = A_red[v_ax0] + A[v_ax0, v_k1]
)";

constexpr const char* kInitReadsOutput = R"(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((32, 64), "float32"), A_red: T.Buffer((32,), "float32")):
    for ax0, k1 in T.grid(32, 64):
        with T.block("A_red"):
            v_ax0, v_k1 = T.axis.remap("SR", [ax0, k1])
            with T.init():
                A_red[v_ax0] = A_red[v_ax0] * T.float32(2)
            A_red[v_ax0] = A_red[v_ax0] + A[v_ax0, v_k1]
)";

// j_1 has coefficient 4: the inner loop does not cover a contiguous range.
constexpr const char* kStridedInner = R"(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    for j_0, j_1 in T.grid(4, 16):
        with T.block("B"):
            vj = T.axis.spatial(64, j_1 * 4 + j_0)
            B[vj] = A[vj] + T.float32(1)
)";

constexpr const char* kNonAffine = R"(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    for i_0, i_1 in T.grid(8, 8):
        with T.block("B"):
            vi = T.axis.spatial(32, (i_0 * 8 + i_1) % 32)
            B[vi] = A[vi] + T.float32(1)
)";

constexpr const char* kMixedPredicate = R"(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    for i_0, i_1 in T.grid(4, 16):
        with T.block("B"):
            vi = T.axis.spatial(64, i_0 * 16 + i_1)
            T.where(i_0 * 16 + i_1 < 60)
            B[vi] = A[vi] + T.float32(1)
)";

Schedule schedule_of(const IRModule& m) {
  return Schedule(m);
}

// ---- decompose_reduction ---------------------------------------------------

TEST_CASE("decompose_reduction at the outermost loop", "[schedule][reduction]") {
  IRModule m = parse_module(kMatmul);
  Schedule s(m);
  BlockRV c = s.get_block("C");
  std::vector<LoopRV> loops = s.get_loops(c);
  BlockRV init = s.decompose_reduction(c, loops[0]);
  CHECK(printed(s) == kDecomposeMatmulI);
  CHECK(s.get(init) == "C_init");
  CHECK(s.get(c) == "C_update");  // the handle follows the update block
  check_valid(m, s);
  const Instruction& inst = s.trace().instructions().back();
  CHECK(inst.kind == "decompose_reduction");
  REQUIRE(inst.keywords.size() == 2);
  CHECK(inst.keywords[0].first == "block");
  CHECK(inst.keywords[1].first == "loop");
  CHECK(inst.outputs.size() == 1);
  CHECK_FALSE(inst.list_output);
}

TEST_CASE("decompose_reduction at the reduction loop", "[schedule][reduction]") {
  IRModule m = parse_module(kMatmul);
  Schedule s(m);
  BlockRV c = s.get_block("C");
  s.decompose_reduction(c, s.get_loops(c)[2]);
  CHECK(printed(s) == kDecomposeMatmulK);
  check_valid(m, s);
}

TEST_CASE("decompose_reduction of a row sum and of softmax's max", "[schedule][reduction]") {
  for (const char* text : {kSumRowsSplit, kSoftmax}) {
    IRModule m = parse_module(text);
    Schedule s(m);
    BlockRV b = s.get_block(text == kSoftmax ? "T_max" : "A_red");
    s.decompose_reduction(b, s.get_loops(b)[1]);
    check_valid(m, s);
  }
}

TEST_CASE("decompose_reduction refusals", "[schedule][reduction]") {
  SECTION("no init") {
    Schedule s = schedule_of(parse_module(kElemSplit));
    BlockRV b = s.get_block("B");
    LoopRV l = s.get_loops(b)[0];
    check_refused(
        s, [&] { s.decompose_reduction(b, l); }, "decompose_reduction: block B has no init");
  }
  SECTION("loop not an ancestor") {
    Schedule s = schedule_of(parse_module(kSoftmax));
    BlockRV b = s.get_block("T_max");
    LoopRV other = s.get_loops(s.get_block("T_sum"))[0];
    check_refused(
        s, [&] { s.decompose_reduction(b, other); },
        "decompose_reduction: loop i2 is not an ancestor of block T_max");
  }
  SECTION("reduction loop outside the given loop") {
    Schedule s = schedule_of(parse_module(kNoReduceVarInside));
    BlockRV b = s.get_block("A_red");
    LoopRV inner = s.get_loops(b)[1];
    check_refused(
        s, [&] { s.decompose_reduction(b, inner); }, "loop k1 binds reduction variable v_k1");
  }
  // Found by the randomized schedule test: a row sum computed at the column
  // loop of its consumer is redone (and re-initialized) for every j; an init
  // hoisted above j let the 4 repeats accumulate.
  SECTION("a loop that repeats the reduction") {
    IRModule mod = parse_module(R"(
@T.prim_func
def main(A: T.Buffer((4, 4), "float32"), B: T.Buffer((4, 4), "float32")):
    S = T.alloc_buffer((4,), "float32")
    for i, j in T.grid(4, 4):
        for k in range(4):
            with T.block("S"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    S[vi] = T.float32(0)
                S[vi] = S[vi] + A[vi, vk]
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = S[vi] + A[vi, vj]
)");
    Schedule s = schedule_of(mod);
    BlockRV b = s.get_block("S");
    std::vector<LoopRV> loops = s.get_loops(b);
    check_refused(
        s, [&] { s.decompose_reduction(b, loops[1]); },
        "decompose_reduction: loop j repeats the reduction of block S without binding any of its "
        "variables");
    // Below the repeating loop it is fine.
    s.decompose_reduction(b, loops[2]);
    check_valid(mod, s);
  }
}

// ---- rfactor -----------------------------------------------------------------

// Found by the randomized schedule test: with j and k fused, the rfactor
// block's reduction variable spanned several outputs and only the first one
// was initialized.
TEST_CASE("rfactor refuses a nest with a loop binding both kinds", "[schedule][reduction]") {
  IRModule m = parse_module(R"(
@T.prim_func
def main(A: T.Buffer((4, 4), "float32"), C: T.Buffer((4,), "float32")):
    for jk, k1 in T.grid(16, 1):
        with T.block("C"):
            vj = T.axis.spatial(4, jk // 4)
            vk = T.axis.reduce(4, jk % 4 + k1)
            with T.init():
                C[vj] = T.float32(0)
            C[vj] = C[vj] + A[vj, vk]
)");
  Schedule s(m);
  LoopRV k1 = s.get_loops(s.get_block("C"))[1];
  check_refused(
      s, [&] { s.rfactor(k1, 0); },
      "rfactor: loop jk binds both spatial and reduction variables of block C");
}

TEST_CASE("rfactor of matmul over k", "[schedule][reduction]") {
  IRModule m = parse_module(kMatmul);
  Schedule s(m);
  BlockRV c = s.get_block("C");
  BlockRV rf = s.rfactor(s.get_loops(c)[2], 0);
  CHECK(printed(s) == kRfactorMatmul);
  CHECK(s.get(rf) == "C_rf");
  CHECK(s.get(c) == "C");
  check_valid(m, s);
  const Instruction& inst = s.trace().instructions().back();
  CHECK(inst.kind == "rfactor");
  REQUIRE(inst.keywords.size() == 2);
  CHECK(inst.keywords[0].first == "loop");
  CHECK(inst.keywords[1].first == "factor_axis");
  CHECK(std::get<int64_t>(inst.keywords[1].second.v) == 0);
}

TEST_CASE("rfactor of softmax's max reduction", "[schedule][reduction]") {
  IRModule m = parse_module(kSoftmax);
  Schedule s(m);
  BlockRV b = s.get_block("T_max");
  s.rfactor(s.get_loops(b)[1], 0);
  CHECK(printed(s) == kRfactorSoftmaxMax);
  check_valid(m, s);
}

TEST_CASE("rfactor of a split row sum, last axis", "[schedule][reduction]") {
  IRModule m = parse_module(kSumRowsSplit);
  Schedule s(m);
  BlockRV b = s.get_block("A_red");
  s.rfactor(s.get_loops(b)[2], -1);  // -1: after the last dimension
  CHECK(printed(s) == kRfactorSumRows);
  check_valid(m, s);
}

// A bias as the init (a convolution's): the partial sums start from 0, the
// final sum from the bias.
TEST_CASE("rfactor keeps an init that is not the identity on the final sum",
          "[schedule][reduction]") {
  IRModule m = parse_module(kNonIdentityInit);
  Schedule s(m);
  BlockRV b = s.get_block("A_red");
  const std::vector<LoopRV> k = s.split(s.get_loops(b)[1], {4, 16});
  BlockRV rf = s.rfactor(k[0], 0);
  check_valid(m, s);
  const std::string text = printed(s);
  INFO(text);
  CHECK(text.find("A_red_rf[vk1_0, v_ax0] = T.float32(0)") != std::string::npos);
  CHECK(text.find("A_red[v_ax0_1] = B[v_ax0_1]") != std::string::npos);
  CHECK(s.get(rf) == "A_red_rf");
}

TEST_CASE("rfactor refusals", "[schedule][reduction]") {
  SECTION("loop binds a spatial variable") {
    Schedule s = schedule_of(parse_module(kMatmul));
    LoopRV i = s.get_loops(s.get_block("C"))[0];
    check_refused(
        s, [&] { s.rfactor(i, 0); }, "rfactor: loop i binds spatial variable vi of block C");
  }
  SECTION("not a commutative reducer") {
    Schedule s = schedule_of(parse_module(kSubtractReduction));
    LoopRV k = s.get_loops(s.get_block("A_red"))[1];
    check_refused(
        s, [&] { s.rfactor(k, 0); }, "is not a commutative reduction");
  }
  SECTION("init reads the output") {
    Schedule s = schedule_of(parse_module(kInitReadsOutput));
    LoopRV k = s.get_loops(s.get_block("A_red"))[1];
    check_refused(
        s, [&] { s.rfactor(k, 0); }, "rfactor: the init of block A_red reads its output A_red");
  }
  SECTION("factor_axis out of range") {
    Schedule s = schedule_of(parse_module(kMatmul));
    LoopRV k = s.get_loops(s.get_block("C"))[2];
    check_refused(
        s, [&] { s.rfactor(k, 3); }, "rfactor: factor_axis 3 is out of range [-3, 2]");
    check_refused(
        s, [&] { s.rfactor(k, -4); }, "factor_axis -4 is out of range");
  }
  SECTION("not a reduction block") {
    Schedule s = schedule_of(parse_module(kElemSplit));
    LoopRV j = s.get_loops(s.get_block("B"))[1];
    check_refused(
        s, [&] { s.rfactor(j, 0); }, "rfactor: block B is not a reduction block");
  }
}

// ---- blockize ----------------------------------------------------------------

TEST_CASE("blockize a tiled matmul at the inner tile", "[schedule][reduction]") {
  IRModule m = parse_module(kMatmulSplit);
  Schedule s(m);
  BlockRV c = s.get_block("C");
  BlockRV outer = s.blockize(s.get_loops(c)[3]);
  CHECK(printed(s) == kBlockizeMatmul);
  CHECK(s.get(outer) == "C_o");
  check_valid(m, s);
  const Instruction& inst = s.trace().instructions().back();
  CHECK(inst.kind == "blockize");
  REQUIRE(inst.keywords.size() == 2);
  CHECK(inst.keywords[0].first == "target");
  CHECK(inst.keywords[1].first == "preserve_unit_iters");
  CHECK(std::get<bool>(inst.keywords[1].second.v));
}

// Found by the randomized schedule test: the outer block's init kept the
// inner block's predicate over inner loops it does not copy (u_0 unbound).
TEST_CASE("blockize of a predicated reduction drops the predicate from the init",
          "[schedule][reduction]") {
  IRModule m = parse_module(R"(
@T.prim_func
def main(A: T.Buffer((4, 4), "float32"), C: T.Buffer((4,), "float32")):
    for i, k, u_0, u_1 in T.grid(4, 4, 2, 2):
        with T.block("C"):
            vi, vk = T.axis.remap("SR", [i, k])
            T.where(u_0 * 2 + u_1 < 1)
            with T.init():
                C[vi] = T.float32(0)
            C[vi] = C[vi] + A[vi, vk]
)");
  Schedule s(m);
  s.blockize(s.get_loops(s.get_block("C"))[2]);
  check_valid(m, s);
}

TEST_CASE("blockize an elementwise inner loop", "[schedule][reduction]") {
  IRModule m = parse_module(kElemSplit);
  Schedule s(m);
  s.blockize(s.get_loops(s.get_block("B"))[2]);
  CHECK(printed(s) == kBlockizeElem);
  check_valid(m, s);
}

TEST_CASE("blockize at the outermost loop keeps unit outer iterators", "[schedule][reduction]") {
  IRModule m = parse_module(kElemSplit);
  Schedule s(m);
  s.blockize(s.get_loops(s.get_block("B"))[0]);
  CHECK(printed(s).find("vi_o = T.axis.spatial(1, 0)") != std::string::npos);
  check_valid(m, s);
  Schedule t(m);
  t.blockize(t.get_loops(t.get_block("B"))[0], false);
  CHECK(printed(t).find("_o = T.axis") == std::string::npos);
  check_valid(m, t);
}

TEST_CASE("blockize a list of sibling blocks", "[schedule][reduction]") {
  IRModule m = parse_module(kTwoBlocks);
  Schedule s(m);
  BlockRV b = s.get_block("B");
  BlockRV c = s.get_block("C");
  BlockRV outer = s.blockize(std::vector<BlockRV>{b, c});
  CHECK(printed(s) == kBlockizeList);
  CHECK(s.get(outer) == "B_o");
  check_valid(m, s);
  const Instruction& inst = s.trace().instructions().back();
  CHECK(std::get<TraceList>(inst.keywords[0].second.v).size() == 2);
}

TEST_CASE("blockize refusals", "[schedule][reduction]") {
  SECTION("loop with two blocks") {
    Schedule s = schedule_of(parse_module(kTwoBlocks));
    LoopRV i = s.get_loops(s.get_block("B"))[0];
    check_refused(
        s, [&] { s.blockize(i); }, "blockize: loop i must contain exactly one block, found 2");
  }
  SECTION("binding not separable") {
    Schedule s = schedule_of(parse_module(kStridedInner));
    LoopRV j1 = s.get_loops(s.get_block("B"))[1];
    check_refused(
        s, [&] { s.blockize(j1); }, "cannot be split into outer and inner parts");
  }
  SECTION("binding not affine") {
    Schedule s = schedule_of(parse_module(kNonAffine));
    LoopRV i1 = s.get_loops(s.get_block("B"))[1];
    check_refused(
        s, [&] { s.blockize(i1); }, "is not affine");
  }
  SECTION("predicate over loops inside and outside") {
    Schedule s = schedule_of(parse_module(kMixedPredicate));
    LoopRV i1 = s.get_loops(s.get_block("B"))[1];
    check_refused(
        s, [&] { s.blockize(i1); },
        "the predicate of block B uses loops both inside and outside loop i_1");
  }
  SECTION("blocks that are not siblings") {
    Schedule s = schedule_of(parse_module(kSoftmax));
    BlockRV a = s.get_block("T_max");
    BlockRV c = s.get_block("T_sum");
    check_refused(
        s,
        [&] {
          s.blockize(std::vector<BlockRV>{a, c});
        },
        "not consecutive: block T_exp");
  }
}

// ---- tensor intrinsics and tensorize -----------------------------------------

TEST_CASE("tensor intrinsic registry", "[schedule][reduction]") {
  std::vector<std::string> names = tensor_intrin_names();
  REQUIRE(std::find(names.begin(), names.end(), "vec16_fma_f32") != names.end());
  const TensorIntrin* t = find_tensor_intrin("vec16_fma_f32");
  REQUIRE(t);
  CHECK(t->desc->params.size() == 3);
  CHECK(t->impl->params.size() == 3);
  CHECK(verify(t->desc).empty());
  CHECK(verify(t->impl).empty());
  CHECK(find_tensor_intrin("no_such_intrin") == nullptr);
  // desc and impl compute the same thing.
  CHECK(check_equivalent(t->desc, t->impl).equal);
}

TEST_CASE("tensorize a decomposed matmul's 16-wide j loop", "[schedule][reduction]") {
  IRModule m = parse_module(kMatmulJ16);
  Schedule s(m);
  BlockRV c = s.get_block("C");
  s.decompose_reduction(c, s.get_loops(c)[0]);
  std::vector<LoopRV> loops = s.get_loops(c);
  s.tensorize(loops[3], "vec16_fma_f32");
  CHECK(printed(s) == kTensorizeDecomposed);
  check_valid(m, s);
  const Instruction& inst = s.trace().instructions().back();
  CHECK(inst.kind == "tensorize");
  REQUIRE(inst.keywords.size() == 3);
  CHECK(inst.keywords[0].first == "block_or_loop");
  CHECK(inst.keywords[1].first == "tensor_intrin");
  CHECK(std::get<std::string>(inst.keywords[1].second.v) == "vec16_fma_f32");
  CHECK(inst.keywords[2].first == "preserve_unit_iters");
  CHECK(inst.outputs.empty());
}

TEST_CASE("tensorize a blockized block", "[schedule][reduction]") {
  IRModule m = parse_module(kMatmulNoInit);
  Schedule s(m);
  BlockRV outer = s.blockize(s.get_loops(s.get_block("C"))[3]);
  s.tensorize(outer, "vec16_fma_f32");
  CHECK(printed(s) == kTensorizeBlock);
  check_valid(m, s);
}

TEST_CASE("tensorize refusals", "[schedule][reduction]") {
  SECTION("unknown intrinsic") {
    Schedule s = schedule_of(parse_module(kMatmulNoInit));
    LoopRV j1 = s.get_loops(s.get_block("C"))[3];
    check_refused(
        s, [&] { s.tensorize(j1, "mma_16x16x16"); },
        "tensorize: unknown tensor intrinsic mma_16x16x16");
  }
  SECTION("computation differs") {
    Schedule s = schedule_of(parse_module(kElemSplit));
    LoopRV j1 = s.get_loops(s.get_block("B"))[2];
    check_refused(
        s, [&] { s.tensorize(j1, "vec16_fma_f32"); },
        "tensorize: block B_o does not match intrinsic vec16_fma_f32: expression");
  }
  SECTION("tile of the wrong width") {
    Schedule s = schedule_of(parse_module(kMatmulSplit));
    BlockRV c = s.get_block("C");
    s.decompose_reduction(c, s.get_loops(c)[0]);
    LoopRV k1 = s.get_loops(c)[5];
    check_refused(
        s, [&] { s.tensorize(k1, "vec16_fma_f32"); }, "does not match intrinsic vec16_fma_f32");
  }
  SECTION("block with init") {
    Schedule s = schedule_of(parse_module(kMatmulJ16));
    LoopRV j1 = s.get_loops(s.get_block("C"))[3];
    check_refused(
        s, [&] { s.tensorize(j1, "vec16_fma_f32"); },
        "block C_o has an init; decompose_reduction first");
  }
}

}  // namespace
}  // namespace tirc::test
