// Generated from the schedule outputs; programs and their expected results.
#pragma once

namespace tirc::test {

inline constexpr const char* kMatmul = R"(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i, j, k in T.grid(64, 64, 64):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            T.reads(C[vi, vj], A[vi, vk], B[vk, vj])
            T.writes(C[vi, vj])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)";

inline constexpr const char* kSoftmax = R"(# from tvm.script import tir as T

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
    for i3, j3 in T.grid(16, 32):
        with T.block("T_softmax"):
            v_i3, v_j3 = T.axis.remap("SS", [i3, j3])
            T.reads(T_exp[v_i3, v_j3], T_sum[v_i3])
            T.writes(T_softmax[v_i3, v_j3])
            T_softmax[v_i3, v_j3] = T_exp[v_i3, v_j3] / T_sum[v_i3]
)";

inline constexpr const char* kSumRowsSplit = R"(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((32, 64), "float32"), A_red: T.Buffer((32,), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    for ax0, k1_0, k1_1 in T.grid(32, 16, 4):
        with T.block("A_red"):
            v_ax0 = T.axis.spatial(32, ax0)
            v_k1 = T.axis.reduce(64, k1_0 * 4 + k1_1)
            T.reads(A_red[v_ax0], A[v_ax0, v_k1])
            T.writes(A_red[v_ax0])
            with T.init():
                A_red[v_ax0] = T.float32(0)
            A_red[v_ax0] = A_red[v_ax0] + A[v_ax0, v_k1]
)";

inline constexpr const char* kMatmulSplit = R"(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    for i_0, j_0, k_0, i_1, j_1, k_1 in T.grid(4, 4, 4, 16, 16, 16):
        with T.block("C"):
            vi = T.axis.spatial(64, i_0 * 16 + i_1)
            vj = T.axis.spatial(64, j_0 * 16 + j_1)
            vk = T.axis.reduce(64, k_0 * 16 + k_1)
            T.reads(C[vi, vj], A[vi, vk], B[vk, vj])
            T.writes(C[vi, vj])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)";

inline constexpr const char* kElemSplit = R"(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((32, 64), "float32"), B: T.Buffer((32, 64), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    for i, j_0, j_1 in T.grid(32, 4, 16):
        with T.block("B"):
            vi = T.axis.spatial(32, i)
            vj = T.axis.spatial(64, j_0 * 16 + j_1)
            T.reads(A[vi, vj])
            T.writes(B[vi, vj])
            B[vi, vj] = A[vi, vj] * T.float32(2)
)";

inline constexpr const char* kTwoBlocks = R"(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((32, 16), "float32"), C: T.Buffer((32, 16), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    B = T.alloc_buffer((32, 16), "float32")
    for i in range(32):
        for j in range(16):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj])
                T.writes(B[vi, vj])
                B[vi, vj] = A[vi, vj] + T.float32(1)
        for j in range(16):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(B[vi, vj])
                T.writes(C[vi, vj])
                C[vi, vj] = B[vi, vj] * T.float32(2)
)";

inline constexpr const char* kMatmulJ16 = R"(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    for i, j_0, k, j_1 in T.grid(64, 4, 64, 16):
        with T.block("C"):
            vi = T.axis.spatial(64, i)
            vj = T.axis.spatial(64, j_0 * 16 + j_1)
            vk = T.axis.reduce(64, k)
            T.reads(C[vi, vj], A[vi, vk], B[vk, vj])
            T.writes(C[vi, vj])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)";

inline constexpr const char* kMatmulNoInit = R"(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((32, 8), "float32"), B: T.Buffer((8, 32), "float32"), C: T.Buffer((32, 32), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    for i, j in T.grid(32, 32):
        with T.block("C_init"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads()
            T.writes(C[vi, vj])
            C[vi, vj] = T.float32(0)
    for i, k, j_0, j_1 in T.grid(32, 8, 2, 16):
        with T.block("C"):
            vi = T.axis.spatial(32, i)
            vk = T.axis.reduce(8, k)
            vj = T.axis.spatial(32, j_0 * 16 + j_1)
            T.reads(C[vi, vj], A[vi, vk], B[vk, vj])
            T.writes(C[vi, vj])
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)";

inline constexpr const char* kDecomposeMatmulI = R"(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i_init, j_init in T.grid(64, 64):
        with T.block("C_init"):
            vi, vj = T.axis.remap("SS", [i_init, j_init])
            T.reads()
            T.writes(C[vi, vj])
            C[vi, vj] = T.float32(0)
    for i, j, k in T.grid(64, 64, 64):
        with T.block("C_update"):
            vi_1, vj_1, vk = T.axis.remap("SSR", [i, j, k])
            T.reads(C[vi_1, vj_1], A[vi_1, vk], B[vk, vj_1])
            T.writes(C[vi_1, vj_1])
            C[vi_1, vj_1] = C[vi_1, vj_1] + A[vi_1, vk] * B[vk, vj_1]
)";

inline constexpr const char* kDecomposeMatmulK = R"(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i, j in T.grid(64, 64):
        with T.block("C_init"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads()
            T.writes(C[vi, vj])
            C[vi, vj] = T.float32(0)
        for k in range(64):
            with T.block("C_update"):
                vi_1, vj_1, vk = T.axis.remap("SSR", [i, j, k])
                T.reads(C[vi_1, vj_1], A[vi_1, vk], B[vk, vj_1])
                T.writes(C[vi_1, vj_1])
                C[vi_1, vj_1] = C[vi_1, vj_1] + A[vi_1, vk] * B[vk, vj_1]
)";

inline constexpr const char* kRfactorMatmul = R"(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    C_rf = T.alloc_buffer((64, 64, 64), "float32")
    for i, j, k in T.grid(64, 64, 64):
        with T.block("C_rf"):
            vk, vi, vj = T.axis.remap("SSS", [k, i, j])
            T.reads(C_rf[vk, vi, vj], A[vi, vk], B[vk, vj])
            T.writes(C_rf[vk, vi, vj])
            with T.init():
                C_rf[vk, vi, vj] = T.float32(0)
            C_rf[vk, vi, vj] = C_rf[vk, vi, vj] + A[vi, vk] * B[vk, vj]
    for i_1, j_1, k_1 in T.grid(64, 64, 64):
        with T.block("C"):
            vk_1, vi_1, vj_1 = T.axis.remap("RSS", [k_1, i_1, j_1])
            T.reads(C[vi_1, vj_1], C_rf[vk_1, vi_1, vj_1])
            T.writes(C[vi_1, vj_1])
            with T.init():
                C[vi_1, vj_1] = T.float32(0)
            C[vi_1, vj_1] = C[vi_1, vj_1] + C_rf[vk_1, vi_1, vj_1]
)";

inline constexpr const char* kRfactorSoftmaxMax = R"(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16, 32), "float32"), T_softmax: T.Buffer((16, 32), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    T_max = T.alloc_buffer((16,), "float32")
    T_exp = T.alloc_buffer((16, 32), "float32")
    T_sum = T.alloc_buffer((16,), "float32")
    T_max_rf = T.alloc_buffer((32, 16), "float32")
    for i0, k0 in T.grid(16, 32):
        with T.block("T_max_rf"):
            vk0, v_i0 = T.axis.remap("SS", [k0, i0])
            T.reads(T_max_rf[vk0, v_i0], A[v_i0, vk0])
            T.writes(T_max_rf[vk0, v_i0])
            with T.init():
                T_max_rf[vk0, v_i0] = T.float32("-inf")
            T_max_rf[vk0, v_i0] = T.max(T_max_rf[vk0, v_i0], A[v_i0, vk0])
    for i0_1, k0_1 in T.grid(16, 32):
        with T.block("T_max"):
            vk0_1, v_i0_1 = T.axis.remap("RS", [k0_1, i0_1])
            T.reads(T_max[v_i0_1], T_max_rf[vk0_1, v_i0_1])
            T.writes(T_max[v_i0_1])
            with T.init():
                T_max[v_i0_1] = T.float32("-inf")
            T_max[v_i0_1] = T.max(T_max[v_i0_1], T_max_rf[vk0_1, v_i0_1])
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
)";

inline constexpr const char* kRfactorSumRows = R"(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((32, 64), "float32"), A_red: T.Buffer((32,), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    A_red_rf = T.alloc_buffer((32, 4), "float32")
    for ax0, k1_0, k1_1 in T.grid(32, 16, 4):
        with T.block("A_red_rf"):
            vk1_1, v_ax0, vk1_0 = T.axis.remap("SSR", [k1_1, ax0, k1_0])
            T.reads(A_red_rf[v_ax0, vk1_1], A[v_ax0, vk1_0 * 4 + vk1_1])
            T.writes(A_red_rf[v_ax0, vk1_1])
            with T.init():
                A_red_rf[v_ax0, vk1_1] = T.float32(0)
            A_red_rf[v_ax0, vk1_1] = A_red_rf[v_ax0, vk1_1] + A[v_ax0, vk1_0 * 4 + vk1_1]
    for ax0_1, k1_1_1 in T.grid(32, 4):
        with T.block("A_red"):
            vk1_1_1, v_ax0_1 = T.axis.remap("RS", [k1_1_1, ax0_1])
            T.reads(A_red[v_ax0_1], A_red_rf[v_ax0_1, vk1_1_1])
            T.writes(A_red[v_ax0_1])
            with T.init():
                A_red[v_ax0_1] = T.float32(0)
            A_red[v_ax0_1] = A_red[v_ax0_1] + A_red_rf[v_ax0_1, vk1_1_1]
)";

inline constexpr const char* kBlockizeMatmul = R"(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i_0, j_0, k_0 in T.grid(4, 4, 4):
        with T.block("C_o"):
            vi_o, vj_o, vk_o = T.axis.remap("SSR", [i_0, j_0, k_0])
            T.reads(C[vi_o * 16:vi_o * 16 + 16, vj_o * 16:vj_o * 16 + 16], A[vi_o * 16:vi_o * 16 + 16, vk_o * 16:vk_o * 16 + 16], B[vk_o * 16:vk_o * 16 + 16, vj_o * 16:vj_o * 16 + 16])
            T.writes(C[vi_o * 16:vi_o * 16 + 16, vj_o * 16:vj_o * 16 + 16])
            with T.init():
                for i_1_init, j_1_init in T.grid(16, 16):
                    with T.block("C_init"):
                        vi_i_init, vj_i_init = T.axis.remap("SS", [i_1_init, j_1_init])
                        T.reads()
                        T.writes(C[vi_o * 16 + vi_i_init, vj_o * 16 + vj_i_init])
                        C[vi_o * 16 + vi_i_init, vj_o * 16 + vj_i_init] = T.float32(0)
            for i_1, j_1, k_1 in T.grid(16, 16, 16):
                with T.block("C"):
                    vi_i, vj_i, vk_i = T.axis.remap("SSR", [i_1, j_1, k_1])
                    T.reads(C[vi_o * 16 + vi_i, vj_o * 16 + vj_i], A[vi_o * 16 + vi_i, vk_o * 16 + vk_i], B[vk_o * 16 + vk_i, vj_o * 16 + vj_i])
                    T.writes(C[vi_o * 16 + vi_i, vj_o * 16 + vj_i])
                    C[vi_o * 16 + vi_i, vj_o * 16 + vj_i] = C[vi_o * 16 + vi_i, vj_o * 16 + vj_i] + A[vi_o * 16 + vi_i, vk_o * 16 + vk_i] * B[vk_o * 16 + vk_i, vj_o * 16 + vj_i]
)";

inline constexpr const char* kBlockizeElem = R"(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((32, 64), "float32"), B: T.Buffer((32, 64), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i, j_0 in T.grid(32, 4):
        with T.block("B_o"):
            vi_o, vj_o = T.axis.remap("SS", [i, j_0])
            T.reads(A[vi_o, vj_o * 16:vj_o * 16 + 16])
            T.writes(B[vi_o, vj_o * 16:vj_o * 16 + 16])
            for j_1 in range(16):
                with T.block("B"):
                    vj_i = T.axis.spatial(16, j_1)
                    T.reads(A[vi_o, vj_o * 16 + vj_i])
                    T.writes(B[vi_o, vj_o * 16 + vj_i])
                    B[vi_o, vj_o * 16 + vj_i] = A[vi_o, vj_o * 16 + vj_i] * T.float32(2)
)";

inline constexpr const char* kBlockizeList = R"(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((32, 16), "float32"), C: T.Buffer((32, 16), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    B = T.alloc_buffer((32, 16), "float32")
    for i in range(32):
        with T.block("B_o"):
            vi = T.axis.spatial(32, i)
            T.reads(A[vi, 0:16], B[vi, 0:16])
            T.writes(B[vi, 0:16], C[vi, 0:16])
            for j in range(16):
                with T.block("B"):
                    vi_1 = T.axis.spatial(32, vi)
                    vj = T.axis.spatial(16, j)
                    T.reads(A[vi_1, vj])
                    T.writes(B[vi_1, vj])
                    B[vi_1, vj] = A[vi_1, vj] + T.float32(1)
            for j_1 in range(16):
                with T.block("C"):
                    vi_2 = T.axis.spatial(32, vi)
                    vj_1 = T.axis.spatial(16, j_1)
                    T.reads(B[vi_2, vj_1])
                    T.writes(C[vi_2, vj_1])
                    C[vi_2, vj_1] = B[vi_2, vj_1] * T.float32(2)
)";

inline constexpr const char* kTensorizeDecomposed = R"(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i_init, j_0_init, j_1_init in T.grid(64, 4, 16):
        with T.block("C_init"):
            vi = T.axis.spatial(64, i_init)
            vj = T.axis.spatial(64, j_0_init * 16 + j_1_init)
            T.reads()
            T.writes(C[vi, vj])
            C[vi, vj] = T.float32(0)
    for i, j_0, k in T.grid(64, 4, 64):
        with T.block("C_update_o"):
            vi_o, vj_o, vk_o = T.axis.remap("SSR", [i, j_0, k])
            T.reads(C[vi_o, vj_o * 16:vj_o * 16 + 16], A[vi_o, vk_o], B[vk_o, vj_o * 16:vj_o * 16 + 16])
            T.writes(C[vi_o, vj_o * 16:vj_o * 16 + 16])
            A_1 = T.match_buffer(A[vi_o, vk_o], (1,), "float32")
            B_1 = T.match_buffer(B[vk_o, vj_o * 16:vj_o * 16 + 16], (16,), "float32")
            C_1 = T.match_buffer(C[vi_o, vj_o * 16:vj_o * 16 + 16], (16,), "float32")
            C_1[T.Ramp(0, 1, 16)] = C_1[T.Ramp(0, 1, 16)] + T.Broadcast(A_1[0], 16) * B_1[T.Ramp(0, 1, 16)]
)";

inline constexpr const char* kTensorizeBlock = R"(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((32, 8), "float32"), B: T.Buffer((8, 32), "float32"), C: T.Buffer((32, 32), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i, j in T.grid(32, 32):
        with T.block("C_init"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads()
            T.writes(C[vi, vj])
            C[vi, vj] = T.float32(0)
    for i_1, k, j_0 in T.grid(32, 8, 2):
        with T.block("C_o"):
            vi_o, vk_o, vj_o = T.axis.remap("SRS", [i_1, k, j_0])
            T.reads(C[vi_o, vj_o * 16:vj_o * 16 + 16], A[vi_o, vk_o], B[vk_o, vj_o * 16:vj_o * 16 + 16])
            T.writes(C[vi_o, vj_o * 16:vj_o * 16 + 16])
            A_1 = T.match_buffer(A[vi_o, vk_o], (1,), "float32")
            B_1 = T.match_buffer(B[vk_o, vj_o * 16:vj_o * 16 + 16], (16,), "float32")
            C_1 = T.match_buffer(C[vi_o, vj_o * 16:vj_o * 16 + 16], (16,), "float32")
            C_1[T.Ramp(0, 1, 16)] = C_1[T.Ramp(0, 1, 16)] + T.Broadcast(A_1[0], 16) * B_1[T.Ramp(0, 1, 16)]
)";

}  // namespace tirc::test
