#!/usr/bin/python3
"""Writes the example ONNX models in ONNX's backend-test layout:

    examples/models/<name>/model.onnx
    examples/models/<name>/test_data_set_0/input_0.pb, output_0.pb  (TensorProto)

  cnn                Conv+BatchNorm+Relu, MaxPool, Conv+Relu, depthwise Conv+Relu,
                     GlobalAveragePool, Flatten, Gemm            input [1,3,32,32]
  mlp                3 x (MatMul+Add), Relu, Softmax             input [4,64]
  transformer_block  pre-LN attention block as exporters write it (opset 17):
                     LayerNorm decomposed and as the op, Shape->Gather->Unsqueeze->
                     Concat reshape targets, Erf Gelu            input [1,16,32]
  mlp_external       the mlp with its weights in model.onnx.data (external data)

The reference outputs are computed with numpy in float64 from the float32
weights and inputs, then cast to float32. Deterministic (fixed seed); needs
python3-onnx 1.12 and python3-numpy. Run: /usr/bin/python3 examples/models/make_models.py
"""
import math
import os
import shutil

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
SEED = 20240605


class Builder:
    """Collects nodes and float32 initializers; keeps float64 copies for the reference."""

    def __init__(self, rng):
        self.rng = rng
        self.nodes = []
        self.inits = []
        self.count = {}

    def name(self, op):
        self.count[op] = self.count.get(op, 0) + 1
        return "%s_%d" % (op.lower(), self.count[op])

    def weight(self, name, shape, scale):
        w = (self.rng.standard_normal(shape) * scale).astype(np.float32)
        self.inits.append(numpy_helper.from_array(w, name))
        return name, w.astype(np.float64)

    def const(self, name, array):
        self.inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def node(self, op, inputs, outputs=None, **attrs):
        name = self.name(op)
        outputs = outputs or [name + "_out"]
        self.nodes.append(helper.make_node(op, inputs, outputs, name=name, **attrs))
        return outputs[0] if len(outputs) == 1 else outputs

    def model(self, graph_name, x_shape, y_shape, opset):
        graph = helper.make_graph(
            self.nodes, graph_name,
            [helper.make_tensor_value_info("input", TensorProto.FLOAT, x_shape)],
            [helper.make_tensor_value_info("output", TensorProto.FLOAT, y_shape)],
            initializer=self.inits)
        m = helper.make_model(graph, producer_name="tirc-examples",
                              opset_imports=[helper.make_opsetid("", opset)])
        m.ir_version = 8
        onnx.checker.check_model(m)
        return m


# ---- float64 numpy references ------------------------------------------------

def conv2d(x, w, b=None, pad=0, group=1):
    n, c, h, wd = x.shape
    oc, icg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = h + 2 * pad - kh + 1, wd + 2 * pad - kw + 1
    out = np.zeros((n, oc, oh, ow))
    ocg = oc // group
    for g in range(group):
        xs = xp[:, g * icg:(g + 1) * icg]
        ws = w[g * ocg:(g + 1) * ocg]
        for i in range(kh):
            for j in range(kw):
                patch = xs[:, :, i:i + oh, j:j + ow]
                out[:, g * ocg:(g + 1) * ocg] += np.einsum("nchw,oc->nohw", patch, ws[:, :, i, j])
    if b is not None:
        out += b.reshape(1, -1, 1, 1)
    return out


def relu(x):
    return np.maximum(x, 0)


def softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def layer_norm(x, gamma, beta, eps):
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * gamma + beta


erf = np.vectorize(math.erf)


# ---- the models --------------------------------------------------------------

def make_cnn(rng):
    b = Builder(rng)
    x = rng.standard_normal((1, 3, 32, 32)).astype(np.float32)
    w1, w1v = b.weight("conv1.weight", (8, 3, 3, 3), 1 / math.sqrt(27))
    bn_s, bn_sv = b.weight("bn1.weight", (8,), 0.2)
    bn_sv = bn_sv + 1
    b.inits[-1] = numpy_helper.from_array(bn_sv.astype(np.float32), "bn1.weight")
    bn_b, bn_bv = b.weight("bn1.bias", (8,), 0.1)
    bn_m, bn_mv = b.weight("bn1.running_mean", (8,), 0.1)
    bn_v = "bn1.running_var"
    bn_vv = (rng.uniform(0.5, 1.5, (8,))).astype(np.float32)
    b.inits.append(numpy_helper.from_array(bn_vv, bn_v))
    bn_vv = bn_vv.astype(np.float64)
    w2, w2v = b.weight("conv2.weight", (16, 8, 3, 3), 1 / math.sqrt(72))
    b2, b2v = b.weight("conv2.bias", (16,), 0.1)
    w3, w3v = b.weight("dwconv.weight", (16, 1, 3, 3), 1 / 3)
    b3, b3v = b.weight("dwconv.bias", (16,), 0.1)
    wf, wfv = b.weight("fc.weight", (10, 16), 1 / 4)
    bf, bfv = b.weight("fc.bias", (10,), 0.1)

    t = b.node("Conv", ["input", w1], kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    t = b.node("BatchNormalization", [t, bn_s, bn_b, bn_m, bn_v], epsilon=1e-5)
    t = b.node("Relu", [t])
    t = b.node("MaxPool", [t], kernel_shape=[2, 2], strides=[2, 2])
    t = b.node("Conv", [t, w2, b2], kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    t = b.node("Relu", [t])
    t = b.node("Conv", [t, w3, b3], kernel_shape=[3, 3], pads=[1, 1, 1, 1], group=16)
    t = b.node("Relu", [t])
    t = b.node("GlobalAveragePool", [t])
    t = b.node("Flatten", [t], axis=1)
    b.node("Gemm", [t, wf, bf], ["output"], transB=1)
    model = b.model("cnn", [1, 3, 32, 32], [1, 10], 13)

    r = conv2d(x.astype(np.float64), w1v, pad=1)
    r = (r - bn_mv.reshape(1, -1, 1, 1)) / np.sqrt(bn_vv.reshape(1, -1, 1, 1) + 1e-5)
    r = r * bn_sv.reshape(1, -1, 1, 1) + bn_bv.reshape(1, -1, 1, 1)
    r = relu(r)
    r = r.reshape(1, 8, 16, 2, 16, 2).max(axis=(3, 5))
    r = relu(conv2d(r, w2v, b2v, pad=1))
    r = relu(conv2d(r, w3v, b3v, pad=1, group=16))
    r = r.mean(axis=(2, 3))
    r = r @ wfv.T + bfv
    return model, x, r


def mlp_builder(rng):
    b = Builder(rng)
    x = rng.standard_normal((4, 64)).astype(np.float32)
    ref = x.astype(np.float64)
    t = "input"
    sizes = [64, 128, 64, 10]
    for i in range(3):
        w, wv = b.weight("fc%d.weight" % (i + 1), (sizes[i], sizes[i + 1]), 1 / math.sqrt(sizes[i]))
        bias, bv = b.weight("fc%d.bias" % (i + 1), (sizes[i + 1],), 0.1)
        t = b.node("Add", [b.node("MatMul", [t, w]), bias])
        ref = ref @ wv + bv
        if i < 2:
            t = b.node("Relu", [t])
            ref = relu(ref)
    b.node("Softmax", [t], ["output"], axis=-1)
    return b.model("mlp", [4, 64], [4, 10], 13), x, softmax(ref)


def make_transformer_block(rng):
    b = Builder(rng)
    seq, d, heads = 16, 32, 2
    dk = d // heads
    x = rng.standard_normal((1, seq, d)).astype(np.float32)
    xr = x.astype(np.float64)
    eps = 1e-5

    # LayerNorm as exporters decompose it.
    g1, g1v = b.weight("ln1.weight", (d,), 0.1)
    g1v = g1v + 1
    b.inits[-1] = numpy_helper.from_array(g1v.astype(np.float32), g1)
    be1, be1v = b.weight("ln1.bias", (d,), 0.1)
    two = b.const("two", np.array(2.0, np.float32))
    eps_c = b.const("eps", np.array(eps, np.float32))
    mean = b.node("ReduceMean", ["input"], axes=[-1], keepdims=1)
    centered = b.node("Sub", ["input", mean])
    var = b.node("ReduceMean", [b.node("Pow", [centered, two])], axes=[-1], keepdims=1)
    std = b.node("Sqrt", [b.node("Add", [var, eps_c])])
    h = b.node("Add", [b.node("Mul", [b.node("Div", [centered, std]), g1]), be1])
    hr = layer_norm(xr, g1v, be1v, eps)

    # Reshape targets computed from the runtime shape, as exported models do.
    shape = b.node("Shape", [h])
    zero = b.const("idx0", np.array(0, np.int64))
    one = b.const("idx1", np.array(1, np.int64))
    axes0 = b.const("axes0", np.array([0], np.int64))
    batch = b.node("Unsqueeze", [b.node("Gather", [shape, zero], axis=0), axes0])
    length = b.node("Unsqueeze", [b.node("Gather", [shape, one], axis=0), axes0])
    heads_c = b.const("num_heads", np.array([heads], np.int64))
    dk_c = b.const("head_dim", np.array([dk], np.int64))
    d_c = b.const("model_dim", np.array([d], np.int64))
    split_shape = b.node("Concat", [batch, length, heads_c, dk_c], axis=0)
    merged_shape = b.node("Concat", [batch, length, d_c], axis=0)

    proj = {}
    for p in ["q", "k", "v"]:
        w, wv = b.weight("attn.%s.weight" % p, (d, d), 1 / math.sqrt(d))
        bias, bv = b.weight("attn.%s.bias" % p, (d,), 0.1)
        t = b.node("Add", [b.node("MatMul", [h, w]), bias])
        t = b.node("Reshape", [t, split_shape])
        perm = [0, 2, 3, 1] if p == "k" else [0, 2, 1, 3]
        proj[p] = b.node("Transpose", [t], perm=perm)
        r = (hr @ wv + bv).reshape(1, seq, heads, dk)
        proj[p + "_ref"] = r.transpose(perm)
    sqrt_dk = b.const("sqrt_dk", np.array(math.sqrt(dk), np.float32))
    scores = b.node("Div", [b.node("MatMul", [proj["q"], proj["k"]]), sqrt_dk])
    probs = b.node("Softmax", [scores], axis=-1)
    ctx = b.node("Transpose", [b.node("MatMul", [probs, proj["v"]])], perm=[0, 2, 1, 3])
    ctx = b.node("Reshape", [ctx, merged_shape])
    wo, wov = b.weight("attn.out.weight", (d, d), 1 / math.sqrt(d))
    bo, bov = b.weight("attn.out.bias", (d,), 0.1)
    attn = b.node("Add", [b.node("MatMul", [ctx, wo]), bo])
    res1 = b.node("Add", ["input", attn])
    probs_r = softmax(proj["q_ref"] @ proj["k_ref"] / math.sqrt(dk))
    ctx_r = (probs_r @ proj["v_ref"]).transpose(0, 2, 1, 3).reshape(1, seq, d)
    res1_r = xr + (ctx_r @ wov + bov)

    # The opset-17 LayerNormalization op, then the Erf Gelu MLP.
    g2, g2v = b.weight("ln2.weight", (d,), 0.1)
    g2v = g2v + 1
    b.inits[-1] = numpy_helper.from_array(g2v.astype(np.float32), g2)
    be2, be2v = b.weight("ln2.bias", (d,), 0.1)
    h2 = b.node("LayerNormalization", [res1, g2, be2], axis=-1, epsilon=eps)
    h2r = layer_norm(res1_r, g2v, be2v, eps)
    w1, w1v = b.weight("mlp.fc1.weight", (d, 2 * d), 1 / math.sqrt(d))
    b1, b1v = b.weight("mlp.fc1.bias", (2 * d,), 0.1)
    w2, w2v = b.weight("mlp.fc2.weight", (2 * d, d), 1 / math.sqrt(2 * d))
    b2, b2v = b.weight("mlp.fc2.bias", (d,), 0.1)
    sqrt2 = b.const("sqrt2", np.array(math.sqrt(2), np.float32))
    one_f = b.const("one", np.array(1.0, np.float32))
    half = b.const("half", np.array(0.5, np.float32))
    f1 = b.node("Add", [b.node("MatMul", [h2, w1]), b1])
    erf_t = b.node("Erf", [b.node("Div", [f1, sqrt2])])
    gelu = b.node("Mul", [b.node("Mul", [f1, b.node("Add", [erf_t, one_f])]), half])
    f2 = b.node("Add", [b.node("MatMul", [gelu, w2]), b2])
    b.node("Add", [res1, f2], ["output"])
    f1r = h2r @ w1v + b1v
    gelu_r = f1r * 0.5 * (1 + erf(f1r / math.sqrt(2)))
    out_r = res1_r + (gelu_r @ w2v + b2v)
    return b.model("transformer_block", [1, seq, d], [1, seq, d], 17), x, out_r


def write(name, model, x, ref, external=False):
    out_dir = os.path.join(HERE, name)
    if os.path.isdir(out_dir):
        shutil.rmtree(out_dir)
    os.makedirs(os.path.join(out_dir, "test_data_set_0"))
    path = os.path.join(out_dir, "model.onnx")
    if external:
        onnx.save_model(model, path, save_as_external_data=True, all_tensors_to_one_file=True,
                        location="model.onnx.data", size_threshold=0)
    else:
        onnx.save_model(model, path)
    data = os.path.join(out_dir, "test_data_set_0")
    with open(os.path.join(data, "input_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(x, "input").SerializeToString())
    y = ref.astype(np.float32)
    with open(os.path.join(data, "output_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(y, "output").SerializeToString())


def main():
    write("cnn", *make_cnn(np.random.default_rng(SEED)))
    write("mlp", *mlp_builder(np.random.default_rng(SEED + 1)))
    write("transformer_block", *make_transformer_block(np.random.default_rng(SEED + 2)))
    write("mlp_external", *mlp_builder(np.random.default_rng(SEED + 1)), external=True)


if __name__ == "__main__":
    main()
