#!/bin/sh
# Rewrites the derived programs of this corpus from the hand-written ones:
# NAME.tir scheduled by traces/NAME.py is `tirc schedule` output, NAME_lowered.tir
# is `tirc compile --emit=tir` output. test/unit/corpus_test.cpp checks that
# every file here round-trips, verifies and runs; run this after a change to
# the printer, a schedule primitive or a lowering pass changes what they print,
# and review the diff.
#   usage: test/corpus/regenerate.sh PATH/TO/tirc
set -eu
tirc=${1:?usage: $0 PATH/TO/tirc}
cd "$(dirname "$0")"
self=$(basename "$0")

# derived program <- source program (the trace is traces/<derived>.py)
schedule() { "$tirc" schedule "$2.tir" --trace "traces/$1.py" -o "$1.tir"; }
schedule matmul_rect_tiled matmul_rect
schedule matmul_rect_cache_read matmul_rect
schedule matmul_bias_relu_fused matmul_bias_relu
schedule conv2d_nhwc_scheduled conv2d_nhwc
schedule l2_norm_rows_compute_at l2_norm_rows
schedule elementwise_exp_chain_inlined elementwise_exp_chain
schedule reduce_sum_axis0_decomposed reduce_sum_axis0
schedule max_pool2d_stride2_unrolled max_pool2d_stride2

for src in matmul_rect_tiled conv2d_nhwc l2_norm_rows_compute_at elementwise_exp_chain_inlined \
           module_mlp reduce_sum_axis0_decomposed max_pool2d_stride2_unrolled; do
  "$tirc" compile "$src.tir" --emit=tir -o "${src}_lowered.tir"
done

# The derived programs compute what their sources do.
for f in traces/*.py; do
  name=$(basename "$f" .py)
  src=$(sed -n "s/^schedule $name \(.*\)$/\1/p" "$self")
  "$tirc" equiv "$src.tir" "$name.tir" > /dev/null
done
for f in *_lowered.tir; do "$tirc" equiv "${f%_lowered.tir}.tir" "$f" > /dev/null; done
