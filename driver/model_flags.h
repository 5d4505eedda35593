// The flags that shape an imported ONNX model, shared by compile, dump, run
// and tune: --layout, and --dim / --shape, which bind its symbolic
// dimensions (ir/onnx/bind_dims.h).
#pragma once

#include <CLI/CLI.hpp>

#include "ir/onnx/model_pipeline.h"

namespace tirc::driver {

// Adds the flags to `cmd`; their values land in `model` as they are parsed.
// A malformed --dim or --shape value is a usage error naming the flag.
void add_model_flags(CLI::App* cmd, ModelOptions& model);

// The options for compiling for a GPU (`gpu`) or a CPU: a GPU's kernels take
// convolution weights unblocked (the blocks of 16 output channels are a CPU
// cache layout that splits a GPU tile's columns over two loops).
ModelOptions model_options_for_target(ModelOptions model, bool gpu);

}  // namespace tirc::driver
