#!/usr/bin/env bash
# Builds the fuzzers (clang 19, libFuzzer) of a preset, by default the fuzz
# preset (-O2, only the libraries they link), and runs the fuzzers side by
# side for SECONDS (default: $TIRC_FUZZ_SECONDS, else 60), each on a temporary copy of
# its corpus, so new inputs do not land in the repository. Any crash, sanitizer
# report, leak or slow input fails the run; the reproducer is kept under
# build/<preset>/artifacts/ (add it to the corpus with the fix).
#   test/fuzz/run.sh            # 60 s each on the fuzz preset
#   test/fuzz/run.sh 60 asan    # the fuzzers the asan preset built (CI: no third build)
#   test/fuzz/run.sh 3600       # a long run
set -euo pipefail
cd "$(dirname "$0")/../.."

seconds="${1:-${TIRC_FUZZ_SECONDS:-60}}"
preset="${2:-fuzz}"
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" --target parser_fuzzer onnx_fuzzer trace_fuzzer

artifacts="$PWD/build/$preset/artifacts"
mkdir -p "$artifacts"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The fuzzers run at once (each for SECONDS of wall time), each into its own
# log, printed when all are done.
pids=()
for pair in parser_fuzzer:corpus onnx_fuzzer:onnx_corpus trace_fuzzer:trace_corpus; do
  fuzzer="${pair%%:*}"
  corpus="${pair#*:}"
  cp -r "test/fuzz/$corpus" "$work/$corpus"
  # -timeout: one input slower than 10 s is a hang; -rss_limit_mb bounds memory.
  "build/$preset/test/fuzz/$fuzzer" "$work/$corpus" -max_total_time="$seconds" -timeout=10 \
    -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$artifacts/$fuzzer-" \
    >"$work/$fuzzer.log" 2>&1 &
  pids+=("$fuzzer:$!")
done
failed=0
for entry in "${pids[@]}"; do
  fuzzer="${entry%%:*}"
  status=0
  wait "${entry#*:}" || status=$?
  echo "=== $fuzzer: ${seconds}s (exit $status) ==="
  cat "$work/$fuzzer.log"
  [ "$status" -eq 0 ] || failed=1
done
exit "$failed"
