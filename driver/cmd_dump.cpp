// tirc dump: an ONNX model as a TensorIR module in text, with its weights in a
// side file next to it (`tirc compile` on the text gives the same object).
#include <filesystem>
#include <iostream>

#include "driver/commands.h"
#include "driver/model_flags.h"
#include "driver/session.h"
#include "ir/onnx/model_pipeline.h"
#include "ir/text/constants_file.h"
#include "ir/text/printer.h"

namespace tirc::driver {

namespace {
struct DumpOptions {
  std::string file;
  std::string output;
  ModelOptions model;  // --layout; --no-fuse sets model.fuse
};

int run_dump(const DumpOptions& o) {
  IRModule m = import_onnx_module(o.file, o.model);
  const std::string out =
      o.output.empty() ? std::filesystem::path(o.file).stem().string() + ".tir" : o.output;
  // The side file sits next to the text (or in the working directory for stdout).
  const std::string weights =
      (out == "-" ? std::filesystem::path(o.file).stem().string() + ".tir" : out) + ".weights";
  if (!m.constants().empty()) {
    m.attrs["tirc.constants"] = make_string(std::filesystem::path(weights).filename().string());
    write_constants_file(weights, m);
  }
  const std::string text = print(m);
  if (out == "-")
    std::cout << text;
  else
    write_file(out, text);
  return kOk;
}
}  // namespace

void add_dump_command(CLI::App& app, int& status) {
  auto opts = std::make_shared<DumpOptions>();
  auto* cmd = app.add_subcommand("dump", "Import an ONNX model and write it as TensorIR text");
  cmd->add_option("file", opts->file, "Input .onnx model")->required();
  cmd->add_option(
      "-o,--output", opts->output,
      "Output .tir file (default: <stem>.tir; '-' for stdout); weights go to <output>.weights");
  cmd->add_flag("!--no-fuse", opts->model.fuse, "One kernel per operator (no operator fusion)");
  add_model_flags(cmd, opts->model);
  cmd->callback([opts, &status] { status = run_dump(*opts); });
}

}  // namespace tirc::driver
