// ONNX import: the whole ONNX backend test corpus imports (or is refused for a
// listed reason), test data reads with the declared shapes, spot checks of
// attributes and initializers, and exact diagnostics for malformed files.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "ir/error.h"
#include "ir/onnx/import.h"
#include "skip.h"

namespace fs = std::filesystem;
using namespace tirc;
using namespace tirc::onnx;

namespace {

const fs::path kOnnxData = "/usr/include/onnx/backend/test/data";
const fs::path kSourceDir = TIRC_SOURCE_DIR;

std::string import_error(const fs::path& path) {
  try {
    import_model_file(path.string());
  } catch (const Error& e) {
    REQUIRE(e.loc().file);
    CHECK(*e.loc().file == path.string());  // every import error names the file
    return e.message();
  }
  FAIL("importing " << path << " did not fail");
  return {};
}

std::vector<fs::path> corpus_models() {
  std::vector<fs::path> models;
  for (const char* dir : {"node", "pytorch-converted", "pytorch-operator", "simple"}) {
    if (!fs::is_directory(kOnnxData / dir)) continue;
    for (const auto& test : fs::directory_iterator(kOnnxData / dir))
      if (fs::exists(test.path() / "model.onnx")) models.push_back(test.path() / "model.onnx");
  }
  std::sort(models.begin(), models.end());
  return models;
}

// The features the importer deliberately refuses, recognised by diagnostic.
// Every refused corpus model must fall in exactly one of these.
struct Refusal {
  const char* reason;
  const char* message_part;
};
const Refusal kRefusals[] = {
    // opset 6 models using an operator whose definition changed in opset 7
    // (e.g. the legacy broadcast attribute of Add): the operator library
    // implements opset 7 and later semantics only.
    {"ai.onnx opset older than 7", "is not supported (supported: 7 to 21)"},
    // ai.onnx.preview.training optimizer tests (Adagrad, Adam, Momentum) that
    // import no ai.onnx opset at all.
    {"training-only models", "the model does not import the ai.onnx opset"},
    // Control flow (If, Loop, Scan, SequenceMap, expanded Range) carries
    // subgraphs: not compiled by tirc.
    {"subgraph attributes", "of type GRAPH is not supported"},
    {"sequence types", "has sequence type; only tensors are supported"},
    {"optional types", "has optional type; only tensors are supported"},
    {"string tensors", "has element type STRING, which is not supported"},
};

std::string refusal_of(const std::string& message) {
  for (const auto& r : kRefusals)
    if (message.find(r.message_part) != std::string::npos) return r.reason;
  return {};
}

// Shapes agree where the model declares a dimension.
bool shape_matches(const Shape& declared, bool known, const std::vector<int64_t>& actual) {
  if (!known && declared.empty()) return true;  // rank unknown
  if (declared.size() != actual.size()) return false;
  for (size_t i = 0; i < declared.size(); ++i)
    if (declared[i] >= 0 && declared[i] != actual[i]) return false;
  return true;
}

}  // namespace

TEST_CASE("every ONNX backend test model imports or is refused for a listed reason",
          "[onnx-import]") {
  auto models = corpus_models();
  if (models.empty()) {
    TIRC_SKIP("libonnx-testdata is not installed");
  }
  std::map<std::string, int> refused;
  int imported = 0, data_files = 0;
  for (const auto& path : models) {
    INFO(path.string());
    Graph g;
    try {
      g = import_model_file(path.string());
    } catch (const Error& e) {
      std::string reason = refusal_of(e.message());
      INFO(e.message());
      CHECK(!reason.empty());
      ++refused[reason];
      continue;
    }
    ++imported;
    CHECK(g.source == path.string());
    CHECK(g.opset >= kMinOpset);
    CHECK(g.opset <= kMaxOpset);
    for (const auto& node : g.nodes) CHECK(!node.name.empty());
    for (const auto& out : g.outputs) CHECK(g.tensors.count(out) == 1);

    // Test data: input_k is the k-th graph input, output_k the k-th output.
    for (const auto& set : fs::directory_iterator(path.parent_path())) {
      if (!set.is_directory()) continue;
      for (const auto& file : fs::directory_iterator(set.path())) {
        std::string fname = file.path().filename().string();
        bool is_input = fname.rfind("input_", 0) == 0, is_output = fname.rfind("output_", 0) == 0;
        if (file.path().extension() != ".pb" || (!is_input && !is_output)) continue;
        size_t k = std::stoul(fname.substr(is_input ? 6 : 7));
        const auto& names = is_input ? g.inputs : g.outputs;
        REQUIRE(k < names.size());
        const TensorInfo& info = g.tensor(names[k]);
        if (!(info.dtype == DataType::float32() || info.dtype == DataType::int64() ||
              info.dtype == DataType::boolean()))
          continue;
        INFO(file.path().string());
        NDArray value = read_tensor_proto_file(file.path().string());
        ++data_files;
        CHECK(value.dtype() == info.dtype);
        // ONNX 1.12's own data is inconsistent here: "like" is declared [3,4]
        // but stored as [1] (it only supplies the type).
        bool known_mismatch = path.parent_path().filename().string().rfind(
                                  "test_castlike_BFLOAT16_to_FLOAT", 0) == 0 &&
                              fname == "input_1.pb";
        if (!known_mismatch) CHECK(shape_matches(info.shape, info.shape_known, value.shape()));
      }
    }
  }
  int total_refused = 0;
  for (const auto& [reason, count] : refused) {
    UNSCOPED_INFO(reason << ": " << count);
    total_refused += count;
  }
  // ONNX 1.12's corpus: 34 opset 6 models, 7 optimizer tests, If/Loop/Scan
  // (8; the other control-flow tests are counted under their sequence or
  // optional inputs), 16 sequence, 6 optional, 18 string models.
  CHECK(refused["ai.onnx opset older than 7"] == 34);
  CHECK(refused["training-only models"] == 7);
  CHECK(refused["subgraph attributes"] == 8);
  CHECK(refused["sequence types"] == 16);
  CHECK(refused["optional types"] == 6);
  CHECK(refused["string tensors"] == 18);
  CHECK(imported + total_refused == static_cast<int>(models.size()));
  CHECK(imported == 983);
  CHECK(data_files > 1500);
  UNSCOPED_INFO("data files read: " << data_files);
}

TEST_CASE("a Conv node test imports with its attributes and shapes", "[onnx-import]") {
  fs::path path = kOnnxData / "node/test_conv_with_strides_padding/model.onnx";
  if (!fs::exists(path)) {
    TIRC_SKIP("libonnx-testdata is not installed");
  }
  Graph g = import_model_file(path.string());
  CHECK(g.name == "test_conv_with_strides_padding");
  CHECK(g.inputs == std::vector<std::string>{"x", "W"});
  CHECK(g.outputs == std::vector<std::string>{"y"});
  REQUIRE(g.nodes.size() == 1);
  const Node& conv = g.nodes[0];
  CHECK(conv.op_type == "Conv");
  CHECK(conv.name == "Conv_0");  // unnamed in the file
  CHECK(conv.domain.empty());
  CHECK(conv.inputs == std::vector<std::string>{"x", "W"});
  CHECK(conv.attr_ints("kernel_shape") == std::vector<int64_t>{3, 3});
  CHECK(conv.attr_ints("pads") == std::vector<int64_t>{1, 1, 1, 1});
  CHECK(conv.attr_ints("strides") == std::vector<int64_t>{2, 2});
  CHECK(!conv.has_attr("group"));
  const TensorInfo& x = g.tensor("x");
  CHECK(x.dtype == DataType::float32());
  CHECK(x.shape == Shape{1, 1, 7, 5});
  CHECK(x.shape_known);
  CHECK(!x.value);
  CHECK(g.tensor("W").shape == Shape{1, 1, 3, 3});
  // The declared output type is recorded as a hint.
  CHECK(g.tensor("y").shape == Shape{1, 1, 4, 3});
  CHECK(g.tensor("y").dtype == DataType::float32());

  NDArray in = read_tensor_proto_file((path.parent_path() / "test_data_set_0/input_0.pb").string());
  CHECK(in.shape() == std::vector<int64_t>{1, 1, 7, 5});
  CHECK(in.get_float(0) == 0.0);
  CHECK(in.get_float(34) == 34.0);
  NDArray by_ext = read_tensor_file((path.parent_path() / "test_data_set_0/input_0.pb").string());
  CHECK(by_ext.bitwise_equal(in));
}

TEST_CASE("models older than opset 7 import when their operators are unchanged", "[onnx-import]") {
  fs::path pool = kOnnxData / "node/test_globalaveragepool/model.onnx";              // opset 1
  fs::path conv = kOnnxData / "pytorch-converted/test_Conv2d_depthwise/model.onnx";  // opset 6
  fs::path add = kOnnxData / "pytorch-operator/test_operator_add_broadcast/model.onnx";
  if (!fs::exists(pool)) {
    TIRC_SKIP("libonnx-testdata is not installed");
  }
  CHECK(import_model_file(pool.string()).opset == 7);
  Graph g = import_model_file(conv.string());
  CHECK(g.opset == 7);
  // Old exporters list the initializers among the graph inputs too.
  CHECK(g.inputs.size() == 1);
  REQUIRE(g.nodes.size() == 1);
  CHECK(g.nodes[0].attr_int("group", 1) == 4);
  CHECK(g.tensor(g.nodes[0].inputs[1]).value);
  CHECK(import_error(add) ==
        "ai.onnx opset 6 is not supported (supported: 7 to 21): Add changed in opset 7");
}

TEST_CASE("a Constant node's value attribute becomes a tensor", "[onnx-import]") {
  fs::path path = kOnnxData / "node/test_constant/model.onnx";
  if (!fs::exists(path)) {
    TIRC_SKIP("libonnx-testdata is not installed");
  }
  Graph g = import_model_file(path.string());
  REQUIRE(g.nodes.size() == 1);
  const Node& node = g.nodes[0];
  CHECK(node.op_type == "Constant");
  auto value = node.attr_tensor("value");
  REQUIRE(value);
  CHECK(value->dtype() == DataType::float32());
  CHECK(value->shape() == std::vector<int64_t>{5, 5});
  NDArray expected =
      read_tensor_proto_file((path.parent_path() / "test_data_set_0/output_0.pb").string());
  CHECK(value->bitwise_equal(expected));
  CHECK(g.inputs.empty());
}

TEST_CASE("typed and raw initializers of every storage form", "[onnx-import]") {
  Graph g = import_model_file((kSourceDir / "test/onnx/initializers.onnx").string());
  CHECK(g.inputs.empty());
  CHECK(g.outputs.size() == 14);
  auto value = [&](const std::string& name) {
    const TensorInfo& info = g.tensor(name);
    REQUIRE(info.value);
    CHECK(info.shape_known);
    CHECK(info.shape == info.value->shape());
    CHECK(info.dtype == info.value->dtype());
    return *info.value;
  };
  NDArray f_typed = value("f_typed");
  CHECK(f_typed.shape() == std::vector<int64_t>{2, 3});
  CHECK(f_typed.get_float(1) == -1.0);
  CHECK(f_typed.get_float(3) == 3.25);
  NDArray f_raw = value("f_raw");
  CHECK(f_raw.dtype() == DataType::float32());
  CHECK(f_raw.get_float(0) == 1.5);
  CHECK(f_raw.get_float(3) == Approx(1e-3));
  NDArray i64 = value("i64_typed");
  CHECK(i64.get_int(0) == -1);
  CHECK(i64.get_int(2) == int64_t{1} << 40);
  CHECK(value("i64_raw").get_int(1) == -9);
  NDArray i8 = value("i8_typed");
  CHECK(i8.dtype() == DataType::int8());
  CHECK(i8.get_int(0) == -128);
  CHECK(i8.get_int(2) == 127);
  NDArray u16 = value("u16_typed");
  CHECK(u16.dtype() == DataType(DataType::Code::UInt, 16));
  CHECK(u16.get_int(0) == 65535);
  CHECK(value("i32_typed").get_int(0) == -5);
  NDArray f16 = value("f16_typed");  // float16 bit patterns in int32_data
  CHECK(f16.dtype() == DataType::float16());
  CHECK(f16.get_float(0) == 1.0);
  CHECK(f16.get_float(1) == -2.5);
  NDArray b = value("bool_typed");
  CHECK(b.dtype() == DataType::boolean());
  CHECK(b.get_int(0) == 1);
  CHECK(b.get_int(1) == 0);
  CHECK(value("bool_raw").get_int(1) == 1);
  CHECK(value("f64_typed").get_float(0) == 0.1);
  CHECK(static_cast<uint64_t>(value("u64_typed").get_int(0)) == uint64_t{1} << 63);
  NDArray scalar = value("scalar");
  CHECK(scalar.shape().empty());
  CHECK(scalar.get_float(0) == 42.0);
  CHECK(value("empty").num_elements() == 0);
  // Outputs declared without a shape: dtype recorded, shape unknown.
  CHECK(g.tensor("f_typed_out").dtype == DataType::float32());
  CHECK(!g.tensor("f_typed_out").shape_known);
}

TEST_CASE("external data next to the model", "[onnx-import]") {
  fs::path path = kSourceDir / "test/onnx/external_ok/model.onnx";
  Graph g = import_model_file(path.string());
  NDArray w1 = *g.tensor("w1").value, w2 = *g.tensor("w2").value;
  CHECK(w1.shape() == std::vector<int64_t>{2, 2});
  CHECK(w1.get_float(0) == 1.0);
  CHECK(w1.get_float(3) == 4.0);
  CHECK(w2.get_float(0) == 10.0);  // at offset 16 in the same file
  CHECK(w2.get_float(3) == 10.0);

  // The same bytes in memory: external data needs a directory.
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK_THROWS_WITH(import_model_bytes(bytes, "mem.onnx"),
                    "initializer 'w1': external data 'model.onnx.data' is not allowed here (the "
                    "model has no directory)");
  Graph again = import_model_bytes(bytes, "mem.onnx", path.parent_path().string());
  CHECK(again.tensor("w2").value->bitwise_equal(w2));
}

TEST_CASE("malformed models give exact diagnostics", "[onnx-import]") {
  const fs::path bad = kSourceDir / "test/onnx/bad";
  const std::pair<const char*, const char*> cases[] = {
      {"empty.onnx", "empty file, not an ONNX model"},
      {"not_onnx.onnx", "not an ONNX model, or truncated (protobuf parse failed)"},
      {"truncated.onnx", "not an ONNX model, or truncated (protobuf parse failed)"},
      {"opset_too_new.onnx", "ai.onnx opset 22 is not supported (supported: 7 to 21)"},
      {"missing_initializer_data.onnx",
       "initializer 'w': no data (expected 4 float32 elements in raw_data or float_data)"},
      {"wrong_raw_data_size.onnx",
       "initializer 'w': raw_data has 12 bytes, expected 16 (4 float32 elements)"},
      {"wrong_float_data_count.onnx",
       "initializer 'w': float_data has 3 values, expected 4 float32 elements"},
      {"external_escape.onnx",
       "initializer 'w': external data location '../secret.bin' leaves the model's directory"},
      {"external_absolute.onnx",
       "initializer 'w': external data location '/etc/passwd' is absolute; it must be relative "
       "to the model's directory"},
      {"node_input_undefined.onnx",
       "node 'add1' (Add): input 'z' is not a graph input, an initializer or an output of an "
       "earlier node"},
      {"duplicate_output.onnx", "node 'neg1' (Neg): output 'y' is already defined"},
      {"unsupported_attribute.onnx",
       "node 'if1' (If): attribute 'else_branch' of type GRAPH is not supported"},
      {"output_not_produced.onnx",
       "graph output 'y' is not produced by any node (nor a graph input or initializer)"},
      {"internal_domain.onnx",
       "node 'pool1' (MaxPool): domain 'tirc.channels_last' is tirc's own (its layout pass "
       "writes it), not a model's"},
      {"string_input.onnx", "graph input 's' has element type STRING, which is not supported"},
      {"sequence_input.onnx", "graph input 's' has sequence type; only tensors are supported"},
      {"huge_initializer.onnx",
       "initializer 'w': tensor is larger than the limit of 4294967296 bytes"},
  };
  for (const auto& [file, message] : cases) {
    INFO(file);
    CHECK(import_error(bad / file) == message);
  }
  CHECK_THROWS_WITH(import_model_file((bad / "no_such_file.onnx").string()),
                    "cannot open model '" + (bad / "no_such_file.onnx").string() + "'");
}

TEST_CASE("diagnostics render with the file name", "[onnx-import]") {
  fs::path path = kSourceDir / "test/onnx/bad/opset_too_new.onnx";
  try {
    import_model_file(path.string());
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.render() ==
          path.string() + ": error: ai.onnx opset 22 is not supported (supported: 7 to 21)\n");
  }
}

TEST_CASE("tensor files round-trip and bad tensor files are refused", "[onnx-import]") {
  fs::path dir = fs::temp_directory_path() / "tirc_onnx_import_test";
  fs::create_directories(dir);
  NDArray a(DataType::float32(), {2, 3});
  for (int64_t i = 0; i < 6; ++i) a.set_float(i, 0.25 * static_cast<double>(i) - 1);
  write_tensor_proto_file((dir / "a.pb").string(), a, "a");
  std::string name;
  NDArray back = read_tensor_proto_file((dir / "a.pb").string(), &name);
  CHECK(name == "a");
  CHECK(back.bitwise_equal(a));
  NDArray flags(DataType::boolean(), {3});
  flags.set_int(1, 1);
  write_tensor_proto_file((dir / "b.pb").string(), flags, "b");
  CHECK(read_tensor_file((dir / "b.pb").string()).bitwise_equal(flags));
  write_npy((dir / "a.npy").string(), a);
  CHECK(read_tensor_file((dir / "a.npy").string()).bitwise_equal(a));

  CHECK_THROWS_WITH(
      read_tensor_file((dir / "a.txt").string()),
      "tensor file '" + (dir / "a.txt").string() + "' must end in .pb (TensorProto) or .npy");
  CHECK_THROWS_WITH(parse_tensor_proto("\xff\xff\xff", "x.pb"),
                    "x.pb: not a TensorProto, or truncated (protobuf parse failed)");
  // Field 1 (dims) = 4, field 2 (data_type) = FLOAT, raw_data of 3 bytes.
  CHECK_THROWS_WITH(parse_tensor_proto(std::string("\x08\x04\x10\x01\x4a\x03xyz", 9), "x.pb"),
                    "x.pb: tensor '': raw_data has 3 bytes, expected 16 (4 float32 elements)");
  // data_type STRING.
  CHECK_THROWS_WITH(parse_tensor_proto(std::string("\x08\x01\x10\x08", 4), "s.pb"),
                    "s.pb: tensor '': element type STRING is not supported");
  fs::remove_all(dir);
}

namespace {

int count_ops(const Graph& g, const std::string& op_type) {
  return static_cast<int>(std::count_if(g.nodes.begin(), g.nodes.end(),
                                        [&](const Node& n) { return n.op_type == op_type; }));
}

Graph import_example(const std::string& name) {
  return import_model_file((kSourceDir / "examples/models" / name / "model.onnx").string());
}

void check_example_io(const std::string& name, const Graph& g, const Shape& in, const Shape& out) {
  INFO(name);
  CHECK(g.inputs == std::vector<std::string>{"input"});
  CHECK(g.outputs == std::vector<std::string>{"output"});
  CHECK(g.tensor("input").shape == in);
  CHECK(g.tensor("output").shape == out);
  fs::path data = kSourceDir / "examples/models" / name / "test_data_set_0";
  std::string tensor_name;
  NDArray x = read_tensor_proto_file((data / "input_0.pb").string(), &tensor_name);
  CHECK(tensor_name == "input");
  CHECK(x.shape() == in);
  NDArray y = read_tensor_proto_file((data / "output_0.pb").string(), &tensor_name);
  CHECK(tensor_name == "output");
  CHECK(y.shape() == out);
  CHECK(y.dtype() == DataType::float32());
}

}  // namespace

TEST_CASE("the example models import", "[onnx-import]") {
  Graph cnn = import_example("cnn");
  check_example_io("cnn", cnn, {1, 3, 32, 32}, {1, 10});
  CHECK(count_ops(cnn, "Conv") == 3);
  CHECK(count_ops(cnn, "BatchNormalization") == 1);
  const Node& depthwise = cnn.nodes[6];
  CHECK(depthwise.op_type == "Conv");
  CHECK(depthwise.attr_int("group", 1) == 16);
  CHECK(cnn.tensor("dwconv.weight").value->shape() == std::vector<int64_t>{16, 1, 3, 3});
  CHECK(cnn.nodes.back().op_type == "Gemm");
  CHECK(cnn.nodes.back().attr_int("transB", 0) == 1);

  Graph mlp = import_example("mlp");
  check_example_io("mlp", mlp, {4, 64}, {4, 10});
  CHECK(count_ops(mlp, "MatMul") == 3);
  CHECK(mlp.nodes.back().op_type == "Softmax");

  Graph block = import_example("transformer_block");
  check_example_io("transformer_block", block, {1, 16, 32}, {1, 16, 32});
  CHECK(block.opset == 17);
  for (const char* op : {"Shape", "Gather", "Unsqueeze", "Concat", "Reshape", "Transpose",
                         "Softmax", "LayerNormalization", "Erf", "ReduceMean", "Pow", "Sqrt"})
    CHECK(count_ops(block, op) > 0);
  CHECK(count_ops(block, "Reshape") == 4);

  // The same weights, once inline and once in model.onnx.data.
  Graph ext = import_example("mlp_external");
  check_example_io("mlp_external", ext, {4, 64}, {4, 10});
  int weights = 0;
  for (const auto& [name, info] : mlp.tensors) {
    if (!info.value) continue;
    INFO(name);
    REQUIRE(ext.tensor(name).value);
    CHECK(ext.tensor(name).value->bitwise_equal(*info.value));
    ++weights;
  }
  CHECK(weights == 6);
}
