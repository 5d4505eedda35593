// parallel, vectorize, unroll, bind, annotate, unannotate.
#include "schedule_loops_test_util.h"

using namespace tirc;
using namespace tirc::loops_test;

TEST_CASE("parallel, vectorize and unroll on matmul", "[schedule][loops]") {
  IRModule mm = example("matmul.tir");
  Schedule sch(mm);
  std::vector<LoopRV> loops = sch.get_loops(sch.get_block("C"));
  sch.parallel(loops[0]);
  sch.vectorize(loops[1]);
  sch.unroll(loops[2]);
  expect_print(sch, "kinds_matmul", R"TIR(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i in T.parallel(64):
        for j in T.vectorized(64):
            for k in T.unroll(64):
                with T.block("C"):
                    vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                    T.reads(C[vi, vj], A[vi, vk], B[vk, vj])
                    T.writes(C[vi, vj])
                    with T.init():
                        C[vi, vj] = T.float32(0)
                    C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)TIR");
  expect_sound(mm, sch);
  const auto& insts = sch.trace().instructions();
  REQUIRE(insts.size() == 5);
  CHECK(insts[2].kind == "parallel");
  CHECK(insts[3].kind == "vectorize");
  CHECK(insts[4].kind == "unroll");
  CHECK(insts[4].keywords.size() == 1);
  CHECK(insts[4].keywords[0].first == "loop");
}

TEST_CASE("loop kinds on softmax after a split", "[schedule][loops]") {
  IRModule sm = example("softmax.tir");
  Schedule sch(sm);
  std::vector<LoopRV> loops = sch.get_loops(sch.get_block("T_exp"));
  std::vector<LoopRV> parts = sch.split(loops[1], {nullptr, 8});
  sch.parallel(loops[0]);
  sch.vectorize(parts[1]);
  std::vector<LoopRV> red = sch.get_loops(sch.get_block("T_sum"));
  sch.parallel(red[0]);
  sch.unroll(red[1]);
  expect_print(sch, "kinds_softmax", R"TIR(# from tvm.script import tir as T

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
    for i1 in T.parallel(16):
        for j1_0 in range(4):
            for j1_1 in T.vectorized(8):
                with T.block("T_exp"):
                    v_i1 = T.axis.spatial(16, i1)
                    v_j1 = T.axis.spatial(32, j1_0 * 8 + j1_1)
                    T.reads(A[v_i1, v_j1], T_max[v_i1])
                    T.writes(T_exp[v_i1, v_j1])
                    T_exp[v_i1, v_j1] = T.exp(A[v_i1, v_j1] - T_max[v_i1])
    for i2 in T.parallel(16):
        for k2 in T.unroll(32):
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
  expect_sound(sm, sch);
}

TEST_CASE("bind to thread axes", "[schedule][loops]") {
  IRModule mm = example("matmul.tir");
  Schedule sch(mm);
  std::vector<LoopRV> loops = sch.get_loops(sch.get_block("C"));
  sch.bind(loops[0], "blockIdx.x");
  sch.bind(loops[1], "threadIdx.x");
  expect_print(sch, "bind_matmul", R"TIR(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i in T.thread_binding(64, thread="blockIdx.x"):
        for j in T.thread_binding(64, thread="threadIdx.x"):
            for k in range(64):
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
  CHECK(inst.kind == "bind");
  REQUIRE(inst.keywords.size() == 2);
  CHECK(inst.keywords[1].first == "thread_axis");
  CHECK(std::get<std::string>(inst.keywords[1].second.v) == "threadIdx.x");

  IRModule ew = example("elementwise_chain.tir");
  Schedule s2(ew);
  std::vector<LoopRV> l2 = s2.get_loops(s2.get_block("C"));
  LoopRV f = s2.fuse({l2[0], l2[1]});
  std::vector<LoopRV> parts = s2.split(f, {nullptr, 128});
  s2.bind(parts[0], "blockIdx.x");
  s2.bind(parts[1], "threadIdx.x");
  expect_print(s2, "bind_chain", R"TIR(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((32, 32), "float32"), D: T.Buffer((32, 32), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    B = T.alloc_buffer((32, 32), "float32")
    C = T.alloc_buffer((32, 32), "float32")
    for i0, j0 in T.grid(32, 32):
        with T.block("B"):
            v_i0, v_j0 = T.axis.remap("SS", [i0, j0])
            T.reads(A[v_i0, v_j0])
            T.writes(B[v_i0, v_j0])
            B[v_i0, v_j0] = A[v_i0, v_j0] * T.float32(2)
    for i1_j1_fused_0 in T.thread_binding(8, thread="blockIdx.x"):
        for i1_j1_fused_1 in T.thread_binding(128, thread="threadIdx.x"):
            with T.block("C"):
                v_i1 = T.axis.spatial(32, i1_j1_fused_0 * 4 + i1_j1_fused_1 // 32)
                v_j1 = T.axis.spatial(32, i1_j1_fused_1 % 32)
                T.reads(B[v_i1, v_j1])
                T.writes(C[v_i1, v_j1])
                C[v_i1, v_j1] = B[v_i1, v_j1] + T.float32(1)
    for i2, j2 in T.grid(32, 32):
        with T.block("D"):
            v_i2, v_j2 = T.axis.remap("SS", [i2, j2])
            T.reads(C[v_i2, v_j2])
            T.writes(D[v_i2, v_j2])
            D[v_i2, v_j2] = T.max(C[v_i2, v_j2], T.float32(0))
)TIR");
  expect_sound(ew, s2);
}

TEST_CASE("loop kind refusals leave the schedule unchanged", "[schedule][loops]") {
  Schedule sch(example("matmul.tir"));
  std::vector<LoopRV> loops = sch.get_loops(sch.get_block("C"));
  expect_refused(
      sch, [&] { sch.parallel(loops[2]); }, "parallel: loop k binds reduce variable vk of block C");
  expect_refused(
      sch, [&] { sch.vectorize(loops[2]); },
      "vectorize: loop k binds reduce variable vk of block C");
  expect_refused(
      sch, [&] { sch.bind(loops[2], "threadIdx.x"); },
      "bind: loop k binds reduce variable vk of block C");
  expect_refused(
      sch, [&] { sch.bind(loops[0], "warp.x"); },
      "bind: unknown thread axis \"warp.x\" for loop i");

  const char* src = R"(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16, 8), "float32")):
    for i in range(4):
        for j in range(i + 1):
            with T.block("P"):
                vi = T.axis.spatial(16, i * j)
                vj = T.axis.spatial(8, j)
                T.reads()
                T.writes(A[vi, vj])
                A[vi, vj] = T.float32(1)
)";
  Schedule odd(parse_module(src));
  std::vector<LoopRV> ol = odd.get_loops(odd.get_block("P"));
  expect_refused(
      odd, [&] { odd.parallel(ol[0]); }, "parallel: block P under loop i has a non-affine binding");
  expect_refused(
      odd, [&] { odd.vectorize(ol[1]); }, "vectorize: loop j has non-constant extent i + 1");
  odd.unroll(ol[1]);  // always legal
  CHECK(odd.trace().instructions().back().kind == "unroll");
}

TEST_CASE("annotate and unannotate loops and blocks", "[schedule][loops]") {
  IRModule mm = example("matmul.tir");
  Schedule sch(mm);
  BlockRV c = sch.get_block("C");
  std::vector<LoopRV> loops = sch.get_loops(c);
  sch.annotate(c, "meta_schedule.tiling_structure", make_string("SSRSRS"));
  sch.annotate(loops[0], "pragma_auto_unroll_max_step", make_int(16));
  sch.annotate(loops[1], "flag", make_bool(true));
  sch.annotate(loops[1], "ratio", make_float(0.5));
  expect_print(sch, "annotate_matmul", R"TIR(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i in T.serial(64, annotations={"pragma_auto_unroll_max_step": 16}):
        for j in T.serial(64, annotations={"flag": T.bool(True), "ratio": T.float32(0.5)}):
            for k in range(64):
                with T.block("C"):
                    vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                    T.reads(C[vi, vj], A[vi, vk], B[vk, vj])
                    T.writes(C[vi, vj])
                    T.block_attr({"meta_schedule.tiling_structure": "SSRSRS"})
                    with T.init():
                        C[vi, vj] = T.float32(0)
                    C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)TIR");
  expect_sound(mm, sch);
  const Instruction& inst = sch.trace().instructions().back();
  CHECK(inst.kind == "annotate");
  REQUIRE(inst.keywords.size() == 3);
  CHECK(inst.keywords[1].first == "ann_key");
  CHECK(inst.keywords[2].first == "ann_val");
  CHECK(std::get<double>(inst.keywords[2].second.v) == 0.5);
  CHECK(std::get<bool>(sch.trace().instructions()[sch.trace().size() - 2].keywords[2].second.v));

  sch.unannotate(loops[1], "flag");
  sch.unannotate(c, "meta_schedule.tiling_structure");
  expect_print(sch, "unannotate_matmul", R"TIR(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i in T.serial(64, annotations={"pragma_auto_unroll_max_step": 16}):
        for j in T.serial(64, annotations={"ratio": T.float32(0.5)}):
            for k in range(64):
                with T.block("C"):
                    vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                    T.reads(C[vi, vj], A[vi, vk], B[vk, vj])
                    T.writes(C[vi, vj])
                    with T.init():
                        C[vi, vj] = T.float32(0)
                    C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)TIR");
  expect_sound(mm, sch);
  CHECK(sch.trace().instructions().back().kind == "unannotate");
  CHECK(sch.trace().instructions().back().keywords.size() == 2);

  IRModule sm = example("softmax.tir");
  Schedule s2(sm);
  BlockRV e = s2.get_block("T_exp");
  s2.annotate(e, "schedule_rule", make_string("None"));
  s2.annotate(s2.get_loops(e)[0], "unroll", make_int(4));
  expect_print(s2, "annotate_softmax", R"TIR(# from tvm.script import tir as T

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
    for i1 in T.serial(16, annotations={"unroll": 4}):
        for j1 in range(32):
            with T.block("T_exp"):
                v_i1, v_j1 = T.axis.remap("SS", [i1, j1])
                T.reads(A[v_i1, v_j1], T_max[v_i1])
                T.writes(T_exp[v_i1, v_j1])
                T.block_attr({"schedule_rule": "None"})
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

TEST_CASE("annotate refusals leave the schedule unchanged", "[schedule][loops]") {
  Schedule sch(example("matmul.tir"));
  BlockRV c = sch.get_block("C");
  std::vector<LoopRV> loops = sch.get_loops(c);
  expect_refused(
      sch, [&] { sch.unannotate(c, "missing"); },
      "unannotate: block C has no annotation \"missing\"");
  expect_refused(
      sch, [&] { sch.unannotate(loops[0], "missing"); },
      "unannotate: loop i has no annotation \"missing\"");
  expect_refused(
      sch, [&] { sch.annotate(loops[0], "k", make_var("x")); },
      "annotate: the value for key \"k\" on loop i must be an int, float, bool or string "
      "immediate");
  expect_refused(
      sch, [&] { sch.annotate(BlockRV{77}, "k", make_int(1)); },
      "annotate: unknown block handle b77");
}
