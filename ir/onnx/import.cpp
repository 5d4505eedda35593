#include "ir/onnx/import.h"

#include <climits>
#include <filesystem>
#include <map>
#include <set>

#include "ir/error.h"
#include "ir/onnx/op.h"
#include "ir/onnx/op_versions.h"
#include "ir/onnx/tensor_proto.h"

namespace tirc::onnx {

namespace {

namespace fs = std::filesystem;

// ONNX spells the default domain either way.
std::string canonical_domain(const std::string& domain) {
  return domain == "ai.onnx" ? std::string() : domain;
}

// For the ai.onnx operators whose definition changed between opset 2 and
// kMinOpset (7): the newest such change (from ONNX's operator changelog).
// An older model whose operators all predate their last change means exactly
// what it would mean at opset 7, and is imported as such.
int64_t last_change_up_to_min_opset(const std::string& op_type) {
  // clang-format off
  static const std::map<std::string, int64_t> changes = {
      {"Abs", 6}, {"Acos", 7}, {"Add", 7}, {"And", 7},
      {"Asin", 7}, {"Atan", 7}, {"AveragePool", 7}, {"BatchNormalization", 7},
      {"Cast", 6}, {"Ceil", 6}, {"Clip", 6}, {"Concat", 4},
      {"Cos", 7}, {"Div", 7}, {"Dropout", 7}, {"Elu", 6},
      {"Equal", 7}, {"Exp", 6}, {"Floor", 6}, {"GRU", 7},
      {"Gemm", 7}, {"GlobalLpPool", 2}, {"Greater", 7}, {"HardSigmoid", 6},
      {"InstanceNormalization", 6}, {"LSTM", 7}, {"LeakyRelu", 6}, {"Less", 7},
      {"Log", 6}, {"LpPool", 2}, {"Max", 6}, {"Mean", 6},
      {"Min", 6}, {"Mul", 7}, {"Multinomial", 7}, {"Neg", 6},
      {"Or", 7}, {"PRelu", 7}, {"Pad", 2}, {"Pow", 7},
      {"RNN", 7}, {"Reciprocal", 6}, {"Relu", 6}, {"Reshape", 5},
      {"Selu", 6}, {"Sigmoid", 6}, {"Sin", 7}, {"Split", 2},
      {"Sqrt", 6}, {"Sub", 7}, {"Sum", 6}, {"Tan", 7},
      {"Tanh", 6}, {"Tile", 6}, {"Upsample", 7}, {"Xor", 7},
  };
  // clang-format on
  auto it = changes.find(op_type);
  return it == changes.end() ? 0 : it->second;
}

int64_t ai_onnx_opset(const ::onnx::ModelProto& model) {
  std::optional<int64_t> opset;
  for (const auto& entry : model.opset_import()) {
    if (!canonical_domain(entry.domain()).empty()) continue;  // recorded per node
    if (opset && *opset != entry.version())
      throw Error("the model imports the ai.onnx opset twice (" + std::to_string(*opset) + " and " +
                  std::to_string(entry.version()) + ")");
    opset = entry.version();
  }
  if (!opset) throw Error("the model does not import the ai.onnx opset");
  const std::string unsupported = "ai.onnx opset " + std::to_string(*opset) +
                                  " is not supported (supported: " + std::to_string(kMinOpset) +
                                  " to " + std::to_string(kMaxOpset) + ")";
  if (*opset > kMaxOpset || *opset < 1) throw Error(unsupported);
  if (*opset >= kMinOpset) return *opset;
  for (const auto& node : model.graph().node()) {
    if (!canonical_domain(node.domain()).empty()) continue;
    int64_t changed = last_change_up_to_min_opset(node.op_type());
    if (changed > *opset)
      throw Error(unsupported + ": " + node.op_type() + " changed in opset " +
                  std::to_string(changed));
  }
  return kMinOpset;
}

const char* type_kind_name(const ::onnx::TypeProto& type) {
  switch (type.value_case()) {
    case ::onnx::TypeProto::kTensorType:
      return "tensor";
    case ::onnx::TypeProto::kSequenceType:
      return "sequence";
    case ::onnx::TypeProto::kMapType:
      return "map";
    case ::onnx::TypeProto::kOptionalType:
      return "optional";
    case ::onnx::TypeProto::kSparseTensorType:
      return "sparse tensor";
    case ::onnx::TypeProto::kOpaqueType:
      return "opaque";
    default:
      return "no";
  }
}

// dtype and shape of a graph input/output or value_info. `what` is e.g.
// "graph input 'x'". Unknown dims are -1 and leave shape_known false; their
// dim_params (or kAnonymousDim) are recorded for binding.
TensorInfo tensor_info_of(const ::onnx::ValueInfoProto& vi, const std::string& what) {
  if (!vi.has_type()) throw Error(what + " has no type");
  const auto& type = vi.type();
  if (type.value_case() != ::onnx::TypeProto::kTensorType)
    throw Error(what + " has " + type_kind_name(type) + " type; only tensors are supported");
  const auto& tt = type.tensor_type();
  auto dtype = dtype_of_elem_type(tt.elem_type());
  if (!dtype)
    throw Error(what + " has element type " + elem_type_name(tt.elem_type()) +
                ", which is not supported");
  TensorInfo info;
  info.name = vi.name();
  info.dtype = *dtype;
  info.shape_known = tt.has_shape();
  if (tt.has_shape()) {
    for (const auto& dim : tt.shape().dim()) {
      if (dim.value_case() == ::onnx::TensorShapeProto::Dimension::kDimValue) {
        if (dim.dim_value() < 0)
          throw Error(what + " has negative dimension " + std::to_string(dim.dim_value()));
        info.shape.push_back(dim.dim_value());
        info.dim_params.emplace_back();
      } else {
        info.shape.push_back(-1);
        info.shape_known = false;
        const bool named = dim.value_case() == ::onnx::TensorShapeProto::Dimension::kDimParam &&
                           !dim.dim_param().empty();
        info.dim_params.push_back(named ? dim.dim_param() : kAnonymousDim);
      }
    }
  }
  if (info.shape_known) info.dim_params.clear();  // static: nothing to bind
  return info;
}

AttrValue convert_attribute(const Node& node, const ::onnx::AttributeProto& a,
                            const std::string& base_dir) {
  using A = ::onnx::AttributeProto;
  const std::string what = "attribute '" + a.name() + "'";
  switch (a.type()) {
    case A::INT:
      return a.i();
    case A::FLOAT:
      return static_cast<double>(a.f());
    case A::STRING:
      return a.s();
    case A::INTS:
      return std::vector<int64_t>(a.ints().begin(), a.ints().end());
    case A::FLOATS:
      return std::vector<double>(a.floats().begin(), a.floats().end());
    case A::STRINGS:
      return std::vector<std::string>(a.strings().begin(), a.strings().end());
    case A::TENSOR:
      try {
        return std::make_shared<const NDArray>(tensor_from_proto(a.t(), what, base_dir));
      } catch (const Error& e) {
        node.fail(e.message());
      }
    case A::UNDEFINED:
      node.fail(what + " has no type");
    default:
      node.fail(what + " of type " + A::AttributeType_Name(a.type()) + " is not supported");
  }
}

Node convert_node(const ::onnx::NodeProto& proto, size_t index, const std::string& base_dir) {
  Node node;
  node.op_type = proto.op_type();
  node.name = proto.name().empty() ? proto.op_type() + "_" + std::to_string(index) : proto.name();
  node.domain = canonical_domain(proto.domain());
  node.inputs.assign(proto.input().begin(), proto.input().end());
  node.outputs.assign(proto.output().begin(), proto.output().end());
  if (node.op_type.empty()) node.fail("the node has no op_type");
  if (node.domain == kChannelsLastDomain)
    node.fail("domain '" + node.domain + "' is tirc's own (its layout pass writes it), not a model's");
  for (const auto& a : proto.attribute()) {
    if (!a.ref_attr_name().empty())
      node.fail("attribute '" + a.name() + "' refers to a function attribute ('" +
                a.ref_attr_name() + "'), which only functions may do");
    if (node.attrs.count(a.name())) node.fail("attribute '" + a.name() + "' is given twice");
    node.attrs.emplace(a.name(), convert_attribute(node, a, base_dir));
  }
  return node;
}

// Takes value_info and the graph outputs' declared types as hints for node
// outputs that have none yet: the folding step re-infers and checks them.
// Non-tensor value_info is left for the operators to refuse.
void record_declared_type(Graph& g, const ::onnx::ValueInfoProto& vi, const std::string& what) {
  auto it = g.tensors.find(vi.name());
  if (it == g.tensors.end() || !it->second.dtype.is_void()) return;
  if (!vi.has_type() || vi.type().value_case() != ::onnx::TypeProto::kTensorType) return;
  if (!dtype_of_elem_type(vi.type().tensor_type().elem_type())) return;
  it->second = tensor_info_of(vi, what);
}

Graph convert_graph(const ::onnx::ModelProto& model, const std::string& source,
                    const std::string& base_dir) {
  if (!model.has_graph()) throw Error("not an ONNX model (it has no graph)");
  const auto& gp = model.graph();
  Graph g;
  g.name = gp.name();
  g.source = source;
  g.opset = ai_onnx_opset(model);  // an older model's operators all mean what they do at 7

  if (gp.sparse_initializer_size() != 0)
    throw Error("sparse initializer '" + gp.sparse_initializer(0).values().name() +
                "' is not supported");
  for (const auto& init : gp.initializer()) {
    const std::string what = "initializer '" + init.name() + "'";
    if (init.name().empty()) throw Error("an initializer has no name");
    if (g.tensors.count(init.name())) throw Error(what + " is defined twice");
    TensorInfo info;
    info.name = init.name();
    auto value = std::make_shared<const NDArray>(tensor_from_proto(init, what, base_dir));
    info.dtype = value->dtype();
    info.shape = value->shape();
    info.shape_known = true;
    info.value = std::move(value);
    g.tensors.emplace(info.name, std::move(info));
  }

  std::set<std::string> initializer_inputs;
  for (const auto& input : gp.input()) {
    const std::string what = "graph input '" + input.name() + "'";
    if (input.name().empty()) throw Error("a graph input has no name");
    // Old exporters list initializers among the inputs (as overridable defaults).
    if (g.tensors.count(input.name())) {
      if (!initializer_inputs.insert(input.name()).second) throw Error(what + " is listed twice");
      continue;
    }
    g.tensors.emplace(input.name(), tensor_info_of(input, what));
    g.inputs.push_back(input.name());
  }

  g.nodes.reserve(gp.node_size());
  for (int i = 0; i < gp.node_size(); ++i) {
    Node node = convert_node(gp.node(i), static_cast<size_t>(i), base_dir);
    for (const auto& in : node.inputs)
      if (!in.empty() && !g.tensors.count(in))
        node.fail("input '" + in +
                  "' is not a graph input, an initializer or an output of an earlier node");
    if (node.domain.empty())
      if (const OpHistory* h = find_op_history(node.op_type))
        if (std::string why = version_refusal(*h, g.opset); !why.empty()) node.fail(why);
    for (const auto& out : node.outputs) {
      if (out.empty()) continue;
      if (g.tensors.count(out)) node.fail("output '" + out + "' is already defined");
      TensorInfo info;
      info.name = out;
      g.tensors.emplace(out, std::move(info));
    }
    g.nodes.push_back(std::move(node));
  }

  for (const auto& vi : gp.value_info())
    record_declared_type(g, vi, "value_info '" + vi.name() + "'");
  for (const auto& output : gp.output()) {
    const std::string what = "graph output '" + output.name() + "'";
    if (!g.tensors.count(output.name()))
      throw Error(what + " is not produced by any node (nor a graph input or initializer)");
    if (output.has_type()) {
      (void)tensor_info_of(output, what);  // refuses sequence, optional, string outputs
      record_declared_type(g, output, what);
    }
    g.outputs.push_back(output.name());
  }
  return g;
}

}  // namespace

Graph import_model_bytes(std::string_view bytes, const std::string& source,
                         const std::string& base_dir) {
  SourceLoc loc;
  loc.file = std::make_shared<const std::string>(source);
  if (bytes.empty()) throw Error("empty file, not an ONNX model", loc);
  if (bytes.size() > static_cast<size_t>(INT_MAX))
    throw Error(
        "the model is larger than 2 GiB (protobuf's limit); store the weights as "
        "external data",
        loc);
  ::onnx::ModelProto model;
  if (!model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    throw Error("not an ONNX model, or truncated (protobuf parse failed)", loc);
  try {
    return convert_graph(model, source, base_dir);
  } catch (const Error& e) {
    throw Error(e.message(), loc);
  }
}

Graph import_model_file(const std::string& path) {
  std::string bytes = read_binary_file(path, "model");
  std::string base_dir = fs::path(path).parent_path().string();
  return import_model_bytes(bytes, path, base_dir.empty() ? "." : base_dir);
}

}  // namespace tirc::onnx
