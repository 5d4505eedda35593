#include "ir/onnx/graph.h"

#include <algorithm>

#include <type_traits>

namespace tirc::onnx {

std::string dim_name(const TensorInfo& t, size_t d) {
  return d < t.dim_params.size() && !t.dim_params[d].empty() ? t.dim_params[d] : kAnonymousDim;
}

std::string describe_shape(const TensorInfo& t) {
  std::string out = "[";
  for (size_t d = 0; d < t.shape.size(); ++d)
    out += (d ? ", " : "") + (t.shape[d] >= 0 ? std::to_string(t.shape[d]) : dim_name(t, d));
  return out + "]";
}

std::string Node::describe() const {
  return "node '" + name + "' (" + op_type + ")";
}

void Node::fail(const std::string& message) const {
  throw Error(describe() + ": " + message);
}

namespace {

const char* attr_type_name(const AttrValue& v) {
  static const char* names[] = {"int", "float", "string", "ints", "floats", "strings", "tensor"};
  return names[v.index()];
}

template <class T>
const T* get_attr(const Node& node, const std::string& name, const char* want) {
  auto it = node.attrs.find(name);
  if (it == node.attrs.end()) return nullptr;
  if (auto* v = std::get_if<T>(&it->second)) return v;
  node.fail("attribute '" + name + "' must be " + want + ", not " + attr_type_name(it->second));
}

}  // namespace

int64_t Node::attr_int(const std::string& name, int64_t fallback) const {
  auto* v = get_attr<int64_t>(*this, name, "an int");
  return v ? *v : fallback;
}

double Node::attr_float(const std::string& name, double fallback) const {
  auto it = attrs.find(name);
  if (it != attrs.end())
    if (auto* i = std::get_if<int64_t>(&it->second)) return static_cast<double>(*i);
  auto* v = get_attr<double>(*this, name, "a float");
  return v ? *v : fallback;
}

std::string Node::attr_string(const std::string& name, const std::string& fallback) const {
  auto* v = get_attr<std::string>(*this, name, "a string");
  return v ? *v : fallback;
}

std::vector<int64_t> Node::attr_ints(const std::string& name, std::vector<int64_t> fallback) const {
  auto* v = get_attr<std::vector<int64_t>>(*this, name, "a list of ints");
  return v ? *v : fallback;
}

std::vector<double> Node::attr_floats(const std::string& name, std::vector<double> fallback) const {
  auto* v = get_attr<std::vector<double>>(*this, name, "a list of floats");
  return v ? *v : fallback;
}

std::shared_ptr<const NDArray> Node::attr_tensor(const std::string& name) const {
  auto* v = get_attr<std::shared_ptr<const NDArray>>(*this, name, "a tensor");
  return v ? *v : nullptr;
}

int64_t Node::require_int(const std::string& name) const {
  if (!has_attr(name)) fail("missing required attribute '" + name + "'");
  return attr_int(name, 0);
}

std::vector<int64_t> Node::require_ints(const std::string& name) const {
  if (!has_attr(name)) fail("missing required attribute '" + name + "'");
  return attr_ints(name);
}

const TensorInfo& Graph::tensor(const std::string& name) const {
  auto it = tensors.find(name);
  if (it == tensors.end())
    throw Error("unknown tensor '" + name + "' in graph '" + this->name + "'");
  return it->second;
}

bool Graph::is_input(const std::string& name) const {
  return std::find(inputs.begin(), inputs.end(), name) != inputs.end();
}

bool Graph::is_output(const std::string& name) const {
  return std::find(outputs.begin(), outputs.end(), name) != outputs.end();
}

std::string Graph::fresh_tensor_name(const std::string& base) const {
  std::string name = base;
  for (int k = 1; tensors.count(name); ++k) name = base + "_" + std::to_string(k);
  return name;
}

bool Node::is(const char* type) const {
  return (domain.empty() || domain == "ai.onnx") && op_type == type;
}

TensorInfo& Graph::tensor(const std::string& name) {
  auto it = tensors.find(name);
  if (it == tensors.end())
    throw Error("unknown tensor '" + name + "' in graph '" + this->name + "'");
  return it->second;
}

}  // namespace tirc::onnx
