// tirc compile: schedule (optionally), lower and generate code for TensorIR
// functions: an ELF object, its C header, assembly, C, or the lowered IR.
#include <spdlog/spdlog.h>

#include <cctype>
#include <filesystem>
#include <iostream>

#include "codegen/c/c_emitter.h"
#include "codegen/llvm/disassemble.h"
#include "codegen/object/c_header.h"
#include "codegen/object/elf_writer.h"
#include "codegen/x86/generator.h"
#include "driver/commands.h"
#include "driver/model_flags.h"
#include "driver/session.h"
#include "ir/text/printer.h"
#include "passes/pipeline.h"
#include "driver/schedule_flags.h"
#include "schedule/schedule.h"
#include "schedule/trace.h"

namespace tirc::driver {

namespace {
struct CompileOptions {
  ModelOptions model;  // --layout, for an .onnx file
  std::string file;
  std::string output;
  std::string emit = "obj";
  std::string header;
  std::string name;
  std::string target;
  std::string func;
  std::string print_after;
  ScheduleFlags scheduling;
  bool print_passes = false;
  bool contraction_kernels = true;
};

// The file stem made into a C identifier: "my-model.v2.tir" -> "my_model_v2".
std::string c_identifier(const std::string& text) {
  std::string out;
  for (char c : text) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) out.insert(out.begin(), '_');
  return out;
}

bool is_c_identifier(const std::string& text) {
  return !text.empty() && c_identifier(text) == text;
}

void write_bytes(const std::string& path, const std::vector<uint8_t>& bytes) {
  write_file(path, std::string(bytes.begin(), bytes.end()));
}

std::string pass_names() {
  std::string out;
  for (const LoweringPass& p : lowering_passes()) out += (out.empty() ? "" : ", ") + p.name;
  return "auto-schedule, " + out + ", all";
}

void write_output(const std::string& path, const std::string& text) {
  if (path.empty() || path == "-")
    std::cout << text;
  else
    write_file(path, text);
}

// `-v`: a line per kernel saying whether the contraction emitter took its
// nests and why it refused the loops it did not take, then the totals.
void log_generator_stats(const GeneratorStats& s, bool contraction_kernels) {
  for (const KernelStats& k : s.kernels) {
    std::string refused;
    for (const std::string& r : k.not_contraction) refused += (refused.empty() ? "" : "; ") + r;
    if (k.contraction_nests > 0)
      spdlog::debug("{}: contraction kernel for {} nest(s){}", k.symbol, k.contraction_nests,
                    refused.empty() ? "" : "; other loops: " + refused);
    else if (!contraction_kernels)
      spdlog::debug("{}: no contraction kernel: --no-contraction-kernels", k.symbol);
    else if (refused.empty())
      spdlog::debug("{}: no contraction kernel: no loops", k.symbol);
    else
      spdlog::debug("{}: no contraction kernel: {}", k.symbol, refused);
  }
  spdlog::debug(
      "x86 codegen: {} contraction nest(s), {} vectorized loop(s), {} serial fallback(s), "
      "{} parallel loop(s), {} spill(s), {} reload(s)",
      s.contraction_nests, s.vectorized_loops, s.serial_fallbacks, s.parallel_loops, s.spills,
      s.reloads);
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
  if (!o.print_after.empty() && o.print_after != "all" && o.print_after != "auto-schedule" &&
      !find_lowering_pass(o.print_after)) {
    std::cerr << "tirc compile: error: unknown pass '" << o.print_after
              << "' for --print-after; valid names: " << pass_names() << "\n";
    return kUsage;
  }
  const std::string prefix =
      o.name.empty() ? c_identifier(std::filesystem::path(o.file).stem().string()) : o.name;
  if (!is_c_identifier(prefix)) {
    std::cerr << "tirc compile: error: --name '" << prefix << "' is not a C identifier\n";
    return kUsage;
  }
  GeneratorOptions gen;
  gen.target = o.target.empty() ? host_target() : parse_target(o.target);
  gen.contraction_kernels = o.contraction_kernels;

  IRModule m = load_module(o.file, o.model);
  if (!o.func.empty() && !m.find(o.func))
    throw Error("no function named '" + o.func + "' in " + o.file);
  m = schedule_module(m, o.scheduling, gen.target, o.func);
  if (o.print_after == "all" || o.print_after == "auto-schedule")
    std::cerr << "// -----// IR after auto-schedule //----- //\n" << print(m);
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

  std::vector<FunctionToCompile> functions;
  std::vector<HeaderEntry> header_entries;
  for (const auto& [fname, f] : lowered.functions()) {
    // `name` lets the entry's T.call_kernel("fname", ...) reach the kernel.
    functions.push_back({prefix + "_" + fname, f, fname});
    header_entries.push_back({prefix + "_" + fname, selected.at(fname)});
  }
  gen.module = &m;  // the constants AllocateConst binds
  if (!o.header.empty()) write_file(o.header, write_c_header(prefix, header_entries));

  if (o.emit == "tir") {
    write_output(o.output, print(lowered));
  } else if (o.emit == "header") {
    write_output(o.output, write_c_header(prefix, header_entries));
  } else if (o.emit == "c") {
    write_output(o.output, emit_c(functions, &m));
  } else if (o.emit == "asm") {
    GeneratorStats stats;
    const MachineCode code = generate_x86(functions, gen, &stats);
    log_generator_stats(stats, gen.contraction_kernels);
    write_output(o.output, disassemble_x86(code));
  } else {  // obj
    GeneratorStats stats;
    const MachineCode code = generate_x86(functions, gen, &stats);
    log_generator_stats(stats, gen.contraction_kernels);
    const std::string out = o.output.empty()
                                ? c_identifier(std::filesystem::path(o.file).stem().string()) + ".o"
                                : o.output;
    if (out == "-") {
      const std::vector<uint8_t> bytes = write_elf_object(code);
      std::cout.write(reinterpret_cast<const char*>(bytes.data()),
                      static_cast<std::streamsize>(bytes.size()));
    } else {
      write_bytes(out, write_elf_object(code));
    }
  }
  return kOk;
}
}  // namespace

void add_compile_command(CLI::App& app, int& status) {
  auto opts = std::make_shared<CompileOptions>();
  auto* cmd = app.add_subcommand("compile", "Lower TensorIR functions and generate code for them");
  cmd->add_option("file", opts->file, "Input .tir file");
  cmd->add_option("-o,--output", opts->output, "Output file ('-' for stdout)");
  cmd->add_option(
         "--emit", opts->emit,
         "What to write: obj (default: <stem>.o), asm, header, c or tir (stdout unless -o)")
      ->check(CLI::IsMember({"tir", "obj", "asm", "header", "c"}))
      ->capture_default_str();
  cmd->add_option("-H,--header", opts->header, "Also write the C header to this file");
  cmd->add_option(
      "--name", opts->name,
      "Symbol prefix: functions are <name>_<func> (default: the file stem as a C identifier)");
  cmd->add_option("--target", opts->target,
                  "x86-64-avx512, x86-64-avx2 or native (default: what this CPU supports)");
  add_schedule_flags(cmd, opts->scheduling);
  add_model_flags(cmd, opts->model);
  cmd->add_flag("!--no-contraction-kernels", opts->contraction_kernels,
                "Emit contraction nests through the general path, not the register-tiled emitter");
  cmd->add_option("--func", opts->func, "Compile only this function");
  cmd->add_option("--print-after", opts->print_after,
                  "Print the IR after this pass to stderr ('all' for every pass)");
  cmd->add_flag("--print-passes", opts->print_passes, "List the lowering passes and exit");
  cmd->callback([opts, &status] { status = run_compile(*opts); });
}

}  // namespace tirc::driver
