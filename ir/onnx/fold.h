// Static shapes and constant folding over an imported graph.
#pragma once

#include <map>
#include <string>

#include "ir/onnx/graph.h"

namespace tirc::onnx {

// Walks the nodes in order and, for each: checks it is supported (find_op),
// infers the types and static shapes of its outputs (by building it), and when
// every input is known at compile time evaluates it with the interpreter and
// records the outputs' values (Shape -> Gather -> arithmetic -> Slice chains
// fold to constants this way). Nodes whose outputs are all known are removed;
// Identity and inference-mode Dropout are bypassed. Inputs named in `bind`
// become constants first (a user specializing on an input, the node tests'
// shape operands). Throws naming the node for unsupported operators and
// attributes, and for shape mismatches; a graph input dimension that is still
// symbolic (ir/onnx/bind_dims.h binds them) is an error naming it and the flag
// that binds it.
Graph fold_and_infer(Graph graph, const std::map<std::string, NDArray>& bind = {});

}  // namespace tirc::onnx
