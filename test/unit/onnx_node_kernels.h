// The kernels the frontend builds for ONNX's node tests (the backend test
// data of Debian's libonnx-testdata) that the x86 generator compiles, with
// random inputs and the interpreter's results: the corpus the LLVM and CUDA
// generator tests run.
#pragma once

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "codegen/x86/generator.h"
#include "env_int.h"
#include "ir/eval/interpreter.h"
#include "ir/onnx/import.h"
#include "ir/onnx/model_pipeline.h"
#include "ir/onnx/ops/ops.h"
#include "onnx_node_binding.h"
#include "passes/pipeline.h"

namespace tirc::test {

struct NodeKernel {
  std::string what;                            // "<node test> / <kernel>"
  PrimFunc func;                               // as the frontend built it
  PrimFunc lowered;                            // lower(func)
  std::vector<NDArray> inputs, expected, got;  // expected: the interpreter's run on inputs
};

// Under the sanitizers CI takes every n-th node test (n from this variable);
// 1: all of them.
inline constexpr const char* kNodeKernelStride = "TIRC_NODE_KERNEL_STRIDE";
inline size_t node_kernel_stride() {
  return static_cast<size_t>(std::max(1, env_int(kNodeKernelStride, 1)));
}

// The node tests' kernels the x86 generator takes, each with the
// interpreter's results on random inputs (integer inputs 0 and 1 in turn:
// most are indices bound from the test data). Kernels the interpreter
// refuses on such inputs (an integer division by zero) are left out.
inline std::vector<NodeKernel> node_test_kernels() {
  std::vector<NodeKernel> out;
  const std::filesystem::path root = "/usr/include/onnx/backend/test/data/node";
  std::vector<std::filesystem::path> dirs;
  for (const auto& e : std::filesystem::directory_iterator(root)) dirs.push_back(e.path());
  std::sort(dirs.begin(), dirs.end());
  dirs = every_nth(std::move(dirs), kNodeKernelStride);
  for (const std::filesystem::path& dir : dirs) {
    onnx::Graph g;
    try {
      g = onnx::import_model_file((dir / "model.onnx").string());
    } catch (const Error&) {
      continue;
    }
    bool supported = true;
    for (const onnx::Node& n : g.nodes) supported &= onnx::find_op(n.domain, n.op_type) != nullptr;
    if (!supported) continue;
    ModelOptions options;
    for (size_t k = 0; k < g.inputs.size(); ++k) {
      NDArray v = onnx::read_tensor_proto_file(
          (dir / "test_data_set_0" / ("input_" + std::to_string(k) + ".pb")).string());
      if (bound_in_node_tests(g, g.inputs[k], v.dtype()))
        options.bind_inputs[g.inputs[k]] = std::move(v);
    }
    IRModule m;
    try {
      m = graph_to_module(g, options);
    } catch (const Error&) {
      continue;
    }
    for (const auto& [name, f] : m.functions()) {
      if (is_entry(f)) continue;
      NodeKernel k{dir.filename().string() + " / " + name, f, lower(f), {}, {}, {}};
      try {
        generate_x86({{"kernel", k.lowered}}, GeneratorOptions{Target{Isa::avx2}});
      } catch (const Error&) {
        continue;  // not one the x86 generator compiles
      }
      k.inputs = random_inputs(f, 3, /*small_ints=*/false);
      for (NDArray& a : k.inputs)
        if (a.dtype().is_int())
          for (int64_t i = 0; i < a.num_elements(); ++i) a.set_int(i, i % 2);
      k.expected = k.inputs;
      std::vector<Argument> args;
      for (NDArray& a : k.expected) args.push_back({&a});
      try {
        run(f, args);
      } catch (const Error&) {
        continue;
      }
      out.push_back(std::move(k));
    }
  }
  return out;
}

}  // namespace tirc::test
