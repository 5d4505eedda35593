// The operator families of the library; op.cpp's registry joins them.
#pragma once

#include <vector>

#include "ir/onnx/op.h"

namespace tirc::onnx {

std::vector<OpDef> elementwise_ops();  // unary/binary math, activations, Where, Cast, Clip
std::vector<OpDef> nn_ops();           // Conv, ConvTranspose, Gemm, MatMul, pooling, BatchNormalization
std::vector<OpDef> shape_ops();        // Reshape, Transpose, Concat, Split, Slice, Gather, Pad, ...
std::vector<OpDef> reduction_ops();    // Reduce*, Softmax, LogSoftmax, LayerNormalization
std::vector<OpDef> index_reduction_ops();  // ArgMax, ArgMin, TopK, CumSum
std::vector<OpDef> normalization_ops();    // InstanceNormalization, GroupNormalization
std::vector<OpDef> einsum_ops();           // Einsum
std::vector<OpDef> movement_ops();     // Tile, DepthToSpace, Trilu, Range, Resize, Scatter*, ...

}  // namespace tirc::onnx
