// Operator fusion over an ONNX graph: which nodes share a kernel, and graph
// rewrites that make fusion pay (BatchNormalization folded into Conv).
#pragma once

#include <vector>

#include "ir/onnx/build_module.h"
#include "ir/onnx/graph.h"

namespace tirc {

// Conv (constant weights, optional constant bias) followed by inference
// BatchNormalization (constant scale/bias/mean/var) whose input is used by
// nothing else: the BN is folded into the Conv's weights and bias.
onnx::Graph fold_batchnorm_into_conv(onnx::Graph graph);

// Partitions the nodes into kernels. Injective nodes fold into their producer
// kernel (Conv + bias + Relu is one kernel) or into their consumer (an
// elementwise chain feeding a reduction); layer normalization's chain is at
// most two kernels. Every node is in exactly one group; groups are in an order
// that respects dependencies. `fuse` false: one node per group.
std::vector<onnx::KernelGroup> fuse_ops(const onnx::Graph& graph, bool fuse = true);

}  // namespace tirc
