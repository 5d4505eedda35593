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

}  // namespace tirc::driver
