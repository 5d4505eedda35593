#!/usr/bin/env python3
"""Writes small ONNX node-style test cases for ai.onnx opsets 18 to 21 under
test/onnx/node_18_21/<case>/, in the layout of ONNX's backend node tests:
model.onnx and test_data_set_0/input_N.pb, output_N.pb, the outputs computed by
onnxruntime. They cover every operator tirc supports whose definition changed
in opsets 18 to 21, at each new version, a few whole models at opset 21 made
of operators that did not change, and the operators tirc added with these
opsets: their versions from 18 on (GroupNormalization, the max/min reductions
of ScatterElements and ScatterND, Resize) and one case each at opset 21. A test_refuse_* case has no data but
error.txt: the part of tirc's diagnostic that says why it refuses the model.
test/unit/onnx_node_test.cpp runs them all (suite "node_18_21").

Run by hand, never by the build or CI. It needs onnx, onnxruntime and numpy
from PyPI (ONNX 1.12, which Debian packages, stops at opset 17):
    python3 -m venv V && V/bin/pip install onnx onnxruntime numpy
    V/bin/python test/onnx/make_node_cases.py
It replaces the whole directory; the seeds are fixed, so running it again
writes the same bytes. The generated files are checked in.
"""
import os
import shutil
import zlib

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "node_18_21")

# The IR version each opset came with (onnx.helper.VERSION_TABLE).
IR_VERSION = {18: 8, 19: 9, 20: 9, 21: 10, 22: 10}

F = TensorProto.FLOAT
I64 = TensorProto.INT64


def rng_for(name):
    """Deterministic data per case, independent of the order cases are made in."""
    return np.random.default_rng(zlib.crc32(name.encode()))


def floats(rng, shape, low=-3.0, high=3.0):
    return rng.uniform(low, high, size=shape).astype(np.float32)


def i64(values):
    return np.array(values, dtype=np.int64)


def make_model(name, opset, nodes, inputs, outputs, initializers):
    graph = helper.make_graph(
        nodes, name, inputs, outputs,
        initializer=[numpy_helper.from_array(v, k) for k, v in initializers.items()])
    model = helper.make_model(graph, producer_name="tirc-tests",
                              opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = IR_VERSION[opset]
    return model


def write_tensor(path, array, name):
    with open(path, "wb") as f:
        f.write(numpy_helper.from_array(array, name).SerializeToString())


def case(name, opset, nodes, inputs, outputs, initializers=None, check=True):
    """A case with data: `inputs` maps each graph input to its value (its
    declared type and shape); `outputs` names the graph outputs, whose values
    onnxruntime computes. `check=False` skips onnx's checker, which refuses an
    operator version ONNX has since deprecated (exporters still write them)."""
    initializers = initializers or {}
    in_infos = [helper.make_tensor_value_info(k, helper.np_dtype_to_tensor_dtype(v.dtype),
                                              list(v.shape)) for k, v in inputs.items()]
    # Outputs are declared untyped first, to run; then with what came out.
    probe = make_model(name, opset, nodes, in_infos,
                       [helper.make_empty_tensor_value_info(o) for o in outputs], initializers)
    session = ort.InferenceSession(probe.SerializeToString(),
                                   providers=["CPUExecutionProvider"])
    results = session.run(outputs, dict(inputs))
    out_infos = [helper.make_tensor_value_info(o, helper.np_dtype_to_tensor_dtype(r.dtype),
                                               list(r.shape)) for o, r in zip(outputs, results)]
    model = make_model(name, opset, nodes, in_infos, out_infos, initializers)
    if check:
        onnx.checker.check_model(model, full_check=True)
    test_dir = os.path.join(OUT, "test_" + name)
    data_dir = os.path.join(test_dir, "test_data_set_0")
    os.makedirs(data_dir)
    onnx.save(model, os.path.join(test_dir, "model.onnx"))
    for k, (input_name, value) in enumerate(inputs.items()):
        write_tensor(os.path.join(data_dir, "input_%d.pb" % k), value, input_name)
    for k, (output_name, value) in enumerate(zip(outputs, results)):
        write_tensor(os.path.join(data_dir, "output_%d.pb" % k), value, output_name)


def refusal(name, opset, nodes, inputs, outputs, error, initializers=None):
    """A model tirc must refuse with a diagnostic containing `error`. `inputs`
    and `outputs` are value infos (the model need not run anywhere)."""
    model = make_model(name, opset, nodes, inputs, outputs, initializers or {})
    test_dir = os.path.join(OUT, "test_refuse_" + name)
    os.makedirs(test_dir)
    onnx.save(model, os.path.join(test_dir, "model.onnx"))
    with open(os.path.join(test_dir, "error.txt"), "w") as f:
        f.write(error + "\n")


def node(op, ins, outs, **attrs):
    return helper.make_node(op, ins, outs, **attrs)


def one_node(name, opset, op, x, attrs=None, initializers=None, extra_inputs=(), n_outputs=1):
    """y = op(x, *extra_inputs) with attributes; extra inputs name initializers
    ("" for an omitted one)."""
    outs = ["y"] if n_outputs == 1 else ["y%d" % k for k in range(n_outputs)]
    case(name, opset, [node(op, ["x", *extra_inputs], outs, **(attrs or {}))], {"x": x}, outs,
         initializers)


# ---- Reduce*: axes from input 1 (18), bool ReduceMax/ReduceMin (20) --------------------

def reduce_cases():
    reductions = [("mean", "ReduceMean"), ("max", "ReduceMax"), ("min", "ReduceMin"),
                  ("prod", "ReduceProd"), ("sum_square", "ReduceSumSquare"),
                  ("l1", "ReduceL1"), ("l2", "ReduceL2"), ("log_sum", "ReduceLogSum"),
                  ("log_sum_exp", "ReduceLogSumExp")]
    for short, op in reductions:
        name = "reduce_%s_axes_18" % short
        rng = rng_for(name)
        low = 0.5 if op == "ReduceLogSum" else -1.5
        one_node(name, 18, op, floats(rng, (3, 4, 5), low, 1.5), {"keepdims": 1},
                 {"axes": i64([0, -1])}, ["axes"])
    name = "reduce_mean_axes_keepdims0_21"
    one_node(name, 21, "ReduceMean", floats(rng_for(name), (3, 4, 5)), {"keepdims": 0},
             {"axes": i64([1])}, ["axes"])
    name = "reduce_max_no_axes_18"
    one_node(name, 18, "ReduceMax", floats(rng_for(name), (3, 4, 5)), {"keepdims": 0})
    name = "reduce_l2_empty_axes_noop_18"
    one_node(name, 18, "ReduceL2", floats(rng_for(name), (3, 4)), {"noop_with_empty_axes": 1},
             {"axes": np.zeros((0,), np.int64)}, ["axes"])
    name = "reduce_sum_square_no_axes_noop_21"  # each element alone: squared
    one_node(name, 21, "ReduceSumSquare", floats(rng_for(name), (2, 3)),
             {"noop_with_empty_axes": 1})
    name = "reduce_min_no_axes_noop_20"
    one_node(name, 20, "ReduceMin", floats(rng_for(name), (3, 4)), {"noop_with_empty_axes": 1})
    name = "reduce_sum_axes_21"  # ReduceSum-13, unchanged
    one_node(name, 21, "ReduceSum", floats(rng_for(name), (3, 4, 5)), {"keepdims": 0},
             {"axes": i64([-2])}, ["axes"])
    # bool: x > 0, reduced (any / all), as float.
    for op, axes, opset in (("ReduceMax", [1], 20), ("ReduceMin", [0, 2], 21)):
        name = "reduce_%s_bool_%d" % (op[6:].lower(), opset)
        x = floats(rng_for(name), (3, 4, 2), -1.0, 3.0)
        case(name, opset,
             [node("Greater", ["x", "zero"], ["positive"]),
              node(op, ["positive", "axes"], ["r"], keepdims=0),
              node("Cast", ["r"], ["y"], to=F)],
             {"x": x}, ["y"], {"zero": np.zeros((), np.float32), "axes": i64(axes)})


# ---- Split: num_outputs (18) ------------------------------------------------------------

def split_cases():
    for name, opset, shape, axis, parts in (("split_num_outputs_18", 18, (2, 6), 1, 3),
                                            ("split_num_outputs_uneven_18", 18, (7, 2), 0, 3),
                                            ("split_num_outputs_uneven_21", 21, (2, 3, 5), -1, 2)):
        one_node(name, opset, "Split", floats(rng_for(name), shape),
                 {"axis": axis, "num_outputs": parts}, n_outputs=parts)
    name = "split_input_18"
    one_node(name, 18, "Split", floats(rng_for(name), (6, 2)), {"axis": 0},
             {"split": i64([1, 2, 3])}, ["split"], n_outputs=3)


# ---- Pad: axes (18), wrap (19), types (21) -----------------------------------------------

def pad_cases():
    name = "pad_axes_constant_18"
    one_node(name, 18, "Pad", floats(rng_for(name), (1, 3, 4, 5)), {"mode": "constant"},
             {"pads": i64([1, 2, 0, 3]), "value": np.array(1.5, np.float32),
              "axes": i64([2, -1])}, ["pads", "value", "axes"])
    name = "pad_axes_reflect_18"
    one_node(name, 18, "Pad", floats(rng_for(name), (2, 3, 5)), {"mode": "reflect"},
             {"pads": i64([2, 1]), "axes": i64([-1])}, ["pads", "", "axes"])
    name = "pad_axes_edge_19"
    one_node(name, 19, "Pad", floats(rng_for(name), (2, 3, 4)), {"mode": "edge"},
             {"pads": i64([1, 0, 2, 3]), "axes": i64([0, 2])}, ["pads", "", "axes"])
    name = "pad_wrap_19"
    one_node(name, 19, "Pad", floats(rng_for(name), (2, 3, 4)), {"mode": "wrap"},
             {"pads": i64([0, 1, 2, 0, 2, 5])}, ["pads"])
    name = "pad_wrap_crop_19"  # negative pads crop first, the rest repeats
    one_node(name, 19, "Pad", floats(rng_for(name), (3, 5)), {"mode": "wrap"},
             {"pads": i64([-1, 3, 2, -2])}, ["pads"])
    name = "pad_wrap_axes_21"
    one_node(name, 21, "Pad", floats(rng_for(name), (2, 3, 4)), {"mode": "wrap"},
             {"pads": i64([4, 1]), "axes": i64([1])}, ["pads", "", "axes"])
    name = "pad_constant_21"
    one_node(name, 21, "Pad", floats(rng_for(name), (2, 3)), {},
             {"pads": i64([0, 1, 2, 0])}, ["pads"])


# ---- AveragePool: dilations (19) -----------------------------------------------------------

def average_pool_cases():
    for name, opset, shape, attrs in (
            ("averagepool_2d_dilations_19", 19, (1, 2, 7, 7),
             {"kernel_shape": [2, 2], "dilations": [2, 2]}),
            ("averagepool_2d_dilations_strides_pads_19", 19, (1, 2, 8, 7),
             {"kernel_shape": [3, 3], "dilations": [2, 2], "strides": [2, 2],
              "pads": [1, 1, 1, 1]}),
            ("averagepool_2d_dilations_pads_count_include_pad_19", 19, (1, 2, 6, 6),
             {"kernel_shape": [3, 2], "dilations": [2, 3], "pads": [2, 1, 2, 1],
              "count_include_pad": 1}),
            ("averagepool_2d_dilations_ceil_19", 19, (1, 1, 8, 8),
             {"kernel_shape": [2, 2], "dilations": [2, 2], "strides": [3, 3], "ceil_mode": 1}),
            ("averagepool_1d_dilations_21", 21, (2, 3, 9),
             {"kernel_shape": [3], "dilations": [3]})):
        one_node(name, opset, "AveragePool", floats(rng_for(name), shape), attrs)


# ---- Cast, CastLike (19: saturate, 21: 4-bit types) ------------------------------------------

def cast_cases():
    for name, opset, to, attrs in (("cast_int32_saturate_19", 19, TensorProto.INT32,
                                    {"saturate": 1}),
                                   ("cast_int64_21", 21, I64, {}),
                                   ("cast_bool_21", 21, TensorProto.BOOL, {})):
        x = floats(rng_for(name), (3, 4), -4.0, 4.0)
        x[0, :2] = 0  # a few exact zeros for the bool cast
        case(name, opset, [node("Cast", ["x"], ["c"], to=to, **attrs),
                           node("Cast", ["c"], ["y"], to=F)], {"x": x}, ["y"])
    name = "castlike_19"
    case(name, 19, [node("CastLike", ["x", "like"], ["c"]), node("CastLike", ["c", "x"], ["y"])],
         {"x": floats(rng_for(name), (3, 4), -4.0, 4.0)}, ["y"],
         {"like": np.zeros((1,), np.int32)})
    name = "castlike_21"
    case(name, 21, [node("CastLike", ["x", "like"], ["c"]), node("CastLike", ["c", "x"], ["y"])],
         {"x": floats(rng_for(name), (2, 5), -4.0, 4.0)}, ["y"],
         {"like": np.zeros((), np.int64)})


# ---- operators whose new versions only added types -------------------------------------------

def type_only_cases():
    name = "constant_19"
    c = numpy_helper.from_array(floats(rng_for(name + "c"), (3, 4)), "c")
    case(name, 19, [node("Constant", [], ["c"], value=c), node("Add", ["x", "c"], ["y"])],
         {"x": floats(rng_for(name), (3, 4))}, ["y"])
    name = "constant_value_floats_21"
    case(name, 21, [node("Constant", [], ["c"], value_floats=[0.5, -2.0, 3.0]),
                    node("Mul", ["x", "c"], ["y"])], {"x": floats(rng_for(name), (2, 3))}, ["y"])
    for opset in (20, 21):
        name = "constant_of_shape_%d" % opset
        case(name, opset,
             [node("ConstantOfShape", ["shape"], ["c"],
                   value=numpy_helper.from_array(np.array([2.5], np.float32))),
              node("Add", ["x", "c"], ["y"])],
             {"x": floats(rng_for(name), (2, 3, 4))}, ["y"], {"shape": i64([3, 4])})
    for opset in (19, 21):
        name = "identity_%d" % opset
        case(name, opset, [node("Identity", ["x"], ["i"]), node("Neg", ["i"], ["y"])],
             {"x": floats(rng_for(name), (2, 3))}, ["y"])
    name = "reshape_19"
    one_node(name, 19, "Reshape", floats(rng_for(name), (2, 3, 4)), {},
             {"shape": i64([0, -1])}, ["shape"])
    name = "reshape_allowzero_21"
    one_node(name, 21, "Reshape", floats(rng_for(name), (2, 3, 4)), {"allowzero": 1},
             {"shape": i64([4, 6])}, ["shape"])
    for name, opset, attrs in (("shape_start_end_19", 19, {"start": 1, "end": 3}),
                               ("shape_21", 21, {})):
        rng = rng_for(name)
        x = floats(rng, (3, 4, 5)) if attrs else floats(rng, (4, 5))
        case(name, opset, [node("Shape", ["x"], ["s"], **attrs), node("Reshape", ["v", "s"], ["y"])],
             {"x": x, "v": floats(rng, (20,))}, ["y"])
    for opset in (19, 21):
        name = "size_%d" % opset
        case(name, opset, [node("Size", ["x"], ["n"]), node("Cast", ["n"], ["nf"], to=F),
                           node("Mul", ["x", "nf"], ["y"])],
             {"x": floats(rng_for(name), (2, 3))}, ["y"])
    name = "flatten_21"
    one_node(name, 21, "Flatten", floats(rng_for(name), (2, 3, 4, 2)), {"axis": 2})
    name = "squeeze_21"
    one_node(name, 21, "Squeeze", floats(rng_for(name), (2, 1, 3, 1)), {},
             {"axes": i64([1])}, ["axes"])
    name = "unsqueeze_21"
    one_node(name, 21, "Unsqueeze", floats(rng_for(name), (2, 3)), {},
             {"axes": i64([0, -1])}, ["axes"])
    name = "transpose_21"
    one_node(name, 21, "Transpose", floats(rng_for(name), (2, 3, 4)), {"perm": [1, 2, 0]})
    name = "equal_19"
    rng = rng_for(name)
    a = rng.integers(0, 3, size=(3, 4)).astype(np.float32)
    b = rng.integers(0, 3, size=(4,)).astype(np.float32)
    case(name, 19, [node("Equal", ["a", "b"], ["e"]), node("Cast", ["e"], ["y"], to=F)],
         {"a": a, "b": b}, ["y"])
    for name, opset, attrs in (("gelu_20", 20, {}), ("gelu_tanh_20", 20, {"approximate": "tanh"}),
                               ("gelu_21", 21, {})):
        one_node(name, opset, "Gelu", floats(rng_for(name), (3, 5)), attrs)


# ---- whole models at opset 21 of operators that did not change ----------------------------------

def unchanged_at_21_cases():
    name = "cnn_block_21"
    rng = rng_for(name)
    weights = {
        "w": floats(rng, (4, 2, 3, 3), -0.5, 0.5), "b": floats(rng, (4,), -0.5, 0.5),
        "scale": floats(rng, (4,), 0.5, 1.5), "bias": floats(rng, (4,), -0.5, 0.5),
        "mean": floats(rng, (4,), -0.5, 0.5), "var": floats(rng, (4,), 0.5, 1.5),
        "fc_w": floats(rng, (3, 4), -0.5, 0.5), "fc_b": floats(rng, (3,), -0.5, 0.5),
    }
    case(name, 21,
         [node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
          node("BatchNormalization", ["c", "scale", "bias", "mean", "var"], ["n"]),
          node("Relu", ["n"], ["r"]),
          node("MaxPool", ["r"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
          node("GlobalAveragePool", ["p"], ["g"]),
          node("Flatten", ["g"], ["f"]),
          node("Gemm", ["f", "fc_w", "fc_b"], ["logits"], transB=1),
          node("Softmax", ["logits"], ["y"])],
         {"x": floats(rng, (2, 2, 6, 6))}, ["y"], weights)
    name = "attention_21"
    rng = rng_for(name)
    case(name, 21,
         [node("LayerNormalization", ["x", "gamma", "beta"], ["h"], axis=-1),
          node("MatMul", ["h", "wq"], ["q"]), node("MatMul", ["h", "wk"], ["k"]),
          node("MatMul", ["h", "wv"], ["v"]),
          node("Transpose", ["k"], ["kt"], perm=[0, 2, 1]),
          node("MatMul", ["q", "kt"], ["s"]), node("Div", ["s", "scale"], ["ss"]),
          node("Softmax", ["ss"], ["a"], axis=-1), node("MatMul", ["a", "v"], ["o"]),
          node("Add", ["o", "x"], ["y"])],
         {"x": floats(rng, (1, 6, 8))}, ["y"],
         {"gamma": floats(rng, (8,), 0.5, 1.5), "beta": floats(rng, (8,), -0.5, 0.5),
          "wq": floats(rng, (8, 8), -0.5, 0.5), "wk": floats(rng, (8, 8), -0.5, 0.5),
          "wv": floats(rng, (8, 8), -0.5, 0.5), "scale": np.array(np.sqrt(8), np.float32)})


# ---- operators tirc added with opsets 18-21: their new versions (GroupNormalization 18 and
# 21, ScatterElements/ScatterND max and min reductions 18, Resize 18 and 19) and one case at
# opset 21 of each of the others; outputs that are not float32 are cast to it ------------------

def group_normalization_cases():
    # 18: scale and bias per group (deprecated by 21, so onnx's checker refuses
    # it); 21: per channel.
    for name, opset, affine in (("group_normalization_18", 18, 2),
                                 ("group_normalization_21", 21, 4)):
        rng = rng_for(name)
        case(name, opset,
             [node("GroupNormalization", ["x", "scale", "bias"], ["y"], num_groups=2,
                   epsilon=1e-4)],
             {"x": floats(rng, (2, 4, 3, 2))}, ["y"],
             {"scale": floats(rng, (affine,), 0.5, 1.5), "bias": floats(rng, (affine,), -0.5, 0.5)},
             check=opset != 18)


def scatter_reduction_cases():
    for reduction in ("max", "min"):
        # Repeated indices, so that the reduction decides.
        name = "scatter_elements_%s_18" % reduction
        rng = rng_for(name)
        case(name, 18,
             [node("ScatterElements", ["data", "indices", "updates"], ["y"], axis=1,
                   reduction=reduction)],
             {"data": floats(rng, (3, 4)), "updates": floats(rng, (3, 3))}, ["y"],
             {"indices": i64([[1, 3, 1], [0, 0, -1], [2, 2, 2]])})
        name = "scatter_nd_%s_18" % reduction
        rng = rng_for(name)
        case(name, 18,
             [node("ScatterND", ["data", "indices", "updates"], ["y"], reduction=reduction)],
             {"data": floats(rng, (4, 3)), "updates": floats(rng, (3, 3))}, ["y"],
             {"indices": i64([[2], [0], [2]])})


def resize_cases():
    for name, opset, attrs, scales, sizes in (
            ("resize_nearest_asymmetric_floor_18", 18,
             {"mode": "nearest", "coordinate_transformation_mode": "asymmetric",
              "nearest_mode": "floor"}, [1.0, 1.0, 2.0, 1.5], None),
            ("resize_linear_half_pixel_18", 18, {"mode": "linear"}, [1.0, 1.0, 0.5, 2.0], None),
            ("resize_linear_align_corners_sizes_19", 19,
             {"mode": "linear", "coordinate_transformation_mode": "align_corners"}, None,
             [1, 1, 5, 7]),
            ("resize_nearest_pytorch_half_pixel_ceil_19", 19,
             {"mode": "nearest", "coordinate_transformation_mode": "pytorch_half_pixel",
              "nearest_mode": "round_prefer_ceil"}, [1.0, 1.0, 1.5, 0.75], None),
            # Resize-19's mode: scales whose output extents round down (6.8 -> 6, 2.8 -> 2).
            ("resize_linear_half_pixel_symmetric_19", 19,
             {"mode": "linear", "coordinate_transformation_mode": "half_pixel_symmetric"},
             [1.0, 1.0, 1.7, 0.7], None),
            ("resize_nearest_half_pixel_symmetric_19", 19,
             {"mode": "nearest", "coordinate_transformation_mode": "half_pixel_symmetric"},
             [1.0, 1.0, 0.7, 1.7], None)):
        inits = ({"scales": np.array(scales, np.float32)} if scales else {"sizes": i64(sizes)})
        extra = ["", "scales"] if scales else ["", "", "sizes"]
        one_node(name, opset, "Resize", floats(rng_for(name), (1, 1, 4, 4)), attrs, inits, extra)
    # Resize-18's axes (scales or sizes for the listed axes only) and
    # keep_aspect_ratio_policy (one scale over the listed axes, from sizes).
    for name, attrs, scales, sizes in (
            ("resize_linear_axes_scales_18", {"mode": "linear", "axes": [-1, 2]}, [1.5, 0.5],
             None),
            ("resize_nearest_axes_sizes_18", {"mode": "nearest", "axes": [3]}, None, [7]),
            ("resize_linear_not_larger_axes_18",
             {"mode": "linear", "keep_aspect_ratio_policy": "not_larger", "axes": [2, 3]},
             None, [7, 9]),
            # Over every axis: the largest ratio, 7 / 4, resizes the first two axes too.
            ("resize_nearest_not_smaller_18",
             {"mode": "nearest", "keep_aspect_ratio_policy": "not_smaller"}, None,
             [1, 1, 7, 9])):
        inits = ({"scales": np.array(scales, np.float32)} if scales else {"sizes": i64(sizes)})
        extra = ["", "scales"] if scales else ["", "", "sizes"]
        one_node(name, 18, "Resize", floats(rng_for(name), (1, 2, 4, 6)), attrs, inits, extra)
    # antialias (linear, downsampling: the triangle filter widened by 1 / scale).
    for name, attrs, scales, sizes in (
            ("resize_linear_antialias_18", {"mode": "linear", "antialias": 1}, [1, 1, 0.4, 0.6],
             None),
            ("resize_linear_antialias_exclude_outside_axes_18",
             {"mode": "linear", "antialias": 1, "exclude_outside": 1,
              "coordinate_transformation_mode": "asymmetric", "axes": [3, 2]}, None, [4, 3])):
        inits = ({"scales": np.array(scales, np.float32)} if scales else {"sizes": i64(sizes)})
        extra = ["", "scales"] if scales else ["", "", "sizes"]
        one_node(name, 18, "Resize", floats(rng_for(name), (1, 2, 7, 9)), attrs, inits, extra)


def new_operator_at_21_cases():
    name = "argmax_21"
    case(name, 21, [node("ArgMax", ["x"], ["i"], axis=1, keepdims=0),
                    node("Cast", ["i"], ["y"], to=F)],
         {"x": floats(rng_for(name), (3, 5))}, ["y"])
    name = "argmin_select_last_index_21"
    x = np.round(floats(rng_for(name), (3, 4)))  # rounded: ties, decided by select_last_index
    case(name, 21, [node("ArgMin", ["x"], ["i"], axis=0, select_last_index=1),
                    node("Cast", ["i"], ["y"], to=F)], {"x": x}, ["y"])
    name = "topk_21"
    case(name, 21, [node("TopK", ["x", "k"], ["values", "i"], axis=-1),
                    node("Cast", ["i"], ["indices"], to=F)],
         {"x": floats(rng_for(name), (3, 5))}, ["values", "indices"], {"k": i64([3])})
    name = "cumsum_exclusive_reverse_21"
    one_node(name, 21, "CumSum", floats(rng_for(name), (2, 4)), {"exclusive": 1, "reverse": 1},
             {"axis": np.array(1, np.int64)}, ["axis"])
    name = "instance_normalization_21"
    rng = rng_for(name)
    one_node(name, 21, "InstanceNormalization", floats(rng, (2, 3, 4)), {"epsilon": 1e-4},
             {"scale": floats(rng, (3,), 0.5, 1.5), "bias": floats(rng, (3,), -0.5, 0.5)},
             ["scale", "bias"])
    name = "einsum_batch_matmul_21"
    rng = rng_for(name)
    case(name, 21, [node("Einsum", ["a", "b"], ["y"], equation="bij,bjk->bik")],
         {"a": floats(rng, (2, 3, 4)), "b": floats(rng, (2, 4, 2))}, ["y"])
    name = "tile_21"
    one_node(name, 21, "Tile", floats(rng_for(name), (2, 3)), {}, {"repeats": i64([2, 3])},
             ["repeats"])
    for mode in ("DCR", "CRD"):
        name = "depth_to_space_%s_21" % mode.lower()
        one_node(name, 21, "DepthToSpace", floats(rng_for(name), (1, 8, 2, 3)),
                 {"blocksize": 2, "mode": mode})
    name = "space_to_depth_21"
    one_node(name, 21, "SpaceToDepth", floats(rng_for(name), (1, 2, 4, 6)), {"blocksize": 2})
    name = "trilu_lower_k1_21"
    one_node(name, 21, "Trilu", floats(rng_for(name), (4, 5)), {"upper": 0},
             {"k": np.array(1, np.int64)}, ["k"])
    name = "range_21"  # 0.5, 1.25, ..., 3.5: five elements
    case(name, 21,
         [node("Range", ["start", "limit", "delta"], ["r"]), node("Add", ["x", "r"], ["y"])],
         {"x": floats(rng_for(name), (2, 5))}, ["y"],
         {"start": np.array(0.5, np.float32), "limit": np.array(4.0, np.float32),
          "delta": np.array(0.75, np.float32)})
    name = "gather_elements_21"
    case(name, 21, [node("GatherElements", ["x", "indices"], ["y"], axis=1)],
         {"x": floats(rng_for(name), (3, 4))}, ["y"],
         {"indices": i64([[0, 3], [-1, 1], [2, 2]])})


# ---- refusals ----------------------------------------------------------------------------------

def refusal_cases():
    def f32(name, shape):
        return helper.make_tensor_value_info(name, F, shape)

    refusal("opset_22", 22, [node("Relu", ["x"], ["y"], name="relu")], [f32("x", [2, 3])],
            [f32("y", [2, 3])], "ai.onnx opset 22 is not supported (supported: 7 to 21)")
    # Casts to a type tirc lacks and back (a graph output of that type is
    # refused by the import already).
    for name, opset, to, type_name in (("cast_float8_19", 19, TensorProto.FLOAT8E4M3FN,
                                        "FLOAT8E4M3FN"),
                                       ("cast_int4_21", 21, TensorProto.INT4, "INT4")):
        refusal(name, opset,
                [node("Cast", ["x"], ["c"], name="cast", to=to),
                 node("Cast", ["c"], ["y"], name="back", to=F)],
                [f32("x", [2, 3])], [f32("y", [2, 3])],
                "node 'cast' (Cast): Cast to data type %s is not supported" % type_name)
    refusal("float8_input_19", 19, [node("CastLike", ["x", "like"], ["y"], name="castlike")],
            [helper.make_tensor_value_info("x", TensorProto.FLOAT8E5M2, [2, 3]),
             f32("like", [1])], [f32("y", [2, 3])],
            "graph input 'x' has element type FLOAT8E5M2, which is not supported")
    refusal("pad_wrap_18", 18, [node("Pad", ["x", "pads"], ["y"], name="pad", mode="wrap")],
            [f32("x", [2, 3])], [f32("y", [2, 5])],
            "node 'pad' (Pad): mode 'wrap' is not one of constant, reflect, edge",
            {"pads": i64([0, 1, 0, 1])})
    refusal("reduce_axes_attribute_18", 18,
            [node("ReduceMean", ["x"], ["y"], name="mean", axes=[1])], [f32("x", [2, 3])],
            [f32("y", [2, 1])],
            "node 'mean' (ReduceMean): attribute 'axes' was replaced by input 1 in opset 18")
    refusal("reduce_run_time_axes_18", 18,
            [node("ReduceMax", ["x", "axes"], ["y"], name="max")],
            [f32("x", [2, 3]), helper.make_tensor_value_info("axes", I64, [1])],
            [f32("y", None)], "node 'max' (ReduceMax): input 1 ('axes') must be known at compile time")
    refusal("reduce_max_bool_18", 18,
            [node("Greater", ["x", "zero"], ["p"]),
             node("ReduceMax", ["p", "axes"], ["r"], name="any"),
             node("Cast", ["r"], ["y"], to=F)],
            [f32("x", [2, 3])], [f32("y", [2, 1])],
            "node 'any' (ReduceMax): input type bool is not supported before opset 20",
            {"zero": np.zeros((), np.float32), "axes": i64([1])})
    refusal("split_num_outputs_18", 18,
            [node("Split", ["x"], ["a", "b", "c", "d"], name="split", num_outputs=4)],
            [f32("x", [5])], [f32(o, None) for o in "abcd"],
            "node 'split' (Split): axis 0 of extent 5 does not split into 4 parts of 2")
    refusal("resize_cubic_antialias_18", 18,
            [node("Resize", ["x", "", "scales"], ["y"], name="resize", mode="cubic",
                  antialias=1)],
            [f32("x", [1, 1, 4, 4])], [f32("y", [1, 1, 2, 2])],
            "node 'resize' (Resize): mode 'cubic' is not supported",
            {"scales": np.array([1.0, 1.0, 0.5, 0.5], np.float32)})


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    reduce_cases()
    split_cases()
    pad_cases()
    average_pool_cases()
    cast_cases()
    type_only_cases()
    unchanged_at_21_cases()
    group_normalization_cases()
    scatter_reduction_cases()
    resize_cases()
    new_operator_at_21_cases()
    refusal_cases()
    print("wrote %d cases under %s" % (len(os.listdir(OUT)), OUT))


if __name__ == "__main__":
    main()
