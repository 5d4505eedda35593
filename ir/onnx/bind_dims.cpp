#include "ir/onnx/bind_dims.h"

#include <algorithm>
#include <map>
#include <set>

#include "ir/onnx/ops/axis_util.h"

namespace tirc::onnx {

namespace {

using axis_util::shape_str;

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// Collects every value the bindings give, checking each against what the
// graph declares and against the values given before, then writes them into
// the graph's shapes.
class Binder {
 public:
  explicit Binder(Graph& graph) : graph_(graph) {
    for (const auto& [name, t] : graph.tensors)
      for (const std::string& p : t.dim_params)
        if (!p.empty() && p != kAnonymousDim) names_.insert(p);
  }

  void bind_dim(const DimBindings::Dim& d) {
    if (!names_.count(d.name))
      throw Error(
          d.source + ": the model has no symbolic dimension '" + d.name + "' (" +
          (names_.empty() ? "it has none" : "it has: " + joined({names_.begin(), names_.end()})) +
          ")");
    bind(d.name, d.value, d.source);
  }

  void bind_input_shape(const DimBindings::InputShape& s) {
    if (!graph_.is_input(s.input))
      throw Error(s.source + ": the model has no input '" + s.input + "' (" +
                  (graph_.inputs.empty() ? "it has none" : "its inputs: " + joined(graph_.inputs)) +
                  ")");
    bind_shape(s.input, s.shape, s.source);
  }

  // Data for an input whose dimensions are all static binds nothing: the
  // caller checks it against the compiled shape as for any model.
  void bind_data(const std::string& input, const DimBindings::DataShape& data) {
    if (!graph_.tensor(input).shape_known) bind_shape(input, data.shape, data.source);
  }

  void apply() {
    for (auto& [name, t] : graph_.tensors) {
      if (t.dim_params.empty()) continue;
      for (size_t d = 0; d < t.dim_params.size() && d < t.shape.size(); ++d) {
        auto it = values_.find(t.dim_params[d]);
        if (it != values_.end()) t.shape[d] = it->second.value;
      }
    }
    for (const auto& [input, whole] : shapes_) {
      TensorInfo& t = graph_.tensor(input);
      // An input declared without a shape: every dimension was anonymous.
      if (!t.shape_known && t.shape.empty()) t.dim_params.assign(whole.shape.size(), kAnonymousDim);
      t.shape = whole.shape;
    }
    for (auto& [name, t] : graph_.tensors)
      if (!t.dim_params.empty() && !t.shape_known)
        t.shape_known =
            std::all_of(t.shape.begin(), t.shape.end(), [](int64_t d) { return d >= 0; });
  }

 private:
  struct Bound {
    int64_t value;
    std::string source;
  };
  struct WholeShape {
    Shape shape;
    std::string source;
  };

  void bind(const std::string& name, int64_t value, const std::string& source) {
    auto [it, added] = values_.emplace(name, Bound{value, source});
    if (!added && it->second.value != value)
      throw Error("dimension '" + name + "' is bound to " + std::to_string(it->second.value) +
                  " by " + it->second.source + " and to " + std::to_string(value) + " by " +
                  source);
  }

  void bind_shape(const std::string& input, const Shape& shape, const std::string& source) {
    const TensorInfo& t = graph_.tensor(input);
    const bool rank_known = t.shape_known || !t.shape.empty();
    if (rank_known && shape.size() != t.shape.size())
      throw Error(source + ": graph input '" + input + "' has " + std::to_string(t.shape.size()) +
                  " dimensions " + describe_shape(t) + ", not " + std::to_string(shape.size()));
    for (size_t d = 0; rank_known && d < shape.size(); ++d) {
      if (t.shape[d] >= 0 && t.shape[d] != shape[d])
        throw Error(source + ": dimension " + std::to_string(d) + " of graph input '" + input +
                    "' " + describe_shape(t) + " is " + std::to_string(t.shape[d]) + ", not " +
                    std::to_string(shape[d]));
      const std::string param = d < t.dim_params.size() ? t.dim_params[d] : "";
      if (!param.empty() && param != kAnonymousDim)
        bind(param, shape[d], source + " (dimension " + std::to_string(d) + " of '" + input + "')");
    }
    auto [it, added] = shapes_.emplace(input, WholeShape{shape, source});
    if (!added && it->second.shape != shape)
      throw Error("graph input '" + input + "' is " + shape_str(it->second.shape) + " by " +
                  it->second.source + " but " + shape_str(shape) + " by " + source);
  }

  Graph& graph_;
  std::set<std::string> names_;               // the dim_params the model declares
  std::map<std::string, Bound> values_;       // dim_param -> its value
  std::map<std::string, WholeShape> shapes_;  // graph input -> its whole shape
};

}  // namespace

Graph bind_dimensions(Graph graph, const DimBindings& bindings) {
  Binder binder(graph);
  for (const DimBindings::Dim& d : bindings.dims) binder.bind_dim(d);
  for (const DimBindings::InputShape& s : bindings.shapes) binder.bind_input_shape(s);
  for (size_t i = 0; i < bindings.data.size() && i < graph.inputs.size(); ++i)
    binder.bind_data(graph.inputs[i], bindings.data[i]);
  binder.apply();
  return graph;
}

}  // namespace tirc::onnx
