// Placeholder until the operator family lands.
#include "ir/onnx/ops/ops.h"

namespace tirc::onnx {

std::vector<OpDef> nn_ops() { return {}; }

}  // namespace tirc::onnx
