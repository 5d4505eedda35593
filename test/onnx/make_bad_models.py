#!/usr/bin/python3
"""Writes the small malformed ONNX files under test/onnx/bad/ (and a good model
with external data under test/onnx/external_ok/) that onnx_import_test.cpp
expects exact diagnostics for. Needs python3-onnx (1.12). Run from anywhere:
    /usr/bin/python3 test/onnx/make_bad_models.py
The output is deterministic; the generated files are checked in."""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
BAD = os.path.join(HERE, "bad")
EXT = os.path.join(HERE, "external_ok")


def model(nodes, inputs, outputs, initializers=(), opset=13, name="g"):
    graph = helper.make_graph(nodes, name, inputs, outputs, initializer=list(initializers))
    m = helper.make_model(graph, producer_name="tirc-tests",
                          opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    return m


def f32(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def relu_model(opset=13):
    return model([helper.make_node("Relu", ["x"], ["y"], name="relu1")],
                 [f32("x", [2, 2])], [f32("y", [2, 2])], opset=opset)


def add_w_model(w):
    """y = x + w, with w an initializer built by the caller."""
    return model([helper.make_node("Add", ["x", "w"], ["y"], name="add1")],
                 [f32("x", [2, 2])], [f32("y", [2, 2])], initializers=[w])


def save(m, name):
    with open(os.path.join(BAD, name), "wb") as f:
        f.write(m.SerializeToString())


def main():
    os.makedirs(BAD, exist_ok=True)
    os.makedirs(EXT, exist_ok=True)

    with open(os.path.join(BAD, "empty.onnx"), "wb"):
        pass
    with open(os.path.join(BAD, "not_onnx.onnx"), "wb") as f:
        f.write(b"this is not an ONNX model\n")
    whole = relu_model().SerializeToString()
    with open(os.path.join(BAD, "truncated.onnx"), "wb") as f:
        f.write(whole[: len(whole) - 20])  # cuts inside the graph field

    save(relu_model(opset=22), "opset_too_new.onnx")

    missing = TensorProto()
    missing.name = "w"
    missing.data_type = TensorProto.FLOAT
    missing.dims.extend([2, 2])
    save(add_w_model(missing), "missing_initializer_data.onnx")

    short = TensorProto()
    short.name = "w"
    short.data_type = TensorProto.FLOAT
    short.dims.extend([2, 2])
    short.raw_data = np.arange(3, dtype="<f4").tobytes()
    save(add_w_model(short), "wrong_raw_data_size.onnx")

    few = TensorProto()
    few.name = "w"
    few.data_type = TensorProto.FLOAT
    few.dims.extend([2, 2])
    few.float_data.extend([1.0, 2.0, 3.0])
    save(add_w_model(few), "wrong_float_data_count.onnx")

    for fname, location in [("external_escape.onnx", "../secret.bin"),
                            ("external_absolute.onnx", "/etc/passwd")]:
        ext = TensorProto()
        ext.name = "w"
        ext.data_type = TensorProto.FLOAT
        ext.dims.extend([2, 2])
        ext.data_location = TensorProto.EXTERNAL
        entry = ext.external_data.add()
        entry.key, entry.value = "location", location
        save(add_w_model(ext), fname)

    save(model([helper.make_node("Relu", ["x"], ["t"], name="relu1"),
                helper.make_node("Add", ["t", "z"], ["y"], name="add1")],
               [f32("x", [2, 2])], [f32("y", [2, 2])]), "node_input_undefined.onnx")

    save(model([helper.make_node("Relu", ["x"], ["y"], name="relu1"),
                helper.make_node("Neg", ["x"], ["y"], name="neg1")],
               [f32("x", [2, 2])], [f32("y", [2, 2])]), "duplicate_output.onnx")

    branch = helper.make_graph([helper.make_node("Identity", ["x"], ["b"])], "branch", [],
                               [f32("b", [2, 2])])
    save(model([helper.make_node("If", ["c"], ["y"], name="if1", then_branch=branch,
                                 else_branch=branch)],
               [helper.make_tensor_value_info("c", TensorProto.BOOL, []), f32("x", [2, 2])],
               [f32("y", [2, 2])]), "unsupported_attribute.onnx")

    save(model([helper.make_node("Relu", ["x"], ["t"], name="relu1")],
               [f32("x", [2, 2])], [f32("y", [2, 2])]), "output_not_produced.onnx")

    save(model([helper.make_node("MaxPool", ["x"], ["y"], name="pool1", domain="tirc.channels_last",
                                 kernel_shape=[2, 2])],
               [f32("x", [1, 4, 4, 2])], [f32("y", [1, 2, 2, 2])]), "internal_domain.onnx")

    save(model([helper.make_node("Identity", ["s"], ["y"], name="id1")],
               [helper.make_tensor_value_info("s", TensorProto.STRING, [2])],
               [helper.make_tensor_value_info("y", TensorProto.STRING, [2])]),
         "string_input.onnx")

    seq = helper.make_tensor_sequence_value_info("s", TensorProto.FLOAT, [2])
    save(model([helper.make_node("Identity", ["s"], ["y"], name="id1")], [seq],
               [helper.make_tensor_sequence_value_info("y", TensorProto.FLOAT, [2])]),
         "sequence_input.onnx")

    huge = TensorProto()
    huge.name = "w"
    huge.data_type = TensorProto.FLOAT
    huge.dims.extend([1 << 20, 1 << 20, 1 << 20])
    huge.raw_data = b"\0" * 16
    save(add_w_model(huge), "huge_initializer.onnx")

    # Good: two weights in one external file, the second at an offset.
    w1 = numpy_helper.from_array(np.arange(4, dtype=np.float32).reshape(2, 2) + 1, "w1")
    w2 = numpy_helper.from_array(np.full((2, 2), 10, dtype=np.float32), "w2")
    blob = w1.raw_data + w2.raw_data
    for t, offset in [(w1, 0), (w2, len(w1.raw_data))]:
        size = len(t.raw_data)
        t.ClearField("raw_data")
        t.data_location = TensorProto.EXTERNAL
        for key, value in [("location", "model.onnx.data"), ("offset", str(offset)),
                           ("length", str(size))]:
            entry = t.external_data.add()
            entry.key, entry.value = key, value
    good = model([helper.make_node("Add", ["x", "w1"], ["t"], name="add1"),
                  helper.make_node("Mul", ["t", "w2"], ["y"], name="mul1")],
                 [f32("x", [2, 2])], [f32("y", [2, 2])], initializers=[w1, w2])
    with open(os.path.join(EXT, "model.onnx"), "wb") as f:
        f.write(good.SerializeToString())
    with open(os.path.join(EXT, "model.onnx.data"), "wb") as f:
        f.write(blob)

    # Good: one initializer per storage form of TensorProto.
    inits = [
        helper.make_tensor("f_typed", TensorProto.FLOAT, [2, 3], [0.5, -1, 2, 3.25, 4, 5]),
        numpy_helper.from_array(np.array([[1.5, -2.0], [3.0, 1e-3]], dtype=np.float32), "f_raw"),
        helper.make_tensor("i64_typed", TensorProto.INT64, [3], [-1, 0, 1 << 40]),
        numpy_helper.from_array(np.array([7, -9], dtype=np.int64), "i64_raw"),
        helper.make_tensor("i8_typed", TensorProto.INT8, [3], [-128, 0, 127]),
        helper.make_tensor("u16_typed", TensorProto.UINT16, [2], [65535, 1]),
        helper.make_tensor("i32_typed", TensorProto.INT32, [2], [-5, 1 << 30]),
        helper.make_tensor("f16_typed", TensorProto.FLOAT16, [2], np.array([1.0, -2.5], np.float16)),
        helper.make_tensor("bool_typed", TensorProto.BOOL, [3], [True, False, True]),
        numpy_helper.from_array(np.array([False, True], dtype=np.bool_), "bool_raw"),
        helper.make_tensor("f64_typed", TensorProto.DOUBLE, [1], [0.1]),
        helper.make_tensor("u64_typed", TensorProto.UINT64, [1], [1 << 63]),
        helper.make_tensor("scalar", TensorProto.FLOAT, [], [42.0]),
        helper.make_tensor("empty", TensorProto.FLOAT, [0, 3], []),
    ]
    outs = []
    nodes = []
    for t in inits:
        nodes.append(helper.make_node("Identity", [t.name], [t.name + "_out"]))
        outs.append(helper.make_tensor_value_info(t.name + "_out", t.data_type, None))
    with open(os.path.join(HERE, "initializers.onnx"), "wb") as f:
        f.write(model(nodes, [], outs, initializers=inits).SerializeToString())


if __name__ == "__main__":
    main()
