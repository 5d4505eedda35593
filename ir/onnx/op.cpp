#include "ir/onnx/op.h"

#include <algorithm>

#include "ir/onnx/op_versions.h"
#include "ir/onnx/ops/ops.h"

namespace tirc::onnx {

OpContext::OpContext(const Graph& graph, const Node& node, std::vector<TensorValue> inputs, KernelBuilder& kernel,
                     std::vector<bool> output_is_kernel_output)
    : graph_(graph), node_(node), inputs_(std::move(inputs)), kernel_(kernel),
      output_is_kernel_output_(std::move(output_is_kernel_output)) {}

int64_t OpContext::version() const {
  return op_version(node_.op_type, opset());
}

bool OpContext::has_input(size_t i) const {
  return i < inputs_.size() && i < node_.inputs.size() && !node_.inputs[i].empty();
}

const TensorValue& OpContext::input(size_t i) const {
  if (!has_input(i)) fail("missing input " + std::to_string(i));
  return inputs_[i];
}

const NDArray& OpContext::constant_input(size_t i) const {
  const TensorValue& v = input(i);
  if (!v.value)
    fail("input " + std::to_string(i) + " ('" + node_.inputs[i] +
         "') must be known at compile time (a constant or an input bound with --bind); tirc compiles "
         "static shapes only");
  return *v.value;
}

std::vector<int64_t> OpContext::constant_ints(size_t i) const {
  const NDArray& a = constant_input(i);
  if (!a.dtype().is_int() && !a.dtype().is_uint())
    fail("input " + std::to_string(i) + " ('" + node_.inputs[i] + "') must be an integer tensor");
  std::vector<int64_t> out(static_cast<size_t>(a.num_elements()));
  for (size_t k = 0; k < out.size(); ++k) out[k] = a.get_int(static_cast<int64_t>(k));
  return out;
}

Buffer OpContext::output_buffer(size_t i, DataType dtype, const Shape& shape) {
  std::string hint = i < node_.outputs.size() && !node_.outputs[i].empty() ? node_.outputs[i] : node_.op_type;
  bool leaves = i < output_is_kernel_output_.size() && output_is_kernel_output_[i];
  return leaves ? kernel_.add_param(hint, dtype, shape) : kernel_.alloc(hint, dtype, shape);
}

namespace {

const std::vector<OpDef>& registry() {
  static const std::vector<OpDef> ops = [] {
    std::vector<OpDef> all;
    for (auto family : {elementwise_ops, nn_ops, shape_ops, reduction_ops, index_reduction_ops,
                        normalization_ops, einsum_ops, movement_ops})
      for (OpDef& d : family()) all.push_back(std::move(d));
    std::sort(all.begin(), all.end(), [](const OpDef& a, const OpDef& b) { return a.op_type < b.op_type; });
    return all;
  }();
  return ops;
}

}  // namespace

const OpDef* find_op(std::string_view domain, std::string_view op_type) {
  if (domain == kChannelsLastDomain &&
      (op_type == "Conv" || op_type == "MaxPool" || op_type == "AveragePool" ||
       op_type == "GlobalAveragePool" || op_type == "GlobalMaxPool" || op_type == "Transpose"))
    domain = "";
  bool onnx_domain = domain.empty() || domain == "ai.onnx";
  // Gelu predates its ai.onnx definition (opset 20) as a contrib operator.
  if (!onnx_domain && !(domain == "com.microsoft" && op_type == "Gelu")) return nullptr;
  for (const OpDef& d : registry())
    if (d.op_type == op_type) return &d;
  return nullptr;
}

std::vector<std::string> supported_ops() {
  std::vector<std::string> names;
  for (const OpDef& d : registry()) names.push_back(d.op_type);
  return names;
}

}  // namespace tirc::onnx
