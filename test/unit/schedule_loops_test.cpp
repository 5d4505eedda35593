// split, fuse, reorder, add_unit_loop and the affine-binding rule.
#include "ir/arith/analyzer.h"
#include "schedule/analysis.h"
#include "schedule_loops_test_util.h"

using namespace tirc;
using namespace tirc::loops_test;

namespace {

// A loop whose extent depends on the loop above it.
const char* kTriangle = R"(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((8, 8), "float32")):
    for i in range(8):
        for j in range(i + 1):
            with T.block("B"):
                vi = T.axis.spatial(8, i)
                vj = T.axis.spatial(8, j)
                T.reads()
                T.writes(A[vi, vj])
                A[vi, vj] = T.float32(1)
)";

// Two loop nests under one loop, a loop starting at 2, an opaque iterator and
// a non-affine binding.
const char* kOddLoops = R"(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16,), "float32")):
    for i in range(4):
        for j in range(4):
            with T.block("P"):
                vi = T.axis.spatial(16, i * j)
                vj = T.axis.opaque(4, j)
                T.reads()
                T.writes(A[vi, vj])
                A[vi, vj] = T.float32(1)
        for j2 in range(4):
            with T.block("Q"):
                vi = T.axis.spatial(16, i * 4 + j2)
                T.reads()
                T.writes(B[vi])
                B[vi] = T.float32(2)
    for m in T.serial(2, 10):
        with T.block("R"):
            vm = T.axis.spatial(16, m)
            T.reads()
            T.writes(B[vm])
            B[vm] = T.float32(3)
)";

}  // namespace

TEST_CASE("split with an inferred factor", "[schedule][loops]") {
  IRModule mm = example("matmul.tir");
  Schedule sch(mm);
  BlockRV c = sch.get_block("C");
  std::vector<LoopRV> loops = sch.get_loops(c);
  std::vector<LoopRV> parts = sch.split(loops[0], {nullptr, 16});
  REQUIRE(parts.size() == 2);
  CHECK(sch.get(parts[0])->name == "i_0");
  expect_print(sch, "split_matmul", R"TIR(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i_0, i_1, j, k in T.grid(4, 16, 64, 64):
        with T.block("C"):
            vi = T.axis.spatial(64, i_0 * 16 + i_1)
            vj, vk = T.axis.remap("SR", [j, k])
            T.reads(C[vi, vj], A[vi, vk], B[vk, vj])
            T.writes(C[vi, vj])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)TIR");
  expect_sound(mm, sch);

  const Instruction& inst = sch.trace().instructions().back();
  CHECK(inst.kind == "split");
  REQUIRE(inst.keywords.size() == 3);
  CHECK(inst.keywords[0].first == "loop");
  CHECK(inst.keywords[1].first == "factors");
  CHECK(inst.keywords[2].first == "preserve_unit_iters");
  auto& factors = std::get<TraceList>(inst.keywords[1].second.v);
  REQUIRE(factors.size() == 2);
  CHECK(factors[0].is_none());
  CHECK(std::get<int64_t>(factors[1].v) == 16);
  CHECK(inst.list_output);
  CHECK(inst.outputs.size() == 2);
}

TEST_CASE("split over-covering the extent adds a predicate", "[schedule][loops]") {
  IRModule mm = example("matmul.tir");
  Schedule sch(mm);
  std::vector<LoopRV> loops = sch.get_loops(sch.get_block("C"));
  std::vector<LoopRV> parts = sch.split(loops[1], {nullptr, 48});
  expect_print(sch, "split_over", R"TIR(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i, j_0, j_1, k in T.grid(64, 2, 48, 64):
        with T.block("C"):
            vi = T.axis.spatial(64, i)
            vj = T.axis.spatial(64, j_0 * 48 + j_1)
            vk = T.axis.reduce(64, k)
            T.where(j_0 * 48 + j_1 < 64)
            T.reads(C[vi, vj], A[vi, vk], B[vk, vj])
            T.writes(C[vi, vj])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)TIR");
  expect_sound(mm, sch);
  // A second over-covering split conjoins its predicate with the first.
  sch.split(parts[1], {nullptr, 32});
  expect_print(sch, "split_over_twice", R"TIR(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i, j_0, j_1_0, j_1_1, k in T.grid(64, 2, 2, 32, 64):
        with T.block("C"):
            vi = T.axis.spatial(64, i)
            vj = T.axis.spatial(64, j_0 * 48 + j_1_0 * 32 + j_1_1)
            vk = T.axis.reduce(64, k)
            T.where(j_0 * 48 + j_1_0 * 32 + j_1_1 < 64 and j_1_0 * 32 + j_1_1 < 48)
            T.reads(C[vi, vj], A[vi, vk], B[vk, vj])
            T.writes(C[vi, vj])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)TIR");
  expect_sound(mm, sch);
}

// Found by the randomized schedule test: inside an outer block, the inner
// block's over-covering binding made the outer block's inferred reads reach
// past its T.reads (region inference ignored the T.where guard).
TEST_CASE("split over-covering inside a nested block keeps outer regions", "[schedule][loops]") {
  IRModule mod = parse_module(R"(
@T.prim_func
def main(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8, 8), "float32")):
    for i in range(8):
        with T.block("B_o"):
            vi_o = T.axis.spatial(8, i)
            T.reads(A[vi_o, 0:8])
            T.writes(B[vi_o, 0:8])
            for j in range(8):
                with T.block("B"):
                    vj_i = T.axis.spatial(8, j)
                    T.reads(A[vi_o, vj_i])
                    T.writes(B[vi_o, vj_i])
                    B[vi_o, vj_i] = A[vi_o, vj_i] + T.float32(1)
)");
  REQUIRE(verify(mod).empty());
  Schedule sch(mod);
  std::vector<LoopRV> loops = sch.get_loops(sch.get_block("B"));
  sch.split(loops.back(), {3, nullptr});
  expect_sound(mod, sch);
}

// Found by the randomized schedule test: factors whose product overflows the
// int32 loop variable produced bindings that wrapped around.
TEST_CASE("split refuses factors that overflow the loop type", "[schedule][loops]") {
  IRModule mm = example("matmul.tir");
  Schedule sch(mm);
  std::vector<LoopRV> loops = sch.get_loops(sch.get_block("C"));
  expect_refused(
      sch, [&] { sch.split(loops[0], {239622, 257613, 32}); },
      "split: the factors of loop i overflow its type int32");
  expect_refused(
      sch, [&] { sch.split(loops[0], {nullptr, int64_t{1} << 40}); },
      "split: the factors of loop i overflow its type int32");
}

// Found by the randomized schedule test: after fusing i, j, k and splitting,
// swapping the two parts ran reduction steps of C[vi, vj] before the step
// that initializes it.
TEST_CASE("reorder refuses loops binding spatial and reduction variables", "[schedule][loops]") {
  IRModule mm = example("matmul.tir");
  Schedule sch(mm);
  std::vector<LoopRV> loops = sch.get_loops(sch.get_block("C"));
  LoopRV fused = sch.fuse(loops);
  std::vector<LoopRV> parts = sch.split(fused, {nullptr, 1000});
  expect_refused(
      sch, [&] { sch.reorder({parts[1], parts[0]}); },
      "reorder: loop i_j_k_fused_0 binds both spatial and reduction variables of block C");
}

TEST_CASE("split on conv2d and softmax, three factors", "[schedule][loops]") {
  IRModule conv = example("conv2d_nchw.tir");
  Schedule sch(conv);
  std::vector<LoopRV> loops = sch.get_loops(sch.get_block("conv"));
  sch.split(loops[1], {2, nullptr, 2});
  sch.split(loops[4], {2, 2});
  expect_print(sch, "split_conv", R"TIR(# from tvm.script import tir as T

@T.prim_func
def main(data: T.Buffer((1, 4, 8, 8), "float32"), weight: T.Buffer((8, 4, 3, 3), "float32"), conv: T.Buffer((1, 8, 8, 8), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    data_pad = T.alloc_buffer((1, 4, 10, 10), "float32")
    for i0, i1, i2, i3 in T.grid(1, 4, 10, 10):
        with T.block("data_pad"):
            v_i0, v_i1, v_i2, v_i3 = T.axis.remap("SSSS", [i0, i1, i2, i3])
            T.reads(data[v_i0, v_i1, v_i2 - 1, v_i3 - 1])
            T.writes(data_pad[v_i0, v_i1, v_i2, v_i3])
            data_pad[v_i0, v_i1, v_i2, v_i3] = T.if_then_else(1 <= v_i2 and v_i2 < 9 and 1 <= v_i3 and v_i3 < 9, data[v_i0, v_i1, v_i2 - 1, v_i3 - 1], T.float32(0))
    for nn, ff_0, ff_1, ff_2, yy, xx, rc_0, rc_1, ry, rx in T.grid(1, 2, 2, 2, 8, 8, 2, 2, 3, 3):
        with T.block("conv"):
            v_nn = T.axis.spatial(1, nn)
            v_ff = T.axis.spatial(8, ff_0 * 4 + ff_1 * 2 + ff_2)
            v_yy, v_xx = T.axis.remap("SS", [yy, xx])
            v_rc = T.axis.reduce(4, rc_0 * 2 + rc_1)
            v_ry, v_rx = T.axis.remap("RR", [ry, rx])
            T.reads(conv[v_nn, v_ff, v_yy, v_xx], data_pad[v_nn, v_rc, v_yy + v_ry, v_xx + v_rx], weight[v_ff, v_rc, v_ry, v_rx])
            T.writes(conv[v_nn, v_ff, v_yy, v_xx])
            with T.init():
                conv[v_nn, v_ff, v_yy, v_xx] = T.float32(0)
            conv[v_nn, v_ff, v_yy, v_xx] = conv[v_nn, v_ff, v_yy, v_xx] + data_pad[v_nn, v_rc, v_yy + v_ry, v_xx + v_rx] * weight[v_ff, v_rc, v_ry, v_rx]
)TIR");
  expect_sound(conv, sch);

  IRModule sm = example("softmax.tir");
  Schedule s2(sm);
  std::vector<LoopRV> l2 = s2.get_loops(s2.get_block("T_max"));
  s2.split(l2[1], {nullptr, 8});
  expect_print(s2, "split_softmax", R"TIR(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16, 32), "float32"), T_softmax: T.Buffer((16, 32), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    T_max = T.alloc_buffer((16,), "float32")
    T_exp = T.alloc_buffer((16, 32), "float32")
    T_sum = T.alloc_buffer((16,), "float32")
    for i0, k0_0, k0_1 in T.grid(16, 4, 8):
        with T.block("T_max"):
            v_i0 = T.axis.spatial(16, i0)
            v_k0 = T.axis.reduce(32, k0_0 * 8 + k0_1)
            T.reads(T_max[v_i0], A[v_i0, v_k0])
            T.writes(T_max[v_i0])
            with T.init():
                T_max[v_i0] = T.float32("-inf")
            T_max[v_i0] = T.max(T_max[v_i0], A[v_i0, v_k0])
    for i1, j1 in T.grid(16, 32):
        with T.block("T_exp"):
            v_i1, v_j1 = T.axis.remap("SS", [i1, j1])
            T.reads(A[v_i1, v_j1], T_max[v_i1])
            T.writes(T_exp[v_i1, v_j1])
            T_exp[v_i1, v_j1] = T.exp(A[v_i1, v_j1] - T_max[v_i1])
    for i2, k2 in T.grid(16, 32):
        with T.block("T_sum"):
            v_i2, v_k2 = T.axis.remap("SR", [i2, k2])
            T.reads(T_sum[v_i2], T_exp[v_i2, v_k2])
            T.writes(T_sum[v_i2])
            with T.init():
                T_sum[v_i2] = T.float32(0)
            T_sum[v_i2] = T_sum[v_i2] + T_exp[v_i2, v_k2]
    for i3, j3 in T.grid(16, 32):
        with T.block("T_softmax"):
            v_i3, v_j3 = T.axis.remap("SS", [i3, j3])
            T.reads(T_exp[v_i3, v_j3], T_sum[v_i3])
            T.writes(T_softmax[v_i3, v_j3])
            T_softmax[v_i3, v_j3] = T_exp[v_i3, v_j3] / T_sum[v_i3]
)TIR");
  expect_sound(sm, s2);
}

TEST_CASE("split with sampled factors and without unit iterators", "[schedule][loops]") {
  IRModule mm = example("matmul.tir");
  Schedule sch(mm);
  std::vector<LoopRV> loops = sch.get_loops(sch.get_block("C"));
  ExprRV f = sch.new_expr_rv(8);
  std::vector<LoopRV> parts = sch.split(loops[2], {nullptr, f});
  CHECK(sch.get(parts[0])->name == "k_0");
  const Instruction& inst = sch.trace().instructions().back();
  auto& factors = std::get<TraceList>(inst.keywords[1].second.v);
  CHECK(std::get<TraceRV>(factors[1].v) == sch.trace_rv(f));
  sch.split(loops[0], {1, 64}, false);
  expect_print(sch, "split_rv_unit", R"TIR(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i_0, i_1, j, k_0, k_1 in T.grid(1, 64, 64, 8, 8):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i_1, j])
            vk = T.axis.reduce(64, k_0 * 8 + k_1)
            T.reads(C[vi, vj], A[vi, vk], B[vk, vj])
            T.writes(C[vi, vj])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)TIR");
  expect_sound(mm, sch);
  CHECK(!std::get<bool>(sch.trace().instructions().back().keywords[2].second.v));
}

TEST_CASE("split refusals leave the schedule unchanged", "[schedule][loops]") {
  Schedule sch(example("matmul.tir"));
  std::vector<LoopRV> loops = sch.get_loops(sch.get_block("C"));
  expect_refused(
      sch,
      [&] {
        sch.split(loops[0], {nullptr, nullptr});
      },
      "split: at most one factor of loop i may be None");
  expect_refused(
      sch,
      [&] {
        sch.split(loops[0], {4, 8});
      },
      "split: the factors' product 32 is less than the extent 64 of loop i");
  expect_refused(
      sch,
      [&] {
        sch.split(loops[0], {nullptr, 0});
      },
      "split: factor 0 for loop i is not positive");
  expect_refused(
      sch,
      [&] {
        sch.split(loops[0], {nullptr, ExprRV{999}});
      },
      "split: unknown value handle v999");
  sch.split(loops[0], {8, 8});
  expect_refused(
      sch,
      [&] {
        sch.split(loops[0], {8, 8});
      },
      "split: loop i (l");

  Schedule tri(parse_module(kTriangle));
  std::vector<LoopRV> tl = tri.get_loops(tri.get_block("B"));
  expect_refused(
      tri,
      [&] {
        tri.split(tl[1], {nullptr, 2});
      },
      "split: loop j has non-constant extent i + 1");
}

TEST_CASE("fuse and split back", "[schedule][loops]") {
  IRModule mm = example("matmul.tir");
  Schedule sch(mm);
  std::vector<LoopRV> loops = sch.get_loops(sch.get_block("C"));
  LoopRV fused = sch.fuse({loops[0], loops[1]});
  CHECK(sch.get(fused)->name == "i_j_fused");
  expect_print(sch, "fuse_matmul", R"TIR(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i_j_fused, k in T.grid(4096, 64):
        with T.block("C"):
            vi = T.axis.spatial(64, i_j_fused // 64)
            vj = T.axis.spatial(64, i_j_fused % 64)
            vk = T.axis.reduce(64, k)
            T.reads(C[vi, vj], A[vi, vk], B[vk, vj])
            T.writes(C[vi, vj])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)TIR");
  expect_sound(mm, sch);
  const Instruction& inst = sch.trace().instructions().back();
  CHECK(inst.kind == "fuse");
  CHECK(inst.positional.size() == 2);
  REQUIRE(inst.keywords.size() == 1);
  CHECK(inst.keywords[0].first == "preserve_unit_iters");
  CHECK(inst.outputs.size() == 1);
  CHECK(!inst.list_output);

  // The simplifier collapses (f_0 * 64 + f_1) // 64 back to f_0.
  sch.split(fused, {64, 64});
  expect_print(sch, "fuse_split_back", R"TIR(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i_j_fused_0, i_j_fused_1, k in T.grid(64, 64, 64):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i_j_fused_0, i_j_fused_1, k])
            T.reads(C[vi, vj], A[vi, vk], B[vk, vj])
            T.writes(C[vi, vj])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)TIR");
  expect_sound(mm, sch);
}

TEST_CASE("fuse three loops, unit loops, and one loop", "[schedule][loops]") {
  IRModule conv = example("conv2d_nchw.tir");
  Schedule sch(conv);
  std::vector<LoopRV> loops = sch.get_loops(sch.get_block("conv"));
  sch.fuse({loops[0], loops[1], loops[2]}, false);
  std::vector<LoopRV> pad = sch.get_loops(sch.get_block("data_pad"));
  sch.fuse({pad[1], pad[2], pad[3]});
  expect_print(sch, "fuse_conv", R"TIR(# from tvm.script import tir as T

@T.prim_func
def main(data: T.Buffer((1, 4, 8, 8), "float32"), weight: T.Buffer((8, 4, 3, 3), "float32"), conv: T.Buffer((1, 8, 8, 8), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    data_pad = T.alloc_buffer((1, 4, 10, 10), "float32")
    for i0, i1_i2_i3_fused in T.grid(1, 400):
        with T.block("data_pad"):
            v_i0 = T.axis.spatial(1, i0)
            v_i1 = T.axis.spatial(4, i1_i2_i3_fused // 100)
            v_i2 = T.axis.spatial(10, i1_i2_i3_fused // 10 % 10)
            v_i3 = T.axis.spatial(10, i1_i2_i3_fused % 10)
            T.reads(data[v_i0, v_i1, v_i2 - 1, v_i3 - 1])
            T.writes(data_pad[v_i0, v_i1, v_i2, v_i3])
            data_pad[v_i0, v_i1, v_i2, v_i3] = T.if_then_else(1 <= v_i2 and v_i2 < 9 and 1 <= v_i3 and v_i3 < 9, data[v_i0, v_i1, v_i2 - 1, v_i3 - 1], T.float32(0))
    for nn_ff_yy_fused, xx, rc, ry, rx in T.grid(64, 8, 4, 3, 3):
        with T.block("conv"):
            v_nn = T.axis.spatial(1, 0)
            v_ff = T.axis.spatial(8, nn_ff_yy_fused // 8)
            v_yy = T.axis.spatial(8, nn_ff_yy_fused % 8)
            v_xx, v_rc, v_ry, v_rx = T.axis.remap("SRRR", [xx, rc, ry, rx])
            T.reads(conv[v_nn, v_ff, v_yy, v_xx], data_pad[v_nn, v_rc, v_yy + v_ry, v_xx + v_rx], weight[v_ff, v_rc, v_ry, v_rx])
            T.writes(conv[v_nn, v_ff, v_yy, v_xx])
            with T.init():
                conv[v_nn, v_ff, v_yy, v_xx] = T.float32(0)
            conv[v_nn, v_ff, v_yy, v_xx] = conv[v_nn, v_ff, v_yy, v_xx] + data_pad[v_nn, v_rc, v_yy + v_ry, v_xx + v_rx] * weight[v_ff, v_rc, v_ry, v_rx]
)TIR");
  expect_sound(conv, sch);

  size_t before = sch.trace().size();
  LoopRV same = sch.fuse({loops[3]});
  // The same loop under a new handle, so the recorded trace reloads (found by
  // trace_fuzzer: `l3 = sch.fuse(l3)` defined l3 twice).
  CHECK(!(same == loops[3]));
  CHECK(sch.get(same).get() == sch.get(loops[3]).get());
  CHECK(sch.trace().size() == before + 1);
  CHECK(Trace::parse(sch.trace().print()).print() == sch.trace().print());

  IRModule sm = example("softmax.tir");
  Schedule s2(sm);
  std::vector<LoopRV> l2 = s2.get_loops(s2.get_block("T_softmax"));
  s2.fuse({l2[0], l2[1]});
  expect_print(s2, "fuse_softmax", R"TIR(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16, 32), "float32"), T_softmax: T.Buffer((16, 32), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    T_max = T.alloc_buffer((16,), "float32")
    T_exp = T.alloc_buffer((16, 32), "float32")
    T_sum = T.alloc_buffer((16,), "float32")
    for i0, k0 in T.grid(16, 32):
        with T.block("T_max"):
            v_i0, v_k0 = T.axis.remap("SR", [i0, k0])
            T.reads(T_max[v_i0], A[v_i0, v_k0])
            T.writes(T_max[v_i0])
            with T.init():
                T_max[v_i0] = T.float32("-inf")
            T_max[v_i0] = T.max(T_max[v_i0], A[v_i0, v_k0])
    for i1, j1 in T.grid(16, 32):
        with T.block("T_exp"):
            v_i1, v_j1 = T.axis.remap("SS", [i1, j1])
            T.reads(A[v_i1, v_j1], T_max[v_i1])
            T.writes(T_exp[v_i1, v_j1])
            T_exp[v_i1, v_j1] = T.exp(A[v_i1, v_j1] - T_max[v_i1])
    for i2, k2 in T.grid(16, 32):
        with T.block("T_sum"):
            v_i2, v_k2 = T.axis.remap("SR", [i2, k2])
            T.reads(T_sum[v_i2], T_exp[v_i2, v_k2])
            T.writes(T_sum[v_i2])
            with T.init():
                T_sum[v_i2] = T.float32(0)
            T_sum[v_i2] = T_sum[v_i2] + T_exp[v_i2, v_k2]
    for i3_j3_fused in range(512):
        with T.block("T_softmax"):
            v_i3 = T.axis.spatial(16, i3_j3_fused // 32)
            v_j3 = T.axis.spatial(32, i3_j3_fused % 32)
            T.reads(T_exp[v_i3, v_j3], T_sum[v_i3])
            T.writes(T_softmax[v_i3, v_j3])
            T_softmax[v_i3, v_j3] = T_exp[v_i3, v_j3] / T_sum[v_i3]
)TIR");
  expect_sound(sm, s2);
}

TEST_CASE("fuse refusals leave the schedule unchanged", "[schedule][loops]") {
  Schedule sch(example("matmul.tir"));
  std::vector<LoopRV> loops = sch.get_loops(sch.get_block("C"));
  expect_refused(
      sch,
      [&] {
        sch.fuse({loops[0], loops[2]});
      },
      "fuse: loops i and k are not adjacent: k must be the only statement in the body of i");
  expect_refused(
      sch,
      [&] {
        sch.fuse({loops[1], loops[0]});
      },
      "fuse: loops j and i are not adjacent");
  expect_refused(
      sch,
      [&] {
        sch.fuse({loops[0], loops[0]});
      },
      "fuse: loop i is given twice");
  expect_refused(
      sch, [&] { sch.fuse({}); }, "fuse: no loops given");

  Schedule tri(parse_module(kTriangle));
  std::vector<LoopRV> tl = tri.get_loops(tri.get_block("B"));
  expect_refused(
      tri,
      [&] {
        tri.fuse({tl[0], tl[1]});
      },
      "fuse: loop j has non-constant extent i + 1");

  Schedule odd(parse_module(kOddLoops));
  std::vector<LoopRV> rl = odd.get_loops(odd.get_block("R"));
  LoopRV u = odd.add_unit_loop(rl[0]);
  expect_refused(
      odd,
      [&] {
        odd.fuse({u, rl[0]});
      },
      "fuse: loop m does not start at 0");
}

TEST_CASE("reorder non-adjacent loops", "[schedule][loops]") {
  IRModule mm = example("matmul.tir");
  Schedule sch(mm);
  std::vector<LoopRV> loops = sch.get_loops(sch.get_block("C"));
  sch.reorder({loops[2], loops[0]});
  expect_print(sch, "reorder_matmul", R"TIR(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    for k, j, i in T.grid(64, 64, 64):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            T.reads(C[vi, vj], A[vi, vk], B[vk, vj])
            T.writes(C[vi, vj])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)TIR");
  expect_sound(mm, sch);
  const Instruction& inst = sch.trace().instructions().back();
  CHECK(inst.kind == "reorder");
  CHECK(inst.positional.size() == 2);
  CHECK(inst.keywords.empty());
  CHECK(inst.outputs.empty());

  IRModule conv = example("conv2d_nchw.tir");
  Schedule s2(conv);
  std::vector<LoopRV> cl = s2.get_loops(s2.get_block("conv"));
  std::vector<LoopRV> parts = s2.split(cl[1], {nullptr, 4});
  s2.reorder({cl[4], parts[0], cl[6], parts[1]});
  expect_print(s2, "reorder_conv", R"TIR(# from tvm.script import tir as T

@T.prim_func
def main(data: T.Buffer((1, 4, 8, 8), "float32"), weight: T.Buffer((8, 4, 3, 3), "float32"), conv: T.Buffer((1, 8, 8, 8), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    data_pad = T.alloc_buffer((1, 4, 10, 10), "float32")
    for i0, i1, i2, i3 in T.grid(1, 4, 10, 10):
        with T.block("data_pad"):
            v_i0, v_i1, v_i2, v_i3 = T.axis.remap("SSSS", [i0, i1, i2, i3])
            T.reads(data[v_i0, v_i1, v_i2 - 1, v_i3 - 1])
            T.writes(data_pad[v_i0, v_i1, v_i2, v_i3])
            data_pad[v_i0, v_i1, v_i2, v_i3] = T.if_then_else(1 <= v_i2 and v_i2 < 9 and 1 <= v_i3 and v_i3 < 9, data[v_i0, v_i1, v_i2 - 1, v_i3 - 1], T.float32(0))
    for nn, rc, ff_0, yy, xx, rx, ry, ff_1 in T.grid(1, 4, 2, 8, 8, 3, 3, 4):
        with T.block("conv"):
            v_nn = T.axis.spatial(1, nn)
            v_ff = T.axis.spatial(8, ff_0 * 4 + ff_1)
            v_yy, v_xx, v_rc, v_ry, v_rx = T.axis.remap("SSRRR", [yy, xx, rc, ry, rx])
            T.reads(conv[v_nn, v_ff, v_yy, v_xx], data_pad[v_nn, v_rc, v_yy + v_ry, v_xx + v_rx], weight[v_ff, v_rc, v_ry, v_rx])
            T.writes(conv[v_nn, v_ff, v_yy, v_xx])
            with T.init():
                conv[v_nn, v_ff, v_yy, v_xx] = T.float32(0)
            conv[v_nn, v_ff, v_yy, v_xx] = conv[v_nn, v_ff, v_yy, v_xx] + data_pad[v_nn, v_rc, v_yy + v_ry, v_xx + v_rx] * weight[v_ff, v_rc, v_ry, v_rx]
)TIR");
  expect_sound(conv, s2);
}

TEST_CASE("reorder refusals leave the schedule unchanged", "[schedule][loops]") {
  Schedule sch(example("softmax.tir"));
  std::vector<LoopRV> a = sch.get_loops(sch.get_block("T_max"));
  std::vector<LoopRV> b = sch.get_loops(sch.get_block("T_exp"));
  expect_refused(
      sch,
      [&] {
        sch.reorder({a[0], b[1]});
      },
      "reorder: loops i0 and j1 are not in one chain");
  expect_refused(
      sch,
      [&] {
        sch.reorder({a[1], a[1]});
      },
      "reorder: loop k0 is given twice");

  Schedule tri(parse_module(kTriangle));
  std::vector<LoopRV> tl = tri.get_loops(tri.get_block("B"));
  expect_refused(
      tri,
      [&] {
        tri.reorder({tl[1], tl[0]});
      },
      "reorder: the range of loop j depends on loop i");

  Schedule odd(parse_module(kOddLoops));
  std::vector<LoopRV> p = odd.get_loops(odd.get_block("P"));
  std::vector<LoopRV> q = odd.get_loops(odd.get_block("Q"));
  expect_refused(
      odd,
      [&] {
        odd.reorder({q[1], q[0]});
      },
      "reorder: loop i has more than one child statement; the loops from i to j2 must be perfectly "
      "nested");
  expect_refused(
      odd,
      [&] {
        odd.reorder({p[1], p[0]});
      },
      "reorder: loop i has more than one child statement");
  expect_refused(
      odd,
      [&] {
        odd.reorder({p[1], q[1]});
      },
      "reorder: loops j and j2 are not in one chain");
  expect_refused(
      odd,
      [&] {
        odd.reorder({q[1], p[1]});
      },
      "reorder: loops j2 and j are not in one chain");
}

TEST_CASE("reorder refuses non-affine and opaque bindings", "[schedule][loops]") {
  const char* src = R"(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16, 4), "float32")):
    for i, j in T.grid(4, 4):
        with T.block("P"):
            vi = T.axis.spatial(16, i * j)
            vj = T.axis.spatial(4, j)
            T.reads()
            T.writes(A[vi, vj])
            A[vi, vj] = T.float32(1)
    for i2, j2 in T.grid(4, 4):
        with T.block("O"):
            vi = T.axis.spatial(4, i2)
            vj = T.axis.opaque(4, j2)
            T.reads()
            T.writes(A[vi, vj])
            A[vi, vj] = T.float32(2)
)";
  Schedule sch(parse_module(src));
  std::vector<LoopRV> p = sch.get_loops(sch.get_block("P"));
  std::vector<LoopRV> o = sch.get_loops(sch.get_block("O"));
  expect_refused(
      sch,
      [&] {
        sch.reorder({p[1], p[0]});
      },
      "reorder: block P under loop i has a non-affine binding");
  expect_refused(
      sch,
      [&] {
        sch.reorder({o[1], o[0]});
      },
      "reorder: loop j2 binds opaque variable vj of block O");
}

TEST_CASE("add_unit_loop above a block and above a loop", "[schedule][loops]") {
  IRModule mm = example("matmul.tir");
  Schedule sch(mm);
  BlockRV c = sch.get_block("C");
  std::vector<LoopRV> loops = sch.get_loops(c);
  LoopRV u = sch.add_unit_loop(c);
  CHECK(sch.get(u)->name == "u");
  const Instruction& inst = sch.trace().instructions().back();
  CHECK(inst.kind == "add_unit_loop");
  CHECK(inst.keywords[0].first == "block_or_loop");
  CHECK(inst.outputs.size() == 1);
  sch.add_unit_loop(loops[0]);
  expect_print(sch, "unit_matmul", R"TIR(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    for u, i, j, k, u_1 in T.grid(1, 64, 64, 64, 1):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            T.reads(C[vi, vj], A[vi, vk], B[vk, vj])
            T.writes(C[vi, vj])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)TIR");
  expect_sound(mm, sch);

  IRModule sm = example("softmax.tir");
  Schedule s2(sm);
  std::vector<LoopRV> l2 = s2.get_loops(s2.get_block("T_exp"));
  s2.add_unit_loop(l2[1]);
  expect_print(s2, "unit_softmax", R"TIR(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16, 32), "float32"), T_softmax: T.Buffer((16, 32), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    T_max = T.alloc_buffer((16,), "float32")
    T_exp = T.alloc_buffer((16, 32), "float32")
    T_sum = T.alloc_buffer((16,), "float32")
    for i0, k0 in T.grid(16, 32):
        with T.block("T_max"):
            v_i0, v_k0 = T.axis.remap("SR", [i0, k0])
            T.reads(T_max[v_i0], A[v_i0, v_k0])
            T.writes(T_max[v_i0])
            with T.init():
                T_max[v_i0] = T.float32("-inf")
            T_max[v_i0] = T.max(T_max[v_i0], A[v_i0, v_k0])
    for i1, u, j1 in T.grid(16, 1, 32):
        with T.block("T_exp"):
            v_i1, v_j1 = T.axis.remap("SS", [i1, j1])
            T.reads(A[v_i1, v_j1], T_max[v_i1])
            T.writes(T_exp[v_i1, v_j1])
            T_exp[v_i1, v_j1] = T.exp(A[v_i1, v_j1] - T_max[v_i1])
    for i2, k2 in T.grid(16, 32):
        with T.block("T_sum"):
            v_i2, v_k2 = T.axis.remap("SR", [i2, k2])
            T.reads(T_sum[v_i2], T_exp[v_i2, v_k2])
            T.writes(T_sum[v_i2])
            with T.init():
                T_sum[v_i2] = T.float32(0)
            T_sum[v_i2] = T_sum[v_i2] + T_exp[v_i2, v_k2]
    for i3, j3 in T.grid(16, 32):
        with T.block("T_softmax"):
            v_i3, v_j3 = T.axis.remap("SS", [i3, j3])
            T.reads(T_exp[v_i3, v_j3], T_sum[v_i3])
            T.writes(T_softmax[v_i3, v_j3])
            T_softmax[v_i3, v_j3] = T_exp[v_i3, v_j3] / T_sum[v_i3]
)TIR");
  expect_sound(sm, s2);
}

TEST_CASE("add_unit_loop refuses stale handles and the root block", "[schedule][loops]") {
  Schedule sch(example("matmul.tir"));
  std::vector<LoopRV> loops = sch.get_loops(sch.get_block("C"));
  sch.fuse({loops[0], loops[1]});
  expect_refused(
      sch, [&] { sch.add_unit_loop(loops[0]); }, "add_unit_loop: loop i (l");
  BlockRV root = sch.get_block("root");
  expect_refused(
      sch, [&] { sch.add_unit_loop(root); }, "add_unit_loop: block root is the root block");
}

TEST_CASE("is_affine_binding decides by the documented rule", "[schedule][loops]") {
  Var i = make_var("i"), j = make_var("j"), f = make_var("f");
  auto loop = [](const Var& v, int ext) {
    return make_for(v, make_int(0), make_int(ext), ForKind::Serial, make_evaluate(make_int(0)));
  };
  Stmt li = loop(i, 4), lj = loop(j, 8), lf = loop(f, 32);
  std::vector<const ForNode*> ij = {li.as<ForNode>(), lj.as<ForNode>()};
  std::vector<const ForNode*> fonly = {lf.as<ForNode>()};
  auto realize = [](std::vector<Expr> values) {
    auto b = std::make_shared<BlockNode>();
    b->name = "X";
    for (size_t k = 0; k < values.size(); ++k)
      b->iter_vars.push_back({make_var("v"), {make_int(0), make_int(64)}, IterKind::DataPar, ""});
    b->body = make_evaluate(make_int(0));
    return std::make_shared<BlockRealizeNode>(std::move(values), make_bool(true), b);
  };
  CHECK(is_affine_binding(realize({i * 8 + j}).get(), ij));
  CHECK(is_affine_binding(realize({Expr(i), j + 3}).get(), ij));
  CHECK(is_affine_binding(realize({floordiv(f, 8), floormod(f, 8)}).get(), fonly));
  CHECK(is_affine_binding(
      realize({floormod(floordiv(f, 4), 2), floormod(f, 4), floordiv(f, 8)}).get(), fonly));
  CHECK_FALSE(is_affine_binding(realize({i * j}).get(), ij));
  CHECK_FALSE(is_affine_binding(realize({Expr(i), i + j}).get(), ij));
  CHECK_FALSE(is_affine_binding(realize({Expr(f), floormod(f, 8)}).get(), fonly));
  CHECK_FALSE(is_affine_binding(realize({tirc::min(Expr(i), Expr(j))}).get(), ij));
  CHECK_FALSE(is_affine_binding(realize({floordiv(i, j)}).get(), ij));
}
