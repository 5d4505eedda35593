#!/usr/bin/python3
"""Exports torchvision image classifiers with random weights to ONNX, in
ONNX's backend-test layout, for bench/run_model_bench.sh:

    OUT/<name>/model.onnx                         opset 17, input [1,3,224,224]
    OUT/<name>/test_data_set_0/input_0.pb         the input (TensorProto)
    OUT/<name>/test_data_set_0/output_0.pb        torch's output for it

  resnet18, mobilenet_v2, squeezenet1_1   (weights=None: no download; the
                                           weights come from a fixed seed)

Needs Debian's python3-torch and python3-torchvision (benchmarks only; the
build and tests never do). Run: /usr/bin/python3 examples/models/export_torchvision.py [OUT]
(default OUT: build/models). The models are tens of MB: they are made, not
committed.
"""
import os
import struct
import sys

import torch
import torchvision

SEED = 20240611
MODELS = {
    "resnet18": torchvision.models.resnet18,
    "mobilenet_v2": torchvision.models.mobilenet_v2,
    "squeezenet1_1": torchvision.models.squeezenet1_1,
}


def varint(n):
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def tensor_proto(array):
    """A float32 TensorProto (dims = field 1, data_type = 2, raw_data = 9),
    written by hand so that exporting needs no onnx Python package."""
    assert array.dtype == torch.float32
    array = array.contiguous()
    out = bytearray()
    for d in array.shape:
        out += varint(1 << 3 | 0) + varint(d)
    out += varint(2 << 3 | 0) + varint(1)  # TensorProto.FLOAT
    raw = struct.pack("<%df" % array.numel(), *array.flatten().tolist())
    out += varint(9 << 3 | 2) + varint(len(raw)) + raw
    return bytes(out)


def export(name, make, out_dir):
    torch.manual_seed(SEED)
    model = make(weights=None).eval()
    x = torch.randn(1, 3, 224, 224)
    with torch.no_grad():
        y = model(x)
    model_dir = os.path.join(out_dir, name)
    data_dir = os.path.join(model_dir, "test_data_set_0")
    os.makedirs(data_dir, exist_ok=True)
    torch.onnx.export(model, x, os.path.join(model_dir, "model.onnx"), opset_version=17,
                      input_names=["input"], output_names=["output"], do_constant_folding=True)
    with open(os.path.join(data_dir, "input_0.pb"), "wb") as f:
        f.write(tensor_proto(x))
    with open(os.path.join(data_dir, "output_0.pb"), "wb") as f:
        f.write(tensor_proto(y))
    print("wrote", model_dir)


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join("build", "models")
    torch.set_num_threads(1)
    for name, make in MODELS.items():
        export(name, make, out_dir)


if __name__ == "__main__":
    main()
