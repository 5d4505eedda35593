#include "ir/onnx/pack_weights.h"

#include <cstring>
#include <set>

namespace tirc::onnx {

std::string permuted_constant(Graph& graph, const std::string& name,
                              const std::vector<int64_t>& perm) {
  auto it = graph.tensors.find(name);
  if (it == graph.tensors.end() || !it->second.value || graph.is_input(name) ||
      graph.is_output(name))
    return "";
  const NDArray& v = *it->second.value;
  const size_t rank = perm.size();
  if (v.shape().size() > rank) return "";
  Shape in(rank - v.shape().size(), 1);
  in.insert(in.end(), v.shape().begin(), v.shape().end());
  Shape out(rank), in_strides(rank, 1);
  for (size_t d = rank; d-- > 1;) in_strides[d - 1] = in_strides[d] * in[d];
  for (size_t d = 0; d < rank; ++d) out[d] = in[static_cast<size_t>(perm[d])];
  auto t = std::make_shared<NDArray>(v.dtype(), out);
  const size_t bytes = static_cast<size_t>(v.dtype().bytes());
  std::vector<int64_t> index(rank, 0);  // position in `out`, row-major
  for (int64_t e = 0; e < t->num_elements(); ++e) {
    int64_t src = 0;
    for (size_t d = 0; d < rank; ++d) src += index[d] * in_strides[static_cast<size_t>(perm[d])];
    std::memcpy(t->data() + e * bytes, v.data() + src * bytes, bytes);
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < out[d]) break;
      index[d] = 0;
    }
  }
  const std::string packed = graph.fresh_tensor_name(name + "_T");
  graph.tensors[packed] = TensorInfo{packed, v.dtype(), out, true, t};
  return packed;
}

Graph pack_constant_weights(Graph graph) {
  std::set<std::string> replaced;
  for (Node& n : graph.nodes) {
    if (!n.is("Gemm") || n.inputs.size() < 2 || n.attr_int("transB", 0) == 0) continue;
    const std::string b = n.inputs[1];
    auto it = graph.tensors.find(b);
    if (it == graph.tensors.end() || !it->second.value || it->second.value->shape().size() != 2)
      continue;
    const std::string packed = permuted_constant(graph, b, {1, 0});
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
