// The kernels the frontend builds for every ONNX node test that uses a layout
// or reduction operator lower, compile with the x86 generator, and compute on
// random inputs what the interpreter computes.
#include <catch2/catch.hpp>

#include "onnx_node_codegen_check.h"

namespace tirc {
namespace {

TEST_CASE("Node-test kernels with layout and reduction operators compile for x86",
          "[onnx-ops-b][codegen]") {
  test::NodeKernelCheck c;
  // The node tests that use a layout or reduction operator and only operators
  // the frontend has.
  c.takes = test::uses_only_supported({onnx::shape_ops, onnx::reduction_ops});
  c.float32_inputs_only = true;
  c.check = test::compiled_mismatch_valid_indices;
  // No refusals today.
  c.more_kernels_than = 150;
  test::check_node_test_kernels(c);
}

}  // namespace
}  // namespace tirc
