#include "ir/onnx/pack_weights.h"

#include <algorithm>
#include <cstring>
#include <set>

namespace tirc::onnx {

namespace {

std::string fresh_name(const Graph& graph, const std::string& base) {
  std::string name = base;
  for (int k = 1; graph.tensors.count(name); ++k) name = base + "_" + std::to_string(k);
  return name;
}

bool listed(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// The transpose of a constant matrix, as a new graph tensor; empty when b is
// not a known rank-2 value (or is also a graph input or output).
std::string transposed_constant(Graph& graph, const std::string& b) {
  auto it = graph.tensors.find(b);
  if (it == graph.tensors.end() || !it->second.value || listed(graph.inputs, b) ||
      listed(graph.outputs, b))
    return "";
  const NDArray& v = *it->second.value;
  if (v.shape().size() != 2) return "";
  const int64_t rows = v.shape()[0], cols = v.shape()[1];
  auto t = std::make_shared<NDArray>(v.dtype(), Shape{cols, rows});
  const size_t bytes = static_cast<size_t>(v.dtype().bytes());
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      std::memcpy(t->data() + (c * rows + r) * bytes, v.data() + (r * cols + c) * bytes, bytes);
  const std::string name = fresh_name(graph, b + "_T");
  graph.tensors[name] = TensorInfo{name, v.dtype(), Shape{cols, rows}, true, t};
  return name;
}

}  // namespace

Graph pack_constant_weights(Graph graph) {
  std::set<std::string> replaced;
  for (Node& n : graph.nodes) {
    const bool gemm = (n.domain.empty() || n.domain == "ai.onnx") && n.op_type == "Gemm";
    if (!gemm || n.inputs.size() < 2 || n.attr_int("transB", 0) == 0) continue;
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
