// The kernels the frontend builds for every ONNX node test that uses a layout
// or reduction operator lower, compile with the x86 generator, and compute on
// random inputs what the interpreter computes.
#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <vector>

#include "onnx_node_codegen_check.h"

namespace tirc {
namespace {

std::string check_kernel(const PrimFunc& f, const Target& target) {
  std::vector<NDArray> inputs = random_inputs(f, 3, /*small_ints=*/false);
  // Integer parameters are mostly Gather indices bound from the test data:
  // keep them valid for every axis (0 and 1).
  for (NDArray& a : inputs)
    if (a.dtype().is_int())
      for (int64_t i = 0; i < a.num_elements(); ++i) a.set_int(i, i % 2);
  return test::compiled_mismatch(f, std::move(inputs), target);
}

TEST_CASE("Node-test kernels with layout and reduction operators compile for x86",
          "[onnx-ops-b][codegen]") {
  test::NodeKernelCheck c;
  // The node tests that use a layout or reduction operator and only operators
  // the frontend has.
  c.takes = test::uses_only_supported({onnx::shape_ops, onnx::reduction_ops});
  c.float32_inputs_only = true;
  c.check = check_kernel;
  // No refusals today.
  c.more_kernels_than = 150;
  test::check_node_test_kernels(c);
}

}  // namespace
}  // namespace tirc
