"""ResNet-18's layers one by one in PyTorch (cuDNN, fp32, TF32 off) on the
GPU: the per-layer side of bench/cuda_model.sh, for comparing with tirc's
kernels one by one (bench/cuda_pack.sh's run.sh times those with Nsight
Compute). Each step of resnet18_spec.layers() runs alone on its inputs from
one forward pass, timed with CUDA events, best of 50 after 10 warm-ups.

  python3 cuda_model_layers.py --input input.bin
"""
import argparse

import numpy as np

import cuda_model_peer as peer
import resnet18_spec as spec

RUNS, WARMUPS = 50, 10


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--input", required=True)
    args = parser.parse_args()

    import torch
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cudnn.benchmark = True
    model = peer.torch_model(torch).cuda().eval()
    x = torch.from_numpy(np.fromfile(args.input, dtype=np.float32).reshape(spec.INPUT_SHAPE)).cuda()
    F = torch.nn.functional

    def step_fn(step, values):
        kind = step[0]
        if kind == "conv":
            _, name, src, _, *_, relu = step
            conv = model.convs[name.replace(".", "_")]
            return (lambda: torch.relu(conv(values[src]))) if relu else (lambda: conv(values[src]))
        if kind == "maxpool":
            return lambda: F.max_pool2d(values[step[2]], 3, 2, 1)
        if kind == "add_relu":
            return lambda: torch.relu(values[step[2]] + values[step[3]])
        return lambda: model.fc(torch.flatten(F.adaptive_avg_pool2d(values[step[2]], 1), 1))

    print(f"# GPU: {torch.cuda.get_device_name(0)}; torch {torch.__version__}, cuDNN {torch.backends.cudnn.version()}")
    print(f"# each layer alone, best of {RUNS} after {WARMUPS} warm-ups, CUDA events")
    print(f"{'layer':<24} {'kind':<9} {'ms':>9}")
    total = 0.0
    with torch.no_grad():
        values = {"input": x}
        for step in spec.layers():
            run = step_fn(step, values)
            for _ in range(WARMUPS):
                run()
            best = float("inf")
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            for _ in range(RUNS):
                start.record()
                run()
                end.record()
                end.synchronize()
                best = min(best, start.elapsed_time(end))
            values[step[3] if step[0] != "add_relu" else step[4]] = run()
            total += best
            print(f"{step[1]:<24} {step[0]:<9} {best:9.4f}")
    print(f"{'sum of layers':<34} {total:9.4f}")


if __name__ == "__main__":
    main()
