// Conformance: ONNX's backend test data (node, pytorch-converted,
// pytorch-operator), and tirc's own node-style cases for opsets 18 to 21
// (node_18_21, written by test/onnx/make_node_cases.py), through the whole
// frontend: each model runs in the interpreter and compiled (lower + x86 code
// generator + JIT), and both must match the expected outputs (floats within a
// tolerance, integers and bools exactly). Every model is imported; one using an
// operator outside supported_ops() is "not attempted"; a model with a
// floating-point input or output of a type other than float32 (float16,
// float64) is excluded as "not float32". Everything else must pass unless the
// exclusion table below says why not.
//
// Binding: tirc compiles static programs, so every graph input whose dtype is
// not float32 (shape operands of Reshape/Expand/Tile, Gather indices, Where
// conditions, Slice starts, ...) and every float32 input an operator needs at
// compile time (Resize's scales, Range's bounds) is bound to its test value as
// a constant (ModelOptions::bind_inputs, onnx_node_binding.h); the other
// float32 inputs are run-time inputs.
//
// A node_18_21 case with an error.txt instead of data is a model tirc must
// refuse: it passes when the import or the module build fails with a message
// containing that text.
//
// TIRC_ONNX_REPORT=1 prints, per operator (node_18_21: per operator version,
// "Pad-19"), passed / attempted / excluded / not attempted, the same per
// opset, and every excluded or failing test with its reason.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <set>

#include "codegen/x86/jit.h"
#include "codegen/x86/module_codegen.h"
#include "codegen_test_util.h"
#include "env_int.h"
#include "ir/eval/interpreter.h"
#include "ir/onnx/import.h"
#include "ir/onnx/model_pipeline.h"
#include "ir/onnx/op.h"
#include "ir/onnx/op_versions.h"
#include "onnx_node_binding.h"
#include "passes/pipeline.h"
#include "tuner/auto_schedule.h"

using namespace tirc;
namespace fs = std::filesystem;

namespace {

// ONNX 1.12's test data (Debian's libonnx-testdata) and tirc's own cases.
const char* kDataRoot = "/usr/include/onnx/backend/test/data";
const char* kNewOpsetSuite = "node_18_21";

fs::path suite_root(const std::string& suite) {
  if (suite == kNewOpsetSuite) return TIRC_ONNX_NODE_18_21;
  return fs::path(kDataRoot) / suite;
}

// Tests that are attempted by the rules above but do not pass, and why.
const std::map<std::string, std::string>& exclusions() {
  static const std::map<std::string, std::string> table = {
      // Training-mode Dropout draws a random mask; tirc compiles inference only
      // (the ratio is a run-time float input, so even ratio 0 is not known).
      {"node/test_training_dropout", "training-mode Dropout (random mask)"},
      {"node/test_training_dropout_default", "training-mode Dropout (random mask)"},
      {"node/test_training_dropout_zero_ratio",
       "training-mode Dropout (ratio is a run-time input)"},
      {"node/test_batchnorm_epsilon_training_mode",
       "BatchNormalization training_mode=1 (batch statistics, running-mean outputs): inference "
       "only"},
      {"node/test_batchnorm_example_training_mode",
       "BatchNormalization training_mode=1 (batch statistics, running-mean outputs): inference "
       "only"},
      // Mod is beyond the operator list; the interpreter passes it, the
      // x86 generator has no float remainder yet.
      // Outputs of other types than float32 are checked too (integers and
      // bools exactly); these are refused with the node named.
      {"node/test_maxpool_with_argmax_2d_precomputed_pads",
       "MaxPool's Indices output: refused (not supported)"},
      {"node/test_maxpool_with_argmax_2d_precomputed_strides",
       "MaxPool's Indices output: refused (not supported)"},
      {"node/test_pow_types_float", "Pow of integer tensors: refused (floating-point only)"},
      {"node/test_pow_types_int32_float32",
       "Pow of integer tensors: refused (floating-point only)"},
      {"node/test_pow_types_int32_int32", "Pow of integer tensors: refused (floating-point only)"},
      {"node/test_pow_types_int64_float32",
       "Pow of integer tensors: refused (floating-point only)"},
      {"node/test_pow_types_int64_int64", "Pow of integer tensors: refused (floating-point only)"},
      {"node/test_training_dropout_default_mask", "training-mode Dropout (random mask)"},
      {"node/test_training_dropout_mask", "training-mode Dropout (random mask)"},
      {"node/test_training_dropout_zero_ratio_mask",
       "training-mode Dropout (ratio is a run-time input)"},
      {"node/test_mod_mixed_sign_float32", "Mod fmod=1 on float32: the x86 generator has no fmod"},
      // Resize is nearest and linear only; the refusals name the mode.
      {"node/test_resize_downsample_scales_cubic", "Resize mode cubic"},
      {"node/test_resize_downsample_scales_cubic_A_n0p5_exclude_outside", "Resize mode cubic"},
      {"node/test_resize_downsample_scales_cubic_align_corners", "Resize mode cubic"},
      {"node/test_resize_downsample_sizes_cubic", "Resize mode cubic"},
      {"node/test_resize_upsample_scales_cubic", "Resize mode cubic"},
      {"node/test_resize_upsample_scales_cubic_A_n0p5_exclude_outside", "Resize mode cubic"},
      {"node/test_resize_upsample_scales_cubic_align_corners", "Resize mode cubic"},
      {"node/test_resize_upsample_scales_cubic_asymmetric", "Resize mode cubic"},
      {"node/test_resize_upsample_sizes_cubic", "Resize mode cubic"},
      {"node/test_resize_tf_crop_and_resize",
       "Resize coordinate_transformation_mode tf_crop_and_resize"},
  };
  return table;
}

// How many tests of each suite must pass. A test that stops being attempted
// (its operator dropped from supported_ops(), an importer refusal) is no
// failure, so these floors are what catches coverage lost that way. They only
// go up: raise one when more tests pass; never lower one to let a change in.
const std::map<std::string, int> kPassingFloors = {
    {"node", 567},
    {"pytorch-converted", 59},
    {"pytorch-operator", 24},
    {"node_18_21", 101},
};

// Operators the frontend itself handles (fold bypasses them).
bool frontend_op(const onnx::Node& n) {
  return (n.domain.empty() || n.domain == "ai.onnx") &&
         (n.op_type == "Identity" || n.op_type == "Dropout");
}

enum class Kind { Passed, Failed, Excluded, NotAttempted };

struct Outcome {
  Kind kind = Kind::Passed;
  std::string reason;
  std::set<std::string> ops;
  int64_t opset = 0;  // 0 when the import refused the model
};

bool close(double got, double want) {
  if (std::isnan(want) || std::isnan(got)) return std::isnan(want) && std::isnan(got);
  if (std::isinf(want) || std::isinf(got)) return got == want;
  return std::abs(got - want) <= 1e-5 + 1e-3 * std::abs(want);
}

std::string shape_str(const std::vector<int64_t>& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

// "" when equal, else the first difference.
std::string compare(const NDArray& got, const NDArray& want, const std::string& name) {
  if (got.shape() != want.shape())
    return "output '" + name + "': shape " + shape_str(got.shape()) + ", expected " +
           shape_str(want.shape());
  if (!want.dtype().is_float()) {  // integers and bools: exactly
    for (int64_t i = 0; i < want.num_elements(); ++i)
      if (got.get_int(i) != want.get_int(i))
        return "output '" + name + "' element " + std::to_string(i) + ": " +
               std::to_string(got.get_int(i)) + ", expected " + std::to_string(want.get_int(i));
    return "";
  }
  for (int64_t i = 0; i < want.num_elements(); ++i)
    if (!close(got.get_float(i), want.get_float(i)))
      return "output '" + name + "' element " + std::to_string(i) + ": " +
             std::to_string(got.get_float(i)) + ", expected " + std::to_string(want.get_float(i));
  return "";
}

std::vector<fs::path> sorted_dirs(const fs::path& root, const std::string& prefix) {
  std::vector<fs::path> dirs;
  if (!fs::is_directory(root)) return dirs;
  for (const auto& e : fs::directory_iterator(root))
    if (e.is_directory() && e.path().filename().string().rfind(prefix, 0) == 0)
      dirs.push_back(e.path());
  std::sort(dirs.begin(), dirs.end());
  return dirs;
}

// Runs every data set of one model; "" when all outputs match.
std::string run_data_sets(const fs::path& dir, const onnx::Graph& graph) {
  std::vector<fs::path> sets = sorted_dirs(dir, "test_data_set_");
  if (sets.empty()) return "no test data";
  for (const fs::path& set : sets) {
    ModelOptions options;
    std::vector<NDArray> inputs;
    for (size_t k = 0; k < graph.inputs.size(); ++k) {
      fs::path file = set / ("input_" + std::to_string(k) + ".pb");
      if (!fs::exists(file)) return "missing " + file.string();
      NDArray value = onnx::read_tensor_proto_file(file.string());
      if (tirc::test::bound_in_node_tests(graph, graph.inputs[k], value.dtype()))
        options.bind_inputs[graph.inputs[k]] = std::move(value);
      else
        inputs.push_back(std::move(value));
    }
    IRModule m = graph_to_module(graph, options);
    const PrimFunc& entry = m.at("run");
    std::vector<NDArray> arrays = std::move(inputs);
    size_t num_inputs = arrays.size();
    if (entry->params.size() != num_inputs + graph.outputs.size())
      return "entry has unexpected parameters";
    for (NDArray& out : entry_output_arrays(entry, num_inputs, "run"))
      arrays.push_back(std::move(out));
    // The interpreter; the plain module compiled for this CPU; and the module
    // with the default schedules, interpreted in race-checking mode and
    // compiled for every x86 target this CPU runs.
    std::vector<NDArray> reference = arrays;
    std::vector<Argument> args;
    for (NDArray& a : reference) args.push_back(Argument{&a, 0, 0});
    run_module(m, "run", args);
    struct Variant {
      std::string what;
      std::vector<NDArray> outputs;
    };
    std::vector<Variant> variants;
    auto compiled = [&](const IRModule& module, const Target& target, const std::string& what) {
      std::vector<NDArray> out = arrays;
      std::vector<Argument> out_args;
      for (NDArray& a : out) out_args.push_back(Argument{&a, 0, 0});
      GeneratorOptions gen;
      gen.target = target;
      JitModule jit(generate_x86_module(lower(module), "node", gen));
      if (int rc = call_jit(jit, "node_run", entry, out_args); rc != 0)
        throw Error(what + ": compiled entry returned " + std::to_string(rc));
      variants.push_back({what, std::move(out)});
    };
    try {
      compiled(m, host_target(), "compiled");
      for (const Target& t : available_targets()) {
        RuleContext cx;
        cx.cpu = host_cpu_model(t);
        const IRModule scheduled = auto_schedule(m, cx).schedule.mod();
        if (t == host_target()) {
          std::vector<NDArray> checked = arrays;
          std::vector<Argument> checked_args;
          for (NDArray& a : checked) checked_args.push_back(Argument{&a, 0, 0});
          run_module(scheduled, "run", checked_args, RunOptions::checked());
          variants.push_back({"scheduled, interpreted", std::move(checked)});
        }
        compiled(scheduled, t, "scheduled, " + t.name());
      }
    } catch (const Error& e) {
      return set.filename().string() + ": " + e.what();
    }
    for (size_t k = 0; k < graph.outputs.size(); ++k) {
      NDArray want =
          onnx::read_tensor_proto_file((set / ("output_" + std::to_string(k) + ".pb")).string());
      std::string diff = compare(reference[num_inputs + k], want, graph.outputs[k]);
      if (!diff.empty()) return set.filename().string() + ": " + diff;
      for (const Variant& v : variants) {
        diff = compare(v.outputs[num_inputs + k], want, graph.outputs[k]);
        if (!diff.empty()) return set.filename().string() + " (" + v.what + "): " + diff;
      }
    }
  }
  return "";
}

std::string read_expected_error(const fs::path& file) {
  std::ifstream in(file);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return text;
}

// A model tirc must refuse with a message containing `expected`.
Outcome run_refusal(const fs::path& dir, const std::string& expected) {
  Outcome out;
  out.ops.insert("(refusal)");
  std::string message;
  try {
    onnx::Graph graph = onnx::import_model_file((dir / "model.onnx").string());
    out.opset = graph.opset;
    graph_to_module(std::move(graph));
  } catch (const Error& e) {
    message = e.message();
  }
  if (message.empty())
    return {Kind::Failed, "not refused (expected: " + expected + ")", out.ops, out.opset};
  if (message.find(expected) == std::string::npos)
    return {Kind::Failed, "refused with \"" + message + "\", expected \"" + expected + "\"",
            out.ops, out.opset};
  return out;
}

Outcome run_test(const std::string& suite, const fs::path& dir,
                 const std::set<std::string>& supported) {
  if (fs::exists(dir / "error.txt"))
    return run_refusal(dir, read_expected_error(dir / "error.txt"));
  Outcome out;
  std::string key = suite + "/" + dir.filename().string();
  auto excluded = exclusions().find(key);
  onnx::Graph graph;
  try {
    graph = onnx::import_model_file((dir / "model.onnx").string());
  } catch (const std::exception& e) {
    // Models the importer refuses (opset < 7, training or ML domains, string,
    // sequence or optional types, control-flow subgraphs) are not attempted;
    // the import tests check each is refused for a listed reason.
    out.ops.insert("(import refused)");
    return {Kind::NotAttempted, std::string("import refused: ") + e.what(), out.ops};
  }
  out.opset = graph.opset;
  const bool versioned = suite == kNewOpsetSuite;
  std::vector<std::string> missing;
  for (const onnx::Node& n : graph.nodes) {
    bool onnx_domain = n.domain.empty() || n.domain == "ai.onnx";
    std::string op = onnx_domain ? n.op_type : n.domain + "." + n.op_type;
    out.ops.insert(versioned && onnx_domain
                       ? op + "-" + std::to_string(onnx::op_version(n.op_type, graph.opset))
                       : op);
    if (!frontend_op(n) && !(onnx_domain && supported.count(n.op_type)) &&
        !onnx::find_op(n.domain, n.op_type))
      missing.push_back(op);
  }
  if (!missing.empty()) {
    std::string reason = "unsupported:";
    for (const std::string& m : missing) reason += " " + m;
    return {Kind::NotAttempted, reason, out.ops, out.opset};
  }
  for (const std::string& o : graph.outputs)
    if (const DataType t = graph.tensor(o).dtype; t.is_float() && t != DataType::float32())
      return {Kind::Excluded,
              "not float32 (output '" + o + "' is " + graph.tensor(o).dtype.str() + ")", out.ops,
              out.opset};
  for (const std::string& i : graph.inputs) {
    DataType t = graph.tensor(i).dtype;
    if (t.is_float() && t != DataType::float32())
      return {Kind::Excluded, "not float32 (input '" + i + "' is " + t.str() + ")", out.ops,
              out.opset};
  }
  if (excluded != exclusions().end()) return {Kind::Excluded, excluded->second, out.ops, out.opset};
  try {
    std::string diff = run_data_sets(dir, graph);
    if (!diff.empty()) return {Kind::Failed, diff, out.ops, out.opset};
  } catch (const std::exception& e) {
    return {Kind::Failed, e.what(), out.ops, out.opset};
  }
  return {Kind::Passed, "", out.ops, out.opset};
}

void run_suite(const std::string& suite) {
  fs::path root = suite_root(suite);
  const std::vector<fs::path> all_tests = sorted_dirs(root, "test_");
  REQUIRE(!all_tests.empty());
  // Under the sanitizers CI takes every TIRC_ONNX_SUITE_STRIDE-th test; the
  // release run takes them all and holds them to the passing floor.
  const std::vector<fs::path> tests = test::every_nth(all_tests, "TIRC_ONNX_SUITE_STRIDE");
  const bool sampled = tests.size() < all_tests.size();
  std::vector<std::string> names = onnx::supported_ops();
  std::set<std::string> supported(names.begin(), names.end());
  bool report =
      std::getenv("TIRC_ONNX_REPORT") && std::string(std::getenv("TIRC_ONNX_REPORT")) == "1";

  struct Tally {
    int passed = 0, attempted = 0, excluded = 0, not_attempted = 0;
  };
  std::map<std::string, Tally> per_op;
  std::map<int64_t, Tally> per_opset;  // 0: the import refused the model
  Tally total;
  std::vector<std::string> failures, notes, not_attempted;
  for (const fs::path& dir : tests) {
    Outcome o = run_test(suite, dir, supported);
    std::string name = dir.filename().string();
    auto count = [&o](Tally& t) {
      if (o.kind == Kind::Passed || o.kind == Kind::Failed) ++t.attempted;
      if (o.kind == Kind::Passed) ++t.passed;
      if (o.kind == Kind::Excluded) ++t.excluded;
      if (o.kind == Kind::NotAttempted) ++t.not_attempted;
    };
    for (const std::string& op : o.ops) count(per_op[op]);
    count(per_opset[o.opset]);
    count(total);
    if (o.kind == Kind::Failed) failures.push_back(name + ": " + o.reason);
    if (o.kind == Kind::Excluded) notes.push_back(name + ": excluded: " + o.reason);
    if (o.kind == Kind::NotAttempted && o.reason.rfind("import", 0) == 0)
      not_attempted.push_back(name + ": not attempted: " + o.reason);
  }

  if (report) {
    std::cout << "\n== ONNX " << suite << " tests: " << total.passed << " passed / "
              << total.attempted << " attempted, " << total.excluded << " excluded, "
              << total.not_attempted << " not attempted (of " << tests.size() << ")\n";
    std::printf("%-28s %7s %9s %8s %13s\n", "operator", "passed", "attempted", "excluded",
                "not attempted");
    for (const auto& [op, t] : per_op)
      std::printf("%-28s %7d %9d %8d %13d\n", op.c_str(), t.passed, t.attempted, t.excluded,
                  t.not_attempted);
    std::printf("%-28s %7s %9s %8s %13s\n", "opset", "passed", "attempted", "excluded",
                "not attempted");
    for (const auto& [opset, t] : per_opset) {
      std::string name = opset ? std::to_string(opset) : "(import refused)";
      std::printf("%-28s %7d %9d %8d %13d\n", name.c_str(), t.passed, t.attempted, t.excluded,
                  t.not_attempted);
    }
    for (const std::string& n : notes) std::cout << "  " << n << "\n";
    for (const std::string& n : not_attempted) std::cout << "  " << n << "\n";
    for (const std::string& f : failures) std::cout << "  FAILED " << f << "\n";
    std::cout.flush();
  }
  std::string all;
  for (const std::string& f : failures) all += "\n  " + f;
  INFO(failures.size() << " of " << total.attempted << " attempted " << suite
                       << " tests failed:" << all);
  CHECK(failures.empty());
  if (sampled) return;
  auto floor = kPassingFloors.find(suite);
  REQUIRE(floor != kPassingFloors.end());
  INFO(suite << ": " << total.passed << " tests passed; at least " << floor->second
             << " must (kPassingFloors)");
  CHECK(total.passed >= floor->second);
}

}  // namespace

TEST_CASE("ONNX backend node tests through the frontend", "[onnx-node]") {
  run_suite("node");
}

TEST_CASE("ONNX pytorch-converted tests through the frontend", "[onnx-node]") {
  run_suite("pytorch-converted");
}

TEST_CASE("ONNX pytorch-operator tests through the frontend", "[onnx-node]") {
  run_suite("pytorch-operator");
}

TEST_CASE("tirc's opset 18 to 21 node cases through the frontend", "[onnx-node]") {
  run_suite(kNewOpsetSuite);
}
