#include "tuner/dataset.h"

#include "ir/error.h"
#include "ir/onnx/build_module.h"
#include "ir/onnx/graph.h"
#include "ir/onnx/layout.h"
#include "ir/onnx/op.h"

namespace tirc {
namespace {

// FNV-1a 64 (offset basis and prime from the FNV reference) ...
uint64_t fnv1a(std::string_view s) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

// ... then splitmix64's finalizer, so that names differing only in their
// last digits (mm_64_64_64, mm_64_64_80) do not fall into residues mod 5 in
// a regular pattern.
uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// The frontend's kernel, named `name`, for a graph of the one node `node`
// over float32 run-time tensors (the node's inputs, then its output).
PrimFunc one_node_kernel(const std::string& name, onnx::Node node,
                         const std::vector<std::pair<std::string, onnx::Shape>>& tensors) {
  onnx::Graph g;
  g.name = name;
  g.opset = 17;
  for (const auto& [tensor, shape] : tensors) {
    g.tensors[tensor] = onnx::TensorInfo{tensor, DataType::float32(), shape, true, nullptr};
    (tensor == node.outputs[0] ? g.outputs : g.inputs).push_back(tensor);
  }
  node.name = name;
  g.nodes.push_back(std::move(node));
  return onnx::build_group_kernel(g, onnx::KernelGroup{{0}}, name).func;
}

template <class Shape, class Build>
std::vector<DatasetEntry> entries(const std::vector<Shape>& shapes, Build build) {
  std::vector<DatasetEntry> out;
  out.reserve(shapes.size());
  for (const Shape& s : shapes) {
    std::string name = s.name();
    const bool test = in_test_split(name);
    out.push_back({std::move(name), build(s), test});
  }
  return out;
}

}  // namespace

// Appended piece by piece: GCC 12 warns falsely (-Wrestrict) on a literal +
// a temporary string.
std::string MatmulShape::name() const {
  std::string s = "mm_";
  for (int64_t d : {m, n, k}) s += std::to_string(d) + "_";
  s.pop_back();
  return s;
}

std::string ConvShape::name() const {
  std::string s = layout == ConvLayout::Nchw ? "conv_nchw_" : "conv_nhwc_";
  for (int64_t d : {in_channels, out_channels, size}) s += std::to_string(d) + "_";
  s += "k";
  s += std::to_string(kernel);
  return s;
}

std::string DepthwiseShape::name() const {
  std::string s = "dw_";
  for (int64_t d : {channels, size}) s += std::to_string(d) + "_";
  s += "k";
  s += std::to_string(kernel);
  return s;
}

bool in_test_split(std::string_view name) {
  return mix(fnv1a(name)) % 5 == 0;
}

std::vector<MatmulShape> matmul_looptune_shapes() {
  std::vector<MatmulShape> shapes;
  for (int64_t m = 64; m <= 256; m += 16)
    for (int64_t n = 64; n <= 256; n += 16)
      for (int64_t k = 64; k <= 256; k += 16) shapes.push_back({m, n, k});
  return shapes;
}

std::vector<ConvShape> conv_shapes() {
  std::vector<ConvShape> shapes;
  for (ConvLayout layout : {ConvLayout::Nchw, ConvLayout::Nhwc})
    for (int64_t c : {16, 32, 64})
      for (int64_t m : {16, 32, 64})
        for (int64_t size : {7, 14, 28})
          for (int64_t kernel : {1, 3}) shapes.push_back({c, m, size, kernel, layout});
  return shapes;
}

std::vector<DepthwiseShape> depthwise_shapes() {
  std::vector<DepthwiseShape> shapes;
  for (int64_t c : {16, 32, 64, 128, 256})
    for (int64_t size : {7, 14, 28, 56}) shapes.push_back({c, size, 3});
  return shapes;
}

PrimFunc matmul_func(const MatmulShape& s) {
  onnx::Node n;
  n.op_type = "MatMul";
  n.inputs = {"A", "B"};
  n.outputs = {"C"};
  return one_node_kernel(s.name(), std::move(n),
                         {{"A", {s.m, s.k}}, {"B", {s.k, s.n}}, {"C", {s.m, s.n}}});
}

PrimFunc conv_func(const ConvShape& s) {
  const bool nhwc = s.layout == ConvLayout::Nhwc;
  const int64_t c = s.in_channels, m = s.out_channels, h = s.size, k = s.kernel, pad = k / 2;
  // The channels-last Conv takes its weights as the layout pass leaves them;
  // blocked weights would be [M / 16, C, kh, kw, 16] (none in this set).
  if (nhwc && onnx::blocks_conv_weights(1, {m, c, k, k}))
    throw Error("conv_func: " + s.name() + " would have blocked weights");
  onnx::Node n;
  n.op_type = "Conv";
  if (nhwc) n.domain = std::string(onnx::kChannelsLastDomain);
  n.inputs = {"X", "W"};
  n.outputs = {"Y"};
  n.attrs["strides"] = std::vector<int64_t>{1, 1};
  n.attrs["pads"] = std::vector<int64_t>{pad, pad, pad, pad};
  const onnx::Shape act = nhwc ? onnx::Shape{1, h, h, c} : onnx::Shape{1, c, h, h};
  const onnx::Shape out = nhwc ? onnx::Shape{1, h, h, m} : onnx::Shape{1, m, h, h};
  const onnx::Shape w = nhwc ? onnx::Shape{k, k, c, m} : onnx::Shape{m, c, k, k};
  return one_node_kernel(s.name(), std::move(n), {{"X", act}, {"W", w}, {"Y", out}});
}

PrimFunc depthwise_func(const DepthwiseShape& s) {
  const int64_t c = s.channels, h = s.size, k = s.kernel, pad = k / 2;
  onnx::Node n;
  n.op_type = "Conv";
  n.inputs = {"X", "W"};
  n.outputs = {"Y"};
  n.attrs["group"] = c;
  n.attrs["strides"] = std::vector<int64_t>{1, 1};
  n.attrs["pads"] = std::vector<int64_t>{pad, pad, pad, pad};
  return one_node_kernel(s.name(), std::move(n),
                         {{"X", {1, c, h, h}}, {"W", {c, 1, k, k}}, {"Y", {1, c, h, h}}});
}

std::vector<DatasetEntry> matmul_looptune_dataset() {
  return entries(matmul_looptune_shapes(), matmul_func);
}

std::vector<DatasetEntry> conv_dataset() {
  return entries(conv_shapes(), conv_func);
}

}  // namespace tirc
