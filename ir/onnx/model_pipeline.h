// ONNX model -> IRModule: import, bind symbolic dimensions, fold constants
// and infer shapes, fold BatchNormalization into Conv, choose activation
// layouts, fuse, build the kernels and the entry function.
#pragma once

#include <map>
#include <string>

#include "ir/function.h"
#include "ir/onnx/bind_dims.h"
#include "ir/onnx/graph.h"
#include "ir/onnx/layout.h"

namespace tirc {

struct ModelOptions {
  std::map<std::string, NDArray> bind_inputs;  // graph inputs to treat as constants
  onnx::DimBindings dims;                      // values of symbolic dimensions (--dim, --shape)
  bool fuse = true;
  // Activations of convolutions and pools: channels-last (ir/onnx/layout.h)
  // or ONNX's NCHW; Auto picks per model (onnx::prefers_channels_last).
  enum class Layout { Auto, Nchw, Nhwc };
  Layout layout = Layout::Auto;
  // Channels-last Conv weights at least this big are blocked by 16 output channels.
  size_t blocked_weights_bytes = onnx::kBlockedWeightsBytes;
  std::string entry_name = "run";
};

IRModule import_onnx_module(const std::string& path, const ModelOptions& options = {});
// The same from an imported graph (tests build graphs in memory).
IRModule graph_to_module(onnx::Graph graph, const ModelOptions& options = {});

}  // namespace tirc
