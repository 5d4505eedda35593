#!/bin/bash
# Model benchmark: tirc (default schedules) vs onnxruntime on the same inputs.
#
#   bench/run_model_bench.sh [--min-time SECONDS] [--db tune.db]
#
# Exports ResNet-18, MobileNetV2 and SqueezeNet 1.1 (random weights) with
# Debian's python3-torch/python3-torchvision into build/models/ (installing
# them if missing: they are benchmark-only, never build or test dependencies),
# makes a venv build/bench-venv with onnxruntime from PyPI, then runs
# tirc_model_bench (build/release) on those and the example models (cnn, mlp,
# transformer_block) at 1 and 2 threads, times onnxruntime at
# intra_op_num_threads 1 and 2, and prints both side by side with their ratio,
# the geomean ratio and tirc's compile time per model. Needs the release build
# (cmake --build --preset release). Exit status 1 when a model's output does
# not match its reference. --db: tirc's kernels with a tuning record for the
# thread count (tirc tune --db --threads N) are scheduled by it.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
min_time=1.0
db_flags=()
while (( $# )); do
  case $1 in
    --min-time) min_time=$2; shift 2 ;;
    --db) db_flags=(--db "$2"); shift 2 ;;
    *) echo "usage: $0 [--min-time SECONDS] [--db tune.db]" >&2; exit 2 ;;
  esac
done
bench=build/release/bench/tirc_model_bench
venv=build/bench-venv
models=build/models

if [[ ! -x $bench ]]; then
  echo "run_model_bench.sh: $bench is missing: cmake --build --preset release" >&2
  exit 2
fi

missing=()
for pkg in python3-torch python3-torchvision python3-venv; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if (( ${#missing[@]} )); then
  echo "installing ${missing[*]} (benchmark only)" >&2
  sudo=""; [[ $(id -u) == 0 ]] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

for m in resnet18 mobilenet_v2 squeezenet1_1; do
  if [[ ! -f $models/$m/model.onnx ]]; then
    /usr/bin/python3 examples/models/export_torchvision.py "$models"
    break
  fi
done

if [[ ! -x $venv/bin/python ]] || ! "$venv/bin/python" -c "import onnxruntime, numpy" 2>/dev/null; then
  /usr/bin/python3 -m venv "$venv"
  "$venv/bin/pip" install -q onnxruntime numpy
fi

dirs=("$models/resnet18" "$models/mobilenet_v2" "$models/squeezenet1_1"
      examples/models/cnn examples/models/mlp examples/models/transformer_block)
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) (other work on the machine slows both sides)"
lines=$(mktemp)
trap 'rm -f "$lines"' EXIT
status=0
"$bench" --min-time "$min_time" --threads 1,2 "${db_flags[@]}" "${dirs[@]}" | tee "$lines" || status=1
"$venv/bin/python" bench/ort_bench.py --tirc "$lines" --threads 1,2 --min-time "$min_time" "${dirs[@]}"
exit $status
