// tirc compile: schedule (optionally), lower and generate code for TensorIR
// functions: an ELF object, its C header, assembly, C, or the lowered IR.
#include <spdlog/spdlog.h>

#include <cctype>
#include <filesystem>
#include <iostream>

#include "codegen/c/c_emitter.h"
#include "codegen/llvm/disassemble.h"
#include "codegen/llvm/generator.h"
#include "codegen/object/c_header.h"
#include "codegen/object/elf_writer.h"
#include "codegen/x86/generator.h"
#include "driver/commands.h"
#include "driver/model_flags.h"
#include "driver/schedule_flags.h"
#include "driver/session.h"
#include "ir/text/printer.h"
#include "passes/pipeline.h"
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
  std::string mcpu;
  std::string backend;  // xbyak or llvm; empty: llvm for AArch64 and --emit=llvm, else xbyak
  int opt_level = 3;
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

// `-v` for the LLVM generator: which Vectorized loops stayed serial and why.
void log_llvm_stats(const LlvmStats& s) {
  for (const std::string& why : s.serial) spdlog::debug("llvm codegen: serial: {}", why);
  for (const std::string& k : s.kernels) spdlog::debug("cuda kernel {}", k);
  if (!s.cuda_binary.empty()) spdlog::debug("cuda object: {}", s.cuda_binary);
  spdlog::debug("llvm codegen: {} vectorized loop(s), {} serial, {} parallel loop(s)",
                s.vectorized_loops, s.serial.size(), s.parallel_loops);
}

// Whether the LLVM generator emits: asked for, or the only one for the target/output.
bool use_llvm(const CompileOptions& o) {
  if (o.backend == "llvm") return true;
  if (o.backend == "xbyak") {
    if (is_llvm_only_target(o.target) || o.target == "x86-64")
      throw Error("target " + o.target + " is emitted by the LLVM generator only (--backend=llvm)");
    if (o.emit == "llvm") throw Error("--emit=llvm needs --backend=llvm");
    if (!o.mcpu.empty()) throw Error("--mcpu is an option of the LLVM generator (--backend=llvm)");
    return false;
  }
  return is_llvm_only_target(o.target) || o.target == "x86-64" || o.emit == "llvm" ||
         !o.mcpu.empty();
}

void write_object(const CompileOptions& o, const std::string& bytes) {
  const std::string out = o.output.empty()
                              ? c_identifier(std::filesystem::path(o.file).stem().string()) + ".o"
                              : o.output;
  if (out == "-")
    std::cout.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  else
    write_file(out, bytes);
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
  const bool llvm = use_llvm(o);
  LlvmOptions llvm_options;
  GeneratorOptions gen;
  if (llvm) {
    llvm_options.target = parse_llvm_target(o.target.empty() ? "native" : o.target, o.mcpu);
    llvm_options.opt_level = o.opt_level;
    gen.target = llvm_options.target.rules_target();
  } else {
    // A name only LLVM knows, or none at all: the LLVM parser's error lists every target.
    const bool x86_name = o.target == "x86-64-avx512" || o.target == "x86-64-avx2" ||
                          o.target == "native" || o.target == "host";
    if (!o.target.empty() && !x86_name) parse_llvm_target(o.target);
    gen.target = o.target.empty() ? host_target() : parse_target(o.target);
  }
  gen.contraction_kernels = o.contraction_kernels;

  IRModule m = load_module(o.file, model_options_for_target(o.model, gen.target.is_gpu()));
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
    lowered.add(fname, lower(f, LowerOptions{gen.target.is_gpu()},
                             o.print_after.empty() ? PassObserver() : observer));
  }

  std::vector<FunctionToCompile> functions;
  std::vector<HeaderEntry> header_entries;
  for (const auto& [fname, f] : lowered.functions()) {
    // `name` lets the entry's T.call_kernel("fname", ...) reach the kernel.
    functions.push_back({prefix + "_" + fname, f, fname});
    header_entries.push_back({prefix + "_" + fname, selected.at(fname)});
  }
  gen.module = &m;  // the constants AllocateConst binds
  llvm_options.module = &m;
  const bool cuda = gen.target.is_gpu();
  if (!o.header.empty()) write_file(o.header, write_c_header(prefix, header_entries, cuda));
  if (o.emit == "ptx" && !cuda) throw Error("--emit=ptx needs --target cuda");

  if (o.emit == "tir") {
    write_output(o.output, print(lowered));
  } else if (o.emit == "header") {
    write_output(o.output, write_c_header(prefix, header_entries, cuda));
  } else if (o.emit == "c") {
    if (cuda) throw Error("--emit=c has no CUDA form; use --emit=ptx or --emit=llvm");
    write_output(o.output, emit_c(functions, &m));
  } else if (llvm) {
    LlvmStats stats;
    const LlvmOutput what = o.emit == "llvm"                     ? LlvmOutput::ir
                            : o.emit == "asm" || o.emit == "ptx" ? LlvmOutput::assembly
                                                                 : LlvmOutput::object;
    const std::string out = generate_llvm(functions, llvm_options, what, &stats);
    log_llvm_stats(stats);
    if (what == LlvmOutput::object)
      write_object(o, out);
    else
      write_output(o.output, out);
  } else if (o.emit == "llvm") {
    throw Error("--emit=llvm needs --backend=llvm");
  } else if (o.emit == "asm") {
    GeneratorStats stats;
    const MachineCode code = generate_x86(functions, gen, &stats);
    log_generator_stats(stats, gen.contraction_kernels);
    write_output(o.output, disassemble_x86(code));
  } else {  // obj
    GeneratorStats stats;
    const MachineCode code = generate_x86(functions, gen, &stats);
    log_generator_stats(stats, gen.contraction_kernels);
    const std::vector<uint8_t> bytes = write_elf_object(code);
    write_object(o, std::string(bytes.begin(), bytes.end()));
  }
  return kOk;
}
}  // namespace

void add_compile_command(CLI::App& app, int& status) {
  auto opts = std::make_shared<CompileOptions>();
  auto* cmd = app.add_subcommand("compile", "Lower TensorIR functions and generate code for them");
  cmd->add_option("file", opts->file, "Input .tir file");
  cmd->add_option("-o,--output", opts->output, "Output file ('-' for stdout)");
  cmd->add_option("--emit", opts->emit,
                  "What to write: obj (default: <stem>.o), asm, llvm (LLVM IR), ptx (--target "
                  "cuda), header, c or tir (stdout unless -o)")
      ->check(CLI::IsMember({"tir", "obj", "asm", "llvm", "ptx", "header", "c"}))
      ->capture_default_str();
  cmd->add_option("-H,--header", opts->header, "Also write the C header to this file");
  cmd->add_option(
      "--name", opts->name,
      "Symbol prefix: functions are <name>_<func> (default: the file stem as a C identifier)");
  cmd->add_option("--target", opts->target,
                  "x86-64-avx512, x86-64-avx2, native (default: what this CPU supports), "
                  "x86-64, aarch64-linux-gnu or cuda (LLVM generator)");
  cmd->add_option(
      "--mcpu", opts->mcpu,
      "CPU for the LLVM generator (e.g. neoverse-n1, neoverse-v1, cortex-a76, apple-m1, "
      "x86-64-v4; for cuda the GPU: sm_80 (default), sm_90, ...); an unknown name lists the "
      "valid ones");
  cmd->add_option("--backend", opts->backend,
                  "Code generator: xbyak (x86-64) or llvm (default: llvm for aarch64-linux-gnu, "
                  "--emit=llvm and --mcpu, else xbyak)")
      ->check(CLI::IsMember({"xbyak", "llvm"}));
  cmd->add_option("--opt-level", opts->opt_level, "LLVM generator: optimization level 0-3")
      ->check(CLI::Range(0, 3))
      ->capture_default_str();
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
