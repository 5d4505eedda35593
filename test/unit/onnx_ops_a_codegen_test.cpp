// Every kernel the frontend builds for the ONNX node tests of the elementwise
// and nn operators lowers, compiles with the x86 generator and computes what
// the interpreter computes (on random small-integer inputs).
#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <vector>

#include "onnx_node_codegen_check.h"

namespace tirc {
namespace {

// The node tests whose nodes are all elementwise or nn operators.
bool only_ops_a(const onnx::Graph& g) {
  static const std::set<std::string> mine = test::op_types({onnx::elementwise_ops, onnx::nn_ops});
  bool all_mine = !g.nodes.empty();
  for (const onnx::Node& n : g.nodes) all_mine &= mine.count(n.op_type) != 0;
  return all_mine;
}

std::string check_kernel(const PrimFunc& f, const Target& target) {
  std::vector<NDArray> inputs = random_inputs(f, 7);
  try {
    return test::compiled_mismatch(f, std::move(inputs), target);
  } catch (const Error&) {
    // The interpreter failed, e.g. an integer division by a random zero:
    // nothing to compare.
    return "";
  }
}

TEST_CASE("node-test kernels of the ops-a operators compile for x86",
          "[onnx-ops-a][codegen][onnx-node]") {
  test::NodeKernelCheck c;
  c.takes = only_ops_a;
  c.check = check_kernel;
  c.expected_refusals = {
      "test_cast_FLOAT_to_BFLOAT16 / cast",  // bfloat16
      "test_mod_mixed_sign_float32 / mod",   // float remainder (fmod)
  };
  c.more_kernels_than = 100;
  test::check_node_test_kernels(c);
}

}  // namespace
}  // namespace tirc
