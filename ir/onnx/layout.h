// Activation layouts chosen per model: convolutions and pools read and write
// channels-last (N, H, W, C) activations, whose channels are contiguous, so
// the contraction kernels vectorize over channels whatever the image size
// (a 7x7 image fills 7 of 16 lanes along its rows in NCHW).
#pragma once

#include "ir/onnx/graph.h"

namespace tirc::onnx {

// Rewrites every 2-D Conv with constant weights (no groups, or depthwise),
// and every 2-D MaxPool, AveragePool, GlobalAveragePool and GlobalMaxPool
// whose input is already channels-last, into its channels-last form (domain
// kChannelsLastDomain; Conv's weights transposed at compile time to [kh, kw,
// C / group, M]). Elementwise operators and Concat whose activation inputs
// are all channels-last follow them (constant operands transposed at compile
// time), so a Transpose back to ONNX's layout remains only where a value
// leaves that region: a graph output, or an operator that needs NCHW
// (Flatten, Reshape, Gemm, ...). Transposes into the layout are inserted
// before a region's first operators. Nodes no longer used are left for
// fold_and_infer to remove; shapes of the new values are left unknown for it
// to infer.
Graph convert_to_channels_last(Graph graph);

// The layout `tirc compile` picks by default: channels-last for a model with
// a depthwise convolution (MobileNet-style; 16% faster on MobileNetV2),
// ONNX's NCHW otherwise (the dense convolutions' NCHW kernels are as fast or
// faster today: equal on ResNet-18, 12% faster on SqueezeNet 1.1).
bool prefers_channels_last(const Graph& graph);

}  // namespace tirc::onnx
