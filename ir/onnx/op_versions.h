// Which definition of an ai.onnx operator a model means, and which tirc
// implements. ONNX versions every operator on its own: a model that imports
// opset N means, for operator X, the newest definition of X whose "since
// version" is <= N (X-13 at opsets 13 to 17 when X next changed in 18). The
// import refuses a node whose operator is at a version tirc does not implement.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tirc::onnx {

// One operator's definitions up to the newest opset tirc imports (kMaxOpset).
struct OpHistory {
  std::string_view op_type;
  std::vector<int64_t> since;  // every "since version", ascending
  int64_t implemented = 0;     // tirc implements every definition up to this one
};

// The history of an ai.onnx operator tirc supports; nullptr for the others.
const OpHistory* find_op_history(std::string_view op_type);
// Every operator the table lists, in table order (the tests compare them with
// supported_ops()).
std::vector<std::string> versioned_ops();

// The definition of h's operator that `opset` means. A model older than the
// operator's first definition means that one: exporters wrote LayerNormalization
// and Gelu before ONNX defined them (opsets 17 and 20), and tirc accepts them.
int64_t version_meant(const OpHistory& h, int64_t opset);

// "" when tirc implements what `opset` means for h's operator, else why not:
// "opset 19 means Resize-19, tirc implements Resize up to version 18".
std::string version_refusal(const OpHistory& h, int64_t opset);

// The definition an ai.onnx node of `op_type` means at `opset`: version_meant,
// or `opset` itself for an operator the table does not list.
int64_t op_version(std::string_view op_type, int64_t opset);

}  // namespace tirc::onnx
