#!/usr/bin/env bash
# Installs every Debian package tirc needs to build, test and benchmark.
# Idempotent and non-interactive; run as root (or through sudo) on Debian 12.
set -euo pipefail

packages=(
  # toolchain
  build-essential cmake ninja-build git python3
  # compiler infrastructure (LLVM 19 for codegen/llvm, FileCheck and lit for tests,
  # clang-19 for libFuzzer targets)
  llvm-19-dev llvm-19-tools clang-19 lld-19 libclang-rt-19-dev libzstd-dev
  # libraries of the design
  libcli11-dev libspdlog-dev catch2 libxbyak-dev
  libonnx-dev libprotobuf-dev protobuf-compiler libsqlite3-dev nlohmann-json3-dev
  # the tuner's cost model (gradient-boosted trees); xgboost's CMake config needs the CLI too
  libxgboost-dev xgboost
  # the learned loop policy's network and its training (tuner/policy/)
  libtorch-dev
  # CPU caches and cores for the default schedules (tuner/space/cpu_model.h)
  libcpuinfo-dev pkg-config
  # model generation scripts (examples/models/make_models.py)
  python3-onnx python3-numpy
  # test and benchmark oracles
  libopenblas-dev libdnnl-dev ocl-icd-opencl-dev libonnx-testdata
  # AArch64 objects of the LLVM generator: linked by the cross compiler, run under emulation
  qemu-user gcc-aarch64-linux-gnu libc6-dev-arm64-cross
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
echo "install-deps: installing ${missing[*]}"
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
