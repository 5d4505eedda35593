#include "ir/onnx/op_versions.h"

namespace tirc::onnx {

namespace {

// The since-versions of every operator tirc supports, up to opset 21, as the
// onnx Python package (1.23) lists them:
//   onnx.defs.get_all_schemas_with_history(), domain "", since_version <= 21.
// The last column is the newest definition tirc implements (what each one
// changed is in ONNX's docs/Changelog.md). Where it is older than the
// newest listed version, a model at an opset that means the newer one is
// refused.
const std::vector<OpHistory>& histories() {
  // clang-format off
  static const std::vector<OpHistory> table = {
      {"Abs", {1, 6, 13}, 13},
      {"Add", {1, 6, 7, 13, 14}, 14},
      {"And", {1, 7}, 7},
      {"ArgMax", {1, 11, 12, 13}, 13},
      {"ArgMin", {1, 11, 12, 13}, 13},
      {"AveragePool", {1, 7, 10, 11, 19}, 19},
      {"BatchNormalization", {1, 6, 7, 9, 14, 15}, 15},
      {"Cast", {1, 6, 9, 13, 19, 21}, 21},
      {"CastLike", {15, 19, 21}, 21},
      {"Ceil", {1, 6, 13}, 13},
      {"Celu", {12}, 12},
      {"Clip", {1, 6, 11, 12, 13}, 13},
      {"Concat", {1, 4, 11, 13}, 13},
      {"Constant", {1, 9, 11, 12, 13, 19, 21}, 21},
      {"ConstantOfShape", {9, 20, 21}, 21},
      {"Conv", {1, 11}, 11},
      {"ConvTranspose", {1, 11}, 11},
      {"CumSum", {11, 14}, 14},
      {"DepthToSpace", {1, 11, 13}, 13},
      {"Div", {1, 6, 7, 13, 14}, 14},
      {"Dropout", {1, 6, 7, 10, 12, 13}, 13},
      {"Einsum", {12}, 12},
      {"Elu", {1, 6}, 6},
      {"Equal", {1, 7, 11, 13, 19}, 19},
      {"Erf", {9, 13}, 13},
      {"Exp", {1, 6, 13}, 13},
      {"Expand", {8, 13}, 13},
      {"Flatten", {1, 9, 11, 13, 21}, 21},
      {"Floor", {1, 6, 13}, 13},
      {"Gather", {1, 11, 13}, 13},
      {"GatherElements", {11, 13}, 13},
      {"Gelu", {20}, 20},
      {"Gemm", {1, 6, 7, 9, 11, 13}, 13},
      {"GlobalAveragePool", {1}, 1},
      {"GlobalMaxPool", {1}, 1},
      {"Greater", {1, 7, 9, 13}, 13},
      {"GreaterOrEqual", {12, 16}, 16},
      {"GroupNormalization", {18, 21}, 21},
      {"HardSigmoid", {1, 6}, 6},
      {"HardSwish", {14}, 14},
      {"Identity", {1, 13, 14, 16, 19, 21}, 21},
      {"InstanceNormalization", {1, 6}, 6},
      {"LayerNormalization", {17}, 17},
      {"LeakyRelu", {1, 6, 16}, 16},
      {"Less", {1, 7, 9, 13}, 13},
      {"LessOrEqual", {12, 16}, 16},
      {"Log", {1, 6, 13}, 13},
      {"LogSoftmax", {1, 11, 13}, 13},
      {"MatMul", {1, 9, 13}, 13},
      {"Max", {1, 6, 8, 12, 13}, 13},
      {"MaxPool", {1, 8, 10, 11, 12}, 12},
      {"Mean", {1, 6, 8, 13}, 13},
      {"Min", {1, 6, 8, 12, 13}, 13},
      {"Mod", {10, 13}, 13},
      {"Mul", {1, 6, 7, 13, 14}, 14},
      {"Neg", {1, 6, 13}, 13},
      {"Not", {1}, 1},
      {"Or", {1, 7}, 7},
      {"PRelu", {1, 6, 7, 9, 16}, 16},
      {"Pad", {1, 2, 11, 13, 18, 19, 21}, 21},
      {"Pow", {1, 7, 12, 13, 15}, 15},
      {"Range", {11}, 11},
      {"Reciprocal", {1, 6, 13}, 13},
      {"ReduceL1", {1, 11, 13, 18}, 18},
      {"ReduceL2", {1, 11, 13, 18}, 18},
      {"ReduceLogSum", {1, 11, 13, 18}, 18},
      {"ReduceLogSumExp", {1, 11, 13, 18}, 18},
      {"ReduceMax", {1, 11, 12, 13, 18, 20}, 20},
      {"ReduceMean", {1, 11, 13, 18}, 18},
      {"ReduceMin", {1, 11, 12, 13, 18, 20}, 20},
      {"ReduceProd", {1, 11, 13, 18}, 18},
      {"ReduceSum", {1, 11, 13}, 13},
      {"ReduceSumSquare", {1, 11, 13, 18}, 18},
      {"Relu", {1, 6, 13, 14}, 14},
      {"Reshape", {1, 5, 13, 14, 19, 21}, 21},
      {"Resize", {10, 11, 13, 18, 19}, 19},
      {"Round", {11}, 11},
      {"ScatterElements", {11, 13, 16, 18}, 18},
      {"ScatterND", {11, 13, 16, 18}, 18},
      {"Selu", {1, 6}, 6},
      {"Shape", {1, 13, 15, 19, 21}, 21},
      {"Sigmoid", {1, 6, 13}, 13},
      {"Sign", {9, 13}, 13},
      {"Size", {1, 13, 19, 21}, 21},
      {"Slice", {1, 10, 11, 13}, 13},
      {"Softmax", {1, 11, 13}, 13},
      {"Softplus", {1}, 1},
      {"Softsign", {1}, 1},
      {"SpaceToDepth", {1, 13}, 13},
      {"Split", {1, 2, 11, 13, 18}, 18},
      {"Sqrt", {1, 6, 13}, 13},
      {"Squeeze", {1, 11, 13, 21}, 21},
      {"Sub", {1, 6, 7, 13, 14}, 14},
      {"Sum", {1, 6, 8, 13}, 13},
      {"Tanh", {1, 6, 13}, 13},
      {"ThresholdedRelu", {10}, 10},
      {"Tile", {1, 6, 13}, 13},
      {"TopK", {1, 10, 11}, 11},
      {"Transpose", {1, 13, 21}, 21},
      {"Trilu", {14}, 14},
      {"Unsqueeze", {1, 11, 13, 21}, 21},
      {"Where", {9, 16}, 16},
      {"Xor", {1, 7}, 7},
  };
  // clang-format on
  return table;
}

}  // namespace

const OpHistory* find_op_history(std::string_view op_type) {
  for (const OpHistory& h : histories())
    if (h.op_type == op_type) return &h;
  return nullptr;
}

std::vector<std::string> versioned_ops() {
  std::vector<std::string> names;
  for (const OpHistory& h : histories()) names.emplace_back(h.op_type);
  return names;
}

int64_t version_meant(const OpHistory& h, int64_t opset) {
  int64_t meant = h.since.front();
  for (int64_t v : h.since)
    if (v <= opset) meant = v;
  return meant;
}

std::string version_refusal(const OpHistory& h, int64_t opset) {
  int64_t meant = version_meant(h, opset);
  if (meant <= h.implemented) return "";
  std::string op(h.op_type);
  return "opset " + std::to_string(opset) + " means " + op + "-" + std::to_string(meant) +
         ", tirc implements " + op + " up to version " + std::to_string(h.implemented);
}

int64_t op_version(std::string_view op_type, int64_t opset) {
  const OpHistory* h = find_op_history(op_type);
  return h ? version_meant(*h, opset) : opset;
}

}  // namespace tirc::onnx
