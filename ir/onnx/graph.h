// An ONNX model as tirc sees it after import: typed, shaped tensors and nodes
// in topological order. No protobuf types here; ir/onnx/import.h builds it.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "ir/dtype.h"
#include "ir/error.h"
#include "ir/ndarray.h"

namespace tirc::onnx {

using Shape = std::vector<int64_t>;

// A value of the graph: a graph input, an initializer, or a node output.
struct TensorInfo {
  std::string name;
  DataType dtype;
  Shape shape;
  bool shape_known = false;  // false until import or shape inference sets it
  // The value when it is known at compile time (initializers, Constant nodes,
  // folded subgraphs, inputs bound by the user). Shared, never mutated.
  std::shared_ptr<const NDArray> value;
  // Per dimension, what the model declares when it is not a number: its
  // dim_param ("batch") or kAnonymousDim for a dimension with neither
  // dim_value nor dim_param; "" for a static dimension. Empty when every
  // dimension is static. Binding (ir/onnx/bind_dims.h) fills in `shape` and
  // keeps these, so the entry function can say what was bound to what.
  std::vector<std::string> dim_params = {};
};

// How a dimension with neither dim_value nor dim_param is named in
// TensorInfo::dim_params and in messages.
inline constexpr const char* kAnonymousDim = "?";

// What dimension d of t is called while its value is unknown: its dim_param,
// else kAnonymousDim.
std::string dim_name(const TensorInfo& t, size_t d);
// "[batch, seq, 32]": the shape with every dimension still unknown (< 0)
// shown by its dim_name.
std::string describe_shape(const TensorInfo& t);

// An attribute value: INT, FLOAT, STRING, INTS, FLOATS, STRINGS, TENSOR.
using AttrValue =
    std::variant<int64_t, double, std::string, std::vector<int64_t>, std::vector<double>,
                 std::vector<std::string>, std::shared_ptr<const NDArray>>;

struct Node {
  std::string name;  // may be empty in the file; import gives it "<op_type>_<index>"
  std::string op_type;
  std::string domain;                // "" for ai.onnx
  std::vector<std::string> inputs;   // "" marks an omitted optional input
  std::vector<std::string> outputs;  // "" marks an omitted optional output
  std::map<std::string, AttrValue> attrs;

  // Whether this is the ai.onnx operator `type` (domain "" or "ai.onnx").
  bool is(const char* type) const;
  // "node 'conv1' (Conv)": how every diagnostic names a node.
  std::string describe() const;
  // An Error "node 'conv1' (Conv): message".
  [[noreturn]] void fail(const std::string& message) const;

  bool has_attr(const std::string& name) const { return attrs.count(name) != 0; }
  // Typed attribute access; a present attribute of another type is an error
  // naming the node and the attribute.
  int64_t attr_int(const std::string& name, int64_t fallback) const;
  double attr_float(const std::string& name, double fallback) const;
  std::string attr_string(const std::string& name, const std::string& fallback) const;
  std::vector<int64_t> attr_ints(const std::string& name, std::vector<int64_t> fallback = {}) const;
  std::vector<double> attr_floats(const std::string& name, std::vector<double> fallback = {}) const;
  std::shared_ptr<const NDArray> attr_tensor(const std::string& name) const;  // null when absent
  // The attribute when present and required: absent is an error.
  int64_t require_int(const std::string& name) const;
  std::vector<int64_t> require_ints(const std::string& name) const;
};

struct Graph {
  std::string name;                           // graph name from the file
  std::string source;                         // the file it came from, for diagnostics
  int64_t opset = 0;                          // ai.onnx opset version the model imports
  std::vector<Node> nodes;                    // topological order
  std::map<std::string, TensorInfo> tensors;  // every value by name
  std::vector<std::string> inputs;            // graph inputs that are not initializers, in order
  std::vector<std::string> outputs;           // graph outputs, in order

  const TensorInfo& tensor(const std::string& name) const;  // throws when unknown
  TensorInfo& tensor(const std::string& name);
  bool is_input(const std::string& name) const;
  bool is_output(const std::string& name) const;
  // `base`, or base_1, base_2, ...: a tensor name the graph does not use yet.
  std::string fresh_tensor_name(const std::string& base) const;
};

}  // namespace tirc::onnx
