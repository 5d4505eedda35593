#include "ir/onnx/layout.h"

#include <map>
#include <set>

#include "ir/onnx/op.h"
#include "ir/onnx/ops/ops.h"
#include "ir/onnx/pack_weights.h"

namespace tirc::onnx {

namespace {

const std::vector<int64_t> kToChannelsLast{0, 2, 3, 1};    // NCHW -> NHWC
const std::vector<int64_t> kFromChannelsLast{0, 3, 1, 2};  // NHWC -> NCHW
const std::vector<int64_t> kConvWeights{2, 3, 1, 0};       // [M, C, kh, kw] -> [kh, kw, C, M]
// [M / B, B, C, kh, kw] -> [M / B, C, kh, kw, B]
const std::vector<int64_t> kBlockedConvWeights{0, 2, 3, 4, 1};

bool is_float_rank4(const TensorInfo& t) {
  return t.shape_known && t.shape.size() == 4 && t.dtype == DataType::float32();
}

// Operators that act element by element on NumPy-broadcast operands: they
// compute the same values in any layout of their operands, when every
// operand of rank > 1 is laid out alike.
const std::set<std::string>& elementwise_op_types() {
  static const std::set<std::string> types = [] {
    std::set<std::string> s;
    for (const OpDef& d : elementwise_ops()) s.insert(d.op_type);
    return s;
  }();
  return types;
}

class ChannelsLast {
 public:
  ChannelsLast(Graph graph, size_t blocked_weights_bytes)
      : g_(std::move(graph)), blocked_weights_bytes_(blocked_weights_bytes) {}

  Graph run() {
    std::vector<Node> nodes = std::move(g_.nodes);
    g_.nodes.clear();
    for (Node& n : nodes) {
      if (!convert(n)) g_.nodes.push_back(std::move(n));
    }
    return std::move(g_);
  }

 private:
  // A new value of the graph named after `base`, its shape left to inference.
  std::string fresh(const std::string& base, DataType dtype) {
    const std::string name = g_.fresh_tensor_name(base);
    g_.tensors[name] = TensorInfo{name, dtype, {}, false, nullptr};
    return name;
  }

  Node transpose(const std::string& from, const std::string& to,
                 const std::vector<int64_t>& perm) const {
    Node t;
    t.name = to + "_transpose";
    t.op_type = "Transpose";
    t.domain = std::string(kChannelsLastDomain);  // not named in kernel names
    t.inputs = {from};
    t.outputs = {to};
    t.attrs["perm"] = perm;
    return t;
  }

  // The channels-last twin of activation `name`, transposing it where it has none.
  std::string channels_last_of(const std::string& name) {
    if (auto it = twin_.find(name); it != twin_.end()) return it->second;
    const std::string t = fresh(name + "_nhwc", g_.tensor(name).dtype);
    g_.nodes.push_back(transpose(name, t, kToChannelsLast));
    twin_[name] = t;
    return t;
  }

  // Node n (already rewritten to read channels-last operands) writes the
  // twin of each of its outputs; the original names are a Transpose back,
  // for whatever still reads them.
  void emit_channels_last(Node n) {
    std::vector<std::pair<std::string, std::string>> published;
    for (std::string& out : n.outputs) {
      if (out.empty()) continue;
      const std::string t = fresh(out + "_nhwc", g_.tensor(out).dtype);
      published.emplace_back(out, t);
      out = t;
    }
    g_.nodes.push_back(std::move(n));
    for (const auto& [nchw, nhwc] : published) {
      g_.nodes.push_back(transpose(nhwc, nchw, kFromChannelsLast));
      twin_[nchw] = nhwc;
    }
  }

  bool convert(const Node& n) {
    if (n.is("Conv")) return convert_conv(n);
    if (n.is("MaxPool") || n.is("AveragePool") || n.is("GlobalAveragePool") ||
        n.is("GlobalMaxPool"))
      return convert_pool(n);
    if (n.is("Concat")) return convert_concat(n);
    if ((n.domain.empty() || n.domain == "ai.onnx") && elementwise_op_types().count(n.op_type))
      return convert_elementwise(n);
    return false;
  }

  bool convert_conv(const Node& n) {
    if (n.inputs.size() < 2 || n.outputs.size() != 1) return false;
    const TensorInfo& x = g_.tensor(n.inputs[0]);
    const TensorInfo& w = g_.tensor(n.inputs[1]);
    if (!is_float_rank4(x) || !w.value || w.shape.size() != 4) return false;
    const int64_t group = n.attr_int("group", 1), channels = x.shape[1];
    const bool depthwise = group == channels && w.shape[0] == channels && w.shape[1] == 1;
    if (group != 1 && !depthwise) return false;
    const std::string packed = blocks_conv_weights(group, w.shape, blocked_weights_bytes_)
                                   ? blocked_weights(n.inputs[1])
                                   : permuted_constant(g_, n.inputs[1], kConvWeights);
    if (packed.empty()) return false;
    Node c = n;
    c.domain = std::string(kChannelsLastDomain);
    c.inputs[0] = channels_last_of(n.inputs[0]);
    c.inputs[1] = packed;
    emit_channels_last(std::move(c));
    return true;
  }

  // Weights [M, C, kh, kw] as [M / B, C, kh, kw, B]: a block of B output
  // channels reads one contiguous panel, row after row of B as the
  // reduction over (C, kh, kw) advances.
  std::string blocked_weights(const std::string& name) {
    const TensorInfo& w = g_.tensor(name);
    if (!w.value || g_.is_input(name) || g_.is_output(name)) return "";
    Shape split{w.shape[0] / kWeightsBlock, kWeightsBlock};
    split.insert(split.end(), w.shape.begin() + 1, w.shape.end());
    auto reshaped = std::make_shared<NDArray>(w.value->dtype(), split);
    std::copy(w.value->data(), w.value->data() + w.value->num_bytes(), reshaped->data());
    const std::string tmp = g_.fresh_tensor_name(name + "_blocks");
    g_.tensors[tmp] = TensorInfo{tmp, w.dtype, split, true, reshaped};
    const std::string packed = permuted_constant(g_, tmp, kBlockedConvWeights);
    g_.tensors.erase(tmp);
    return packed;
  }

  // A pool follows a channels-last producer; alone it would only add transposes.
  bool convert_pool(const Node& n) {
    if (n.inputs.empty() || !twin_.count(n.inputs[0]) || !is_float_rank4(g_.tensor(n.inputs[0])))
      return false;
    if (n.outputs.size() != 1) return false;  // MaxPool's Indices
    Node p = n;
    p.domain = std::string(kChannelsLastDomain);
    p.inputs[0] = twin_[n.inputs[0]];
    emit_channels_last(std::move(p));
    return true;
  }

  bool convert_concat(const Node& n) {
    if (n.inputs.empty() || n.outputs.size() != 1) return false;
    for (const std::string& in : n.inputs)
      if (in.empty() || !twin_.count(in)) return false;
    int64_t axis = n.attr_int("axis", 1);
    if (axis < 0) axis += 4;
    if (axis < 0 || axis >= 4) return false;
    Node c = n;
    for (std::string& in : c.inputs) in = twin_[in];
    // Axis a of ONNX's layout is axis kFromChannelsLast[a] of the channels-last one.
    c.attrs["axis"] = kFromChannelsLast[static_cast<size_t>(axis)];
    emit_channels_last(std::move(c));
    return true;
  }

  // Follows when every activation operand is channels-last; constant
  // operands are transposed (one-element ones broadcast alike either way).
  bool convert_elementwise(const Node& n) {
    if (n.outputs.size() != 1 || !is_float_rank4(g_.tensor(n.outputs[0]))) return false;
    Node e = n;
    bool any = false;
    for (std::string& in : e.inputs) {
      if (in.empty()) continue;
      const TensorInfo& t = g_.tensor(in);
      if (auto it = twin_.find(in); it != twin_.end()) {
        in = it->second;
        any = true;
      } else if (t.value && t.value->num_elements() == 1) {
        continue;
      } else if (t.value && !g_.is_input(in) && !g_.is_output(in)) {
        // Checked before anything is added to the graph: a refusal changes nothing.
        if (t.value->shape().size() > 4) return false;
      } else {
        return false;  // an activation in ONNX's layout
      }
    }
    if (!any) return false;
    for (size_t k = 0; k < e.inputs.size(); ++k) {
      const std::string& in = n.inputs[k];
      if (in.empty() || twin_.count(in)) continue;
      const TensorInfo& t = g_.tensor(in);
      if (t.value->num_elements() == 1) continue;
      e.inputs[k] = permuted_constant(g_, in, kToChannelsLast);
    }
    emit_channels_last(std::move(e));
    return true;
  }

  Graph g_;
  size_t blocked_weights_bytes_;
  std::map<std::string, std::string> twin_;  // ONNX-layout activation -> channels-last twin
};

}  // namespace

bool blocks_conv_weights(int64_t group, const Shape& weights, size_t blocked_weights_bytes) {
  int64_t bytes = 4;
  for (int64_t d : weights) bytes *= d;
  return group == 1 && !weights.empty() && weights[0] % kWeightsBlock == 0 && bytes > 0 &&
         static_cast<size_t>(bytes) >= blocked_weights_bytes;
}

bool prefers_channels_last(const Graph& graph) {
  bool any_conv = false, all_whole_blocks = true;
  for (const Node& n : graph.nodes) {
    if (!n.is("Conv") || n.inputs.size() < 2) continue;
    const TensorInfo& x = graph.tensor(n.inputs[0]);
    const TensorInfo& w = graph.tensor(n.inputs[1]);
    if (!is_float_rank4(x) || w.shape.size() != 4) continue;
    const int64_t group = n.attr_int("group", 1);
    if (group > 1 && group == x.shape[1]) return true;  // depthwise
    any_conv = true;
    all_whole_blocks = all_whole_blocks && w.shape[0] % kWeightsBlock == 0;
  }
  return any_conv && all_whole_blocks;
}

Graph convert_to_channels_last(Graph graph, size_t blocked_weights_bytes) {
  return ChannelsLast(std::move(graph), blocked_weights_bytes).run();
}

}  // namespace tirc::onnx
