#!/usr/bin/env python3
"""Regenerate the TVM reference corpus under test/tvm/cases (see README.md).

Run by hand, never by the build or CI:

    python3 -m venv build/tvm-venv && build/tvm-venv/bin/pip install apache-tvm numpy
    build/tvm-venv/bin/python test/tvm/generate.py [OUTDIR]

Needs TVM 0.27 (pip package `apache-tvm`), which prints the "TIRx" flavour of
TVMScript (`@T.prim_func(s_tir=True)`, `T.sblock`, ...) and `tvm.s_tir` schedule traces
(`sch.get_sblock(...)`). Everything is deterministic: fixed numpy seeds, fixed schedule
seeds, and random schedules drawn from a seeded `random.Random`.

Per base case `<case>/`: func.tir (TVM's `func.script()`), inputs/<buffer>.npy,
outputs/<buffer>.npy (computed by TVM's own llvm CPU build of the PrimFunc).
Per scheduled case `<case>__<schedule>/`: trace.py (`str(sch.trace)`), scheduled.tir
(`sch.mod["main"].script()`), base (the base case's directory name). Every scheduled
module is also built and run by TVM here, and must reproduce the base outputs.

All cases build and run with TVM's llvm CPU target, so no numpy reference fallback is
needed. Text files get a final newline if TVM's string lacks one; nothing else is changed.
"""

import os
import random
import shutil
import sys
import zlib

import numpy as np
import tvm
from tvm import te, topi
from tvm.s_tir import Schedule

TARGET = "llvm"
# What a refused primitive raises (TVM errors surface as Python RuntimeError/ValueError).
SCHEDULE_ERRORS = (tvm.s_tir.ScheduleError, RuntimeError, ValueError)
HERE = os.path.dirname(os.path.abspath(__file__))

# ----------------------------------------------------------------------------------------
# Base cases. Each builder returns (inputs, outputs) as lists of te tensors; the PrimFunc's
# parameters are inputs + outputs in that order.
# ----------------------------------------------------------------------------------------


def matmul():
    A = te.placeholder((16, 32), name="A")
    B = te.placeholder((32, 24), name="B")
    k = te.reduce_axis((0, 32), name="k")
    C = te.compute((16, 24), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    return [A, B], [C]


def matmul_relu():
    A = te.placeholder((16, 16), name="A")
    B = te.placeholder((16, 16), name="B")
    k = te.reduce_axis((0, 16), name="k")
    C = te.compute((16, 16), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    D = te.compute((16, 16), lambda i, j: te.max(C[i, j], te.const(0, "float32")), name="D")
    return [A, B], [D]


def dense_bias_relu():
    X = te.placeholder((8, 32), name="X")
    W = te.placeholder((16, 32), name="W")
    bias = te.placeholder((16,), name="bias")
    Y = topi.nn.relu(topi.add(topi.nn.dense(X, W), bias))
    return [X, W, bias], [Y]


def batch_matmul():
    A = te.placeholder((2, 8, 16), name="A")
    B = te.placeholder((2, 12, 16), name="B")
    return [A, B], [topi.nn.batch_matmul(A, B)]  # transpose_b=True: (2, 8, 12)


def conv2d_nchw():
    data = te.placeholder((1, 4, 8, 8), name="data")
    kernel = te.placeholder((8, 4, 3, 3), name="kernel")
    return [data, kernel], [topi.nn.conv2d_nchw(data, kernel, 1, 1, 1)]


def conv2d_nhwc():
    data = te.placeholder((1, 8, 8, 4), name="data")
    kernel = te.placeholder((3, 3, 4, 8), name="kernel")  # HWIO
    return [data, kernel], [topi.nn.conv2d_nhwc(data, kernel, 2, 1, 1)]


def conv2d_nchw_bias_relu():
    data = te.placeholder((1, 3, 6, 6), name="data")
    kernel = te.placeholder((4, 3, 3, 3), name="kernel")
    bias = te.placeholder((1, 4, 1, 1), name="bias")
    conv = topi.nn.conv2d_nchw(data, kernel, 1, 1, 1)
    return [data, kernel, bias], [topi.nn.relu(topi.add(conv, bias))]


def depthwise_conv2d():
    data = te.placeholder((1, 4, 8, 8), name="data")
    kernel = te.placeholder((4, 1, 3, 3), name="kernel")
    return [data, kernel], [topi.nn.depthwise_conv2d_nchw(data, kernel, 1, 1, 1)]


def max_pool2d():
    data = te.placeholder((1, 4, 8, 8), name="data")
    out = topi.nn.pool2d(data, (2, 2), (2, 2), (1, 1), (0, 0, 0, 0), "max")
    return [data], [out]


def avg_pool2d():
    data = te.placeholder((1, 4, 8, 8), name="data")
    out = topi.nn.pool2d(data, (3, 3), (1, 1), (1, 1), (1, 1, 1, 1), "avg",
                         count_include_pad=False)
    return [data], [out]


def softmax():
    x = te.placeholder((4, 16), name="x")
    return [x], [topi.nn.softmax(x, axis=-1)]


def layer_norm():
    data = te.placeholder((4, 16), name="data")
    gamma = te.placeholder((16,), name="gamma")
    beta = te.placeholder((16,), name="beta")
    return [data, gamma, beta], [topi.nn.layer_norm(data, gamma, beta, axis=[-1])]


def argmax():
    # Inputs in [-3, 3] on purpose: many ties, which the combiner breaks by lowest index.
    x = te.placeholder((4, 16), name="x")
    return [x], [topi.argmax(x, axis=1)]  # int32 indices


def argmax_i64():
    # int64 shapes make topi.argmax produce int64 indices (and int64 loops throughout).
    x = te.placeholder((tvm.tirx.IntImm("int64", 3), tvm.tirx.IntImm("int64", 4),
                        tvm.tirx.IntImm("int64", 8)), name="x")
    return [x], [topi.argmax(x, axis=2, keepdims=True)]


def row_sum():
    x = te.placeholder((8, 32), name="x")
    return [x], [topi.sum(x, axis=1)]


def elementwise_chain():
    A = te.placeholder((8, 16), name="A")
    B = te.placeholder((8, 16), name="B")
    C = te.placeholder((8, 16), name="C")
    T_add = te.compute((8, 16), lambda i, j: A[i, j] + B[i, j], name="T_add")
    T_mul = te.compute((8, 16), lambda i, j: T_add[i, j] * C[i, j], name="T_mul")
    T_relu = te.compute((8, 16), lambda i, j: te.max(T_mul[i, j], te.const(0, "float32")),
                        name="T_relu")
    T_exp = te.compute((8, 16), lambda i, j: te.exp(T_relu[i, j] * te.const(0.125, "float32")),
                       name="T_exp")
    D = te.compute((8, 16), lambda i, j: te.tanh(T_exp[i, j] - B[i, j]), name="D")
    return [A, B, C], [D]


def int8_matmul():
    A = te.placeholder((16, 32), name="A", dtype="int8")
    B = te.placeholder((32, 16), name="B", dtype="int8")
    k = te.reduce_axis((0, 32), name="k")
    C = te.compute((16, 16), lambda i, j: te.sum(
        A[i, k].astype("int32") * B[k, j].astype("int32"), axis=k), name="C")
    return [A, B], [C]


def int32_clip():
    A = te.placeholder((8, 16), name="A", dtype="int32")
    B = te.placeholder((8, 16), name="B", dtype="int32")
    C = te.placeholder((16,), name="C", dtype="int32")
    return [A, B, C], [topi.clip(topi.add(topi.multiply(A, B), C), -20, 20)]


def fp16_elementwise():
    A = te.placeholder((8, 32), name="A", dtype="float16")
    B = te.placeholder((8, 32), name="B", dtype="float16")
    C = te.compute((8, 32), lambda i, j: A[i, j] * B[i, j] + A[i, j], name="C")
    D = te.compute((8, 32), lambda i, j: te.max(C[i, j], te.const(0, "float16")), name="D")
    return [A, B], [D]


def fp16_matmul():
    # float16 everywhere, including the accumulator: |sums| <= 144, exact in float16.
    A = te.placeholder((16, 16), name="A", dtype="float16")
    B = te.placeholder((16, 16), name="B", dtype="float16")
    k = te.reduce_axis((0, 16), name="k")
    C = te.compute((16, 16), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    return [A, B], [C]


def fp16_matmul_f32acc():
    A = te.placeholder((8, 16), name="A", dtype="float16")
    B = te.placeholder((16, 8), name="B", dtype="float16")
    k = te.reduce_axis((0, 16), name="k")
    C = te.compute((8, 8), lambda i, j: te.sum(
        A[i, k].astype("float32") * B[k, j].astype("float32"), axis=k), name="C")
    return [A, B], [C]


BASE_CASES = [
    matmul, matmul_relu, dense_bias_relu, batch_matmul, conv2d_nchw, conv2d_nhwc,
    conv2d_nchw_bias_relu, depthwise_conv2d, max_pool2d, avg_pool2d, softmax, layer_norm,
    argmax, argmax_i64, row_sum, elementwise_chain, int8_matmul, int32_clip,
    fp16_elementwise, fp16_matmul, fp16_matmul_f32acc,
]

# ----------------------------------------------------------------------------------------
# Schedules: (base case, schedule name, function(sch)). The function uses only public
# tvm.s_tir.Schedule primitives; the trace TVM records is what gets written.
# ----------------------------------------------------------------------------------------


def s_matmul_split_reorder(sch):
    b = sch.get_sblock("C")
    i, j, k = sch.get_loops(b)
    i0, i1 = sch.split(i, [None, 4])
    j0, j1 = sch.split(j, [None, 8])
    sch.reorder(i0, j0, k, i1, j1)


def s_matmul_split_tail(sch):
    # A factor that does not divide the extent: TVM adds a T.where predicate.
    b = sch.get_sblock("C")
    i, j, k = sch.get_loops(b)
    j0, j1 = sch.split(j, [None, 5])
    k0, k1 = sch.split(k, [3, None])
    sch.reorder(j0, i, k0, j1, k1)


def s_matmul_tile_parallel_vectorize(sch):
    b = sch.get_sblock("C")
    i, j, k = sch.get_loops(b)
    i0, i1 = sch.split(i, [None, 4])
    j0, j1 = sch.split(j, [None, 8])
    sch.reorder(i0, j0, k, i1, j1)
    f = sch.fuse(i0, j0)
    sch.parallel(f)
    sch.vectorize(j1)
    sch.unroll(i1)


def s_matmul_unroll(sch):
    b = sch.get_sblock("C")
    i, j, k = sch.get_loops(b)
    k0, k1 = sch.split(k, [None, 4])
    sch.unroll(k1)
    sch.unroll(j)


def s_matmul_decompose_reduction(sch):
    b = sch.get_sblock("C")
    i, j, k = sch.get_loops(b)
    i0, i1 = sch.split(i, [None, 4])
    sch.reorder(i0, j, k, i1)
    sch.parallel(i0)
    init = sch.decompose_reduction(b, k)
    sch.vectorize(sch.get_loops(init)[-1])


def s_matmul_rfactor(sch):
    b = sch.get_sblock("C")
    i, j, k = sch.get_loops(b)
    k0, k1 = sch.split(k, [None, 4])
    sch.rfactor(k1, 0)


def s_matmul_rfactor_axis1(sch):
    b = sch.get_sblock("C")
    i, j, k = sch.get_loops(b)
    k0, k1 = sch.split(k, [4, None])
    rf = sch.rfactor(k0, 1)
    sch.parallel(sch.get_loops(rf)[0])


def s_matmul_cache_read_compute_at(sch):
    b = sch.get_sblock("C")
    i, j, k = sch.get_loops(b)
    i0, i1 = sch.split(i, [None, 4])
    sch.reorder(i0, j, k, i1)
    a_cache = sch.cache_read(b, 0, "global")
    sch.compute_at(a_cache, i0)
    sch.storage_align(a_cache, 0, axis=0, factor=16, offset=1)


def s_matmul_cache_write_reverse_compute_at(sch):
    b = sch.get_sblock("C")
    c_cache = sch.cache_write(b, 0, "global")
    i, j, k = sch.get_loops(b)
    i0, i1 = sch.split(i, [None, 8])
    j0, j1 = sch.split(j, [None, 8])
    sch.reorder(i0, j0, k, i1, j1)
    sch.reverse_compute_at(c_cache, j0)
    sch.parallel(i0)


def s_matmul_pack_b(sch):
    # cache_read of B into a packed, re-laid-out copy (transform_layout on an
    # intermediate buffer, so the function's signature is unchanged).
    b = sch.get_sblock("C")
    b_pack = sch.cache_read(b, 1, "global")
    sch.transform_layout(b_pack, ("write", 0), lambda k, j: (j // 8, k, j % 8))
    i, j, k = sch.get_loops(b)
    j0, j1 = sch.split(j, [None, 8])
    sch.reorder(j0, i, k, j1)


def s_matmul_sample_perfect_tile(sch):
    b = sch.get_sblock("C")
    i, j, k = sch.get_loops(b)
    ti = sch.sample_perfect_tile(i, n=3, max_innermost_factor=4)
    tj = sch.sample_perfect_tile(j, n=2, max_innermost_factor=8)
    tk = sch.sample_perfect_tile(k, n=2)
    i0, i1, i2 = sch.split(i, ti)
    j0, j1 = sch.split(j, tj)
    k0, k1 = sch.split(k, tk)
    sch.reorder(i0, j0, i1, k0, k1, i2, j1)


def s_matmul_annotate(sch):
    root = sch.get_sblock("root")
    b = sch.get_sblock("C")
    i, j, k = sch.get_loops(b)
    v = sch.sample_categorical([0, 16, 64, 512], [0.25, 0.25, 0.25, 0.25])
    sch.annotate(root, "meta_schedule.unroll_explicit", v)
    sch.annotate(b, "meta_schedule.tiling_structure", "SSRSRS")
    sch.annotate(i, "pragma_auto_unroll_max_step", 16)
    sch.annotate(j, "pragma_unroll_explicit", 1)
    sch.annotate(b, "scale", 0.5)
    v2 = sch.sample_categorical([1, 2, 4], [0.3, 0.3, 0.4])
    sch.annotate(k, "meta_schedule.vectorize", v2)
    sch.unannotate(b, "meta_schedule.tiling_structure")
    sch.unannotate(k, "meta_schedule.vectorize")


def s_matmul_blockize(sch):
    b = sch.get_sblock("C")
    i, j, k = sch.get_loops(b)
    i0, i1 = sch.split(i, [None, 4])
    j0, j1 = sch.split(j, [None, 4])
    k0, k1 = sch.split(k, [None, 4])
    sch.reorder(i0, j0, k0, i1, j1, k1)
    sch.blockize(i1)


def s_matmul_add_unit_loop(sch):
    b = sch.get_sblock("C")
    i, j, k = sch.get_loops(b)
    sch.add_unit_loop(i)
    sch.add_unit_loop(b)


def s_matmul_reindex(sch):
    b = sch.get_sblock("C")
    sch.reindex(b, ("write", 0))
    sch.reindex(b, ("read", 1))


def s_fp16_elementwise_reverse_compute_inline(sch):
    sch.reverse_compute_inline(sch.get_sblock("D"))
    sch.vectorize(sch.get_loops(sch.get_sblock("C"))[1])


def s_matmul_relu_reverse_compute_at(sch):
    b = sch.get_sblock("C")
    i, j, k = sch.get_loops(b)
    i0, i1 = sch.split(i, [None, 4])
    j0, j1 = sch.split(j, [None, 4])
    sch.reorder(i0, j0, k, i1, j1)
    (d,) = sch.get_consumers(b)
    sch.reverse_compute_at(d, j0)
    sch.parallel(i0)


def s_matmul_relu_compute_at(sch):
    d = sch.get_sblock("D")
    i, j = sch.get_loops(d)
    i0, i1 = sch.split(i, [None, 2])
    (c,) = sch.get_producers(d)
    sch.compute_at(c, i0, preserve_unit_loops=True)
    sch.decompose_reduction(c, sch.get_loops(c)[2])


def s_dense_bias_relu_inline(sch):
    # relu (topi's block "compute") into the bias add; neither can go into the reduction.
    sch.reverse_compute_inline(sch.get_sblock("compute"))
    sch.parallel(sch.get_loops(sch.get_sblock("T_add"))[0])


def s_dense_bias_relu_child_blocks(sch):
    root = sch.get_sblock("root")
    mm, add, relu = sch.get_child_blocks(root)
    sch.compute_inline(add)
    i, j, k = sch.get_loops(mm)
    j0, j1 = sch.split(j, [None, 4])
    sch.reorder(i, j0, k, j1)
    sch.reverse_compute_at(relu, j0)
    sch.parallel(i)


def s_batch_matmul_fuse_parallel(sch):
    b = sch.get_sblock("T_batch_matmul_NT")
    bb, i, j, k = sch.get_loops(b)
    f = sch.fuse(bb, i)
    sch.parallel(f)
    init = sch.decompose_reduction(b, j)
    sch.vectorize(sch.get_loops(init)[-1])
    sch.unroll(sch.get_loops(b)[-1])


def s_conv2d_nchw_inline_pad(sch):
    sch.compute_inline(sch.get_sblock("pad_temp"))
    b = sch.get_sblock("conv2d_nchw")
    n, oc, oh, ow, ic, kh, kw = sch.get_loops(b)
    sch.reorder(n, oc, ic, kh, kw, oh, ow)
    sch.parallel(sch.fuse(n, oc))
    sch.vectorize(ow)


def s_conv2d_nchw_compute_at_pad(sch):
    b = sch.get_sblock("conv2d_nchw")
    n, oc, oh, ow, ic, kh, kw = sch.get_loops(b)
    sch.reorder(n, oh, oc, ow, ic, kh, kw)
    pad = sch.get_sblock("pad_temp")
    sch.compute_at(pad, oh)
    sch.decompose_reduction(b, ic)


def s_conv2d_nchw_transform_layout(sch):
    pad = sch.get_sblock("pad_temp")
    sch.transform_layout(pad, ("write", 0), lambda n, c, h, w: (n, c // 2, h, w, c % 2))
    b = sch.get_sblock("conv2d_nchw")
    n, oc, oh, ow, ic, kh, kw = sch.get_loops(b)
    ic0, ic1 = sch.split(ic, [None, 2])
    sch.reorder(n, oc, ic0, oh, kh, kw, ow, ic1)


def s_conv2d_nhwc_tile(sch):
    b = sch.get_sblock("conv2d_nhwc")
    n, h, w, co, rh, rw, rc = sch.get_loops(b)
    th = sch.sample_perfect_tile(h, n=2, max_innermost_factor=2)
    tco = sch.sample_perfect_tile(co, n=2, max_innermost_factor=8)
    h0, h1 = sch.split(h, th)
    co0, co1 = sch.split(co, tco)
    sch.reorder(n, h0, co0, w, rh, rw, rc, h1, co1)
    sch.vectorize(co1)
    sch.compute_inline(sch.get_sblock("pad_temp"))


def s_conv2d_nhwc_cache_write(sch):
    b = sch.get_sblock("conv2d_nhwc")
    out = sch.cache_write(b, 0, "global")
    n, h, w, co, rh, rw, rc = sch.get_loops(b)
    sch.reverse_compute_at(out, w)
    sch.parallel(sch.fuse(n, h))
    pad = sch.get_sblock("pad_temp")
    sch.compute_at(pad, w)


def s_conv2d_nchw_bias_relu_inline_all(sch):
    sch.compute_inline(sch.get_sblock("pad_temp"))
    sch.reverse_compute_inline(sch.get_sblock("compute"))  # topi.nn.relu's block


def s_conv2d_nchw_bias_relu_epilogue(sch):
    b = sch.get_sblock("conv2d_nchw")
    sch.compute_inline(sch.get_sblock("T_add"))
    n, oc, oh, ow, ic, kh, kw = sch.get_loops(b)
    sch.reverse_compute_at(sch.get_sblock("compute"), oc)
    sch.compute_at(sch.get_sblock("pad_temp"), oc)
    sch.parallel(oc)


def s_depthwise_conv2d_inline_unroll(sch):
    sch.compute_inline(sch.get_sblock("PaddedInput"))
    b = sch.get_sblock("DepthwiseConv2d")
    b0, c, i, j, di, dj = sch.get_loops(b)
    sch.parallel(sch.fuse(b0, c))
    sch.unroll(di)
    sch.unroll(dj)


def s_depthwise_conv2d_storage_align(sch):
    pad = sch.get_sblock("PaddedInput")
    sch.storage_align(pad, 0, axis=2, factor=16, offset=3)
    b = sch.get_sblock("DepthwiseConv2d")
    b0, c, i, j, di, dj = sch.get_loops(b)
    sch.compute_at(pad, c)


def s_max_pool2d_fuse_parallel(sch):
    b = sch.get_sblock("pool_max")
    n, c, h, w, rh, rw = sch.get_loops(b)
    f = sch.fuse(n, c, h)
    sch.parallel(f)
    sch.unroll(rh)
    sch.unroll(rw)


def s_max_pool2d_rfactor(sch):
    b = sch.get_sblock("pool_max")
    n, c, h, w, rh, rw = sch.get_loops(b)
    sch.rfactor(rw, 0)


def s_avg_pool2d_compute_at(sch):
    sch.compute_inline(sch.get_sblock("pad_temp"))
    avg = sch.get_sblock("pool_avg")
    n, c, h, w = sch.get_loops(avg)
    sch.compute_at(sch.get_sblock("pool_sum"), w)
    sch.parallel(c)


def s_softmax_compute_at(sch):
    norm = sch.get_sblock("T_softmax_norm")
    i, j = sch.get_loops(norm)
    sch.compute_at(sch.get_sblock("T_softmax_expsum"), i)
    sch.compute_at(sch.get_sblock("T_softmax_exp"), i)
    sch.compute_at(sch.get_sblock("T_softmax_maxelem"), i)
    sch.parallel(i)
    sch.vectorize(j)


def s_softmax_inline_rfactor(sch):
    sch.compute_inline(sch.get_sblock("T_softmax_exp"))
    b = sch.get_sblock("T_softmax_expsum")
    i, k = sch.get_loops(b)
    k0, k1 = sch.split(k, [None, 4])
    sch.rfactor(k1, 0)


def s_layer_norm_compute_at(sch):
    out = sch.get_sblock("T_layer_norm")
    i, j = sch.get_loops(out)
    for name in ["data_var_sum", "data_mean", "data_sum"]:
        sch.compute_at(sch.get_sblock(name), i)
    sch.parallel(i)
    s = sch.get_sblock("data_sum")
    sch.decompose_reduction(s, sch.get_loops(s)[1])


def s_argmax_rfactor(sch):
    b = sch.get_sblock("x_red_temp")
    i, k = sch.get_loops(b)
    k0, k1 = sch.split(k, [None, 4])
    sch.rfactor(k1, 0)


def s_argmax_reverse_compute_at(sch):
    b = sch.get_sblock("x_red_temp")
    i, k = sch.get_loops(b)
    sch.reverse_compute_at(sch.get_sblock("x_red"), i)
    sch.parallel(i)
    k0, k1 = sch.split(k, [None, 4])
    sch.unroll(k1)


def s_argmax_i64_split_fuse(sch):
    b = sch.get_sblock("x_red_temp")
    i, j, unit, k = sch.get_loops(b)  # keepdims: a unit loop for the reduced axis
    f = sch.fuse(i, j, unit)
    f0, f1 = sch.split(f, [None, 4])
    sch.parallel(f0)
    sch.reverse_compute_at(sch.get_sblock("x_red"), f1)


def s_row_sum_rfactor_parallel(sch):
    b = sch.get_sblock("x_red")
    i, k = sch.get_loops(b)
    k0, k1 = sch.split(k, [None, 8])
    rf = sch.rfactor(k0, 0)
    sch.parallel(sch.get_loops(rf)[0])


def s_elementwise_chain_inline(sch):
    for name in ["T_add", "T_mul", "T_relu", "T_exp"]:
        sch.compute_inline(sch.get_sblock(name))
    i, j = sch.get_loops(sch.get_sblock("D"))
    j0, j1 = sch.split(j, [None, 8])
    sch.parallel(i)
    sch.vectorize(j1)


def s_elementwise_chain_reverse_inline(sch):
    for name in ["D", "T_exp", "T_relu"]:
        sch.reverse_compute_inline(sch.get_sblock(name))
    add = sch.get_sblock("T_add")
    i, j = sch.get_loops(add)
    sch.compute_at(add, sch.get_loops(sch.get_sblock("T_mul"))[1])


def s_int8_matmul_tile(sch):
    b = sch.get_sblock("C")
    i, j, k = sch.get_loops(b)
    i0, i1 = sch.split(i, [None, 4])
    j0, j1 = sch.split(j, [None, 16])
    k0, k1 = sch.split(k, [None, 4])
    sch.reorder(i0, j0, k0, i1, k1, j1)
    sch.parallel(i0)
    sch.vectorize(j1)
    sch.unroll(k1)
    sch.decompose_reduction(b, k0)


def s_int8_matmul_cache_read(sch):
    b = sch.get_sblock("C")
    bc = sch.cache_read(b, 1, "global")
    i, j, k = sch.get_loops(b)
    sch.compute_at(bc, i)
    cw = sch.cache_write(b, 0, "global")
    sch.reverse_compute_at(cw, i)


def s_int32_clip_inline(sch):
    sch.compute_inline(sch.get_sblock("T_multiply"))
    sch.compute_inline(sch.get_sblock("T_add"))
    b = sch.get_sblock("compute")
    i, j = sch.get_loops(b)
    sch.vectorize(j)


def s_fp16_elementwise_fuse_vectorize(sch):
    sch.compute_inline(sch.get_sblock("C"))
    d = sch.get_sblock("D")
    i, j = sch.get_loops(d)
    f = sch.fuse(i, j)
    f0, f1 = sch.split(f, [None, 16])
    sch.parallel(f0)
    sch.vectorize(f1)


def s_fp16_matmul_unroll(sch):
    b = sch.get_sblock("C")
    i, j, k = sch.get_loops(b)
    k0, k1 = sch.split(k, [None, 4])
    sch.reorder(i, k0, j, k1)
    sch.unroll(k1)
    sch.decompose_reduction(b, k0)


def s_fp16_matmul_f32acc_cache(sch):
    b = sch.get_sblock("C")
    ac = sch.cache_read(b, 0, "global")
    i, j, k = sch.get_loops(b)
    sch.compute_at(ac, i)
    sch.vectorize(j)


def s_matmul_rfactor_cache_read_a(sch):
    # cache_read on the block rfactor made: read_buffer_index counts that block's
    # T.reads (A, then B), so the trace depends on the order rfactor gives them.
    b = sch.get_sblock("C")
    i, j, k = sch.get_loops(b)
    k0, k1 = sch.split(k, [None, 4])
    rf = sch.rfactor(k1, 0)
    sch.cache_read(rf, 0, "global")


def s_matmul_rfactor_cache_read_b(sch):
    b = sch.get_sblock("C")
    i, j, k = sch.get_loops(b)
    k0, k1 = sch.split(k, [None, 4])
    rf = sch.rfactor(k1, 0)
    sch.cache_read(rf, 1, "global")


def s_matmul_split_unit_fuse_decompose(sch):
    # Unit factors keep unit loops (preserve_unit_iters); get_loops after
    # decompose_reduction returns them too, so the count matters to the trace.
    b = sch.get_sblock("C")
    i, j, k = sch.get_loops(b)
    j0, j1, j2 = sch.split(j, [None, 1, 1])
    sch.fuse(j1, j2)
    sch.decompose_reduction(b, k)
    loops = sch.get_loops(b)  # i, j_0, j_1_j_2_fused, k
    sch.unroll(loops[3])


def s_matmul_split_unit_fuse_decompose_k(sch):
    b = sch.get_sblock("C")
    i, j, k = sch.get_loops(b)
    k0, k1, k2 = sch.split(k, [None, 1, 1])
    f = sch.fuse(k0, k1)
    sch.decompose_reduction(b, f)
    loops = sch.get_loops(b)  # i, j, k_0_k_1_fused, k_2
    sch.unroll(loops[2])


def s_matmul_rfactor_predicate(sch):
    # rfactor of a block with a T.where (from splitting j by 5). Splitting k
    # inexactly instead (then rfactor of k_0 or k_1) passes rfactor but fails TVM's
    # debug verification (affine_binding / region_cover / stage_pipeline flags).
    # TVM 0.27 leaves the predicate off the write-back block C, which then runs
    # j_0 * 5 + j_1 up to 24, one past C's and C_rf's last column.
    b = sch.get_sblock("C")
    i, j, k = sch.get_loops(b)
    j0, j1 = sch.split(j, [None, 5])
    k0, k1 = sch.split(k, [None, 4])
    sch.rfactor(k1, 0)


def s_elementwise_chain_inline_predicated(sch):
    # compute_inline of a producer with a T.where (j split by 5: 4 * 5 > 16).
    add = sch.get_sblock("T_add")
    i, j = sch.get_loops(add)
    sch.split(j, [None, 5])
    sch.compute_inline(add)


def s_elementwise_chain_compute_at_predicated(sch):
    add = sch.get_sblock("T_add")
    i, j = sch.get_loops(add)
    sch.split(j, [None, 5])
    mul = sch.get_sblock("T_mul")
    mi, mj = sch.get_loops(mul)
    mj0, mj1 = sch.split(mj, [None, 4])
    sch.compute_at(add, mj0)


def s_matmul_relu_compute_at_predicated(sch):
    # A reduction producer with a T.where (i split by 3) computed at a loop of D.
    c = sch.get_sblock("C")
    i, j, k = sch.get_loops(c)
    sch.split(i, [None, 3])
    d = sch.get_sblock("D")
    di, dj = sch.get_loops(d)
    di0, di1 = sch.split(di, [None, 4])
    sch.compute_at(c, di0)


def s_matmul_reverse_compute_at_no_producer(sch):
    # B_global reads only the parameter B: it has no producer block, and TVM moves it
    # under a loop of A_global, which it does not depend on (recomputed per iteration).
    b = sch.get_sblock("C")
    ac = sch.cache_read(b, 0, "global")
    bc = sch.cache_read(b, 1, "global")
    sch.reverse_compute_at(bc, sch.get_loops(ac)[0])


def s_matmul_relu_set_scope(sch):
    # The intermediate C lives in "local" storage: a scope change only, same values.
    b = sch.get_sblock("C")
    sch.set_scope(b, 0, "local")
    i, j, k = sch.get_loops(b)
    sch.unroll(k)


def s_elementwise_chain_bind(sch):
    # Thread-bound loops (as for a GPU). TVM's llvm CPU build does not take them, so
    # TVM_BUILDS_NOT skips TVM's own run for this case; tirc's interpreter runs it (and
    # checks the bound loops race-free) against the base case's outputs.
    b = sch.get_sblock("T_mul")
    loops = sch.get_loops(b)
    fused = sch.fuse(*loops)
    bx, tx = sch.split(fused, [None, 32])
    sch.bind(bx, "blockIdx.x")
    sch.bind(tx, "threadIdx.x")


# Schedules whose result TVM cannot build for its llvm CPU target (thread bindings).
TVM_BUILDS_NOT = {"elementwise_chain__bind"}


SCHEDULES = [
    ("matmul", "split_reorder", s_matmul_split_reorder),
    ("matmul", "split_tail", s_matmul_split_tail),
    ("matmul", "tile_parallel_vectorize", s_matmul_tile_parallel_vectorize),
    ("matmul", "unroll", s_matmul_unroll),
    ("matmul", "decompose_reduction", s_matmul_decompose_reduction),
    ("matmul", "rfactor", s_matmul_rfactor),
    ("matmul", "rfactor_axis1", s_matmul_rfactor_axis1),
    ("matmul", "cache_read_compute_at", s_matmul_cache_read_compute_at),
    ("matmul", "cache_write_reverse_compute_at", s_matmul_cache_write_reverse_compute_at),
    ("matmul", "pack_b", s_matmul_pack_b),
    ("matmul", "sample_perfect_tile", s_matmul_sample_perfect_tile),
    ("matmul", "annotate", s_matmul_annotate),
    ("matmul", "blockize", s_matmul_blockize),
    ("matmul", "add_unit_loop", s_matmul_add_unit_loop),
    ("matmul", "reindex", s_matmul_reindex),
    ("matmul_relu", "reverse_compute_at", s_matmul_relu_reverse_compute_at),
    ("matmul_relu", "compute_at", s_matmul_relu_compute_at),
    ("dense_bias_relu", "inline", s_dense_bias_relu_inline),
    ("dense_bias_relu", "child_blocks", s_dense_bias_relu_child_blocks),
    ("batch_matmul", "fuse_parallel", s_batch_matmul_fuse_parallel),
    ("conv2d_nchw", "inline_pad", s_conv2d_nchw_inline_pad),
    ("conv2d_nchw", "compute_at_pad", s_conv2d_nchw_compute_at_pad),
    ("conv2d_nchw", "transform_layout", s_conv2d_nchw_transform_layout),
    ("conv2d_nhwc", "tile", s_conv2d_nhwc_tile),
    ("conv2d_nhwc", "cache_write", s_conv2d_nhwc_cache_write),
    ("conv2d_nchw_bias_relu", "inline_all", s_conv2d_nchw_bias_relu_inline_all),
    ("conv2d_nchw_bias_relu", "epilogue", s_conv2d_nchw_bias_relu_epilogue),
    ("depthwise_conv2d", "inline_unroll", s_depthwise_conv2d_inline_unroll),
    ("depthwise_conv2d", "storage_align", s_depthwise_conv2d_storage_align),
    ("max_pool2d", "fuse_parallel", s_max_pool2d_fuse_parallel),
    ("max_pool2d", "rfactor", s_max_pool2d_rfactor),
    ("avg_pool2d", "compute_at", s_avg_pool2d_compute_at),
    ("softmax", "compute_at", s_softmax_compute_at),
    ("softmax", "inline_rfactor", s_softmax_inline_rfactor),
    ("layer_norm", "compute_at", s_layer_norm_compute_at),
    ("argmax", "rfactor", s_argmax_rfactor),
    ("argmax", "reverse_compute_at", s_argmax_reverse_compute_at),
    ("argmax_i64", "split_fuse", s_argmax_i64_split_fuse),
    ("row_sum", "rfactor_parallel", s_row_sum_rfactor_parallel),
    ("elementwise_chain", "inline", s_elementwise_chain_inline),
    ("elementwise_chain", "reverse_inline", s_elementwise_chain_reverse_inline),
    ("int8_matmul", "tile", s_int8_matmul_tile),
    ("int8_matmul", "cache_read", s_int8_matmul_cache_read),
    ("int32_clip", "inline", s_int32_clip_inline),
    ("fp16_elementwise", "fuse_vectorize", s_fp16_elementwise_fuse_vectorize),
    ("fp16_elementwise", "reverse_compute_inline", s_fp16_elementwise_reverse_compute_inline),
    ("fp16_matmul", "unroll", s_fp16_matmul_unroll),
    ("fp16_matmul_f32acc", "cache", s_fp16_matmul_f32acc_cache),
    ("matmul", "rfactor_cache_read_a", s_matmul_rfactor_cache_read_a),
    ("matmul", "rfactor_cache_read_b", s_matmul_rfactor_cache_read_b),
    ("matmul", "split_unit_fuse_decompose", s_matmul_split_unit_fuse_decompose),
    ("matmul", "split_unit_fuse_decompose_k", s_matmul_split_unit_fuse_decompose_k),
    ("matmul", "rfactor_predicate", s_matmul_rfactor_predicate),
    ("elementwise_chain", "inline_predicated", s_elementwise_chain_inline_predicated),
    ("elementwise_chain", "compute_at_predicated", s_elementwise_chain_compute_at_predicated),
    ("matmul_relu", "compute_at_predicated", s_matmul_relu_compute_at_predicated),
    ("matmul", "reverse_compute_at_no_producer", s_matmul_reverse_compute_at_no_producer),
    ("matmul_relu", "set_scope", s_matmul_relu_set_scope),
    ("elementwise_chain", "bind", s_elementwise_chain_bind),
]

# Random schedules: (base case, block name, seed, number of steps).
RANDOM_SCHEDULES = [
    ("matmul", "C", 0, 6),
    ("matmul", "C", 1, 8),
    ("matmul", "C", 2, 10),
    ("int8_matmul", "C", 3, 8),
    ("batch_matmul", "T_batch_matmul_NT", 4, 8),
    ("conv2d_nchw", "conv2d_nchw", 5, 8),
    ("conv2d_nchw", "conv2d_nchw", 6, 12),
    ("conv2d_nhwc", "conv2d_nhwc", 7, 10),
]


# Random schedules that also move data: cache_read / cache_write of the block, and
# compute_at / reverse_compute_at of its producers / consumers under its loops.
# (base case, block name, seed, number of steps); named random_dataflow_<seed>.
RANDOM_DATAFLOW_SCHEDULES = [
    ("softmax", "T_softmax_exp", 8, 10),
    ("elementwise_chain", "T_mul", 9, 10),
]

OPS = ["split", "split", "reorder", "fuse"]
DATAFLOW_OPS = OPS + ["cache_read", "cache_write", "compute_at", "reverse_compute_at"]


def random_schedule(block_name, seed, steps, ops=OPS):
    """A seeded random sequence of split / reorder / fuse on one block's loop nest.

    Loop RVs are tracked here (no repeated get_loops), so the trace reads like a hand
    schedule. A step TVM refuses is dropped: it is tried on a copy of the schedule first.
    With ops=DATAFLOW_OPS, steps may also add cache blocks for the block's reads or its
    write, and move one of its producers (consumers) under one of its loops.
    """

    def apply(sch):
        rng = random.Random(seed)
        b = sch.get_sblock(block_name)
        loops = list(sch.get_loops(b))
        done = 0
        attempts = 0
        while done < steps and attempts < steps * 10:
            attempts += 1
            op = rng.choice(ops)
            loops_before = loops
            trial = sch.copy()
            try:
                if op == "split":
                    idx = rng.randrange(len(loops))
                    ext = int(trial.get(loops[idx]).extent)
                    if ext < 2:
                        continue
                    divisors = [d for d in range(2, ext) if ext % d == 0]
                    if divisors and rng.random() < 0.7:
                        if rng.random() < 0.4 and ext >= 8:
                            d1 = rng.choice(divisors)
                            rest = [d for d in range(1, ext // d1 + 1) if (ext // d1) % d == 0]
                            factors = [None, d1, rng.choice(rest)]
                        else:
                            factors = [None, rng.choice(divisors)]
                    else:
                        factors = [None, rng.randrange(2, ext + 1)]
                        if rng.random() < 0.5:
                            factors = [factors[1], None]
                    new = trial.split(loops[idx], factors)
                    loops = loops[:idx] + list(new) + loops[idx + 1:]
                elif op == "reorder":
                    n = rng.randrange(2, len(loops) + 1)
                    picked = sorted(rng.sample(range(len(loops)), n))
                    perm = picked[:]
                    rng.shuffle(perm)
                    if perm == picked:
                        continue
                    trial.reorder(*[loops[p] for p in perm])
                    new_loops = loops[:]
                    for dst, src in zip(picked, perm):
                        new_loops[dst] = loops[src]
                    loops = new_loops
                elif op == "fuse":
                    if len(loops) < 2:
                        continue
                    idx = rng.randrange(len(loops) - 1)
                    f = trial.fuse(loops[idx], loops[idx + 1])
                    loops = loops[:idx] + [f] + loops[idx + 2:]
                elif op == "cache_read":
                    idx = rng.randrange(len(trial.get(b).reads))
                    trial.cache_read(b, idx, "global")
                elif op == "cache_write":
                    trial.cache_write(b, 0, "global")
                else:
                    if op == "compute_at":
                        blocks = trial.get_producers(b)
                    else:
                        blocks = trial.get_consumers(b)
                    if not blocks:
                        continue
                    other = blocks[rng.randrange(len(blocks))]
                    loop = loops[rng.randrange(len(loops))]
                    if op == "compute_at":
                        trial.compute_at(other, loop)
                    else:
                        trial.reverse_compute_at(other, loop)
            except SCHEDULE_ERRORS:
                loops = loops_before
                continue
            sch = trial
            done += 1
        return sch

    return apply


# ----------------------------------------------------------------------------------------
# Driver
# ----------------------------------------------------------------------------------------


def make_input(rng, shape, dtype):
    if dtype in ("float32", "float16", "float64"):
        return rng.integers(-3, 4, size=shape).astype(dtype)
    if dtype == "int8":
        return rng.integers(-8, 8, size=shape).astype(dtype)
    if dtype in ("int32", "int64"):
        return rng.integers(-10, 11, size=shape).astype(dtype)
    raise ValueError("no input recipe for " + dtype)


def param_buffers(func):
    # TVM 0.27 (TIRx): a PrimFunc's parameters are the buffers themselves (no buffer_map).
    return list(func.params)


def buffer_names(func):
    return [b.name for b in param_buffers(func)]


def shape_of(buf):
    return tuple(int(d) for d in buf.shape)


def run_tvm(mod, arrays):
    """Builds `mod` with TVM for the llvm CPU target and runs its main on `arrays`.

    Returns the arrays as TVM left them (the outputs written in place)."""
    ex = tvm.compile(mod, target=TARGET)
    dev = tvm.cpu(0)
    tensors = [tvm.runtime.tensor(a, dev) for a in arrays]
    ex["main"](*tensors)
    return [t.numpy() for t in tensors]


def stable_seed(name):
    # Seeds derive from case names, so adding a case leaves the others' data unchanged.
    return zlib.crc32(name.encode()) & 0x7FFFFFFF


def with_newline(text):
    return text if text.endswith("\n") else text + "\n"


def write(path, text):
    with open(path, "w") as f:
        f.write(with_newline(text))


def check_same(case, name, got, want):
    if want.dtype.kind == "f":
        tol = 1e-2 if want.dtype == np.float16 else 1e-5
        ok = np.allclose(got.astype("float64"), want.astype("float64"), rtol=tol, atol=tol)
    else:
        ok = np.array_equal(got, want)
    if not ok:
        raise SystemExit("%s: output %s differs from the unscheduled function" % (case, name))


def generate_base(out, builder, seed):
    name = builder.__name__
    ins, outs = builder()
    func = te.create_prim_func(ins + outs)
    d = os.path.join(out, name)
    os.makedirs(os.path.join(d, "inputs"))
    os.makedirs(os.path.join(d, "outputs"))
    write(os.path.join(d, "func.tir"), func.script())

    rng = np.random.default_rng(seed)
    names = buffer_names(func)
    bufs = param_buffers(func)
    arrays = [make_input(rng, shape_of(b), str(b.dtype)) for b in bufs[:len(ins)]]
    arrays += [np.zeros(shape_of(b), dtype=str(b.dtype)) for b in bufs[len(ins):]]
    mod = tvm.IRModule({"main": func})
    results = run_tvm(mod, arrays)
    for i, (n, a) in enumerate(zip(names, results)):
        sub = "inputs" if i < len(ins) else "outputs"
        np.save(os.path.join(d, sub, n + ".npy"), a)
    return mod, arrays, results[len(ins):], names[len(ins):]


def generate_scheduled(out, base, sched_name, fn, mod, arrays, want, out_names, seed):
    case = "%s__%s" % (base, sched_name)
    sch = Schedule(mod, seed=seed, debug_mask="all")
    try:
        res = fn(sch)
        if isinstance(res, Schedule):
            sch = res
    except SCHEDULE_ERRORS as e:
        msg = [l for l in str(e).splitlines() if "Error message" in l or "Error:" in l]
        print("DROPPED %s: TVM refused it: %s" % (case, (msg or [str(e)])[-1][:300]))
        return None
    if case not in TVM_BUILDS_NOT:
        got = run_tvm(sch.mod, [a.copy() for a in arrays])[len(arrays) - len(want):]
        for n, g, w in zip(out_names, got, want):
            check_same(case, n, g, w)
    d = os.path.join(out, case)
    os.makedirs(d)
    write(os.path.join(d, "trace.py"), str(sch.trace))
    write(os.path.join(d, "scheduled.tir"), sch.mod["main"].script())
    write(os.path.join(d, "base"), base)
    return case


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "cases")
    if os.path.exists(out):
        shutil.rmtree(out)
    os.makedirs(out)
    bases = {}
    for builder in BASE_CASES:
        bases[builder.__name__] = generate_base(out, builder, seed=stable_seed(builder.__name__))
        print("base", builder.__name__)
    n = 0
    for base, sname, fn in SCHEDULES:
        mod, arrays, want, out_names = bases[base]
        seed = stable_seed(base + "__" + sname)
        if generate_scheduled(out, base, sname, fn, mod, arrays, want, out_names, seed=seed):
            n += 1
    for base, block, seed, steps in RANDOM_SCHEDULES:
        mod, arrays, want, out_names = bases[base]
        fn = random_schedule(block, seed, steps)
        if generate_scheduled(out, base, "random_%d" % seed, fn, mod, arrays, want, out_names,
                              seed=100 + seed):
            n += 1
    for base, block, seed, steps in RANDOM_DATAFLOW_SCHEDULES:
        mod, arrays, want, out_names = bases[base]
        fn = random_schedule(block, seed, steps, ops=DATAFLOW_OPS)
        if generate_scheduled(out, base, "random_dataflow_%d" % seed, fn, mod, arrays, want,
                              out_names, seed=100 + seed):
            n += 1
    print("%d base cases, %d scheduled cases in %s" % (len(bases), n, out))


if __name__ == "__main__":
    main()
