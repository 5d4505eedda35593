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

// A constant of the graph with its axes permuted (axis d of the result is
// axis perm[d] of the value, after unit axes are prepended up to perm's rank
// as NumPy broadcasting does), added as a new graph tensor whose name it
// returns; empty when `name` is not a known value of at most that rank, or
// is a graph input or output.
std::string permuted_constant(Graph& graph, const std::string& name,
                              const std::vector<int64_t>& perm);

}  // namespace tirc::onnx
