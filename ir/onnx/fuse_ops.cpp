#include "ir/onnx/fuse_ops.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "ir/onnx/group_kernel.h"
#include "ir/onnx/op.h"

namespace tirc {

using onnx::Graph;
using onnx::KernelGroup;
using onnx::Node;
using onnx::OpPattern;
using onnx::Shape;

namespace {

// Nodes reading each tensor (a node reading it twice counts once).
std::map<std::string, std::vector<size_t>> consumers_of(const Graph& graph) {
  std::map<std::string, std::vector<size_t>> users;
  for (size_t i = 0; i < graph.nodes.size(); ++i)
    for (const std::string& in : graph.nodes[i].inputs)
      if (!in.empty() && (users[in].empty() || users[in].back() != i)) users[in].push_back(i);
  return users;
}

const NDArray* constant_f32(const Graph& graph, const std::string& name) {
  auto it = graph.tensors.find(name);
  if (it == graph.tensors.end() || !it->second.value) return nullptr;
  return it->second.value->dtype() == DataType::float32() ? it->second.value.get() : nullptr;
}

// Folds BN node `b` into Conv node `c` when every operand is a float32 constant.
bool fold_pair(Graph& graph, size_t c, size_t b) {
  Node& conv = graph.nodes[c];
  const Node& bn = graph.nodes[b];
  if (bn.inputs.size() < 5 || conv.inputs.size() < 2) return false;
  for (size_t k = 1; k < bn.outputs.size(); ++k)
    if (!bn.outputs[k].empty()) return false;  // training outputs
  if (bn.attr_int("training_mode", 0) != 0) return false;
  const NDArray* w = constant_f32(graph, conv.inputs[1]);
  const NDArray* bias = conv.inputs.size() > 2 && !conv.inputs[2].empty()
                            ? constant_f32(graph, conv.inputs[2])
                            : nullptr;
  bool has_bias = conv.inputs.size() > 2 && !conv.inputs[2].empty();
  const NDArray* gamma = constant_f32(graph, bn.inputs[1]);
  const NDArray* beta = constant_f32(graph, bn.inputs[2]);
  const NDArray* mean = constant_f32(graph, bn.inputs[3]);
  const NDArray* var = constant_f32(graph, bn.inputs[4]);
  if (!w || (has_bias && !bias) || !gamma || !beta || !mean || !var || w->shape().empty())
    return false;
  int64_t channels = w->shape()[0];
  for (const NDArray* p : {gamma, beta, mean, var})
    if (p->num_elements() != channels) return false;
  if (bias && bias->num_elements() != channels) return false;
  double eps = bn.attr_float("epsilon", 1e-5);

  auto new_w = std::make_shared<NDArray>(DataType::float32(), w->shape());
  auto new_b = std::make_shared<NDArray>(DataType::float32(), Shape{channels});
  int64_t per_channel = w->num_elements() / channels;
  for (int64_t o = 0; o < channels; ++o) {
    double scale = gamma->get_float(o) / std::sqrt(var->get_float(o) + eps);
    for (int64_t k = 0; k < per_channel; ++k)
      new_w->set_float(o * per_channel + k, w->get_float(o * per_channel + k) * scale);
    double b0 = bias ? bias->get_float(o) : 0.0;
    new_b->set_float(o, (b0 - mean->get_float(o)) * scale + beta->get_float(o));
  }
  std::string w_name = graph.fresh_tensor_name(conv.inputs[1] + "_bn");
  graph.tensors[w_name] = onnx::TensorInfo{w_name, DataType::float32(), w->shape(), true, new_w};
  std::string b_name =
      graph.fresh_tensor_name((has_bias ? conv.inputs[2] : conv.outputs[0] + "_bias") + "_bn");
  graph.tensors[b_name] =
      onnx::TensorInfo{b_name, DataType::float32(), Shape{channels}, true, new_b};

  graph.tensors.erase(conv.outputs[0]);
  conv.inputs.resize(3);
  conv.inputs[1] = w_name;
  conv.inputs[2] = b_name;
  conv.outputs[0] = bn.outputs[0];
  return true;
}

}  // namespace

Graph fold_batchnorm_into_conv(Graph graph) {
  std::vector<bool> removed(graph.nodes.size(), false);
  auto users = consumers_of(graph);
  std::map<std::string, size_t> producer;
  for (size_t i = 0; i < graph.nodes.size(); ++i)
    for (const std::string& o : graph.nodes[i].outputs)
      if (!o.empty()) producer[o] = i;
  for (size_t b = 0; b < graph.nodes.size(); ++b) {
    const Node& bn = graph.nodes[b];
    if (!bn.is("BatchNormalization") || bn.inputs.empty()) continue;
    auto p = producer.find(bn.inputs[0]);
    if (p == producer.end() || removed[p->second] || !graph.nodes[p->second].is("Conv")) continue;
    const std::string& y = bn.inputs[0];
    if (users[y].size() != 1 || graph.is_output(y)) continue;
    if (graph.nodes[p->second].outputs.size() != 1) continue;
    if (fold_pair(graph, p->second, b)) removed[b] = true;
  }
  std::vector<Node> kept;
  for (size_t i = 0; i < graph.nodes.size(); ++i)
    if (!removed[i]) kept.push_back(std::move(graph.nodes[i]));
  graph.nodes = std::move(kept);
  return graph;
}

namespace {

OpPattern pattern_of(const Node& node) {
  if (onnx::is_identity(node)) return OpPattern::Injective;
  const onnx::OpDef* op = onnx::find_op(node.domain, node.op_type);
  if (!op) node.fail("operator not supported");
  return op->pattern;
}

// Groups under construction: node lists plus which group computes each tensor.
class Partition {
 public:
  explicit Partition(const Graph& graph) : graph_(graph), group_of_(graph.nodes.size(), -1) {
    for (size_t i = 0; i < graph.nodes.size(); ++i)
      for (const std::string& o : graph.nodes[i].outputs)
        if (!o.empty()) producer_[o] = i;
  }

  int group_of(size_t node) const { return group_of_[node]; }
  const std::vector<std::vector<size_t>>& groups() const { return groups_; }

  // The group computing tensor t, or -1 (a graph input or constant).
  int group_of_tensor(const std::string& t) const {
    auto it = producer_.find(t);
    return it == producer_.end() ? -1 : group_of_[it->second];
  }

  int new_group(size_t node) {
    groups_.push_back({node});
    group_of_[node] = static_cast<int>(groups_.size() - 1);
    return group_of_[node];
  }

  void add(int g, size_t node) {
    groups_[static_cast<size_t>(g)].push_back(node);
    group_of_[node] = g;
  }

  // Moves every node of `from` into `to` (from is left empty).
  void merge(int from, int to) {
    for (size_t n : groups_[static_cast<size_t>(from)]) add(to, n);
    groups_[static_cast<size_t>(from)].clear();
  }

  // Group-level edges among the nodes assigned so far.
  std::vector<std::set<int>> successors() const {
    std::vector<std::set<int>> succ(groups_.size());
    for (size_t i = 0; i < graph_.nodes.size(); ++i) {
      int g = group_of_[i];
      if (g < 0) continue;
      for (const std::string& in : graph_.nodes[i].inputs) {
        int p = in.empty() ? -1 : group_of_tensor(in);
        if (p >= 0 && p != g) succ[static_cast<size_t>(p)].insert(g);
      }
    }
    return succ;
  }

  // Whether putting `node` (not yet assigned) into one group together with
  // the groups `merged` would close a cycle: some other group both reachable
  // from a merged group and feeding the result.
  bool creates_cycle(size_t node, const std::set<int>& merged) const {
    auto succ = successors();
    std::set<int> reach;
    std::vector<int> stack;
    for (int g : merged)
      for (int s : succ[static_cast<size_t>(g)])
        if (!merged.count(s) && reach.insert(s).second) stack.push_back(s);
    while (!stack.empty()) {
      int g = stack.back();
      stack.pop_back();
      for (int s : succ[static_cast<size_t>(g)])
        if (!merged.count(s) && reach.insert(s).second) stack.push_back(s);
    }
    if (reach.empty()) return false;
    // Groups reaching the merged set (through edges and the node's inputs).
    for (const std::string& in : graph_.nodes[node].inputs) {
      int p = in.empty() ? -1 : group_of_tensor(in);
      if (p >= 0 && reach.count(p)) return true;
    }
    for (int r : reach)
      for (int s : succ[static_cast<size_t>(r)])
        if (merged.count(s)) return true;
    return false;
  }

 private:
  const Graph& graph_;
  std::vector<int> group_of_;
  std::map<std::string, size_t> producer_;
  std::vector<std::vector<size_t>> groups_;
};

// Groups in an order where each comes after the groups it reads (ties: the
// group holding the earliest node first).
std::vector<KernelGroup> dependency_order(const Graph& graph, const Partition& part) {
  const auto& groups = part.groups();
  auto succ = part.successors();
  std::vector<int> indegree(groups.size(), 0);
  for (const auto& s : succ)
    for (int g : s) ++indegree[static_cast<size_t>(g)];
  auto first_node = [&](int g) {
    return *std::min_element(groups[static_cast<size_t>(g)].begin(),
                             groups[static_cast<size_t>(g)].end());
  };
  std::set<std::pair<size_t, int>> ready;
  for (size_t g = 0; g < groups.size(); ++g)
    if (!groups[g].empty() && indegree[g] == 0)
      ready.insert({first_node(static_cast<int>(g)), static_cast<int>(g)});
  std::vector<KernelGroup> out;
  while (!ready.empty()) {
    int g = ready.begin()->second;
    ready.erase(ready.begin());
    KernelGroup k{groups[static_cast<size_t>(g)]};
    std::sort(k.nodes.begin(), k.nodes.end());
    out.push_back(std::move(k));
    for (int s : succ[static_cast<size_t>(g)])
      if (--indegree[static_cast<size_t>(s)] == 0) ready.insert({first_node(s), s});
  }
  size_t placed = 0;
  for (const KernelGroup& k : out) placed += k.nodes.size();
  if (placed != graph.nodes.size())
    throw Error("fuse_ops: the kernel groups depend on each other in a cycle");
  return out;
}

}  // namespace

std::vector<KernelGroup> fuse_ops(const Graph& graph, bool fuse) {
  std::vector<KernelGroup> groups;
  if (!fuse) {
    for (size_t i = 0; i < graph.nodes.size(); ++i) groups.push_back(KernelGroup{{i}});
    return groups;
  }
  auto users = consumers_of(graph);
  auto single_consumer = [&](const std::string& t, size_t node) {
    auto it = users.find(t);
    return it != users.end() && it->second.size() == 1 && it->second[0] == node;
  };

  Partition part(graph);
  std::vector<bool> anchored;  // per group: holds a Complex or Reduction node
  std::vector<bool> injective_only;
  auto note_new = [&](int g, bool anchor) {
    anchored.resize(static_cast<size_t>(g) + 1);
    injective_only.resize(static_cast<size_t>(g) + 1);
    anchored[static_cast<size_t>(g)] = anchor;
    injective_only[static_cast<size_t>(g)] = !anchor;
  };

  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node& node = graph.nodes[i];
    OpPattern pattern = pattern_of(node);
    if (pattern == OpPattern::Complex || pattern == OpPattern::Reduction) {
      // Injective-only groups whose every output feeds only this node are
      // its prologue: inlined into its loads.
      std::set<int> prologue;
      for (const std::string& in : node.inputs) {
        int p = in.empty() ? -1 : part.group_of_tensor(in);
        if (p < 0 || !injective_only[static_cast<size_t>(p)] || prologue.count(p)) continue;
        bool only_here = true;
        for (size_t n : part.groups()[static_cast<size_t>(p)])
          for (const std::string& o : graph.nodes[n].outputs) {
            if (o.empty()) continue;
            if (graph.is_output(o)) only_here = false;
            auto it = users.find(o);
            if (it != users.end())
              for (size_t u : it->second)
                if (u != i && part.group_of(u) != p) only_here = false;
          }
        if (!only_here) continue;
        std::set<int> trial = prologue;
        trial.insert(p);
        if (!part.creates_cycle(i, trial)) prologue = trial;
      }
      if (prologue.empty()) {
        note_new(part.new_group(i), true);
        continue;
      }
      int g = *prologue.begin();
      for (int p : prologue)
        if (p != g) part.merge(p, g);
      part.add(g, i);
      anchored[static_cast<size_t>(g)] = true;
      injective_only[static_cast<size_t>(g)] = false;
      continue;
    }
    if (pattern == OpPattern::Injective) {
      // Epilogue: join the group computing an input only this node reads.
      int chosen = -1;
      for (const std::string& in : node.inputs) {
        int p = in.empty() ? -1 : part.group_of_tensor(in);
        if (p < 0 || !single_consumer(in, i)) continue;
        if (part.creates_cycle(i, {p})) continue;
        if (chosen < 0 ||
            (anchored[static_cast<size_t>(p)] && !anchored[static_cast<size_t>(chosen)]))
          chosen = p;
      }
      if (chosen >= 0) {
        part.add(chosen, i);
        continue;
      }
    }
    note_new(part.new_group(i), false);
  }
  return dependency_order(graph, part);
}

}  // namespace tirc
