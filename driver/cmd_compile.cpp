// tirc compile: lower TensorIR functions (and, once wired, generate code).
#include <iostream>

#include "driver/commands.h"
#include "driver/session.h"
#include "ir/text/printer.h"
#include "passes/pipeline.h"

namespace tirc::driver {

namespace {
struct CompileOptions {
  std::string file;
  std::string output;
  std::string emit = "obj";
  std::string header;
  std::string name;
  std::string target;
  std::string func;
  std::string print_after;
  bool print_passes = false;
};

std::string pass_names() {
  std::string out;
  for (const LoweringPass& p : lowering_passes()) out += (out.empty() ? "" : ", ") + p.name;
  return out + ", all";
}

void write_output(const std::string& path, const std::string& text) {
  if (path.empty() || path == "-")
    std::cout << text;
  else
    write_file(path, text);
}

int run_compile(const CompileOptions& o) {
  if (o.print_passes) {
    for (const LoweringPass& p : lowering_passes())
      std::cout << p.name << "  " << p.description << "\n";
    if (o.file.empty()) return kOk;
  }
  if (o.file.empty()) {
    std::cerr << "tirc compile: error: an input FILE is required\n";
    return kUsage;
  }
  if (!o.print_after.empty() && o.print_after != "all" && !find_lowering_pass(o.print_after)) {
    std::cerr << "tirc compile: error: unknown pass '" << o.print_after
              << "' for --print-after; valid names: " << pass_names() << "\n";
    return kUsage;
  }
  IRModule m = load_module(o.file);
  IRModule selected;
  if (!o.func.empty())
    selected.add(o.func, m.at(o.func));
  else
    selected = m;

  IRModule lowered;
  for (const auto& [fname, f] : selected.functions()) {
    const std::string& name = fname;
    PassObserver observer = [&](std::string_view pass, const PrimFunc& result) {
      if (o.print_after != "all" && o.print_after != pass) return;
      std::cerr << "// -----// IR after " << pass << " (" << name << ") //----- //\n"
                << print_func(result, name);
    };
    lowered.add(fname, lower(f, o.print_after.empty() ? PassObserver() : observer));
  }

  if (o.emit == "tir") {
    write_output(o.output, print(lowered));
    return kOk;
  }
  std::cerr << "tirc compile: error: --emit=" << o.emit
            << " is not implemented yet (only --emit=tir is)\n";
  return kBadInput;
}
}  // namespace

void add_compile_command(CLI::App& app, int& status) {
  auto opts = std::make_shared<CompileOptions>();
  auto* cmd = app.add_subcommand("compile", "Lower TensorIR functions and generate code for them");
  cmd->add_option("file", opts->file, "Input .tir file");
  cmd->add_option("-o,--output", opts->output, "Output file ('-' for stdout)");
  cmd->add_option("--emit", opts->emit, "What to write: tir, obj, asm, header or c")
      ->check(CLI::IsMember({"tir", "obj", "asm", "header", "c"}))
      ->capture_default_str();
  cmd->add_option("-H,--header", opts->header, "Also write the C header to this file");
  cmd->add_option("--name", opts->name, "Symbol prefix (default: the file stem)");
  cmd->add_option("--target", opts->target, "Code generation target, e.g. x86-64-avx512");
  cmd->add_option("--func", opts->func, "Compile only this function");
  cmd->add_option("--print-after", opts->print_after,
                  "Print the IR after this pass to stderr ('all' for every pass)");
  cmd->add_flag("--print-passes", opts->print_passes, "List the lowering passes and exit");
  cmd->callback([opts, &status] { status = run_compile(*opts); });
}

}  // namespace tirc::driver
