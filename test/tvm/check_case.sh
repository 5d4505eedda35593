#!/bin/sh
# One case of the TVM corpus (test/tvm/README.md), as ctest runs it:
#   check_case.sh TIRC CASE_DIR WORK_DIR [INDEX]
# With TIRC_TVM_CORPUS_STRIDE=n (the sanitized CI run) only the cases whose
# INDEX is a multiple of n run; the others exit 77, which ctest reports as
# skipped.
# A base case (func.tir): it verifies, evaluates to TVM's outputs on TVM's
# inputs, and `tirc fmt` is stable on it in both surfaces and keeps its meaning.
# A scheduled case (trace.py, scheduled.tir, base): TVM's scheduled text does
# the same, and TVM's trace replayed by tirc on the base gives a program
# equivalent to TVM's. A case named in refusals.txt must instead be refused
# by the replay with the message written there, or ("text: MESSAGE") TVM's
# scheduled program itself must be refused by tirc check.
set -eu
tirc=$1
case_dir=$2
work=$3
corpus=$(dirname "$case_dir")
name=$(basename "$case_dir")
index=${4:-0}
stride=${TIRC_TVM_CORPUS_STRIDE:-1}
if [ "$stride" -gt 1 ] && [ $((index % stride)) -ne 0 ]; then
  echo "skipped: the run takes every ${stride}th case (TIRC_TVM_CORPUS_STRIDE)"
  exit 77
fi
rm -rf "$work" && mkdir -p "$work"

fail() { echo "FAIL $name: $*" >&2; exit 1; }

# Tolerances: TVM's LLVM code and tirc's interpreter may round transcendental
# functions and float16 differently; integer outputs compare bit for bit.
tolerance() {
  if grep -q float16 "$1"; then echo "--rtol 1e-2 --atol 1e-2"; else echo "--rtol 1e-5 --atol 1e-5"; fi
}

# The text verifies and evaluates to TVM's outputs on TVM's inputs.
check_text() {  # FILE INPUTS OUTPUTS
  "$tirc" check "$1" > /dev/null || fail "tirc check $1"
  # shellcheck disable=SC2046
  "$tirc" eval "$1" --inputs "$2" --expect "$3" $(tolerance "$1") > "$work/eval.txt" ||
    { cat "$work/eval.txt" >&2; fail "tirc eval $1 differs from TVM's outputs"; }
}

# fmt prints the input's surface by default, is a fixed point in both
# surfaces, and what it prints still evaluates to TVM's outputs.
check_fmt() {  # FILE INPUTS OUTPUTS
  "$tirc" fmt "$1" > "$work/fmt.tir"
  grep -q 'T\.sblock\|s_tir=True' "$work/fmt.tir" || fail "fmt did not keep the TIRx surface"
  "$tirc" fmt "$work/fmt.tir" > "$work/fmt2.tir"
  cmp -s "$work/fmt.tir" "$work/fmt2.tir" || fail "fmt is not a fixed point on $1"
  "$tirc" fmt --surface classic "$1" > "$work/classic.tir"
  if grep -q 'T\.sblock\|s_tir=True' "$work/classic.tir"; then fail "fmt --surface classic printed TIRx words"; fi
  "$tirc" fmt "$work/classic.tir" > "$work/classic2.tir"
  cmp -s "$work/classic.tir" "$work/classic2.tir" || fail "fmt --surface classic is not a fixed point on $1"
  check_text "$work/fmt.tir" "$2" "$3"
  check_text "$work/classic.tir" "$2" "$3"
}

if [ -f "$case_dir/func.tir" ]; then
  check_text "$case_dir/func.tir" "$case_dir/inputs" "$case_dir/outputs"
  check_fmt "$case_dir/func.tir" "$case_dir/inputs" "$case_dir/outputs"
  echo "ok $name"
  exit 0
fi

base="$corpus/$(cat "$case_dir/base")"
refusal=$(grep "^$name: " "$corpus/../refusals.txt" | sed "s/^$name: //" || true)
case "$refusal" in
  "text: "*)
    # TVM's scheduled program itself is wrong (out of bounds): tirc refuses
    # the text, and the trace that made it.
    message=${refusal#text: }
    if "$tirc" check "$case_dir/scheduled.tir" 2> "$work/err.txt"; then
      fail "TVM's scheduled program now passes tirc check: take the case out of refusals.txt"
    fi
    grep -qF "$message" "$work/err.txt" || { cat "$work/err.txt" >&2; fail "refused, but not with: $message"; }
    if "$tirc" schedule "$base/func.tir" --trace "$case_dir/trace.py" -o "$work/replayed.tir" 2> /dev/null; then
      fail "tirc replays a trace whose TVM result it refuses"
    fi
    echo "ok $name (TVM's program refused as expected: $message)"
    exit 0
    ;;
esac
check_text "$case_dir/scheduled.tir" "$base/inputs" "$base/outputs"
check_fmt "$case_dir/scheduled.tir" "$base/inputs" "$base/outputs"
if [ -n "$refusal" ]; then
  if "$tirc" schedule "$base/func.tir" --trace "$case_dir/trace.py" -o "$work/replayed.tir" 2> "$work/err.txt"; then
    fail "the trace now replays: take the case out of refusals.txt"
  fi
  grep -qF "$refusal" "$work/err.txt" || { cat "$work/err.txt" >&2; fail "refused, but not with: $refusal"; }
  echo "ok $name (refused as expected: $refusal)"
  exit 0
fi
"$tirc" schedule "$base/func.tir" --trace "$case_dir/trace.py" -o "$work/replayed.tir" ||
  fail "TVM's trace does not replay"
"$tirc" equiv "$work/replayed.tir" "$case_dir/scheduled.tir" > "$work/equiv.txt" ||
  { cat "$work/equiv.txt" >&2; fail "the replayed trace is not equivalent to TVM's scheduled program"; }
echo "ok $name"
