// The kernels the frontend builds for every ONNX node test that uses ArgMax,
// ArgMin, TopK, CumSum, InstanceNormalization or Einsum lower, compile with
// the x86 generator, and compute on random inputs what the interpreter
// computes.
#include <catch2/catch.hpp>

#include <string>

#include "onnx_node_codegen_check.h"

namespace tirc {
namespace {

std::string check_kernel(const PrimFunc& f, const Target& target) {
  // Small integers: ArgMax, ArgMin and TopK meet ties.
  return test::compiled_mismatch(f, random_inputs(f, 5, /*small_ints=*/true), target);
}

TEST_CASE("Node-test kernels with index reductions, normalizations and Einsum compile for x86",
          "[onnx-ops-ri][codegen]") {
  test::NodeKernelCheck c;
  c.takes = test::uses_only_supported(
      {onnx::index_reduction_ops, onnx::normalization_ops, onnx::einsum_ops});
  c.check = check_kernel;
  c.more_kernels_than = 45;  // 49 today: every node test of these operators
  test::check_node_test_kernels(c);
}

}  // namespace
}  // namespace tirc
