// ONNX protobuf -> Graph. The only place (with tensor_proto.cpp) that sees the
// protobuf classes. Checks the opset, converts initializers (raw_data, typed
// fields, external data next to the model), and rejects malformed models with a
// diagnostic naming the node and field (tirc::Error).
#pragma once

#include <string>
#include <string_view>

#include "ir/ndarray.h"
#include "ir/onnx/graph.h"

namespace tirc::onnx {

// The ai.onnx opsets tirc imports. Within them, each node's operator must be
// at a definition tirc implements (ir/onnx/op_versions.h).
inline constexpr int64_t kMinOpset = 7;
inline constexpr int64_t kMaxOpset = 21;

// Reads and checks a model file. External data is looked up relative to the
// model's directory (never outside it).
Graph import_model_file(const std::string& path);

// The same for bytes in memory; `source` names them in diagnostics, `base_dir`
// is where external data lives ("" refuses external data).
Graph import_model_bytes(std::string_view bytes, const std::string& source,
                         const std::string& base_dir = "");

// A serialized TensorProto (the test data's input_0.pb / output_0.pb). `name`
// receives the tensor's name when non-null.
NDArray read_tensor_proto_file(const std::string& path, std::string* name = nullptr);
NDArray parse_tensor_proto(std::string_view bytes, const std::string& source,
                           std::string* name = nullptr);
// Writes a TensorProto file (raw_data), for tests and `tirc run --output`.
void write_tensor_proto_file(const std::string& path, const NDArray& value,
                             const std::string& name);

// Reads x.pb (TensorProto) or x.npy by extension.
NDArray read_tensor_file(const std::string& path);

}  // namespace tirc::onnx
