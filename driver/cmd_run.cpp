// tirc run: run a model (ONNX or a module with an entry function) in process
// on given inputs and compare its outputs with expected ones. The inputs'
// shapes bind an ONNX model's symbolic dimensions that no flag binds.
#include <cmath>
#include <filesystem>
#include <iostream>
#include <sstream>

#include "codegen/llvm/cuda_run.h"
#include "codegen/llvm/generator.h"
#include "driver/commands.h"
#include "driver/model_flags.h"
#include "driver/model_io.h"
#include "driver/profile.h"
#include "driver/schedule_flags.h"
#include "driver/session.h"
#include "driver/tensor_io.h"
#include "ir/onnx/import.h"

namespace tirc::driver {

namespace {
struct RunOptions {
  ModelOptions model;  // --layout, for an .onnx file
  std::string file;
  std::vector<std::string> inputs;
  std::vector<std::string> expects;
  std::string outputs_dir;
  std::string func;
  std::string target;
  double rtol = 1e-3;
  double atol = 1e-5;
  bool interpret = false;
  bool profile = false;
  int repeat = 1;
  ScheduleFlags scheduling;
};

struct Mismatch {
  int64_t index = -1;
  double got = 0, want = 0;
  double max_abs = 0;
};

Mismatch compare(const NDArray& got, const NDArray& want, double rtol, double atol) {
  Mismatch m;
  for (int64_t i = 0; i < got.num_elements(); ++i) {
    double g = got.get_float(i), w = want.get_float(i);
    if (std::isnan(g) && std::isnan(w)) continue;
    double diff = std::fabs(g - w);
    if (!std::isnan(diff) && !std::isinf(diff)) m.max_abs = std::max(m.max_abs, diff);
    bool ok = g == w || diff <= atol + rtol * std::fabs(w);
    if (!ok && m.index < 0) m = {i, g, w, m.max_abs};
  }
  return m;
}

std::string file_name_for(const std::string& name) {
  std::string out;
  for (char c : name)
    out += std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' ? c : '_';
  return out.empty() ? "output" : out;
}

// Runs the profile takes when --repeat does not say.
constexpr int kProfileRuns = 10;

int run_model(const RunOptions& o) {
  const bool cuda = o.target == "cuda";
  if (cuda && !o.interpret) {
    if (std::string why = cuda_unavailable(); !why.empty())
      throw Error("tirc run --target cuda runs on a GPU, and there is none here: " + why);
    if (o.profile) throw Error("--profile times CPU kernels; it cannot be used with --target cuda");
  }
  if (is_llvm_only_target(o.target) && !cuda)
    throw Error("cannot run " + o.target +
                " code on this machine: tirc run runs the host's code; compile it with tirc "
                "compile --target " +
                o.target + " and run it there (or under qemu-aarch64)");
  if (o.profile && o.interpret)
    throw Error("--profile times compiled kernels; it cannot be used with --interpret");
  // The input files bind the model's symbolic dimensions that no flag binds.
  std::vector<NDArray> inputs;
  ModelOptions model = model_options_for_target(o.model, cuda);
  for (const std::string& path : o.inputs) {
    inputs.push_back(onnx::read_tensor_file(path));
    model.dims.data.push_back({inputs.back().shape(), "input file '" + path + "'"});
  }
  IRModule m = load_module(o.file, model);
  EntryInfo entry = find_entry(m, o.func);
  const auto& params = entry.func->params;
  if (o.inputs.size() != entry.num_inputs)
    throw Error(o.file + ": '" + entry.name + "' takes " + std::to_string(entry.num_inputs) +
                " input(s), " + std::to_string(o.inputs.size()) + " --input given");
  if (o.expects.size() > params.size() - entry.num_inputs)
    throw Error(o.file + ": '" + entry.name + "' has " +
                std::to_string(params.size() - entry.num_inputs) + " output(s), " +
                std::to_string(o.expects.size()) + " --expect given");

  std::vector<NDArray> args;
  for (size_t i = 0; i < entry.num_inputs && i < params.size(); ++i) {
    const Buffer& b = params[i].buffer;
    const std::vector<int64_t> shape = constant_shape(b, entry.name);
    NDArray a = std::move(inputs[i]);
    if (a.dtype() != b->dtype || a.shape() != shape)
      throw Error(o.inputs[i] + ": input " + std::to_string(i) + " '" + entry.io_names[i] +
                  "' must be " + describe(NDArray(b->dtype, shape)) + ", the file holds " +
                  describe(a));
    args.push_back(std::move(a));
  }
  for (NDArray& out : entry_output_arrays(entry.func, entry.num_inputs, entry.name))
    args.push_back(std::move(out));

  Target target = cuda               ? Target{Isa::cuda}
                  : o.target.empty() ? host_target()
                                     : parse_target(o.target);
  // The interpreter runs the module as written; compiled runs are scheduled.
  const IRModule plain = m;
  if (!o.interpret) {
    m = schedule_module(m, o.scheduling, target);
    entry = find_entry(m, o.func);
  }
  // The profile runs the same compiled kernels, one timed call at a time; its
  // table goes after the outputs, so it is computed first and held.
  std::ostringstream profile;
  double seconds = 0;
  if (o.profile)
    profile_entry(m, plain, entry, args, target, o.repeat > 1 ? o.repeat : kProfileRuns, profile);
  else
    seconds = run_entry(m, entry, args, target, o.interpret, o.repeat);

  int status = kOk;
  for (size_t i = entry.num_inputs; i < params.size(); ++i) {
    size_t k = i - entry.num_inputs;
    const NDArray& got = args[i];
    std::cout << "output " << k << " '" << entry.io_names[i] << "': " << describe(got);
    if (!o.outputs_dir.empty()) {
      std::filesystem::create_directories(o.outputs_dir);
      write_npy((std::filesystem::path(o.outputs_dir) / (file_name_for(entry.io_names[i]) + ".npy"))
                    .string(),
                got);
    }
    if (k >= o.expects.size()) {
      std::cout << " " << format_array(got, 16) << "\n";
      continue;
    }
    NDArray want = onnx::read_tensor_file(o.expects[k]);
    if (want.shape() != got.shape()) {
      std::cout << ": MISMATCH: expected shape " << describe(want) << "\n";
      status = kBadInput;
      continue;
    }
    Mismatch mm = compare(got, want, o.rtol, o.atol);
    if (mm.index < 0) {
      std::cout << ": matches " << o.expects[k] << " (max abs diff " << mm.max_abs << ")\n";
    } else {
      std::cout << ": MISMATCH at flat index " << mm.index << ": got " << mm.got << ", expected "
                << mm.want << " (rtol " << o.rtol << ", atol " << o.atol << ")\n";
      status = kBadInput;
    }
  }
  std::cout << profile.str();
  if (!o.interpret && !o.profile && o.repeat > 1)
    std::cout << "latency: " << seconds * 1e3 << " ms (best of " << o.repeat << ")\n";
  return status;
}
}  // namespace

void add_run_command(CLI::App& app, int& status) {
  auto opts = std::make_shared<RunOptions>();
  auto* cmd = app.add_subcommand(
      "run", "Run a model in process and compare its outputs with expected ones");
  cmd->add_option("file", opts->file, "Model: .onnx, or .tir with an entry function")->required();
  cmd->add_option("-i,--input", opts->inputs,
                  "Input tensor (.pb TensorProto or .npy), one per model input, in order");
  cmd->add_option("-e,--expect", opts->expects, "Expected output (.pb or .npy), in output order");
  cmd->add_option("--rtol", opts->rtol, "Relative tolerance for --expect")->capture_default_str();
  cmd->add_option("--atol", opts->atol, "Absolute tolerance for --expect")->capture_default_str();
  cmd->add_option("--outputs", opts->outputs_dir, "Write every output to DIR/<name>.npy");
  cmd->add_option("--func", opts->func, "Run this function instead of the entry");
  cmd->add_option("--target", opts->target,
                  "x86-64-avx512, x86-64-avx2 (default: this CPU) or cuda (the first GPU)");
  add_schedule_flags(cmd, opts->scheduling);
  add_model_flags(cmd, opts->model);
  cmd->add_flag("--interpret", opts->interpret,
                "Run in the reference interpreter instead of compiled code");
  cmd->add_flag(
      "--profile", opts->profile,
      "Time each kernel call of the entry and print a per-kernel table (best of --repeat runs, "
      "default 10)");
  cmd->add_option("--repeat", opts->repeat, "Run N times and print the best latency")
      ->check(CLI::PositiveNumber);
  cmd->callback([opts, &status] { status = run_model(*opts); });
}

}  // namespace tirc::driver
