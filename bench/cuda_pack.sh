#!/bin/bash
# Everything a GPU machine should run, packed in one directory to copy there:
#
#   bench/cuda_pack.sh [OUTDIR]          (default OUTDIR: build/cuda_pack)
#
# Builds, here (the release build and the CUDA toolkit, no GPU):
#   OUTDIR/bundle/<case>/  the [cuda] tests' harnesses, inputs and the
#                          interpreter's outputs (TIRC_CUDA_BUNDLE);
#   OUTDIR/mm/             bench/cuda_matmul.sh's benchmark (vs cuBLAS);
#   OUTDIR/model/          bench/cuda_model.sh's ResNet-18 (vs PyTorch);
#   OUTDIR/run.sh          the script to run there;
# and OUTDIR.tar.xz of it all (about 23 MB). On the GPU machine, unpacked,
# `OUTDIR/run.sh` runs every harness (each case equal to the interpreter),
# both benchmarks, and compute-sanitizer's racecheck and memcheck on the
# hand-written, tensor-core and model harnesses where compute-sanitizer is
# there; it prints a summary last and exits 1 if a case failed.
set -euo pipefail

out=build/cuda_pack
if (( $# )); then out=$(realpath -m "$1"); fi
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
tests=build/release/test/tirc_unit_tests
if [[ ! -x $tests ]]; then
  echo "cuda_pack.sh: $tests is missing: cmake --build --preset release" >&2
  exit 2
fi
rm -rf "$out"
mkdir -p "$out"
TIRC_CUDA_BUNDLE="$out/bundle" "$tests" "[cuda]" > "$out.bundle.log" 2>&1 || {
  tail -20 "$out.bundle.log" >&2
  exit 1
}
bash bench/cuda_matmul.sh "$out/mm"
bash bench/cuda_model.sh "$out/model"
# Intermediate files the executables no longer need (90 MB beside the model).
rm -rf "$out/mm/gen" "$out/model.gen" "$out.bundle.log"

cat > "$out/run.sh" <<'RUN'
#!/bin/bash
# On the GPU machine (bench/cuda_pack.sh): every harness, both benchmarks, the sanitizers.
cd "$(dirname "$0")"
failed=0
summary=""
for d in bundle/*/; do
  n=$(basename "$d")
  log=$(cd "$d" && timeout 120 ./prog manifest.rel 2>&1); rc=$?
  ok=$(grep -c '^ok ' <<<"$log" || true); bad=$(grep -c '^FAIL ' <<<"$log" || true)
  grep '^FAIL ' <<<"$log" || true
  summary+="harnesses $n: $ok equal, $bad different (status $rc)"$'\n'
  if (( rc != 0 || bad != 0 )); then failed=1; fi
done
cb=$(find / -name 'libcublas.so.13*' -not -path '/proc/*' 2>/dev/null | head -1 || true)
if [[ -n $cb ]]; then export LD_LIBRARY_PATH=$(dirname "$cb"):${LD_LIBRARY_PATH:-}; fi
(cd mm && timeout 300 ./cuda_matmul_bench) || failed=1
(cd model && timeout 300 ./run.sh) || failed=1
if command -v compute-sanitizer > /dev/null; then
  for n in kernels tensor_cores; do
    r=$(cd "bundle/$n" && timeout 120 compute-sanitizer --tool racecheck ./prog manifest.rel 2>&1 |
        grep 'RACECHECK SUMMARY' || true)
    summary+="racecheck $n: ${r:-did not finish}"$'\n'
  done
  r=$(cd bundle/models && timeout 120 compute-sanitizer --tool memcheck ./prog manifest.rel 2>&1 |
      grep 'ERROR SUMMARY' || true)
  summary+="memcheck models: ${r:-did not finish}"$'\n'
fi
printf '%s' "$summary"
exit $failed
RUN
chmod +x "$out/run.sh"
tar -C "$(dirname "$out")" -cf - "$(basename "$out")" | xz -9 -T2 > "$out.tar.xz"
echo "built $out and $out.tar.xz ($(du -h "$out.tar.xz" | cut -f1)): unpack it on a machine with an NVIDIA"
echo "GPU, its driver, CUDA 13's cuBLAS and PyTorch, and run $(basename "$out")/run.sh there"
