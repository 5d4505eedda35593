"""ResNet-18 (torchvision's, batch norm folded into the convolutions' biases)
with weights and input from a fixed formula, so that two machines build the
same network without carrying its 45 MB of weights: bench/cuda_model.sh
builds the ONNX model here for tirc, and bench/cuda_model_peer.py builds the
same network in PyTorch on the GPU machine.

  python resnet18_spec.py --onnx OUT.onnx --input OUT.bin

writes the model (needs the onnx package) and its input as raw float32.
"""
import argparse

import numpy as np

INPUT_SHAPE = (1, 3, 224, 224)
OUTPUT_SHAPE = (1, 1000)


def det_uniform(count, seed):
    """count float32 values in [-0.5, 0.5) from integer arithmetic only (a
    multiplicative hash of the index): the same bits on any machine and any
    numpy version."""
    i = np.arange(count, dtype=np.uint64)
    h = (i * np.uint64(2654435761) + np.uint64(seed) * np.uint64(40503)) % np.uint64(2**32)
    return (h.astype(np.float64) / 2.0**32 - 0.5).astype(np.float32)


def conv_params(index, c_out, c_in, k):
    """Weights (He-uniform range) and bias of the index-th convolution."""
    fan_in = c_in * k * k
    w = det_uniform(c_out * fan_in, 2 * index + 1) * np.float32(2.0 * np.sqrt(6.0 / fan_in))
    b = det_uniform(c_out, 2 * index + 2) * np.float32(0.1)
    return w.reshape(c_out, c_in, k, k), b


def layers():
    """The network as a list of steps, in order:
    ("conv", name, input, output, c_in, c_out, kernel, stride, pad, relu)
    ("maxpool", name, input, output), ("add_relu", name, a, b, output),
    ("head", name, input, output): global average pool, flatten, 512 -> 1000."""
    steps = [("conv", "conv1", "input", "c1", 3, 64, 7, 2, 3, True), ("maxpool", "pool", "c1", "p1")]
    x, c = "p1", 64
    for stage, width in enumerate([64, 128, 256, 512], start=1):
        for block in range(2):
            stride = 2 if stage > 1 and block == 0 else 1
            name = f"layer{stage}.{block}"
            steps.append(("conv", name + ".conv1", x, name + ".a", c, width, 3, stride, 1, True))
            steps.append(("conv", name + ".conv2", name + ".a", name + ".b", width, width, 3, 1, 1, False))
            skip = x
            if stride != 1 or c != width:
                skip = name + ".down"
                steps.append(("conv", name + ".downsample", x, skip, c, width, 1, stride, 0, False))
            steps.append(("add_relu", name + ".add", name + ".b", skip, name + ".out"))
            x, c = name + ".out", width
    steps.append(("head", "fc", x, "output"))
    return steps


def fc_params():
    w = det_uniform(1000 * 512, 9001) * np.float32(2.0 * np.sqrt(6.0 / 512))
    b = det_uniform(1000, 9002) * np.float32(0.1)
    return w.reshape(1000, 512), b


def model_input():
    return (det_uniform(int(np.prod(INPUT_SHAPE)), 7) * np.float32(4.0)).reshape(INPUT_SHAPE)


def onnx_model():
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    nodes, inits = [], []
    conv_index = 0
    for step in layers():
        kind, name = step[0], step[1]
        if kind == "conv":
            _, _, src, dst, c_in, c_out, k, stride, pad, relu = step
            w, b = conv_params(conv_index, c_out, c_in, k)
            conv_index += 1
            inits += [numpy_helper.from_array(w, name + ".weight"), numpy_helper.from_array(b, name + ".bias")]
            out = dst + ".pre" if relu else dst
            nodes.append(helper.make_node("Conv", [src, name + ".weight", name + ".bias"], [out], name=name,
                                          kernel_shape=[k, k], strides=[stride, stride], pads=[pad] * 4))
            if relu:
                nodes.append(helper.make_node("Relu", [out], [dst], name=name + ".relu"))
        elif kind == "maxpool":
            _, _, src, dst = step
            nodes.append(helper.make_node("MaxPool", [src], [dst], name=name, kernel_shape=[3, 3], strides=[2, 2],
                                          pads=[1, 1, 1, 1]))
        elif kind == "add_relu":
            _, _, a, b, dst = step
            nodes.append(helper.make_node("Add", [a, b], [dst + ".sum"], name=name))
            nodes.append(helper.make_node("Relu", [dst + ".sum"], [dst], name=name + ".relu"))
        else:
            _, _, src, dst = step
            w, b = fc_params()
            inits += [numpy_helper.from_array(w, "fc.weight"), numpy_helper.from_array(b, "fc.bias")]
            nodes.append(helper.make_node("GlobalAveragePool", [src], ["gap"], name="avgpool"))
            nodes.append(helper.make_node("Flatten", ["gap"], ["flat"], name="flatten", axis=1))
            nodes.append(helper.make_node("Gemm", ["flat", "fc.weight", "fc.bias"], [dst], name=name, transB=1))
    graph = helper.make_graph(nodes, "resnet18", [helper.make_tensor_value_info("input", TensorProto.FLOAT,
                                                                                 list(INPUT_SHAPE))],
                              [helper.make_tensor_value_info("output", TensorProto.FLOAT, list(OUTPUT_SHAPE))],
                              inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="tirc-bench")
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--onnx", help="write the ONNX model here")
    parser.add_argument("--input", help="write the input here (raw float32, NCHW)")
    args = parser.parse_args()
    if args.onnx:
        import onnx
        onnx.save(onnx_model(), args.onnx)
    if args.input:
        model_input().tofile(args.input)


if __name__ == "__main__":
    main()
