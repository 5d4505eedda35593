// Building the kernel of one group of nodes, with the values the nodes
// produced: shared by build_module (one kernel per group) and fold (one node
// alone, to infer its outputs and evaluate it when its inputs are known).
#pragma once

#include <map>
#include <string>

#include "ir/onnx/build_module.h"
#include "ir/onnx/kernel_builder.h"

namespace tirc::onnx {

struct BuiltGroup {
  GroupKernel kernel;                         // func null when `finish` was false
  std::map<std::string, TensorValue> values;  // every node output of the group
};

struct GroupBuildOptions {
  // Every node output leaves the kernel (fold evaluates all of them), not
  // only those used after the group or listed as graph outputs.
  bool all_outputs_leave = false;
  // Outputs that come back known at compile time get no parameter (fold takes
  // their values as they are); otherwise a known output is an error.
  bool skip_known_outputs = false;
  // False: build the nodes for their values only (types and shapes), without
  // writing the outputs or finishing the function.
  bool finish = true;
};

BuiltGroup build_group(const Graph& graph, const KernelGroup& group, const std::string& name,
                       const GroupBuildOptions& options = {});

// Identity (and Dropout in inference, which fold turns into Identity) passes
// its input through; every group builder handles it, whatever the library has.
bool is_identity(const Node& node);

// A C/Python identifier made from an ONNX name ("conv1.weight" -> "conv1_weight").
std::string identifier_from(const std::string& name);

}  // namespace tirc::onnx
