// The kernels the frontend builds for every ONNX node test that uses a
// data-movement operator (Tile, DepthToSpace, Resize, GatherElements,
// Scatter*, ...) lower, compile with the x86 generator, and compute on random
// inputs what the interpreter computes.
#include <catch2/catch.hpp>

#include "onnx_node_codegen_check.h"

namespace tirc {
namespace {

TEST_CASE("Node-test kernels with data-movement operators compile for x86",
          "[onnx-ops-movement][codegen]") {
  test::NodeKernelCheck c;
  c.takes = test::uses_only_supported({onnx::movement_ops});
  c.float32_inputs_only = true;
  c.check = test::compiled_mismatch_valid_indices;
  c.more_kernels_than = 75;
  test::check_node_test_kernels(c);
}

}  // namespace
}  // namespace tirc
