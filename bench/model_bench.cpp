// End-to-end latency of the example models (examples/models/) through compiled
// code: import, lower + generate times, and the best run time of the entry.
//   tirc_model_bench [--min-time SECONDS] [MODEL_DIR...]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>
#include <filesystem>
#include <string>
#include <vector>

#include "codegen/x86/jit.h"
#include "codegen/x86/module_codegen.h"
#include "ir/onnx/import.h"
#include "passes/model_pipeline.h"
#include "passes/pipeline.h"
#include "runtime/tirc_runtime.h"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

void bench_model(const std::string& dir, double min_time) {
  using namespace tirc;
  auto start = Clock::now();
  IRModule m = import_onnx_module(dir + "/model.onnx");
  double import_s = seconds_since(start);
  start = Clock::now();
  GeneratorOptions options;
  options.target = host_target();
  JitModule jit(generate_x86_module(lower(m), "bench", options));
  double codegen_s = seconds_since(start);

  std::string entry;
  for (const auto& [name, f] : m.functions())
    if (is_entry(f)) entry = name;
  const PrimFunc& f = m.at(entry);
  std::vector<NDArray> args;
  for (int i = 0; std::filesystem::exists(dir + "/test_data_set_0/input_" + std::to_string(i) + ".pb"); ++i)
    args.push_back(onnx::read_tensor_proto_file(dir + "/test_data_set_0/input_" + std::to_string(i) + ".pb"));
  for (size_t i = args.size(); i < f->params.size(); ++i) {
    std::vector<int64_t> shape;
    for (const Expr& e : f->params[i].buffer->shape) shape.push_back(e.as<IntImmNode>()->value);
    args.emplace_back(f->params[i].buffer->dtype, shape);
  }
  std::vector<Argument> call;
  for (NDArray& a : args) call.push_back({&a});
  size_t kernels = m.size() - 1;

  for (int threads : {1, 0}) {
    tirc_set_num_threads(threads == 0 ? static_cast<int>(std::thread::hardware_concurrency()) : threads);
    call_jit(jit, "bench_" + entry, f, call);  // warm up
    double best = 1e30;
    int runs = 0;
    auto begin = Clock::now();
    while (runs < 10 || seconds_since(begin) < min_time) {
      auto t = Clock::now();
      call_jit(jit, "bench_" + entry, f, call);
      best = std::min(best, seconds_since(t));
      ++runs;
    }
    std::printf("%-20s %7zu %10.2f %10.2f %8d %12.3f\n", std::filesystem::path(dir).filename().c_str(), kernels,
                import_s * 1e3, codegen_s * 1e3, tirc_get_num_threads(), best * 1e3);
  }
}

}  // namespace

int main(int argc, char** argv) {
  double min_time = 0.5;
  std::vector<std::string> dirs;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--min-time") && i + 1 < argc)
      min_time = std::atof(argv[++i]);
    else
      dirs.push_back(argv[i]);
  }
  if (dirs.empty())
    for (const char* name : {"mlp", "cnn", "transformer_block"})
      dirs.push_back(std::string(TIRC_SOURCE_DIR) + "/examples/models/" + name);
  std::printf("%-20s %7s %10s %10s %8s %12s\n", "model", "kernels", "import_ms", "codegen_ms", "threads",
              "latency_ms");
  for (const std::string& d : dirs) {
    try {
      bench_model(d, min_time);
    } catch (const tirc::Error& e) {
      std::fprintf(stderr, "%s: %s\n", d.c_str(), e.render().c_str());
      return 1;
    }
  }
  return 0;
}
