// tirc schedule: apply a schedule script (a trace in TVM's form) to a program.
#include <spdlog/spdlog.h>

#include <iostream>

#include "driver/commands.h"
#include "driver/schedule_flags.h"
#include "driver/session.h"
#include "ir/text/printer.h"
#include "ir/verify.h"
#include "schedule/schedule.h"

namespace tirc::driver {

namespace {
struct ScheduleOptions {
  std::string file;
  std::string trace;
  std::string output;
  std::string func;
  uint64_t seed = 0;
  bool print_trace = false;
  bool json = false;
  bool verify = true;
  bool automatic = false;
  std::string target;
  std::string cpu_model;
};

int run_schedule(const ScheduleOptions& o) {
  if (o.print_trace && o.json) {
    std::cerr << "tirc schedule: error: --print-trace and --json cannot be combined\n";
    return kUsage;
  }
  IRModule mod = load_module(o.file);
  if (!o.func.empty() && !mod.find(o.func))
    throw Error("no function named '" + o.func + "' in " + o.file);
  if (o.automatic == !o.trace.empty()) {
    std::cerr << "tirc schedule: error: give either --trace SCRIPT or --auto\n";
    return kUsage;
  }
  Schedule sch(mod, o.seed);
  if (o.automatic) {
    ScheduleFlags flags;
    flags.cpu_model = o.cpu_model;
    const RuleContext cx =
        rule_context(flags, o.target.empty() ? host_target() : parse_target(o.target));
    spdlog::debug("schedule rules for {}", cx.cpu.describe());
    std::vector<std::string> skip;
    for (const auto& [name, f] : mod.functions())
      if (!o.func.empty() && name != o.func) skip.push_back(name);
    AutoScheduleResult result = auto_schedule(mod, cx, skip, o.seed);
    log_block_reports(result.blocks);
    sch = std::move(result.schedule);
  } else {
    Trace::parse(read_file(o.trace), o.trace).apply_to(sch, o.func);
  }
  if (o.verify) {
    std::vector<Diagnostic> diags = verify(sch.mod());
    if (!diags.empty()) {
      report(diags);
      std::cerr << "tirc schedule: error: the scheduled program is not well formed (a bug in a "
                   "primitive)\n";
      return kBadInput;
    }
  }
  std::string program = print(sch.mod());
  if (!o.output.empty()) write_file(o.output, program);
  if (o.print_trace) {
    std::cout << sch.trace().print();
  } else if (o.json) {
    std::cout << sch.trace().to_json();
  } else if (o.output.empty()) {
    std::cout << program;
  }
  return kOk;
}
}  // namespace

void add_schedule_command(CLI::App& app, int& status) {
  auto opts = std::make_shared<ScheduleOptions>();
  auto* cmd = app.add_subcommand(
      "schedule", "Apply a schedule script (or the default rules) to a TensorIR program");
  cmd->add_option("file", opts->file, "Input .tir file")->required();
  cmd->add_option("--trace", opts->trace,
                  "Schedule script: sch.<primitive>(...) lines, as TVM prints a trace");
  cmd->add_flag("--auto", opts->automatic,
                "Schedule every block by the rules (the default schedule of compile and run)");
  cmd->add_option("--target", opts->target,
                  "With --auto: x86-64-avx512, x86-64-avx2 or native (default: this CPU)");
  cmd->add_option("--cpu-model", opts->cpu_model,
                  "With --auto: caches and threads to schedule for, e.g. l1d=32K,l2=1M,threads=2");
  cmd->add_option("-o,--output", opts->output,
                  "Write the scheduled program to this file instead of stdout");
  cmd->add_option("--func", opts->func,
                  "Function that get_block looks in when the script names none");
  cmd->add_option("--seed", opts->seed, "Seed of the random sampling primitives")
      ->capture_default_str();
  cmd->add_flag("--print-trace", opts->print_trace,
                "Print the recorded trace instead of the program");
  cmd->add_flag("--json", opts->json, "Print the recorded trace as JSON instead of the program");
  cmd->add_flag("--verify,!--no-verify", opts->verify,
                "Check that the result is well formed (default on; exit 1 if not)");
  cmd->callback([opts, &status] { status = run_schedule(*opts); });
}

}  // namespace tirc::driver
