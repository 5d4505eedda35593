// TensorProto <-> NDArray, shared by import.cpp and tensor_proto.cpp. Internal
// to tirc_onnx: it includes the protobuf classes, which nothing outside this
// library may see (only tirc_onnx compiles with ONNX_ML / ONNX_NAMESPACE).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "ir/dtype.h"
#include "ir/ndarray.h"
#include "onnx/onnx_pb.h"  // defines ONNX_API, then includes onnx-ml.pb.h (ONNX_ML)

namespace tirc::onnx {

// No tensor (initializer, attribute, test data, external data) may be larger:
// a corrupt file must not make us allocate or read gigabytes.
inline constexpr int64_t kMaxTensorBytes = int64_t{1} << 32;

// The tirc type of a TensorProto::DataType value; nullopt for the types tirc
// does not handle (string, complex, undefined, unknown numbers).
std::optional<DataType> dtype_of_elem_type(int32_t elem_type);
// "FLOAT", "STRING", ... or the number when it is not a known enumerator.
std::string elem_type_name(int32_t elem_type);
int32_t elem_type_of_dtype(DataType dtype);

// Converts a TensorProto. `what` names it in diagnostics ("initializer 'w'").
// External data is read from files under `base_dir` ("" refuses it).
NDArray tensor_from_proto(const ::onnx::TensorProto& proto, const std::string& what,
                          const std::string& base_dir);

// Fills `proto` (raw_data, little-endian) from `value`.
void tensor_to_proto(const NDArray& value, const std::string& name, ::onnx::TensorProto* proto);

// A whole file (a model or a tensor); `what` names it in diagnostics. Refuses
// files over protobuf's 2 GiB message limit.
std::string read_binary_file(const std::string& path, const char* what);

}  // namespace tirc::onnx
