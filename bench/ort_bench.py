"""onnxruntime's side of bench/run_model_bench.sh: times InferenceSession.run
on each model's stored inputs (best of N, intra_op_num_threads = 1 and 2) and
prints the side-by-side table with tirc_model_bench's lines.

  python ort_bench.py --tirc TIRC_LINES [--threads 1,2] [--min-time S] MODEL_DIR...

TIRC_LINES holds tirc_model_bench's output ("tirc model=... threads=..."
lines). Also prints one machine-readable line per model and thread count:
  ort model=NAME threads=N latency_ms=X
Needs onnxruntime and numpy (the bench venv); tirc's build never does.
"""
import argparse
import math
import os
import struct
import time

import numpy as np
import onnxruntime as ort

# TensorProto.DataType -> numpy
DTYPES = {1: np.float32, 6: np.int32, 7: np.int64, 11: np.float64}


def read_varint(buf, pos):
    value, shift = 0, 0
    while True:
        byte = buf[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, pos


def read_tensor(path):
    """A TensorProto file as a numpy array: dims, data_type, and raw_data or
    float_data/int64_data. Parsed by hand: the onnxruntime wheel has no onnx."""
    buf = open(path, "rb").read()
    pos, dims, dtype, raw, floats, ints = 0, [], 1, None, [], []
    while pos < len(buf):
        key, pos = read_varint(buf, pos)
        field, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = read_varint(buf, pos)
            if field == 1:
                dims.append(value)
            elif field == 2:
                dtype = value
            elif field == 7:
                ints.append(value)
        elif wire == 2:
            size, pos = read_varint(buf, pos)
            chunk = buf[pos:pos + size]
            pos += size
            if field == 1:  # packed dims
                p = 0
                while p < len(chunk):
                    v, p = read_varint(chunk, p)
                    dims.append(v)
            elif field == 4:
                floats.extend(struct.unpack("<%df" % (len(chunk) // 4), chunk))
            elif field == 7:
                p = 0
                while p < len(chunk):
                    v, p = read_varint(chunk, p)
                    ints.append(v)
            elif field == 9:
                raw = chunk
        elif wire == 5:
            if field == 4:
                floats.append(struct.unpack("<f", buf[pos:pos + 4])[0])
            pos += 4
        elif wire == 1:
            pos += 8
        else:
            raise ValueError("%s: unsupported protobuf wire type %d" % (path, wire))
    np_type = DTYPES[dtype]
    if raw is not None:
        array = np.frombuffer(raw, dtype=np_type)
    elif floats:
        array = np.array(floats, dtype=np_type)
    else:
        array = np.array([v - (1 << 64) if v >= 1 << 63 else v for v in ints], dtype=np_type)
    return array.reshape(dims)


def best_ms(run, min_time, min_reps=10):
    run()  # warm-up
    best, total, reps = math.inf, 0.0, 0
    while reps < min_reps or total < min_time:
        start = time.perf_counter()
        run()
        dt = time.perf_counter() - start
        best, total, reps = min(best, dt), total + dt, reps + 1
        if total > 30 * min_time and reps > 0:
            break
    return best * 1e3


def time_ort(model_dir, threads, min_time):
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    session = ort.InferenceSession(os.path.join(model_dir, "model.onnx"), options,
                                   providers=["CPUExecutionProvider"])
    feeds = {}
    for i, inp in enumerate(session.get_inputs()):
        feeds[inp.name] = read_tensor(os.path.join(model_dir, "test_data_set_0", "input_%d.pb" % i))
    return best_ms(lambda: session.run(None, feeds), min_time)


def parse_lines(path):
    """{(model, threads): {key: value}} from "tirc k=v ..." lines."""
    out = {}
    for line in open(path):
        words = line.split()
        if not words or words[0] != "tirc":
            continue
        fields = dict(w.split("=", 1) for w in words[1:] if "=" in w)
        out[(fields["model"], int(fields["threads"]))] = fields
    return out


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tirc", required=True)
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--min-time", type=float, default=1.0)
    parser.add_argument("dirs", nargs="+")
    args = parser.parse_args()
    threads = [int(t) for t in args.threads.split(",")]
    tirc = parse_lines(args.tirc)

    rows, ratios = [], {t: [] for t in threads}
    for d in args.dirs:
        name = os.path.basename(os.path.normpath(d))
        row = {"model": name}
        for t in threads:
            ms = time_ort(d, t, args.min_time)
            print("ort model=%s threads=%d latency_ms=%.4f" % (name, t, ms), flush=True)
            row[("ort", t)] = ms
            fields = tirc.get((name, t))
            if fields:
                row[("tirc", t)] = float(fields["latency_ms"])
                row["compile_ms"] = float(fields["compile_ms"])
                row["check"] = fields.get("check", "?")
                ratios[t].append(row[("tirc", t)] / ms)
        rows.append(row)

    print()
    head = "%-18s" % "model"
    for t in threads:
        head += " %10s %10s %7s" % ("tirc %dT ms" % t, "ort %dT ms" % t, "ratio")
    head += " %11s  %s" % ("compile ms", "check")
    print(head)
    for row in rows:
        line = "%-18s" % row["model"]
        for t in threads:
            tirc_ms, ort_ms = row.get(("tirc", t)), row[("ort", t)]
            if tirc_ms is None:
                line += " %10s %10.3f %7s" % ("-", ort_ms, "-")
            else:
                line += " %10.3f %10.3f %7.2f" % (tirc_ms, ort_ms, tirc_ms / ort_ms)
        line += " %11s  %s" % ("%.0f" % row["compile_ms"] if "compile_ms" in row else "-", row.get("check", "-"))
        print(line)
    line = "%-18s" % "geomean"
    for t in threads:
        line += " %10s %10s %7.2f" % ("", "", geomean(ratios[t]))
    print(line)
    print("ratio = tirc latency / onnxruntime latency (below 1: tirc is faster)")


if __name__ == "__main__":
    main()
