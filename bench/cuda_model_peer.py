"""The peers' side of bench/cuda_model.sh, run on the GPU machine after
cuda_model_bench: the same ResNet-18 (resnet18_spec.py) in PyTorch on the GPU
(cuDNN's convolutions, fp32 with TF32 off, as tirc computes) and, where
onnxruntime has its CUDA provider there, through onnxruntime; checks tirc's
output against PyTorch's and prints the latencies side by side.

  python3 cuda_model_peer.py --input input.bin --tirc-output output.bin --tirc tirc.txt

tirc.txt: cuda_model_bench's output (its "tirc ... latency_ms=X" line).
Exit status 1 when tirc's output differs from PyTorch's beyond the tolerance.
"""
import argparse
import re
import sys
import time

import numpy as np

import resnet18_spec as spec

RUNS, WARMUPS = 100, 10


def torch_model(torch):
    nn = torch.nn

    class ResNet18(nn.Module):
        def __init__(self):
            super().__init__()
            self.steps = spec.layers()
            self.convs = nn.ModuleDict()
            index = 0
            for step in self.steps:
                if step[0] != "conv":
                    continue
                _, name, _, _, c_in, c_out, k, stride, pad, _ = step
                conv = nn.Conv2d(c_in, c_out, k, stride=stride, padding=pad, bias=True)
                w, b = spec.conv_params(index, c_out, c_in, k)
                index += 1
                conv.weight.data = torch.from_numpy(w.copy())
                conv.bias.data = torch.from_numpy(b.copy())
                self.convs[name.replace(".", "_")] = conv
            w, b = spec.fc_params()
            self.fc = nn.Linear(512, 1000)
            self.fc.weight.data = torch.from_numpy(w.copy())
            self.fc.bias.data = torch.from_numpy(b.copy())

        def forward(self, x):
            values = {"input": x}
            for step in self.steps:
                kind = step[0]
                if kind == "conv":
                    _, name, src, dst, *_, relu = step
                    y = self.convs[name.replace(".", "_")](values[src])
                    values[dst] = torch.relu(y) if relu else y
                elif kind == "maxpool":
                    values[step[3]] = torch.nn.functional.max_pool2d(values[step[2]], 3, 2, 1)
                elif kind == "add_relu":
                    values[step[4]] = torch.relu(values[step[2]] + values[step[3]])
                else:
                    pooled = torch.flatten(torch.nn.functional.adaptive_avg_pool2d(values[step[2]], 1), 1)
                    values[step[3]] = self.fc(pooled)
            return values["output"]

    return ResNet18()


def time_torch(torch, run):
    """(best GPU ms by CUDA events, best host latency ms with synchronize)."""
    for _ in range(WARMUPS):
        run()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(RUNS)]
    stops = [torch.cuda.Event(enable_timing=True) for _ in range(RUNS)]
    for s, e in zip(starts, stops):
        s.record()
        run()
        e.record()
    torch.cuda.synchronize()
    gpu = min(s.elapsed_time(e) for s, e in zip(starts, stops))
    host = float("inf")
    for _ in range(RUNS):
        t0 = time.perf_counter()
        run()
        torch.cuda.synchronize()
        host = min(host, (time.perf_counter() - t0) * 1e3)
    return gpu, host


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--input", required=True)
    parser.add_argument("--tirc-output", required=True)
    parser.add_argument("--tirc", required=True, help="cuda_model_bench's output")
    parser.add_argument("--rtol", type=float, default=1e-3)
    parser.add_argument("--atol", type=float, default=1e-4)
    args = parser.parse_args()

    import torch
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cudnn.benchmark = True

    x_host = np.fromfile(args.input, dtype=np.float32).reshape(spec.INPUT_SHAPE)
    tirc_out = np.fromfile(args.tirc_output, dtype=np.float32).reshape(spec.OUTPUT_SHAPE)
    model = torch_model(torch).cuda().eval()
    x = torch.from_numpy(x_host).cuda()
    with torch.no_grad():
        ref = model(x).cpu().numpy()
        gpu_ms, host_ms = time_torch(torch, lambda: model(x))
    diff = np.abs(tirc_out.astype(np.float64) - ref)
    bad = int(np.sum(~(diff <= args.atol + args.rtol * np.abs(ref))))
    print(f"# GPU: {torch.cuda.get_device_name(0)}; torch {torch.__version__}, cuDNN {torch.backends.cudnn.version()}")
    print(f"# tirc's output vs PyTorch's: max abs diff {diff.max():.3g}, "
          f"{bad} of {diff.size} outside atol {args.atol} + rtol {args.rtol}")

    rows = [("pytorch (cuDNN, eager, fp32)", gpu_ms, host_ms)]
    try:
        import onnxruntime as ort
        providers = ort.get_available_providers()
        if "CUDAExecutionProvider" in providers:
            session = ort.InferenceSession(spec.onnx_model().SerializeToString(),
                                           providers=["CUDAExecutionProvider"])
            feed = {"input": x_host}
            for _ in range(WARMUPS):
                session.run(None, feed)
            best = float("inf")
            for _ in range(RUNS):
                t0 = time.perf_counter()
                session.run(None, feed)
                best = min(best, (time.perf_counter() - t0) * 1e3)
            rows.append((f"onnxruntime {ort.__version__} CUDA (host copies included)", float("nan"), best))
        else:
            print(f"# onnxruntime {ort.__version__} has no CUDA provider here ({', '.join(providers)})")
    except ImportError as e:
        print(f"# onnxruntime not importable: {e}")

    line = open(args.tirc).read()
    m = re.search(r"gpu_ms=([0-9.]+) latency_ms=([0-9.]+)", line)
    if not m:
        sys.exit("cuda_model_peer.py: no 'tirc ... gpu_ms=... latency_ms=...' line in " + args.tirc)
    tirc_gpu, tirc_host = float(m.group(1)), float(m.group(2))
    print(f"# best of {RUNS} after {WARMUPS} warm-ups; gpu: CUDA events around each call, "
          f"latency: call + synchronize on the host")
    print(f"{'':44s} {'gpu ms':>10s} {'latency ms':>11s} {'tirc/peer':>10s}")
    print(f"{'tirc':44s} {tirc_gpu:10.4f} {tirc_host:11.4f}")
    for name, gpu, host in rows:
        print(f"{name:44s} {gpu:10.4f} {host:11.4f} {tirc_host / host:10.3f}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
