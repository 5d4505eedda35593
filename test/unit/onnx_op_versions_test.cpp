// The operator version table (ir/onnx/op_versions.h): it lists exactly the
// supported operators, the version an opset means follows ONNX's rule, and a
// node at a version tirc does not implement is refused naming both versions.
#include <catch2/catch.hpp>

#include <algorithm>

#include "ir/onnx/import.h"
#include "ir/onnx/op.h"
#include "ir/onnx/op_versions.h"

using namespace tirc;
using namespace tirc::onnx;

TEST_CASE("the version table lists exactly the supported operators", "[onnx-import]") {
  std::vector<std::string> listed = versioned_ops();
  CHECK(std::is_sorted(listed.begin(), listed.end()));
  CHECK(listed == supported_ops());
  for (const std::string& op : listed) {
    INFO(op);
    const OpHistory* h = find_op_history(op);
    REQUIRE(h);
    REQUIRE(!h->since.empty());
    CHECK(std::is_sorted(h->since.begin(), h->since.end()));
    CHECK(std::adjacent_find(h->since.begin(), h->since.end()) == h->since.end());
    CHECK(h->since.back() <= kMaxOpset);
    CHECK(std::count(h->since.begin(), h->since.end(), h->implemented) == 1);
  }
  CHECK(find_op_history("Loop") == nullptr);
}

TEST_CASE("an opset means each operator's newest definition at or below it", "[onnx-import]") {
  CHECK(op_version("Split", 13) == 13);
  CHECK(op_version("Split", 17) == 13);
  CHECK(op_version("Split", 18) == 18);
  CHECK(op_version("Split", 21) == 18);
  CHECK(op_version("Pad", 7) == 2);
  CHECK(op_version("Pad", 19) == 19);
  CHECK(op_version("Pad", 20) == 19);
  CHECK(op_version("ReduceMax", 19) == 18);
  CHECK(op_version("ReduceMax", 20) == 20);
  CHECK(op_version("ReduceSum", 21) == 13);
  CHECK(op_version("AveragePool", 21) == 19);
  CHECK(op_version("Relu", 21) == 14);
  // Exporters wrote these before ONNX defined them: their first definition.
  CHECK(op_version("Gelu", 17) == 20);
  CHECK(op_version("LayerNormalization", 13) == 17);
  // Not in the table: the opset itself.
  CHECK(op_version("Loop", 19) == 19);
}

TEST_CASE("a definition newer than tirc implements is refused with both versions",
          "[onnx-import]") {
  const OpHistory resize{"Resize", {10, 11, 13, 18, 19}, 18};
  CHECK(version_refusal(resize, 18) == "");
  CHECK(version_refusal(resize, 13) == "");
  CHECK(version_refusal(resize, 19) ==
        "opset 19 means Resize-19, tirc implements Resize up to version 18");
  CHECK(version_refusal(resize, 21) ==
        "opset 21 means Resize-19, tirc implements Resize up to version 18");
  // Every supported operator implements what every imported opset means.
  for (const std::string& op : versioned_ops())
    for (int64_t opset = kMinOpset; opset <= kMaxOpset; ++opset) {
      INFO(op << " at opset " << opset);
      CHECK(version_refusal(*find_op_history(op), opset) == "");
    }
}
