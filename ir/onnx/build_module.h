// A folded, partitioned graph -> one IRModule: one kernel per group plus the
// entry function that binds the weights, plans the intermediate storage and
// calls the kernels in order.
#pragma once

#include <string>
#include <vector>

#include "ir/function.h"
#include "ir/onnx/graph.h"

namespace tirc::onnx {

// Nodes computed by one kernel (indices into Graph::nodes, topological order).
struct KernelGroup {
  std::vector<size_t> nodes;
};

struct BuildOptions {
  std::string entry_name = "run";
};

// The module: kernels named after their operators ("conv2d_add_relu",
// uniquified), an entry function `entry_name` (attr kEntryAttr) whose
// parameters are the graph inputs then the graph outputs (buffer names made
// from the ONNX names as identifiers; the ONNX names in the param buffers'
// order under attr "tirc.io_names"), intermediates planned into one workspace
// allocation by lifetime, and every weight a module constant bound with
// AllocateConst. Single-element constants are inlined as immediates.
IRModule build_module(const Graph& graph, const std::vector<KernelGroup>& groups,
                      const BuildOptions& options = {});

// Builds the kernel for one group alone (used by build_module and by fold for
// single nodes): external inputs become parameters first, then outputs.
struct GroupKernel {
  PrimFunc func;
  std::vector<std::string> inputs;   // tensor names bound to the leading params
  std::vector<std::string> outputs;  // tensor names of the trailing params
};
GroupKernel build_group_kernel(const Graph& graph, const KernelGroup& group,
                               const std::string& name);

}  // namespace tirc::onnx
