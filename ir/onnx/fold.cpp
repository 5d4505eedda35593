#include "ir/onnx/fold.h"

#include <algorithm>
#include <set>

#include "ir/eval/interpreter.h"
#include "ir/onnx/group_kernel.h"
#include "ir/onnx/op.h"

namespace tirc::onnx {

namespace {

std::string shape_str(const Shape& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i)
    out += (i ? ", " : "") + (s[i] < 0 ? "?" : std::to_string(s[i]));
  return out + "]";
}

bool contains(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// Declared dimensions below zero are symbolic and match anything.
bool shapes_agree(const Shape& declared, const Shape& actual) {
  if (declared.size() != actual.size()) return false;
  for (size_t i = 0; i < declared.size(); ++i)
    if (declared[i] >= 0 && declared[i] != actual[i]) return false;
  return true;
}

void bind_input(Graph& graph, const std::string& name, const NDArray& value) {
  auto it = std::find(graph.inputs.begin(), graph.inputs.end(), name);
  if (it == graph.inputs.end())
    throw Error("cannot bind '" + name + "': the graph has no input of that name");
  TensorInfo& t = graph.tensor(name);
  if (t.dtype != DataType() && t.dtype != value.dtype())
    throw Error("cannot bind input '" + name + "': it is " + t.dtype.str() + " but the value is " +
                value.dtype().str());
  if (t.shape_known && !shapes_agree(t.shape, value.shape()))
    throw Error("cannot bind input '" + name + "': its shape is " + shape_str(t.shape) +
                " but the value's is " + shape_str(value.shape()));
  t.dtype = value.dtype();
  t.shape = value.shape();
  t.shape_known = true;
  t.value = std::make_shared<const NDArray>(value);
  graph.inputs.erase(it);
}

// "x=<batch>x<seq>x32": a --shape value for t with the unknown dimensions
// as placeholders.
std::string shape_flag_template(const std::string& name, const TensorInfo& t) {
  std::string out = name + "=";
  for (size_t d = 0; d < t.shape.size(); ++d) {
    out += d ? "x" : "";
    if (t.shape[d] >= 0)
      out += std::to_string(t.shape[d]);
    else
      out.append("<").append(dim_name(t, d)).append(">");
  }
  return out;
}

// tirc compiles static shapes: a dimension nothing bound (ir/onnx/bind_dims.h)
// is an error naming it and the flag that binds it.
void check_static_input(const Graph& graph, const std::string& name) {
  const TensorInfo& t = graph.tensor(name);
  if (!t.shape_known && t.shape.empty())
    throw Error("graph input '" + name +
                "': the model declares no shape and tirc compiles static shapes: give it with "
                "--shape " +
                name + "=<d0>x<d1>x...");
  for (size_t d = 0; d < t.shape.size(); ++d) {
    if (t.shape[d] >= 0) continue;
    const std::string param = dim_name(t, d);
    const std::string shape = "--shape " + shape_flag_template(name, t);
    const bool named = param != kAnonymousDim;
    throw Error("graph input '" + name + "': dimension " + std::to_string(d) + " of " +
                describe_shape(t) +
                (named ? " is the symbolic dimension '" + param + "'"
                       : " is anonymous ('" + std::string(kAnonymousDim) + "')") +
                ", which nothing binds (tirc compiles static shapes): pass " +
                (named ? "--dim " + param + "=N or " + shape : shape));
  }
}

class Folder {
 public:
  explicit Folder(Graph& graph) : graph_(graph) {}

  void run() {
    for (const std::string& in : graph_.inputs) check_static_input(graph_, in);
    keep_.assign(graph_.nodes.size(), true);
    for (size_t i = 0; i < graph_.nodes.size(); ++i) {
      Node& node = graph_.nodes[i];
      for (std::string& in : node.inputs) in = resolve(in);
      for (const std::string& in : node.inputs)
        if (!in.empty()) {
          auto it = graph_.tensors.find(in);
          if (it == graph_.tensors.end()) node.fail("input '" + in + "' is not defined");
          if (!it->second.shape_known && !it->second.value)
            node.fail("the shape of input '" + in + "' is unknown");
        }
      bool onnx_domain = node.domain.empty() || node.domain == "ai.onnx";
      if (onnx_domain && node.op_type == "Dropout") dropout_to_identity(i);
      if (is_identity(node)) {
        identity(i);
        continue;
      }
      if (!find_op(node.domain, node.op_type))
        node.fail(onnx_domain ? "operator not supported"
                              : "operator not supported (domain '" + node.domain + "')");
      infer(i);
    }
    remove_dead_nodes();
    std::vector<Node> kept;
    for (size_t i = 0; i < graph_.nodes.size(); ++i)
      if (keep_[i]) kept.push_back(std::move(graph_.nodes[i]));
    graph_.nodes = std::move(kept);
    for (std::string& out : graph_.outputs) {
      const TensorInfo& t = graph_.tensor(out);
      if (!t.shape_known && !t.value)
        throw Error("graph output '" + out + "': its shape could not be inferred");
    }
  }

 private:
  std::string resolve(const std::string& name) const {
    auto it = alias_.find(name);
    return it == alias_.end() ? name : it->second;
  }

  bool known(const std::string& name) const {
    auto it = graph_.tensors.find(name);
    return it != graph_.tensors.end() && it->second.value != nullptr;
  }

  TensorInfo& output_info(const std::string& name) {
    TensorInfo& t = graph_.tensors[name];
    t.name = name;
    return t;
  }

  // Records an inferred output, checking it against what the model declares.
  void set_output(const Node& node, const std::string& name, DataType dtype, const Shape& shape,
                  std::shared_ptr<const NDArray> value) {
    TensorInfo& t = output_info(name);
    bool declared_type = t.dtype != DataType();
    if ((declared_type && t.dtype != dtype) || (t.shape_known && !shapes_agree(t.shape, shape)))
      throw Error("tensor '" + name + "': the model declares " +
                  (declared_type ? t.dtype.str() : "?") + " " +
                  (t.shape_known ? shape_str(t.shape) : "[?]") + " but " + node.describe() +
                  " computes " + dtype.str() + " " + shape_str(shape));
    t.dtype = dtype;
    t.shape = shape;
    t.shape_known = true;
    if (value) t.value = std::move(value);
  }

  // Dropout in inference: the output is the input, the mask all true.
  void dropout_to_identity(size_t i) {
    Node& node = graph_.nodes[i];
    if (node.inputs.size() > 2 && !node.inputs[2].empty()) {
      const TensorInfo& mode = graph_.tensor(node.inputs[2]);
      if (!mode.value) node.fail("training_mode must be known at compile time");
      // Training with ratio 0 drops nothing: the output is still the input.
      bool zero_ratio = false;
      if (node.inputs.size() > 1 && !node.inputs[1].empty()) {
        const TensorInfo& ratio = graph_.tensor(node.inputs[1]);
        zero_ratio =
            ratio.value && ratio.value->num_elements() == 1 && ratio.value->get_float(0) == 0;
      }
      if (mode.value->num_elements() != 1 || (mode.value->get_int(0) != 0 && !zero_ratio))
        node.fail("training mode is not supported (inference only)");
    }
    if (node.inputs.empty() || node.inputs[0].empty()) node.fail("missing input 0");
    if (node.outputs.size() > 1 && !node.outputs[1].empty()) {
      const TensorInfo& x = graph_.tensor(node.inputs[0]);
      Shape shape = x.value ? x.value->shape() : x.shape;
      auto mask = std::make_shared<NDArray>(DataType::boolean(), shape);
      for (int64_t k = 0; k < mask->num_elements(); ++k) mask->set_int(k, 1);
      set_output(node, node.outputs[1], DataType::boolean(), shape, mask);
    }
    node.op_type = "Identity";
    node.domain.clear();
    node.inputs.resize(1);
    node.outputs.resize(1);
    node.attrs.clear();
  }

  void rename_everywhere(const std::string& from, const std::string& to) {
    for (Node& n : graph_.nodes) {
      for (std::string& s : n.inputs)
        if (s == from) s = to;
      for (std::string& s : n.outputs)
        if (s == from) s = to;
    }
    for (auto& [k, v] : alias_)
      if (v == from) v = to;
    alias_[from] = to;
  }

  // Identity is bypassed: consumers read its input; a graph output it
  // produces takes over its input's name when only the producer defines it;
  // otherwise it stays a copy (a graph input or constant listed as output).
  void identity(size_t i) {
    Node& node = graph_.nodes[i];
    const std::string in = node.inputs.at(0), out = node.outputs.at(0);
    const TensorInfo src = graph_.tensor(in);
    set_output(node, out, src.dtype, src.value ? src.value->shape() : src.shape, src.value);
    if (!contains(graph_.outputs, out)) {
      alias_[out] = in;
      graph_.tensors.erase(out);
      keep_[i] = false;
      return;
    }
    bool produced = false;
    for (size_t j = 0; j < i; ++j)
      if (keep_[j] && contains(graph_.nodes[j].outputs, in)) produced = true;
    if (produced && !contains(graph_.outputs, in) && !src.value) {
      TensorInfo renamed = src;
      renamed.name = out;
      graph_.tensors[out] = renamed;
      graph_.tensors.erase(in);
      rename_everywhere(in, out);
      keep_[i] = false;
      return;
    }
    if (src.value) keep_[i] = false;  // a constant graph output
  }

  void infer(size_t i) {
    const Node& node = graph_.nodes[i];
    bool all_known = true;
    for (const std::string& in : node.inputs)
      if (!in.empty() && !known(in)) all_known = false;
    GroupBuildOptions options;
    options.all_outputs_leave = true;
    options.skip_known_outputs = true;
    options.finish = all_known;
    BuiltGroup built = build_group(graph_, KernelGroup{{i}}, identifier_from(node.name), options);
    for (const std::string& out : node.outputs) {
      if (out.empty()) continue;
      const TensorValue& v = built.values.at(out);
      set_output(node, out, v.dtype, v.shape, v.value);
    }
    if (all_known && !built.kernel.outputs.empty()) evaluate(node, built.kernel);
    bool all_outputs_known = true;
    for (const std::string& out : node.outputs)
      if (!out.empty() && !known(out)) all_outputs_known = false;
    if (all_outputs_known) keep_[i] = false;
  }

  // Runs a node whose inputs are all known in the interpreter.
  void evaluate(const Node& node, const GroupKernel& k) {
    std::vector<NDArray> arrays;
    arrays.reserve(k.inputs.size() + k.outputs.size());
    for (const std::string& in : k.inputs) arrays.push_back(*graph_.tensor(in).value);
    for (size_t o = 0; o < k.outputs.size(); ++o) {
      const Buffer& b = k.func->params[k.inputs.size() + o].buffer;
      Shape shape;
      for (const Expr& e : b->shape) shape.push_back(*as_const_int(e));
      arrays.emplace_back(b->dtype, shape);
    }
    std::vector<Argument> args;
    for (NDArray& a : arrays) args.push_back(Argument{&a, 0, 0});
    bool any_elements = false;
    for (size_t o = 0; o < k.outputs.size(); ++o)
      if (arrays[k.inputs.size() + o].num_elements() > 0) any_elements = true;
    try {
      if (any_elements) tirc::run(k.func, args);
    } catch (const Error& e) {
      node.fail(std::string("evaluating it at compile time failed: ") + e.what());
    }
    for (size_t o = 0; o < k.outputs.size(); ++o) {
      TensorInfo& t = graph_.tensor(k.outputs[o]);
      NDArray value = std::move(arrays[k.inputs.size() + o]);
      if (value.shape() != t.shape) {
        // The kernel may view the output with another (same-size) shape.
        NDArray reshaped(value.dtype(), t.shape);
        if (reshaped.num_bytes() != value.num_bytes())
          node.fail("output '" + k.outputs[o] + "' was evaluated with a different size");
        std::copy(value.data(), value.data() + value.num_bytes(), reshaped.data());
        value = std::move(reshaped);
      }
      t.value = std::make_shared<const NDArray>(std::move(value));
    }
  }

  // Nodes none of whose outputs reach a graph output.
  void remove_dead_nodes() {
    std::set<std::string> needed(graph_.outputs.begin(), graph_.outputs.end());
    for (size_t i = graph_.nodes.size(); i-- > 0;) {
      if (!keep_[i]) continue;
      const Node& node = graph_.nodes[i];
      bool used = false;
      for (const std::string& out : node.outputs)
        if (!out.empty() && needed.count(out)) used = true;
      if (!used) {
        keep_[i] = false;
        continue;
      }
      for (const std::string& in : node.inputs)
        if (!in.empty()) needed.insert(in);
    }
  }

  Graph& graph_;
  std::vector<bool> keep_;
  std::map<std::string, std::string> alias_;
};

}  // namespace

Graph fold_and_infer(Graph graph, const std::map<std::string, NDArray>& bind) {
  for (const auto& [name, value] : bind) bind_input(graph, name, value);
  Folder(graph).run();
  return graph;
}

}  // namespace tirc::onnx
