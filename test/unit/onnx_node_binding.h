// Which graph inputs of an ONNX node test the runners (onnx_node_test.cpp,
// onnx_node_codegen_check.h) bind to their test values as constants: tirc
// compiles static programs, so every input that is not float32 (shape
// operands, indices, conditions) and every float32 input some node needs at
// compile time (an OpDef::constant_inputs operand: Resize's scales, Range's
// bounds). The other inputs are run-time inputs.
#pragma once

#include <string>

#include "ir/onnx/graph.h"
#include "ir/onnx/op.h"

namespace tirc::test {

inline bool bound_in_node_tests(const onnx::Graph& g, const std::string& input, DataType dtype) {
  if (dtype != DataType::float32()) return true;
  for (const onnx::Node& n : g.nodes) {
    const onnx::OpDef* op = onnx::find_op(n.domain, n.op_type);
    if (!op) continue;
    for (size_t i : op->constant_inputs)
      if (i < n.inputs.size() && n.inputs[i] == input) return true;
  }
  return false;
}

}  // namespace tirc::test
