// libFuzzer target for the ONNX importer: any bytes must import as a model (or
// parse as a TensorProto) or fail with tirc::Error; a crash, hang, leak, huge
// allocation or any other exception is a bug.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "ir/onnx/import.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    tirc::onnx::Graph g = tirc::onnx::import_model_bytes(bytes, "fuzz.onnx");
    // Touch what consumers read: every node input resolves.
    for (const auto& node : g.nodes)
      for (const auto& in : node.inputs)
        if (!in.empty()) (void)g.tensor(in);
  } catch (const tirc::Error& e) {
    (void)e.render();
  }
  try {
    tirc::onnx::parse_tensor_proto(bytes, "fuzz.pb");
  } catch (const tirc::Error& e) {
    (void)e.render();
  }
  return 0;
}
