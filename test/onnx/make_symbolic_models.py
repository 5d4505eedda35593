#!/usr/bin/python3
"""Writes the small models with symbolic dimensions under test/onnx/symbolic/
that test/lit/onnx/symbolic_dims.test and test/e2e/dims_project compile with
--dim / --shape and run with `tirc run`:

  matmul_add.onnx  x [batch, seq, 32], m [batch, seq, 16] (inputs sharing
                   dim_params); y = MatMul(x, W) + b + m, y [batch, seq, 16];
                   value_info xw [batch, seq, 16]. b[j] = j / 4, so zero
                   inputs give y[..., j] = j / 4.
  x.npy, m.npy     inputs for batch 2, seq 5; y.npy the reference output
                   (numpy, float64 from the float32 values, cast to float32)
  m_batch3.npy     an m for batch 3 (disagrees with x.npy)
  anonymous.onnx   x [?, 32] (a dimension with neither dim_value nor
                   dim_param) and z with no shape at all; y = MatMul(x, W2),
                   r = Relu(z)

Deterministic (fixed seed); needs python3-onnx 1.12 and python3-numpy. Run:
    /usr/bin/python3 test/onnx/make_symbolic_models.py"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "symbolic")


def model(nodes, inputs, outputs, initializers, value_info=(), check=True):
    graph = helper.make_graph(nodes, "g", inputs, outputs, initializer=initializers,
                              value_info=list(value_info))
    m = helper.make_model(graph, producer_name="tirc-tests",
                          opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    if check:  # the checker wants a shape on every tensor type
        onnx.checker.check_model(m)
    return m


def f32(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def save(m, name):
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(m.SerializeToString())


def main():
    os.makedirs(HERE, exist_ok=True)
    rng = np.random.default_rng(20250115)

    w = (rng.standard_normal((32, 16)) * 0.2).astype(np.float32)
    b = (np.arange(16) / 4).astype(np.float32)
    save(model([helper.make_node("MatMul", ["x", "w"], ["xw"], name="matmul"),
                helper.make_node("Add", ["xw", "b"], ["xwb"], name="add_bias"),
                helper.make_node("Add", ["xwb", "m"], ["y"], name="add_m")],
               [f32("x", ["batch", "seq", 32]), f32("m", ["batch", "seq", 16])],
               [f32("y", ["batch", "seq", 16])],
               [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")],
               value_info=[f32("xw", ["batch", "seq", 16])]),
         "matmul_add.onnx")
    x = rng.standard_normal((2, 5, 32)).astype(np.float32)
    m = rng.standard_normal((2, 5, 16)).astype(np.float32)
    y = (x.astype(np.float64) @ w.astype(np.float64) + b + m).astype(np.float32)
    np.save(os.path.join(HERE, "x.npy"), x)
    np.save(os.path.join(HERE, "m.npy"), m)
    np.save(os.path.join(HERE, "y.npy"), y)
    np.save(os.path.join(HERE, "m_batch3.npy"),
            rng.standard_normal((3, 5, 16)).astype(np.float32))

    w2 = (rng.standard_normal((32, 8)) * 0.2).astype(np.float32)
    z = helper.make_tensor_value_info("z", TensorProto.FLOAT, None)
    save(model([helper.make_node("MatMul", ["x", "w2"], ["y"], name="matmul"),
                helper.make_node("Relu", ["z"], ["r"], name="relu")],
               [f32("x", [None, 32]), z], [f32("y", [None, 8]), f32("r", None)],
               [numpy_helper.from_array(w2, "w2")], check=False),
         "anonymous.onnx")


if __name__ == "__main__":
    main()
