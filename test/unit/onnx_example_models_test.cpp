// The example models (examples/models/, made by make_models.py) end to end:
// ONNX -> module -> interpreter and compiled code, against the reference
// outputs stored beside each model.
#include <catch2/catch.hpp>

#include <filesystem>

#include "codegen_test_util.h"
#include "ir/onnx/import.h"
#include "ir/onnx/model_pipeline.h"
#include "llvm_test_util.h"
#include "model_test_util.h"

namespace tirc {
namespace {

const char* const kModels[] = {"cnn", "mlp", "transformer_block", "mlp_external"};

std::string model_dir(const std::string& name) {
  return std::string(TIRC_SOURCE_DIR) + "/examples/models/" + name;
}

struct ModelData {
  std::vector<NDArray> inputs, outputs;
};

ModelData read_data(const std::string& name) {
  ModelData d;
  const std::string dir = model_dir(name) + "/test_data_set_0/";
  for (int i = 0; std::filesystem::exists(dir + "input_" + std::to_string(i) + ".pb"); ++i)
    d.inputs.push_back(onnx::read_tensor_proto_file(dir + "input_" + std::to_string(i) + ".pb"));
  for (int i = 0; std::filesystem::exists(dir + "output_" + std::to_string(i) + ".pb"); ++i)
    d.outputs.push_back(onnx::read_tensor_proto_file(dir + "output_" + std::to_string(i) + ".pb"));
  return d;
}

void check_outputs(const std::vector<NDArray>& got, const std::vector<NDArray>& want) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("output " << i);
    CHECK(test::compare_tensors(got[i], want[i]) == "");
  }
}

size_t kernel_count(const IRModule& m) {
  size_t n = 0;
  for (const auto& [name, f] : m.functions()) n += is_entry(f) ? 0 : 1;
  return n;
}

TEST_CASE("example models match their references in the interpreter", "[onnx-e2e]") {
  for (const char* name : kModels) {
    INFO(name);
    IRModule m = import_onnx_module(model_dir(name) + "/model.onnx");
    ModelData d = read_data(name);
    REQUIRE(!d.inputs.empty());
    check_outputs(test::run_entry(m, d.inputs), d.outputs);
  }
}

TEST_CASE("example models match their references compiled for every target", "[onnx-e2e]") {
  for (const char* name : kModels) {
    IRModule m = import_onnx_module(model_dir(name) + "/model.onnx");
    ModelData d = read_data(name);
    for (const Target& t : available_targets()) {
      INFO(name << " on " << t.name());
      check_outputs(test::run_entry(m, d.inputs, t), d.outputs);
    }
  }
}

TEST_CASE("example models match their references compiled by the LLVM generator",
          "[onnx-e2e][llvm]") {
  const std::vector<LlvmTarget> targets = test::runnable_llvm_targets();
  if (targets.empty()) TIRC_SKIP("no LLVM target runs here");
  for (const char* name : kModels) {
    const IRModule m = import_onnx_module(model_dir(name) + "/model.onnx");
    const ModelData d = read_data(name);
    const std::string entry = test::entry_name(m);
    const IRModule lowered = lower(m);
    for (const LlvmTarget& t : targets) {
      INFO(name << " on " << t.name() << " " << t.cpu);
      std::vector<NDArray> args = d.inputs;
      for (NDArray& out : entry_output_arrays(m.at(entry), d.inputs.size(), entry))
        args.push_back(std::move(out));
      std::vector<Argument> call;
      for (NDArray& a : args) call.push_back({&a});
      REQUIRE(test::run_llvm_module(lowered, entry, t, call) == 0);
      check_outputs(std::vector<NDArray>(
                        args.begin() + static_cast<std::ptrdiff_t>(d.inputs.size()), args.end()),
                    d.outputs);
    }
  }
}

TEST_CASE("fusion changes the kernel count, not the results", "[onnx-e2e]") {
  for (const char* name : kModels) {
    INFO(name);
    ModelOptions unfused;
    unfused.fuse = false;
    IRModule fused = import_onnx_module(model_dir(name) + "/model.onnx");
    IRModule plain = import_onnx_module(model_dir(name) + "/model.onnx", unfused);
    CHECK(kernel_count(fused) < kernel_count(plain));
    ModelData d = read_data(name);
    check_outputs(test::run_entry(plain, d.inputs), d.outputs);
  }
}

}  // namespace
}  // namespace tirc
