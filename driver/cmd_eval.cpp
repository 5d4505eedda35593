// tirc eval: run functions in the reference interpreter.
#include <spdlog/spdlog.h>

#include <filesystem>
#include <iostream>

#include "driver/commands.h"
#include "driver/session.h"
#include "driver/tensor_io.h"
#include "ir/eval/interpreter.h"

namespace tirc::driver {

namespace {
struct EvalOptions {
  std::string file;
  std::string func;
  uint64_t seed = 0;
  bool print = false;
  bool real_inputs = false;
  bool check_races = false;
  std::string inputs_dir;
  std::string outputs_dir;
  std::string expect_dir;
  double rtol = 0, atol = 0;
  std::vector<std::string> scalars;  // NAME=VALUE
};

std::map<std::string, double> parse_scalars(const std::vector<std::string>& items) {
  std::map<std::string, double> out;
  for (const std::string& item : items) {
    size_t eq = item.find('=');
    char* end = nullptr;
    double v = eq == std::string::npos ? 0 : std::strtod(item.c_str() + eq + 1, &end);
    if (eq == std::string::npos || eq == 0 || end == item.c_str() + eq + 1 || *end != '\0')
      throw Error("--param expects NAME=VALUE, got '" + item + "'");
    out[item.substr(0, eq)] = v;
  }
  return out;
}

// Compares an output with DIR/<buffer>.npy; says which element differs.
bool matches_expected(const std::string& func, const std::string& buffer, const NDArray& out,
                      const EvalOptions& o) {
  const std::string path = o.expect_dir + "/" + buffer + ".npy";
  const NDArray expected = read_npy(path);
  if (expected.dtype() != out.dtype() || expected.shape() != out.shape()) {
    std::cout << func << ": " << buffer << " is " << describe(out) << " but " << path << " is "
              << describe(expected) << "\n";
    return false;
  }
  const int64_t at = out.first_mismatch(expected, o.rtol, o.atol);
  if (at < 0) {
    std::cout << func << ": " << buffer << " matches " << path << "\n";
    return true;
  }
  std::cout << func << ": " << buffer << " differs from " << path << " at element " << at << ": "
            << element_text(out, at) << " vs " << element_text(expected, at) << "\n";
  return false;
}

int run_eval(const EvalOptions& o) {
  IRModule m = load_module(o.file);
  if (!o.func.empty()) m.at(o.func);  // a clear error for an unknown name
  if (!o.outputs_dir.empty()) std::filesystem::create_directories(o.outputs_dir);
  // Every function runs in the module's context, so an entry that calls
  // kernels and binds constants runs like any kernel; each is compiled once.
  const CompiledModule compiled(m);
  int status = kOk;
  for (const auto& [name, f] : m.functions()) {
    if (!o.func.empty() && name != o.func) continue;
    Inputs in = make_inputs(f, o.seed, !o.real_inputs, o.inputs_dir, parse_scalars(o.scalars));
    // Checking mode: races in parallel-like loops are errors (exit 1), and
    // parallel iterations run in an order shuffled by --seed.
    compiled.run(name, in.args, o.check_races ? RunOptions::checked(o.seed) : RunOptions{});
    for (size_t i : output_params(f)) {
      const NDArray& out = in.arrays[i];
      const std::string& buffer = f->params[i].buffer->name;
      if (o.print) {
        std::cout << name << ": " << buffer << " " << describe(out) << " =\n" << format_array(out) << "\n";
      } else {
        double sum = 0;
        if (out.dtype().is_float() || out.dtype().is_integer() || out.dtype().is_bool())
          for (int64_t k = 0; k < out.num_elements(); ++k)
            sum += out.dtype().is_float() ? out.get_float(k) : static_cast<double>(out.get_int(k));
        std::cout << fmt::format("{}: {} {}: sum {} checksum {:016x}\n", name, buffer, describe(out), sum,
                                 checksum(out));
      }
      if (!o.outputs_dir.empty()) {
        std::string path = o.outputs_dir + "/" + buffer + ".npy";
        write_npy(path, out);
        spdlog::info("{}: wrote {}", buffer, path);
      }
      if (!o.expect_dir.empty() && !matches_expected(name, buffer, out, o)) status = kBadInput;
    }
  }
  return status;
}
}  // namespace

void add_eval_command(CLI::App& app, int& status) {
  auto o = std::make_shared<EvalOptions>();
  auto* cmd = app.add_subcommand("eval", "Run functions of a TensorIR file in the reference interpreter");
  cmd->add_option("file", o->file, "Input .tir file")->required();
  cmd->add_option("--func", o->func, "Run only this function (default: every function)");
  cmd->add_option("--seed", o->seed, "Seed of the random inputs")->capture_default_str();
  cmd->add_flag("--print", o->print, "Print the outputs instead of their checksums");
  cmd->add_flag("--real-inputs", o->real_inputs,
                "Random real-valued inputs (default: small integers, so sums are exact)");
  cmd->add_flag(
      "--check-races", o->check_races,
      "Fail when iterations of a parallel, vectorized or thread-bound loop write the same "
      "element, or one reads what another writes; run parallel iterations shuffled");
  cmd->add_option("--inputs", o->inputs_dir, "Read inputs from DIR/<buffer>.npy where present");
  cmd->add_option("--outputs", o->outputs_dir, "Write outputs to DIR/<buffer>.npy");
  cmd->add_option("--expect", o->expect_dir,
                  "Compare each output with DIR/<buffer>.npy (exit 1 if one differs)");
  cmd->add_option("--rtol", o->rtol, "With --expect: relative tolerance (default 0: bit for bit)");
  cmd->add_option("--atol", o->atol, "With --expect: absolute tolerance");
  cmd->add_option("--param", o->scalars, "Value of a scalar parameter, NAME=VALUE (repeatable)")
      ->delimiter(',')
      ->type_name("NAME=VALUE");
  cmd->callback([o, &status] { status = run_eval(*o); });
}

}  // namespace tirc::driver
