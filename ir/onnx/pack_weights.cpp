#include "ir/onnx/pack_weights.h"

#include <cstring>
#include <set>

namespace tirc::onnx {

namespace {

// The transpose of a constant matrix, as a new graph tensor; empty when b is
// not a known rank-2 value (or is also a graph input or output).
std::string transposed_constant(Graph& graph, const std::string& b) {
  auto it = graph.tensors.find(b);
  if (it == graph.tensors.end() || !it->second.value || graph.is_input(b) || graph.is_output(b))
    return "";
  const NDArray& v = *it->second.value;
  if (v.shape().size() != 2) return "";
  const int64_t rows = v.shape()[0], cols = v.shape()[1];
  auto t = std::make_shared<NDArray>(v.dtype(), Shape{cols, rows});
  const size_t bytes = static_cast<size_t>(v.dtype().bytes());
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      std::memcpy(t->data() + (c * rows + r) * bytes, v.data() + (r * cols + c) * bytes, bytes);
  const std::string name = graph.fresh_tensor_name(b + "_T");
  graph.tensors[name] = TensorInfo{name, v.dtype(), Shape{cols, rows}, true, t};
  return name;
}

}  // namespace

Graph pack_constant_weights(Graph graph) {
  std::set<std::string> replaced;
  for (Node& n : graph.nodes) {
    if (!n.is("Gemm") || n.inputs.size() < 2 || n.attr_int("transB", 0) == 0) continue;
    const std::string b = n.inputs[1];
    const std::string packed = transposed_constant(graph, b);
    if (packed.empty()) continue;
    n.inputs[1] = packed;
    n.attrs["transB"] = int64_t{0};
    replaced.insert(b);
  }
  // An original no node reads any more is dropped, so it is not stored twice.
  for (const Node& n : graph.nodes)
    for (const std::string& in : n.inputs) replaced.erase(in);
  for (const std::string& name : replaced) graph.tensors.erase(name);
  return graph;
}

}  // namespace tirc::onnx
