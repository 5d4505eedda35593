// The kernels the frontend builds for every ONNX node test that uses a layout
// or reduction operator lower, compile with the x86 generator, and compute on
// random inputs what the interpreter computes.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>
#include <sstream>

#include "codegen/x86/generator.h"
#include "codegen/x86/jit.h"
#include "ir/eval/interpreter.h"
#include "ir/onnx/import.h"
#include "ir/onnx/ops/ops.h"
#include "passes/model_pipeline.h"
#include "passes/pipeline.h"
#include "skip.h"

namespace tirc {
namespace {

namespace fs = std::filesystem;

std::set<std::string> layout_and_reduction_ops() {
  std::set<std::string> names;
  for (auto family : {onnx::shape_ops, onnx::reduction_ops})
    for (const onnx::OpDef& d : family()) names.insert(d.op_type);
  return names;
}

bool agrees(double interpreted, double compiled) {
  if (std::isnan(interpreted)) return std::isnan(compiled);
  if (std::isinf(interpreted)) return interpreted == compiled;
  return std::fabs(interpreted - compiled) <= 1e-5 + 1e-4 * std::fabs(interpreted);
}

// "" when the compiled kernel reproduces the interpreter, else the difference.
std::string compiled_mismatch(const PrimFunc& f, const Target& target) {
  std::vector<NDArray> interpreted = random_inputs(f, 3, /*small_ints=*/false);
  // Integer parameters are mostly Gather indices bound from the test data:
  // keep them valid for every axis (0 and 1).
  for (NDArray& a : interpreted)
    if (a.dtype().is_int())
      for (int64_t i = 0; i < a.num_elements(); ++i) a.set_int(i, i % 2);
  std::vector<NDArray> compiled = interpreted;
  std::vector<Argument> ia, ca;
  for (size_t p = 0; p < interpreted.size(); ++p) {
    ia.push_back({&interpreted[p], 0, 0});
    ca.push_back({&compiled[p], 0, 0});
  }
  run(f, ia);
  try {
    JitModule jit(generate_x86({{"kernel", lower(f), ""}}, GeneratorOptions{target}));
    if (call_jit(jit, "kernel", f, ca) != 0) return "the kernel returned non-zero";
  } catch (const Error& e) {
    return std::string("generator refused: ") + e.what();
  }
  for (size_t p = 0; p < interpreted.size(); ++p)
    for (int64_t i = 0; i < interpreted[p].num_elements(); ++i)
      if (!agrees(interpreted[p].get_float(i), compiled[p].get_float(i))) {
        std::ostringstream s;
        s << "parameter " << p << " element " << i << ": interpreter "
          << interpreted[p].get_float(i) << ", compiled " << compiled[p].get_float(i);
        return s.str();
      }
  return "";
}

// Kernels ("test dir / kernel") the x86 generator refuses, each for a feature
// it lacks; none today. The list is exact: a listed kernel that compiles fails
// the test (remove it), and so does a refusal that is not listed.
const std::set<std::string> kExpectedRefusals = {};

TEST_CASE("Node-test kernels with layout and reduction operators compile for x86",
          "[onnx-ops-b][codegen]") {
  Target target{Isa::avx2};
  fs::path root = "/usr/include/onnx/backend/test/data/node";
  if (!host_supports(target)) TIRC_SKIP("this CPU lacks " << target.name());
  if (!fs::is_directory(root)) TIRC_SKIP("ONNX backend test data is not installed (" << root << ")");
  std::set<std::string> mine = layout_and_reduction_ops();
  std::vector<fs::path> dirs;
  for (const auto& e : fs::directory_iterator(root)) dirs.push_back(e.path());
  std::sort(dirs.begin(), dirs.end());
  int kernels = 0;
  std::vector<std::string> problems;
  std::set<std::string> refused;
  for (const fs::path& dir : dirs) {
    onnx::Graph g;
    try {
      g = onnx::import_model_file((dir / "model.onnx").string());
    } catch (const Error&) {
      continue;  // sequences, strings, subgraphs: the node runner reports these
    }
    bool uses_mine = false, all_supported = true;
    for (const onnx::Node& n : g.nodes) {
      uses_mine |= mine.count(n.op_type) != 0;
      all_supported &= onnx::find_op(n.domain, n.op_type) != nullptr;
    }
    if (!uses_mine || !all_supported) continue;
    ModelOptions options;
    bool float_inputs = true;
    for (size_t k = 0; k < g.inputs.size(); ++k) {
      NDArray v = onnx::read_tensor_proto_file(
          (dir / "test_data_set_0" / ("input_" + std::to_string(k) + ".pb")).string());
      if (v.dtype().is_float() && v.dtype() != DataType::float32()) float_inputs = false;
      if (v.dtype() != DataType::float32()) options.bind_inputs[g.inputs[k]] = std::move(v);
    }
    if (!float_inputs) continue;  // float64 variants
    IRModule m;
    try {
      m = graph_to_module(g, options);
    } catch (const Error&) {
      continue;  // training-mode Dropout and other refusals the node runner lists
    }
    for (const auto& [name, f] : m.functions()) {
      if (is_entry(f)) continue;
      ++kernels;
      std::string problem = compiled_mismatch(f, target);
      if (problem.empty()) continue;
      std::string kernel = dir.filename().string() + " / " + name;
      bool refusal = problem.rfind("generator refused: ", 0) == 0;
      if (refusal && kExpectedRefusals.count(kernel))
        refused.insert(kernel);
      else
        problems.push_back(kernel + ": " + problem);
    }
  }
  CHECK(kernels > 150);
  for (const std::string& k : kExpectedRefusals)
    if (!refused.count(k)) problems.push_back(k + ": listed in kExpectedRefusals but compiles");
  std::string all;
  for (const std::string& p : problems) all += "\n  " + p;
  INFO(problems.size() << " problems in " << kernels << " kernels (" << refused.size()
                       << " expected refusals):" << all);
  CHECK(problems.empty());
}

}  // namespace
}  // namespace tirc
