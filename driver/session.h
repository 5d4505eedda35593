// What every subcommand needs: reading inputs and reporting diagnostics.
#pragma once

#include <string>
#include <vector>

#include "ir/function.h"
#include "ir/onnx/model_pipeline.h"
#include "ir/verify.h"

namespace tirc::driver {

// Exit statuses, as for clang: 0 success, 1 bad input, 2 bad usage.
enum ExitCode { kOk = 0, kBadInput = 1, kUsage = 2 };

// Reads a whole file; throws Error("no such file or directory: 'x'") when it
// cannot be read.
std::string read_file(const std::string& path);
// Writes a whole file; throws Error on failure.
void write_file(const std::string& path, const std::string& text);
// Reads and parses a .tir file, or imports an .onnx model (ir/onnx/model_pipeline.h).
// Binding symbolic dimensions (model.dims' flags) is refused for a .tir file.
IRModule load_module(const std::string& path, const ModelOptions& model = {});

// A duration flag's value in seconds: "90", "90s", "2m", "1h", "1.5m".
// Throws Error naming the flag otherwise.
double parse_duration(const std::string& text, const std::string& flag);

// Prints an error / verifier diagnostics to stderr in clang's format.
void report(const Error& e);
void report(const std::vector<Diagnostic>& diags);

}  // namespace tirc::driver
