// tirc schedule: apply a schedule script (a trace in TVM's form) to a program.
#include <iostream>

#include "driver/commands.h"
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
};

int run_schedule(const ScheduleOptions& o) {
  if (o.print_trace && o.json) {
    std::cerr << "tirc schedule: error: --print-trace and --json cannot be combined\n";
    return kUsage;
  }
  IRModule mod = load_module(o.file);
  if (!o.func.empty() && !mod.find(o.func))
    throw Error("no function named '" + o.func + "' in " + o.file);
  Trace script = Trace::parse(read_file(o.trace), o.trace);
  Schedule sch(std::move(mod), o.seed);
  script.apply_to(sch, o.func);
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
  auto* cmd = app.add_subcommand("schedule", "Apply a schedule script to a TensorIR program");
  cmd->add_option("file", opts->file, "Input .tir file")->required();
  cmd->add_option("--trace", opts->trace,
                  "Schedule script: sch.<primitive>(...) lines, as TVM prints a trace")
      ->required();
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
