// Graphs built in C++ for the frontend's tests (fold, fusion, module building).
#pragma once

#include <string>
#include <vector>

#include "ir/function.h"
#include "ir/onnx/graph.h"

namespace tirc::onnx_test {

using onnx::Shape;

// Builds an onnx::Graph the way import does: every tensor named, inputs and
// initializers typed and shaped, node outputs present but unknown.
class GraphMaker {
 public:
  GraphMaker() {
    graph.name = "test";
    graph.opset = 13;
  }

  void input(const std::string& name, Shape shape, DataType dtype = DataType::float32()) {
    graph.tensors[name] = onnx::TensorInfo{name, dtype, std::move(shape), true, nullptr};
    graph.inputs.push_back(name);
  }

  void constant(const std::string& name, const NDArray& value) {
    graph.tensors[name] = onnx::TensorInfo{name, value.dtype(), value.shape(), true,
                                           std::make_shared<const NDArray>(value)};
  }

  onnx::Node& node(const std::string& op_type, std::vector<std::string> inputs,
                   std::vector<std::string> outputs,
                   std::map<std::string, onnx::AttrValue> attrs = {}) {
    onnx::Node n;
    n.name = op_type + "_" + std::to_string(graph.nodes.size());
    n.op_type = op_type;
    n.inputs = std::move(inputs);
    n.outputs = std::move(outputs);
    n.attrs = std::move(attrs);
    for (const std::string& o : n.outputs)
      if (!o.empty() && !graph.tensors.count(o))
        graph.tensors[o] = onnx::TensorInfo{o, DataType(), {}, false, nullptr};
    graph.nodes.push_back(std::move(n));
    return graph.nodes.back();
  }

  void output(const std::string& name) { graph.outputs.push_back(name); }

  onnx::Graph graph;
};

inline NDArray filled(Shape shape, double start, double step,
                      DataType dtype = DataType::float32()) {
  NDArray a(dtype, std::move(shape));
  for (int64_t i = 0; i < a.num_elements(); ++i)
    a.set_float(i, start + step * static_cast<double>(i));
  return a;
}

inline NDArray ints(std::vector<int64_t> values, DataType dtype = DataType::int64()) {
  NDArray a(dtype, {static_cast<int64_t>(values.size())});
  for (size_t i = 0; i < values.size(); ++i) a.set_int(static_cast<int64_t>(i), values[i]);
  return a;
}

}  // namespace tirc::onnx_test
