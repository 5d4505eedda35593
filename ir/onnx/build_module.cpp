#include "ir/onnx/build_module.h"

#include <algorithm>
#include <set>
#include <unordered_set>

#include "ir/functor.h"
#include "ir/onnx/group_kernel.h"
#include "ir/onnx/op.h"
#include "ir/structural.h"

namespace tirc::onnx {

std::string identifier_from(const std::string& name) {
  static const std::set<std::string> reserved = {
      "False",   "None",     "True",     "and",    "as",   "assert",  "async",  "await",
      "break",   "class",    "continue", "def",    "del",  "elif",    "else",   "except",
      "finally", "for",      "from",     "global", "if",   "import",  "in",     "is",
      "lambda",  "nonlocal", "not",      "or",     "pass", "raise",   "return", "try",
      "while",   "with",     "yield",    "T",      "I",    "metadata"};
  std::string id;
  for (char c : name) {
    bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    id += ok ? c : '_';
  }
  if (id.empty() || (id[0] >= '0' && id[0] <= '9')) id = "t_" + id;
  if (reserved.count(id)) id += "_";
  return id;
}

bool is_identity(const Node& node) {
  return node.is("Identity");
}

namespace {

// The buffers a kernel body reads or writes.
class BufferUses : public StmtVisitor {
 public:
  std::unordered_set<const BufferNode*> used;

 protected:
  void visit_load(const BufferLoadNode* n) override {
    used.insert(n->buffer.get());
    StmtVisitor::visit_load(n);
  }
  void visit_store(const BufferStoreNode* n) override {
    used.insert(n->buffer.get());
    StmtVisitor::visit_store(n);
  }
  void visit_region(const BufferRegion& r) override {
    used.insert(r.buffer.get());
    StmtVisitor::visit_region(r);
  }
};

bool is_graph_output(const Graph& graph, const std::string& name) {
  return std::find(graph.outputs.begin(), graph.outputs.end(), name) != graph.outputs.end();
}

// "BatchNormalization" -> "batch_normalization", "MatMul" -> "mat_mul".
std::string snake_case(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    bool upper = c >= 'A' && c <= 'Z';
    if (upper && i > 0) {
      char prev = s[i - 1];
      bool prev_lower = (prev >= 'a' && prev <= 'z') || (prev >= '0' && prev <= '9');
      bool next_lower = i + 1 < s.size() && s[i + 1] >= 'a' && s[i + 1] <= 'z';
      bool prev_upper = prev >= 'A' && prev <= 'Z';
      if (prev_lower || (prev_upper && next_lower)) out += '_';
    }
    out += upper ? static_cast<char>(c - 'A' + 'a') : c;
  }
  return identifier_from(out);
}

bool inline_as_immediate(const TensorInfo& t) {
  return t.value && t.value->num_elements() == 1;
}

}  // namespace

BuiltGroup build_group(const Graph& graph, const KernelGroup& group, const std::string& name,
                       const GroupBuildOptions& options) {
  std::set<std::string> produced;
  std::set<size_t> members(group.nodes.begin(), group.nodes.end());
  for (size_t i : group.nodes)
    for (const std::string& o : graph.nodes.at(i).outputs)
      if (!o.empty()) produced.insert(o);

  KernelBuilder kb(name);
  BuiltGroup result;
  std::map<std::string, TensorValue>& values = result.values;

  // External inputs: parameters first, in the order the nodes first use them.
  // Single-element constants are immediates; weights stay parameters (the
  // entry binds them) that still carry their values for shape-like operands.
  std::vector<std::pair<std::string, Buffer>> input_params;
  for (size_t i : group.nodes)
    for (const std::string& in : graph.nodes[i].inputs) {
      if (in.empty() || produced.count(in) || values.count(in)) continue;
      const TensorInfo& t = graph.tensor(in);
      if (!t.shape_known && !t.value)
        graph.nodes[i].fail("the shape of input '" + in + "' is unknown");
      if (inline_as_immediate(t)) {
        values[in] = TensorValue::of_constant(t.value);
        continue;
      }
      if (std::find(t.shape.begin(), t.shape.end(), 0) != t.shape.end()) {
        // An empty tensor: no element of it is ever read, no storage is passed.
        DataType dtype = t.dtype;
        values[in] = TensorValue::of_element(
            dtype, t.shape, [dtype](const std::vector<Expr>&) { return make_const(dtype, 0); });
        values[in].value = t.value;
        continue;
      }
      Buffer b = kb.add_param(in, t.dtype, t.shape);
      TensorValue v = TensorValue::of_buffer(b, t.shape);
      v.value = t.value;
      values[in] = v;
      input_params.emplace_back(in, b);
    }

  auto leaves = [&](const std::string& out) {
    if (options.all_outputs_leave || is_graph_output(graph, out)) return true;
    for (size_t j = 0; j < graph.nodes.size(); ++j) {
      if (members.count(j)) continue;
      for (const std::string& in : graph.nodes[j].inputs)
        if (in == out) return true;
    }
    return false;
  };

  std::vector<std::string> leaving;
  // Blocks writing outputs are named after the operator computing them (not
  // the tensor), so equal computations build structurally equal kernels.
  std::map<std::string, std::string> computed_by;
  for (size_t i : group.nodes) {
    const Node& node = graph.nodes[i];
    std::vector<bool> out_leaves;
    if (is_identity(node)) {
      if (node.inputs.empty() || node.inputs[0].empty() || node.outputs.size() != 1)
        node.fail("expects one input and one output");
      values[node.outputs[0]] = values.at(node.inputs[0]);
      computed_by[node.outputs[0]] = "identity";
      if (leaves(node.outputs[0])) leaving.push_back(node.outputs[0]);
      continue;
    }
    const OpDef* op = find_op(node.domain, node.op_type);
    if (!op) node.fail("operator not supported");
    std::vector<TensorValue> inputs;
    for (const std::string& in : node.inputs)
      inputs.push_back(in.empty() ? TensorValue{} : values.at(in));
    for (const std::string& o : node.outputs) {
      bool l = !o.empty() && leaves(o);
      out_leaves.push_back(l);
      if (l) leaving.push_back(o);
    }
    OpContext ctx(graph, node, std::move(inputs), kb, out_leaves);
    std::vector<TensorValue> outs = op->build(ctx);
    if (outs.size() < node.outputs.size()) {
      // Optional trailing outputs an operator does not compute must be unused.
      for (size_t k = outs.size(); k < node.outputs.size(); ++k)
        if (!node.outputs[k].empty())
          node.fail("output " + std::to_string(k) + " ('" + node.outputs[k] +
                    "') is not supported");
    }
    for (size_t k = 0; k < node.outputs.size(); ++k)
      if (!node.outputs[k].empty()) {
        values[node.outputs[k]] = outs[k];
        computed_by[node.outputs[k]] = snake_case(node.op_type);
      }
  }

  if (!options.finish) return result;

  // Outputs that are not already written to an output parameter (inlined
  // expressions, intermediates) are written to a new one.
  PrimFunc partial = kb.finish();
  std::set<const BufferNode*> output_params;
  for (size_t p = input_params.size(); p < partial->params.size(); ++p)
    if (partial->params[p].buffer) output_params.insert(partial->params[p].buffer.get());
  std::map<const BufferNode*, std::string> param_tensor;
  for (const std::string& out : leaving) {
    const TensorValue& v = values.at(out);
    if (options.skip_known_outputs && v.value) continue;
    if (v.buffer && output_params.count(v.buffer.get()) && !param_tensor.count(v.buffer.get())) {
      param_tensor[v.buffer.get()] = out;
      continue;
    }
    Buffer p = kb.add_param(out, v.dtype, v.shape);
    kb.write_to(v, p, computed_by.at(out));
    param_tensor[p.get()] = out;
  }
  PrimFunc full = kb.finish();

  // Inputs only their values were needed of (Reshape's shape, ...) are dropped.
  BufferUses uses;
  uses.visit(full->body);
  std::vector<Param> params;
  for (size_t p = 0; p < full->params.size(); ++p) {
    const Param& param = full->params[p];
    if (p < input_params.size()) {
      if (!uses.used.count(param.buffer.get())) continue;
      result.kernel.inputs.push_back(input_params[p].first);
    } else {
      auto it = param_tensor.find(param.buffer.get());
      if (it == param_tensor.end())
        throw Error("kernel '" + name + "': parameter '" + param.buffer->name +
                    "' is not bound to any output of the group");
      result.kernel.outputs.push_back(it->second);
    }
    params.push_back(param);
  }
  result.kernel.func = make_prim_func(std::move(params), full->body, full->attrs);
  return result;
}

GroupKernel build_group_kernel(const Graph& graph, const KernelGroup& group,
                               const std::string& name) {
  return build_group(graph, group, name).kernel;
}

namespace {

std::string kernel_base_name(const Graph& graph, const KernelGroup& group) {
  // Long fused chains are named after their first operators.
  constexpr size_t kMaxOps = 4;
  std::string name;
  size_t named = 0;
  for (size_t k = 0; k < group.nodes.size() && named < kMaxOps; ++k) {
    const Node& n = graph.nodes[group.nodes[k]];
    // The layout pass's transposes are not the user's operators.
    if (n.domain == kChannelsLastDomain && n.op_type == "Transpose") continue;
    if (named++) name += '_';
    name += snake_case(n.op_type);
  }
  return name.empty() ? "kernel" : name;
}

class NameTable {
 public:
  std::string unique(const std::string& base) {
    std::string name = base;
    for (int k = 1; used_.count(name); ++k) name = base + "_" + std::to_string(k);
    used_.insert(name);
    return name;
  }

 private:
  std::set<std::string> used_;
};

Expr index_imm(int64_t v) {
  return v <= INT32_MAX ? make_int(v) : make_int(v, DataType::int64());
}

int64_t buffer_bytes(const Buffer& b) {
  auto n = const_num_elements(b);
  if (!n) throw Error("buffer '" + b->name + "' has a non-constant shape");
  return *n * b->dtype.bytes();
}

struct KernelCall {
  std::string callee;
  std::vector<std::string> inputs;  // tensor names
  std::vector<std::string> outputs;
  std::vector<int64_t> output_bytes;
  int copy_to_output = -1;  // a copy kernel writing graph output slot k
};

struct Slot {
  int64_t offset = 0, bytes = 0, last_use = 0;
};

// Intermediates by lifetime into one byte workspace: each value takes the
// lowest 64-byte aligned offset that no value live at the same time occupies.
// A value last read by call k is still live while call k writes its outputs.
std::map<std::string, int64_t> plan_workspace(const std::vector<KernelCall>& calls,
                                              const std::set<std::string>& intermediates,
                                              int64_t& total) {
  constexpr int64_t kAlign = 64;
  std::map<std::string, int64_t> last_use;
  for (size_t c = 0; c < calls.size(); ++c)
    for (const std::string& in : calls[c].inputs) last_use[in] = static_cast<int64_t>(c);
  std::map<std::string, int64_t> offsets;
  std::vector<Slot> live;
  total = 0;
  for (size_t c = 0; c < calls.size(); ++c) {
    int64_t now = static_cast<int64_t>(c);
    std::erase_if(live, [&](const Slot& s) { return s.last_use < now; });
    for (size_t o = 0; o < calls[c].outputs.size(); ++o) {
      const std::string& t = calls[c].outputs[o];
      if (!intermediates.count(t) || offsets.count(t)) continue;
      int64_t bytes = std::max<int64_t>(calls[c].output_bytes[o], 1);
      std::sort(live.begin(), live.end(),
                [](const Slot& a, const Slot& b) { return a.offset < b.offset; });
      int64_t offset = 0;
      for (const Slot& s : live) {
        if (offset + bytes <= s.offset) break;
        offset = std::max(offset, (s.offset + s.bytes + kAlign - 1) / kAlign * kAlign);
      }
      auto it = last_use.find(t);
      live.push_back({offset, bytes, it == last_use.end() ? now : std::max(it->second, now)});
      offsets[t] = offset;
      total = std::max(total, (offset + bytes + kAlign - 1) / kAlign * kAlign);
    }
  }
  return offsets;
}

// A parameter's dimensions as the model declares them, for kIoDimsAttr: its
// dim_param or "?" where it has one, else the number. ',' and ';' in a
// dim_param become '_': they separate the attribute's lists.
std::string declared_dims(const TensorInfo& t, const Shape& shape) {
  std::string out;
  for (size_t d = 0; d < shape.size(); ++d) {
    const bool symbolic = t.dim_params.size() == shape.size() && !t.dim_params[d].empty();
    std::string dim = symbolic ? t.dim_params[d] : std::to_string(shape[d]);
    std::replace_if(dim.begin(), dim.end(), [](char c) { return c == ',' || c == ';'; }, '_');
    out += (d ? "," : "") + dim;
  }
  return out;
}

// A kernel copying one tensor (a graph input, a constant, or an output listed
// twice) into a graph output.
PrimFunc copy_kernel(const TensorInfo& t) {
  KernelBuilder kb("copy");
  TensorValue src;
  if (inline_as_immediate(t)) {
    src = TensorValue::of_constant(t.value);
  } else {
    src = TensorValue::of_buffer(kb.add_param("src", t.dtype, t.shape), t.shape);
  }
  Buffer dst = kb.add_param("dst", t.dtype, t.shape);
  kb.write_to(src, dst, "identity");
  return kb.finish();
}

}  // namespace

IRModule build_module(const Graph& graph, const std::vector<KernelGroup>& groups,
                      const BuildOptions& options) {
  IRModule module;
  NameTable kernel_names;
  kernel_names.unique(options.entry_name);
  std::map<size_t, std::vector<std::string>> by_hash;  // structural hash -> kernel names

  // A kernel structurally equal to one already in the module is called by that name.
  auto add_kernel = [&](const std::string& base, const PrimFunc& f) {
    size_t h = structural_hash(f);
    for (const std::string& existing : by_hash[h])
      if (structural_equal(module.at(existing), f)) return existing;
    std::string name = kernel_names.unique(base);
    module.add(name, f);
    by_hash[h].push_back(name);
    return name;
  };

  std::vector<KernelCall> calls;
  for (const KernelGroup& group : groups) {
    std::string base = kernel_base_name(graph, group);
    GroupKernel k = build_group_kernel(graph, group, base);
    if (k.outputs.empty()) continue;  // nothing of it is used
    KernelCall call{"", k.inputs, k.outputs, {}, -1};
    int64_t bytes = 0;
    for (size_t o = 0; o < k.outputs.size(); ++o) {
      call.output_bytes.push_back(buffer_bytes(k.func->params[k.inputs.size() + o].buffer));
      bytes += call.output_bytes.back();
    }
    if (bytes == 0) continue;  // only empty tensors: nothing to compute
    call.callee = add_kernel(base, k.func);
    calls.push_back(std::move(call));
  }

  std::set<std::string> computed;
  for (const KernelCall& c : calls) computed.insert(c.outputs.begin(), c.outputs.end());
  std::set<std::string> output_tensors;  // graph outputs written in place by their kernel
  for (size_t k = 0; k < graph.outputs.size(); ++k) {
    const std::string& out = graph.outputs[k];
    const TensorInfo& t = graph.tensor(out);
    if (!t.shape_known && !t.value) throw Error("graph output '" + out + "' has an unknown shape");
    Shape shape = t.value ? t.value->shape() : t.shape;
    if (std::find(shape.begin(), shape.end(), 0) != shape.end())
      continue;  // empty: nothing to write
    if (computed.count(out) && !output_tensors.count(out)) {
      output_tensors.insert(out);
      continue;
    }
    if (!computed.count(out) && !t.value &&
        std::find(graph.inputs.begin(), graph.inputs.end(), out) == graph.inputs.end())
      throw Error("graph output '" + out + "' is computed by no node");
    PrimFunc f = copy_kernel(t);
    KernelCall call{add_kernel("identity", f), {}, {}, {}, static_cast<int>(k)};
    if (!inline_as_immediate(t)) call.inputs.push_back(out);
    calls.push_back(std::move(call));
  }

  // Storage of every tensor a call names.
  NameTable names;
  std::vector<Param> params;
  std::map<std::string, Expr> handle_of;
  std::string io_names, io_dims;
  std::vector<Buffer> output_params;
  auto add_io = [&](const std::string& name, bool is_output) {
    const TensorInfo& t = graph.tensor(name);
    Shape shape = t.shape_known ? t.shape : (t.value ? t.value->shape() : Shape{});
    io_dims += (params.empty() ? "" : ";") + declared_dims(t, shape);
    Buffer b = make_buffer(names.unique(identifier_from(name)), t.dtype, {});
    auto n = std::make_shared<BufferNode>(*b);
    for (int64_t d : shape) n->shape.push_back(index_imm(d));
    params.push_back(Param{n->data, n});
    if (is_output)
      output_params.push_back(n);
    else
      handle_of.emplace(name, n->data);
    io_names += (io_names.empty() ? "" : ";") + name;
  };
  for (const std::string& in : graph.inputs) add_io(in, false);
  for (const std::string& out : graph.outputs) {
    add_io(out, true);
    // The first output slot of a computed tensor is where its kernel writes it.
    if (output_tensors.count(out) && !handle_of.count(out))
      handle_of[out] = output_params.back()->data;
  }

  struct ConstBinding {
    Var var;
    std::string tensor;
  };
  std::vector<ConstBinding> consts;
  for (const KernelCall& c : calls)
    for (const std::string& in : c.inputs) {
      if (handle_of.count(in)) continue;
      const TensorInfo& t = graph.tensor(in);
      if (!t.value) continue;
      Var v = make_var(names.unique(identifier_from(in)), DataType::handle());
      consts.push_back({v, in});
      handle_of[in] = v;
      module.add_constant(in, t.value);
    }

  // Empty tensors have no storage (a caller's empty array has no address):
  // a kernel writing one besides others gets the workspace's first byte.
  std::set<std::string> intermediates, empty;
  for (const KernelCall& c : calls)
    for (size_t o = 0; o < c.outputs.size(); ++o) {
      if (c.output_bytes[o] == 0)
        empty.insert(c.outputs[o]);
      else if (!handle_of.count(c.outputs[o]))
        intermediates.insert(c.outputs[o]);
    }
  int64_t ws_bytes = 0;
  std::map<std::string, int64_t> offsets = plan_workspace(calls, intermediates, ws_bytes);
  Var ws_var = make_var(names.unique("workspace"), DataType::handle());
  auto ws = std::make_shared<BufferNode>();
  ws->name = names.unique("workspace_1");
  ws->data = ws_var;
  ws->dtype = DataType::uint8();
  ws->shape = {index_imm(std::max<int64_t>(ws_bytes, 1))};
  for (const std::string& t : empty) offsets[t] = 0;
  for (const auto& [t, off] : offsets)
    handle_of[t] = make_call(DataType::handle(), kAddressOf, {make_load(ws, {index_imm(off)})});

  std::vector<Stmt> body;
  for (const KernelCall& c : calls) {
    std::vector<Expr> args;
    for (const std::string& in : c.inputs) args.push_back(handle_of.at(in));
    for (const std::string& out : c.outputs) args.push_back(handle_of.at(out));
    if (c.copy_to_output >= 0)
      args.push_back(output_params[static_cast<size_t>(c.copy_to_output)]->data);
    body.push_back(make_evaluate(make_call_kernel(c.callee, std::move(args))));
  }
  Stmt stmt = make_seq(std::move(body));
  if (!offsets.empty()) {
    stmt = std::make_shared<DeclBufferNode>(ws, stmt);
    stmt = std::make_shared<AllocateNode>(ws_var, DataType::uint8(),
                                          std::vector<Expr>{ws->shape[0]}, "global", stmt);
  }
  for (auto it = consts.rbegin(); it != consts.rend(); ++it) {
    const NDArray& value = *graph.tensor(it->tensor).value;
    std::vector<Expr> extents;
    for (int64_t d : value.shape()) extents.push_back(index_imm(d));
    if (extents.empty()) extents.push_back(index_imm(1));
    stmt = std::make_shared<AllocateConstNode>(it->var, value.dtype(), std::move(extents),
                                               it->tensor, stmt);
  }

  Annotations attrs;
  attrs[kEntryAttr] = make_bool(true);
  attrs[kNumInputsAttr] = make_int(static_cast<int64_t>(graph.inputs.size()));
  attrs[kIoNamesAttr] = make_string(io_names);
  // Only a model whose inputs had symbolic dimensions says what they became.
  if (std::any_of(graph.inputs.begin(), graph.inputs.end(),
                  [&](const std::string& in) { return !graph.tensor(in).dim_params.empty(); }))
    attrs[kIoDimsAttr] = make_string(io_dims);
  module.add(options.entry_name, make_prim_func(std::move(params), stmt, std::move(attrs)));
  return module;
}

}  // namespace tirc::onnx
