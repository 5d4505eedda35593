// End-to-end latency of ONNX models through compiled code, with the default
// schedules `tirc run` uses (the rules of tuner/auto_schedule.h for this
// CPU's model), checked against the reference output stored beside each model.
//   tirc_model_bench [--min-time SECONDS] [--threads 1,2] [--layout auto|nhwc|nchw]
//                    [--db tune.db] [MODEL_DIR...]
//
// --db: kernels with a tuning record for the thread count (tirc tune --db
// --threads N) are scheduled by it, the others by the rules, as `tirc
// compile --db` does.
// MODEL_DIR holds model.onnx and test_data_set_0/{input,output}_N.pb; without
// any, the example models. One machine-readable line per model and thread
// count (bench/run_model_bench.sh merges them with onnxruntime's figures):
//   tirc model=NAME threads=N latency_ms=X compile_ms=Y kernels=K check=ok max_abs_diff=D
// Exit status 1 when a model fails to compile or its output does not match.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "codegen/x86/jit.h"
#include "codegen/x86/module_codegen.h"
#include "ir/onnx/import.h"
#include "ir/onnx/model_pipeline.h"
#include "passes/pipeline.h"
#include "runtime/tirc_runtime.h"
#include "tuner/auto_schedule.h"
#include "tuner/space/cpu_model.h"
#include "tuner/timing.h"
#include "tuner/tune_module.h"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string tensor_file(const std::string& dir, const char* kind, size_t i) {
  return dir + "/test_data_set_0/" + kind + "_" + std::to_string(i) + ".pb";
}

// Largest |got - want| and whether every element is within the tolerance.
// Random-weight models sum thousands of products, so exact equality with
// torch's (differently ordered) sums is not expected. The absolute part of the
// tolerance scales with the reference's largest magnitude: a randomly
// initialised MobileNetV2 outputs values near 1e-9, which a fixed atol would
// accept whatever was computed.
bool close(const tirc::NDArray& got, const tirc::NDArray& want, double& max_abs) {
  constexpr double kRtol = 1e-3, kAtol = 1e-4;
  if (got.shape() != want.shape()) return false;
  double scale = 0;
  for (int64_t i = 0; i < want.num_elements(); ++i)
    scale = std::max(scale, std::fabs(want.get_float(i)));
  double atol = kAtol * scale;
  bool ok = true;
  for (int64_t i = 0; i < got.num_elements(); ++i) {
    double g = got.get_float(i), w = want.get_float(i), d = std::fabs(g - w);
    if (!(d <= atol + kRtol * std::fabs(w))) ok = false;
    if (std::isfinite(d)) max_abs = std::max(max_abs, d);
  }
  return ok;
}

// Benchmarks one model directory at each thread count, compiled for that
// count (as `TIRC_NUM_THREADS=N tirc compile` schedules it); false when its
// output does not match.
bool bench_model(const std::string& dir, const std::vector<int>& threads, double min_time,
                 const tirc::ModelOptions& model, const tirc::TuningDatabase* db) {
  using namespace tirc;
  std::string name = std::filesystem::path(dir).filename().string();
  bool all_ok = true;
  for (int n : threads) {
    auto start = Clock::now();
    IRModule m = import_onnx_module(dir + "/model.onnx", model);
    Target target = host_target();
    RuleContext cx;
    cx.cpu = host_cpu_model(target);
    cx.cpu.threads = n;
    Schedule tuned(m);
    const std::vector<std::string> by_records =
        db ? apply_records(tuned, *db, cx) : std::vector<std::string>{};
    IRModule scheduled = auto_schedule(tuned.mod(), cx, by_records).schedule.mod();
    GeneratorOptions options;
    options.target = target;
    JitModule jit(generate_x86_module(lower(scheduled), "bench", options));
    double compile_s = seconds_since(start);

    std::string entry;
    for (const auto& [fname, f] : scheduled.functions())
      if (is_entry(f)) entry = fname;
    if (entry.empty()) throw Error(dir + "/model.onnx: the module has no entry function");
    const PrimFunc& f = scheduled.at(entry);
    size_t inputs = 0;
    std::vector<NDArray> args;
    while (std::filesystem::exists(tensor_file(dir, "input", inputs)))
      args.push_back(onnx::read_tensor_proto_file(tensor_file(dir, "input", inputs++)));
    for (NDArray& out : entry_output_arrays(f, inputs, entry)) args.push_back(std::move(out));
    std::vector<Argument> call;
    for (NDArray& a : args) call.push_back({&a});

    tirc_set_num_threads(n);
    auto run = [&] {
      if (int rc = call_jit(jit, "bench_" + entry, f, call); rc != 0)
        throw Error(name + ": the entry returned " + std::to_string(rc));
    };
    run();
    double max_abs = 0;
    bool ok = true;
    for (size_t i = inputs; i < args.size(); ++i) {
      std::string want = tensor_file(dir, "output", i - inputs);
      if (std::filesystem::exists(want))
        ok &= close(args[i], onnx::read_tensor_proto_file(want), max_abs);
    }
    double best = best_seconds(run, Budget{10, min_time, 30 * min_time});
    std::printf(
        "tirc model=%s threads=%d latency_ms=%.4f compile_ms=%.1f kernels=%zu tuned=%zu check=%s "
        "max_abs_diff=%.3g\n",
        name.c_str(), tirc_get_num_threads(), best * 1e3, compile_s * 1e3, scheduled.size() - 1,
        by_records.size(), ok ? "ok" : "MISMATCH", max_abs);
    std::fflush(stdout);
    all_ok &= ok;
  }
  return all_ok;
}

std::vector<int> parse_threads(const std::string& list) {
  std::vector<int> out;
  std::stringstream ss(list);
  for (std::string item; std::getline(ss, item, ',');)
    out.push_back(std::max(1, std::atoi(item.c_str())));
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  double min_time = 1.0;
  std::string db_path;
  std::vector<int> threads = {1, 2};
  tirc::ModelOptions options;
  std::vector<std::string> dirs;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--min-time") && i + 1 < argc)
      min_time = std::atof(argv[++i]);
    else if (!std::strcmp(argv[i], "--db") && i + 1 < argc)
      db_path = argv[++i];
    else if (!std::strcmp(argv[i], "--threads") && i + 1 < argc)
      threads = parse_threads(argv[++i]);
    else if (!std::strcmp(argv[i], "--layout") && i + 1 < argc)
      options.layout = !std::strcmp(argv[++i], "nchw") ? tirc::ModelOptions::Layout::Nchw
                       : !std::strcmp(argv[i], "nhwc") ? tirc::ModelOptions::Layout::Nhwc
                                                       : tirc::ModelOptions::Layout::Auto;
    else
      dirs.push_back(argv[i]);
  }
  if (dirs.empty())
    for (const char* name : {"mlp", "cnn", "transformer_block"})
      dirs.push_back(std::string(TIRC_SOURCE_DIR) + "/examples/models/" + name);
  int status = 0;
  std::optional<tirc::TuningDatabase> db;
  try {
    if (!db_path.empty()) db.emplace(db_path);
  } catch (const tirc::Error& e) {
    std::fprintf(stderr, "%s\n", e.render().c_str());
    return 1;
  }
  for (const std::string& d : dirs) {
    try {
      if (!bench_model(d, threads, min_time, options, db ? &*db : nullptr)) status = 1;
    } catch (const tirc::Error& e) {
      std::fprintf(stderr, "%s: %s\n", d.c_str(), e.render().c_str());
      status = 1;
    }
  }
  return status;
}
