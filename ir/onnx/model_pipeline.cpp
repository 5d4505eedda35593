#include "ir/onnx/model_pipeline.h"

#include "ir/onnx/bind_dims.h"
#include "ir/onnx/build_module.h"
#include "ir/onnx/fold.h"
#include "ir/onnx/fuse_ops.h"
#include "ir/onnx/import.h"
#include "ir/onnx/layout.h"
#include "ir/onnx/pack_weights.h"

namespace tirc {

IRModule import_onnx_module(const std::string& path, const ModelOptions& options) {
  return graph_to_module(onnx::import_model_file(path), options);
}

namespace {

IRModule build(onnx::Graph graph, const ModelOptions& options) {
  graph = onnx::bind_dimensions(std::move(graph), options.dims);
  graph = onnx::fold_and_infer(std::move(graph), options.bind_inputs);
  size_t before = graph.nodes.size();
  graph = fold_batchnorm_into_conv(std::move(graph));
  // Folding BN can leave a Conv whose operands are all constants.
  if (graph.nodes.size() != before) graph = onnx::fold_and_infer(std::move(graph));
  graph = onnx::pack_constant_weights(std::move(graph));
  const bool channels_last = options.layout == ModelOptions::Layout::Auto
                                 ? onnx::prefers_channels_last(graph)
                                 : options.layout == ModelOptions::Layout::Nhwc;
  if (channels_last) {
    graph = onnx::convert_to_channels_last(std::move(graph), options.blocked_weights_bytes);
    graph = onnx::fold_and_infer(std::move(graph));
  }
  std::vector<onnx::KernelGroup> groups = fuse_ops(graph, options.fuse);
  onnx::BuildOptions build_options;
  build_options.entry_name = options.entry_name;
  return onnx::build_module(graph, groups, build_options);
}

}  // namespace

IRModule graph_to_module(onnx::Graph graph, const ModelOptions& options) {
  const std::string source = graph.source;
  try {
    return build(std::move(graph), options);
  } catch (const Error& e) {
    // Node diagnostics carry no position; name the model file as clang names a file.
    if (e.loc().file || source.empty()) throw;
    SourceLoc loc;
    loc.file = std::make_shared<const std::string>(source);
    throw Error(e.message(), loc);
  }
}

}  // namespace tirc
