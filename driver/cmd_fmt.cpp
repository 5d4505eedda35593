// tirc fmt: reprint TensorIR text in canonical form.
#include <iostream>

#include "driver/commands.h"
#include "driver/session.h"
#include "ir/text/parser.h"
#include "ir/text/printer.h"

namespace tirc::driver {

namespace {
struct FmtOptions {
  std::vector<std::string> files;
  std::string output;
  bool in_place = false;
  bool check = false;
  std::string surface;  // classic, tirx, or empty: the input's
};

int run_fmt(const FmtOptions& o) {
  if (!o.output.empty() && o.files.size() != 1) {
    std::cerr << "tirc fmt: error: -o needs exactly one input file\n";
    return kUsage;
  }
  if (!o.output.empty() && o.in_place) {
    std::cerr << "tirc fmt: error: -o and -i cannot be combined\n";
    return kUsage;
  }
  int status = kOk;
  for (const std::string& path : o.files) {
    std::string original = read_file(path);
    Surface surface = Surface::classic;
    ParseOptions parse;
    parse.surface = &surface;
    const IRModule m = parse_module(original, path, parse);
    if (!o.surface.empty()) surface = *parse_surface_name(o.surface);
    std::string text = print(m, surface);
    if (o.check) {
      if (text != original) {
        std::cerr << path << ": not in canonical form\n";
        status = kBadInput;
      }
    } else if (o.in_place) {
      if (text != original) write_file(path, text);
    } else if (!o.output.empty()) {
      write_file(o.output, text);
    } else {
      std::cout << text;
    }
  }
  return status;
}
}  // namespace

void add_fmt_command(CLI::App& app, int& status) {
  auto opts = std::make_shared<FmtOptions>();
  auto* cmd = app.add_subcommand("fmt", "Print TensorIR files in canonical form");
  cmd->add_option("files", opts->files, "Input .tir files")->required();
  cmd->add_option("-o,--output", opts->output, "Write the result to this file instead of stdout");
  cmd->add_flag("-i,--in-place", opts->in_place, "Rewrite the files in place");
  cmd->add_flag("--check", opts->check, "Only check that the files are in canonical form (exit 1 if not)");
  cmd->add_option("--surface", opts->surface,
                  "Print TVM's classic TIR surface (T.block, TVM <= 0.23) or its TIRx surface "
                  "(T.sblock, TVM 0.27); default: the surface each input uses")
      ->check(CLI::IsMember({"classic", "tirx"}));
  cmd->callback([opts, &status] { status = run_fmt(*opts); });
}

}  // namespace tirc::driver
