// The check shared by the onnx_ops_*_codegen_test.cpp tests: every kernel the
// frontend builds for the ONNX node tests of some operators lowers, compiles
// with the x86 generator and computes what the interpreter computes. The
// tests differ in the node tests they take and the inputs they draw.
#pragma once

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "codegen/x86/generator.h"
#include "codegen/x86/jit.h"
#include "ir/eval/interpreter.h"
#include "ir/onnx/import.h"
#include "ir/onnx/model_pipeline.h"
#include "ir/onnx/ops/ops.h"
#include "onnx_node_binding.h"
#include "passes/pipeline.h"
#include "skip.h"

namespace tirc::test {

// The op types of operator families such as onnx::elementwise_ops.
inline std::set<std::string> op_types(
    std::initializer_list<std::vector<onnx::OpDef> (*)()> families) {
  std::set<std::string> names;
  for (auto family : families)
    for (const onnx::OpDef& d : family()) names.insert(d.op_type);
  return names;
}

// Whether a node test's graph uses an operator of `families` and only
// operators the frontend has.
inline std::function<bool(const onnx::Graph&)> uses_only_supported(
    std::initializer_list<std::vector<onnx::OpDef> (*)()> families) {
  return [mine = op_types(families)](const onnx::Graph& g) {
    bool uses_mine = false, all_supported = true;
    for (const onnx::Node& n : g.nodes) {
      uses_mine |= mine.count(n.op_type) != 0;
      all_supported &= onnx::find_op(n.domain, n.op_type) != nullptr;
    }
    return uses_mine && all_supported;
  };
}

inline bool agrees(double interpreted, double compiled) {
  if (std::isnan(interpreted)) return std::isnan(compiled);
  if (std::isinf(interpreted)) return interpreted == compiled;
  return std::fabs(interpreted - compiled) <= 1e-5 + 1e-4 * std::fabs(interpreted);
}

// How compiled_mismatch's answer starts when the generator refuses the kernel.
inline constexpr const char* kGeneratorRefused = "generator refused: ";

// "" when f compiled for target computes from the arguments `interpreted` (one
// per parameter; the interpreter runs on them) what the interpreter computes,
// else the difference. The interpreter's Error propagates: whether it fails
// the test is the caller's choice.
inline std::string compiled_mismatch(const PrimFunc& f, std::vector<NDArray> interpreted,
                                     const Target& target) {
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
    return kGeneratorRefused + std::string(e.what());
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

// compiled_mismatch on random inputs, integer parameters excepted: those are
// mostly index tensors bound from the test data (Gather, GatherElements,
// Scatter*), so they hold 0 and 1 in turn, valid for every axis they index.
inline std::string compiled_mismatch_valid_indices(const PrimFunc& f, const Target& target) {
  std::vector<NDArray> inputs = random_inputs(f, 3, /*small_ints=*/false);
  for (NDArray& a : inputs)
    if (a.dtype().is_int())
      for (int64_t i = 0; i < a.num_elements(); ++i) a.set_int(i, i % 2);
  return compiled_mismatch(f, std::move(inputs), target);
}

// What one test takes from the node tests and how it checks their kernels.
struct NodeKernelCheck {
  // Whether the node test with this graph is one of the test's.
  std::function<bool(const onnx::Graph&)> takes;
  // Leave out node tests with a float input other than float32 (float64 variants).
  bool float32_inputs_only = false;
  // "" when the kernel compiled for the target computes what the interpreter
  // computes, else the difference (compiled_mismatch on the test's inputs).
  std::function<std::string(const PrimFunc&, const Target&)> check;
  // Kernels ("test dir / kernel") the x86 generator refuses, each for a feature
  // it lacks; they run in the interpreter. The list is exact: a listed kernel
  // that compiles fails the test (remove it), and so does a refusal that is not
  // listed.
  std::set<std::string> expected_refusals;
  // The test checks more kernels than this (else it lost its node tests).
  int more_kernels_than = 0;
};

// Runs `c` on every node test of the installed ONNX backend data, compiling for
// AVX2. Call it last in a test case: where the CPU lacks AVX2 or the data is
// not installed it skips the case (skip.h).
inline void check_node_test_kernels(const NodeKernelCheck& c) {
  namespace fs = std::filesystem;
  Target target{Isa::avx2};
  fs::path root = "/usr/include/onnx/backend/test/data/node";
  if (!host_supports(target)) TIRC_SKIP("this CPU lacks " << target.name());
  if (!fs::is_directory(root))
    TIRC_SKIP("ONNX backend test data is not installed (" << root << ")");
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
    if (!c.takes(g)) continue;
    ModelOptions options;
    bool float32_inputs = true;
    for (size_t k = 0; k < g.inputs.size(); ++k) {
      NDArray v = onnx::read_tensor_proto_file(
          (dir / "test_data_set_0" / ("input_" + std::to_string(k) + ".pb")).string());
      if (v.dtype().is_float() && v.dtype() != DataType::float32()) float32_inputs = false;
      if (bound_in_node_tests(g, g.inputs[k], v.dtype()))
        options.bind_inputs[g.inputs[k]] = std::move(v);
    }
    if (c.float32_inputs_only && !float32_inputs) continue;
    IRModule m;
    try {
      m = graph_to_module(g, options);
    } catch (const Error&) {
      continue;  // training-mode Dropout and other refusals the node runner lists
    }
    for (const auto& [name, f] : m.functions()) {
      if (is_entry(f)) continue;
      ++kernels;
      std::string problem = c.check(f, target);
      if (problem.empty()) continue;
      std::string kernel = dir.filename().string() + " / " + name;
      bool refusal = problem.rfind(kGeneratorRefused, 0) == 0;
      if (refusal && c.expected_refusals.count(kernel))
        refused.insert(kernel);
      else
        problems.push_back(kernel + ": " + problem);
    }
  }
  CHECK(kernels > c.more_kernels_than);
  for (const std::string& k : c.expected_refusals)
    if (!refused.count(k)) problems.push_back(k + ": listed in expected_refusals but compiles");
  std::string all;
  for (const std::string& p : problems) all += "\n  " + p;
  INFO(problems.size() << " problems in " << kernels << " kernels (" << refused.size()
                       << " expected refusals):" << all);
  CHECK(problems.empty());
}

}  // namespace tirc::test
