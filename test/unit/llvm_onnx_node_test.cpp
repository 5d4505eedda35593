// Every kernel the frontend builds for ONNX's node tests that the x86
// generator compiles, compiled by the LLVM generator for x86-64 (run here) and
// AArch64 (run under qemu-aarch64, many kernels per process) and compared
// with the interpreter on random inputs.
#include <catch2/catch.hpp>

#include <filesystem>
#include <set>

#include "llvm_test_util.h"
#include "onnx_node_codegen_check.h"
#include "onnx_node_kernels.h"

namespace tirc {
namespace {

namespace fs = std::filesystem;

// Runs the kernels in batches of one object (and one process) each; returns
// the problems.
std::vector<std::string> check_on(const LlvmTarget& target,
                                  std::vector<test::NodeKernel>& kernels) {
  constexpr size_t kBatch = 150;
  std::vector<std::string> problems;
  for (size_t first = 0; first < kernels.size(); first += kBatch) {
    const size_t last = std::min(kernels.size(), first + kBatch);
    std::vector<FunctionToCompile> functions;
    std::vector<test::KernelCall> calls;
    for (size_t i = first; i < last; ++i) {
      const std::string symbol = "kernel_" + std::to_string(i);
      functions.push_back({symbol, kernels[i].lowered, ""});
      std::vector<Argument> args;
      for (NDArray& a : kernels[i].got) args.push_back({&a});
      calls.push_back({symbol, kernels[i].lowered, args});
    }
    std::vector<int> statuses;
    try {
      statuses = test::run_llvm_calls(functions, nullptr, target, calls);
    } catch (const Error& e) {
      problems.push_back("kernels " + kernels[first].what + " .. " + kernels[last - 1].what + ": " +
                         e.what());
      continue;
    }
    for (size_t i = first; i < last; ++i) {
      const test::NodeKernel& k = kernels[i];
      if (statuses[i - first] != 0) {
        problems.push_back(k.what + ": returned " + std::to_string(statuses[i - first]));
        continue;
      }
      for (size_t p = 0; p < k.expected.size(); ++p)
        for (int64_t e = 0; e < k.expected[p].num_elements(); ++e)
          if (!test::agrees(k.expected[p].get_float(e), k.got[p].get_float(e))) {
            problems.push_back(k.what + ": parameter " + std::to_string(p) + " element " +
                               std::to_string(e) + ": interpreter " +
                               std::to_string(k.expected[p].get_float(e)) + ", compiled " +
                               std::to_string(k.got[p].get_float(e)));
            p = k.expected.size() - 1;
            break;
          }
    }
  }
  return problems;
}

TEST_CASE("LLVM: the ONNX node-test kernels the x86 generator compiles", "[llvm][onnx-node]") {
  if (!fs::is_directory("/usr/include/onnx/backend/test/data/node"))
    TIRC_SKIP("ONNX backend test data is not installed");
  const std::vector<LlvmTarget> targets = test::runnable_llvm_targets();
  if (targets.empty()) TIRC_SKIP("no LLVM target runs here");
  std::vector<test::NodeKernel> kernels = test::node_test_kernels();
  CHECK(kernels.size() > 500 / test::node_kernel_stride());
  // One x86-64 CPU (the host's best) and AArch64.
  std::set<LlvmArch> done;
  for (const LlvmTarget& t : targets) {
    if (!done.insert(t.arch).second) continue;
    for (test::NodeKernel& k : kernels) k.got = k.inputs;
    std::vector<std::string> problems = check_on(t, kernels);
    std::string all;
    for (const std::string& p : problems) all += "\n  " + p;
    INFO(t.name() << " " << t.cpu << ": " << problems.size() << " problems in " << kernels.size()
                  << " kernels:" << all);
    CHECK(problems.empty());
  }
}

}  // namespace
}  // namespace tirc
