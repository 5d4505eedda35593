// Activation layouts chosen per model: convolutions and pools read and write
// channels-last (N, H, W, C) activations, whose channels are contiguous, so
// the contraction kernels vectorize over channels whatever the image size
// (a 7x7 image fills 7 of 16 lanes along its rows in NCHW).
#pragma once

#include <cstddef>

#include "ir/onnx/graph.h"

namespace tirc::onnx {

// Weights this big are blocked: a block's panel then streams from memory in
// one sequential run (ResNet-18 channels-last: 36.6 ms blocked, 44.1 not);
// smaller ones stay in cache either way (MobileNetV2 3% slower with all of
// its weights blocked).
inline constexpr size_t kBlockedWeightsBytes = 256 * 1024;
// Output channels per block of blocked weights: one AVX-512 vector (two AVX2
// ones), the register tile's column unit.
inline constexpr int64_t kWeightsBlock = 16;

// Whether convert_to_channels_last blocks the float32 weights [M, C / group,
// kh, kw] of a Conv with `group` groups.
bool blocks_conv_weights(int64_t group, const Shape& weights,
                         size_t blocked_weights_bytes = kBlockedWeightsBytes);

// Rewrites every 2-D Conv with constant weights (no groups, or depthwise),
// and every 2-D MaxPool, AveragePool, GlobalAveragePool and GlobalMaxPool
// whose input is already channels-last, into its channels-last form (domain
// kChannelsLastDomain). Conv's weights are transposed at compile time to
// [kh, kw, C / group, M], or, without groups, when 16 divides M and the
// weights have at least `blocked_weights_bytes`, to blocks of 16 output
// channels [M / 16, C, kh, kw, 16] in the order the reduction reads them.
// Elementwise operators and Concat whose activation inputs are all
// channels-last follow them (constant operands transposed at compile time),
// so a Transpose back to ONNX's layout remains only where a value leaves
// that region: a graph output, or an operator that needs NCHW (Flatten,
// Reshape, Gemm, ...). Transposes into the layout are inserted before a
// region's first operators. Nodes no longer used are left for fold_and_infer
// to remove; shapes of the new values are left unknown for it to infer.
Graph convert_to_channels_last(Graph graph, size_t blocked_weights_bytes = kBlockedWeightsBytes);

// The layout `tirc compile` picks by default: channels-last for a model
// with a depthwise convolution, or whose convolutions all have a multiple of
// 16 output channels (whole vectors and weight blocks); ONNX's NCHW
// otherwise (an odd channel count, as a 1000-class convolution, tiles badly
// channels-last today). On one AMD EPYC core, channels-last vs NCHW:
// ResNet-18 35.9 vs 44.8 ms, MobileNetV2 8.7 vs 10.4, SqueezeNet 1.1 9.2
// vs 8.8.
bool prefers_channels_last(const Graph& graph);

}  // namespace tirc::onnx
