// The operator library: every supported ONNX operator as a builder of TensorIR
// blocks, in the manner of TVM's TOPI (written for tirc). Injective operators
// (elementwise, broadcast, layout) return their result as an expression of the
// output indices, so a consumer inlines them (fusion by composition); the others
// emit blocks into the kernel being built and return buffers.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ir/onnx/graph.h"
#include "ir/onnx/kernel_builder.h"

namespace tirc::onnx {

// How an operator fuses (ir/onnx/fuse_ops.h decides groups from this).
enum class OpPattern {
  Injective,  // each output element is an expression of input elements: inlined
  Reduction,  // reduces over axes (ReduceMean, Softmax, LayerNormalization, ...)
  Complex,    // Conv, ConvTranspose, MatMul, Gemm, pooling: anchors of a kernel
  Constant,   // Constant, Shape: no code, the value is known at compile time
};

class OpContext {
 public:
  OpContext(const Graph& graph, const Node& node, std::vector<TensorValue> inputs,
            KernelBuilder& kernel, std::vector<bool> output_is_kernel_output = {});

  const Graph& graph() const { return graph_; }
  const Node& node() const { return node_; }
  int64_t opset() const { return graph_.opset; }
  // The definition of the node's operator that the opset means
  // (ir/onnx/op_versions.h): Split-13 at opsets 13 to 17, Split-18 from 18 on.
  int64_t version() const;
  KernelBuilder& kernel() { return kernel_; }

  size_t num_inputs() const { return inputs_.size(); }
  // False for an omitted optional input ("" in the node) or i >= num_inputs().
  bool has_input(size_t i) const;
  const TensorValue& input(size_t i) const;  // fails naming the node when absent
  // The compile-time value of input i (shape-like operands: Reshape's shape,
  // Slice's starts, ...); fails with "input 'x' must be a constant" when unknown.
  const NDArray& constant_input(size_t i) const;
  std::vector<int64_t> constant_ints(size_t i) const;  // an integer tensor as int64s

  // The buffer an operator that emits blocks writes output i into: the kernel's
  // output parameter when the value leaves the kernel, else a new intermediate.
  Buffer output_buffer(size_t i, DataType dtype, const Shape& shape);

  // Error "node 'conv1' (Conv): message".
  [[noreturn]] void fail(const std::string& message) const { node_.fail(message); }

 private:
  const Graph& graph_;
  const Node& node_;
  std::vector<TensorValue> inputs_;
  KernelBuilder& kernel_;
  std::vector<bool> output_is_kernel_output_;
};

struct OpDef {
  std::string op_type;  // ai.onnx name ("Conv"); Gelu is accepted from ai.onnx and com.microsoft
  OpPattern pattern;
  // Inputs that must be known at compile time (Reshape: {1}).
  std::vector<size_t> constant_inputs;
  // One TensorValue per node output. Must check every attribute and input
  // shape it relies on and fail (naming the node) for what it does not support.
  std::function<std::vector<TensorValue>(OpContext&)> build;
};

// The domain of the channels-last (N, spatial..., C) forms of Conv and the
// pooling operators, and of the Transposes between layouts, which tirc's
// layout pass (ir/onnx/layout.h) writes.
inline constexpr std::string_view kChannelsLastDomain = "tirc.channels_last";

// nullptr when the operator is not supported.
const OpDef* find_op(std::string_view domain, std::string_view op_type);
// Every supported op_type, sorted (for `tirc --list-ops` and the conformance test).
std::vector<std::string> supported_ops();

}  // namespace tirc::onnx
