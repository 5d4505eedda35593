// Layouts of constant weights chosen at compile time, so no packing runs at
// inference: the packed copy is folded into the model's constants.
#pragma once

#include "ir/onnx/graph.h"

namespace tirc::onnx {

// Gemm with a constant B and transB=1 (a Linear layer as exporters write it):
// B is transposed once here and the node reads it with transB=0, so its
// columns are contiguous along the output's last index, which the
// contraction kernels vectorize. Other nodes are left as they are.
Graph pack_constant_weights(Graph graph);

}  // namespace tirc::onnx
