// Model modules: AllocateConst, call_kernel, address_of and module constants
// through the text format, the verifier, the side file and the interpreter.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ir/eval/interpreter.h"
#include "ir/structural.h"
#include "ir/text/constants_file.h"
#include "ir/text/parser.h"
#include "ir/text/printer.h"
#include "ir/verify.h"
#include "passes/pipeline.h"

using namespace tirc;
namespace fs = std::filesystem;

namespace {

const fs::path kExample = fs::path(TIRC_SOURCE_DIR) / "examples" / "model" / "tiny_model.tir";

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

IRModule load_example() {
  return parse_module(slurp(kExample), kExample.string());
}

// The example's text with `from` replaced by `to` (parsed against the
// example's constants, as if it were the example file).
IRModule parse_variant(const std::string& from, const std::string& to) {
  std::string text = slurp(kExample);
  size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  text.replace(at, from.size(), to);
  return parse_module(text, kExample.string());
}

std::string parse_error(const std::string& text, const std::string& file) {
  try {
    parse_module(text, file);
  } catch (const Error& e) {
    return e.render();
  }
  return "";
}

std::string all_messages(const std::vector<Diagnostic>& ds) {
  std::string out;
  for (const Diagnostic& d : ds) out += d.message + "\n";
  return out;
}

// dense + bias then relu, by hand.
std::vector<float> expected_output(const std::vector<float>& x) {
  const float w[3][4] = {{1, 2, 0, -1}, {0, 1, -1, 2}, {-2, 0, 1, 1}};
  const float b[3] = {0.5f, -1, -6};
  std::vector<float> y(3);
  for (int j = 0; j < 3; ++j) {
    float acc = b[j];
    for (int k = 0; k < 4; ++k) acc = acc + x[k] * w[j][k];
    y[j] = acc > 0 ? acc : 0;
  }
  return y;
}

std::vector<float> run_entry(const IRModule& m, const std::vector<float>& xs) {
  NDArray x(DataType::float32(), {1, 4}), y(DataType::float32(), {1, 3});
  for (int i = 0; i < 4; ++i) x.set_float(i, xs[i]);
  run_module(m, "run", {Argument{&x}, Argument{&y}});
  std::vector<float> out;
  for (int i = 0; i < 3; ++i) out.push_back(static_cast<float>(y.get_float(i)));
  return out;
}

}  // namespace

TEST_CASE("model example parses with its constants and verifies", "[model-ir]") {
  IRModule m = load_example();
  REQUIRE(m.size() == 3);
  CHECK(is_entry(m.at("run")));
  REQUIRE(m.constants().size() == 2);
  const NDArray* w = m.find_constant("fc.weight");
  REQUIRE(w);
  CHECK(w->dtype() == DataType::float32());
  CHECK(w->shape() == std::vector<int64_t>{3, 4});
  CHECK(w->get_float(1) == 2.0);
  CHECK(m.find_constant("fc.bias")->get_float(2) == -6.0);
  CHECK(all_messages(verify(m)).empty());
  CHECK(needs_module(m.at("run")));
  CHECK_FALSE(needs_module(m.at("dense")));
}

TEST_CASE("model example prints canonically and round-trips", "[model-ir]") {
  IRModule m = load_example();
  std::string printed = print(m);
  CHECK(printed == slurp(kExample));
  IRModule again = parse_module(printed, kExample.string());
  CHECK(structural_equal(m, again));
  // In memory: the constants come from the module instead of the side file.
  ParseOptions opts;
  opts.load_constants = false;
  opts.constants = &m.constants();
  IRModule mem = parse_module(printed, "<memory>", opts);
  CHECK(structural_equal(m, mem));
  CHECK(print(mem) == printed);
  // Different constant bytes make modules differ.
  IRModule changed = m;
  auto bias = std::make_shared<NDArray>(*m.find_constant("fc.bias"));
  bias->set_float(0, 7);
  changed.add_constant("fc.bias", bias);
  CHECK_FALSE(structural_equal(m, changed));
}

TEST_CASE("call_kernel, address_of and allocate_const print as TVMScript", "[model-ir]") {
  IRModule m = load_example();
  std::string text = print(m);
  CHECK(text.find("    I.module_attrs({\"tirc.constants\": \"tiny_model.tir.weights\"})\n") !=
        std::string::npos);
  CHECK(text.find("fc_weight = T.allocate_const(metadata[\"fc.weight\"], \"float32\", [3, 4])") !=
        std::string::npos);
  CHECK(text.find("T.call_kernel(\"dense\", x.data, fc_weight, fc_bias, "
                  "T.address_of(workspace_1[64]))") != std::string::npos);
  // A module with attributes keeps the module form even with one function.
  IRModule one;
  one.add("relu", m.at("relu"));
  one.attrs["note"] = make_string("x");
  CHECK(print(one).find("@I.ir_module") != std::string::npos);
}

TEST_CASE("parse errors for model constructs point at the source", "[model-ir]") {
  const std::string file = kExample.string();
  std::string text = slurp(kExample);
  auto replaced = [&](const std::string& from, const std::string& to) {
    std::string t = text;
    size_t at = t.find(from);
    REQUIRE(at != std::string::npos);
    t.replace(at, from.size(), to);
    return t;
  };
  std::string e = parse_error(replaced("metadata[\"fc.bias\"]", "metadata[\"fc.bias2\"]"), file);
  CHECK(e.find("tiny_model.tir:33:") != std::string::npos);
  CHECK(e.find("unknown constant 'fc.bias2'") != std::string::npos);
  CHECK(e.find("^") != std::string::npos);

  e = parse_error(
      replaced("T.allocate_const(metadata[\"fc.bias\"]", "T.allocate_const(\"fc.bias\""), file);
  CHECK(e.find("expected metadata[\"name\"]") != std::string::npos);
  e = parse_error(replaced("\"float32\", [3])", "\"float32\", [0])"), file);
  CHECK(e.find("must be positive integer constants") != std::string::npos);
  e = parse_error(replaced("T.call_kernel(\"relu\"", "T.call_kernel(relu"), file);
  CHECK(e.find("callee's name as a string") != std::string::npos);
  CHECK(e.find(":37:") != std::string::npos);
  e = parse_error(replaced("T.address_of(workspace_1[64]))\n", "T.address_of(workspace))\n"), file);
  CHECK(e.find("T.address_of takes one buffer element") != std::string::npos);
  e = parse_error(replaced("tiny_model.tir.weights", "missing.weights"), file);
  CHECK(e.find("tiny_model.tir:6:") != std::string::npos);
  CHECK(e.find("cannot load the module's constants") != std::string::npos);
  CHECK(e.find("missing.weights") != std::string::npos);
}

TEST_CASE("verifier checks kernel calls and constants against the module", "[model-ir]") {
  std::string msgs = all_messages(
      verify(parse_variant("T.call_kernel(\"relu\", T.address_of(workspace_1[64]), y.data)",
                           "T.call_kernel(\"relu\", T.address_of(workspace_1[64]))")));
  CHECK(msgs.find("run: call_kernel \"relu\": passes 1 argument(s) but 'relu' has 2") !=
        std::string::npos);

  msgs = all_messages(verify(parse_variant("T.call_kernel(\"relu\"", "T.call_kernel(\"gelu\"")));
  CHECK(msgs.find("no function named 'gelu'") != std::string::npos);

  msgs = all_messages(verify(parse_variant("T.call_kernel(\"relu\", T.address_of(workspace_1[64])",
                                           "T.call_kernel(\"relu\", T.float32(1)")));
  CHECK(msgs.find("argument 1 (parameter A) must be a handle") != std::string::npos);

  msgs = all_messages(verify(parse_variant("metadata[\"fc.bias\"], \"float32\", [3]",
                                           "metadata[\"fc.bias\"], \"float32\", [4]")));
  CHECK(msgs.find("constant 'fc.bias' has 3 elements (shape [3]), not 4") != std::string::npos);
  msgs = all_messages(verify(
      parse_variant("metadata[\"fc.bias\"], \"float32\"", "metadata[\"fc.bias\"], \"int32\"")));
  CHECK(msgs.find("constant 'fc.bias' has dtype float32, not int32") != std::string::npos);

  // Store into a constant.
  IRModule m = parse_variant(
      "        workspace = T.allocate",
      "        fc_bias_1 = T.Buffer((3,), data=fc_bias)\n        fc_bias_1[0] = T.float32(1)\n"
      "        workspace = T.allocate");
  msgs = all_messages(verify(m));
  CHECK(msgs.find("writes constant 'fc.bias'") != std::string::npos);
  NDArray x(DataType::float32(), {1, 4}), y(DataType::float32(), {1, 3});
  CHECK_THROWS_WITH(run_module(m, "run", {Argument{&x}, Argument{&y}}),
                    Catch::Contains("read-only storage of a module constant"));
  // A kernel writing into a constant fails inside the call, which is named.
  IRModule into = parse_variant("T.call_kernel(\"relu\", T.address_of(workspace_1[64]), y.data)",
                                "T.call_kernel(\"relu\", T.address_of(workspace_1[64]), fc_bias)");
  CHECK_THROWS_WITH(run_module(into, "run", {Argument{&x}, Argument{&y}}),
                    Catch::StartsWith("call_kernel \"relu\" at ") &&
                        Catch::Contains("store to Out[0, 0] writes read-only storage"));

  // A constant that is not in the module (built in memory, not parsed).
  IRModule missing = load_example();
  IRModule bare;
  for (const auto& [name, f] : missing.functions()) bare.add(name, f);
  msgs = all_messages(verify(bare));
  CHECK(msgs.find("run: allocate_const fc_weight: no constant named 'fc.weight'") !=
        std::string::npos);
}

TEST_CASE("run_module runs the entry like a hand computation", "[model-ir]") {
  IRModule m = load_example();
  for (const std::vector<float>& x :
       {std::vector<float>{1, 2, 3, 4}, std::vector<float>{-1, 0.5f, 2, -3}}) {
    std::vector<float> want = expected_output(x);
    std::vector<float> got = run_entry(m, x);
    for (int i = 0; i < 3; ++i) CHECK(got[i] == want[i]);
  }
  // Plain run refuses functions that need their module.
  NDArray x(DataType::float32(), {1, 4}), y(DataType::float32(), {1, 3});
  CHECK_THROWS_WITH(run(m.at("run"), {Argument{&x}, Argument{&y}}),
                    Catch::Contains("needs its module: use run_module"));
  // The kernels still run on their own.
  NDArray a(DataType::float32(), {1, 3}), out(DataType::float32(), {1, 3});
  a.set_float(0, -2);
  a.set_float(1, 3);
  run(m.at("relu"), {Argument{&a}, Argument{&out}});
  CHECK(out.get_float(0) == 0);
  CHECK(out.get_float(1) == 3);
  // random_inputs works on the entry's ordinary buffer parameters.
  std::vector<NDArray> inputs = random_inputs(m.at("run"), 3);
  REQUIRE(inputs.size() == 2);
  CHECK(inputs[0].shape() == std::vector<int64_t>{1, 4});
}

TEST_CASE("call_kernel checks that a callee's buffer fits the storage", "[model-ir]") {
  IRModule m =
      parse_variant("T.address_of(workspace_1[64]))\n", "T.address_of(workspace_1[120]))\n");
  NDArray x(DataType::float32(), {1, 4}), y(DataType::float32(), {1, 3});
  CHECK_THROWS_WITH(run_module(m, "run", {Argument{&x}, Argument{&y}}),
                    Catch::Contains("call_kernel \"dense\"") &&
                        Catch::Contains("needs 12 bytes but the handle points at 8"));
}

TEST_CASE("check_equivalent compares entries of modules", "[model-ir]") {
  IRModule a = load_example();
  IRModule b = parse_variant("T.address_of(workspace_1[64])", "T.address_of(workspace_1[0])");
  // Only the first address_of moved: relu now reads stale bytes.
  EquivResult r = check_equivalent(a, "run", b, "run", 2);
  CHECK_FALSE(r.equal);
  IRModule c = parse_variant(
      "T.address_of(workspace_1[64]))\n        T.call_kernel(\"relu\", "
      "T.address_of(workspace_1[64])",
      "T.address_of(workspace_1[16]))\n        T.call_kernel(\"relu\", "
      "T.address_of(workspace_1[16])");
  CHECK(check_equivalent(a, "run", c, "run", 2).equal);
}

TEST_CASE("constants side file round-trips and rejects corruption", "[model-ir]") {
  IRModule m = load_example();
  // The checked-in side file is what the writer produces.
  CHECK(constants_file_bytes(m) == slurp(kExample.string() + ".weights"));
  fs::path dir = fs::temp_directory_path() / ("tirc_model_ir_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::string path = (dir / "c.weights").string();
  IRModule extra = m;
  auto ints = std::make_shared<NDArray>(DataType::int64(), std::vector<int64_t>{2, 2});
  ints->set_int(3, -5);
  extra.add_constant("shape/ids", ints);
  extra.add_constant("empty",
                     std::make_shared<NDArray>(DataType::uint8(), std::vector<int64_t>{0}));
  write_constants_file(path, extra);
  auto back = read_constants_file(path);
  REQUIRE(back.size() == 4);
  for (const auto& [name, value] : back) {
    const NDArray* orig = extra.find_constant(name);
    REQUIRE(orig);
    CHECK(orig->bitwise_equal(*value));
  }

  std::string bytes = constants_file_bytes(extra);
  auto write = [&](const std::string& b) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(b.data(), static_cast<std::streamsize>(b.size()));
  };
  write(bytes.substr(0, bytes.size() - 3));
  CHECK_THROWS_WITH(read_constants_file(path),
                    Catch::Contains(path) && Catch::Contains("truncated"));
  write("XIRCCNST" + bytes.substr(8));
  CHECK_THROWS_WITH(read_constants_file(path), Catch::Contains("bad magic"));
  std::string bad_version = bytes;
  bad_version[8] = 9;
  write(bad_version);
  CHECK_THROWS_WITH(read_constants_file(path), Catch::Contains("version 9"));
  write(bytes + "x");
  CHECK_THROWS_WITH(read_constants_file(path), Catch::Contains("bytes after the last constant"));
  std::string huge_count = bytes;
  huge_count[19] = 0x7f;
  write(huge_count);
  CHECK_THROWS_WITH(read_constants_file(path), Catch::Contains(path));
  // A corrupt .npy inside.
  std::string bad_npy = bytes;
  size_t npy = bad_npy.find("\x93NUMPY");
  REQUIRE(npy != std::string::npos);
  bad_npy[npy + 1] = 'X';
  write(bad_npy);
  CHECK_THROWS_WITH(read_constants_file(path), Catch::Contains("not a .npy file"));
  CHECK_THROWS_WITH(read_constants_file((dir / "absent").string()), Catch::Contains("cannot open"));
  fs::remove_all(dir);
}

TEST_CASE("lowering a model module keeps its meaning, constants and attributes", "[model-ir]") {
  IRModule m = load_example();
  std::vector<std::string> passes_seen;
  IRModule low = lower(m, [&](std::string_view pass, const PrimFunc& f) {
    passes_seen.emplace_back(pass);
    CHECK(f);
  });
  CHECK(!passes_seen.empty());
  CHECK(low.attrs.size() == 1);
  CHECK(low.constants().size() == 2);
  for (const auto& [name, f] : low.functions()) {
    INFO(name);
    CHECK_NOTHROW(check_lowered_form(f));
  }
  CHECK(all_messages(verify_module_links(low)).empty());
  // The entry keeps its calls, constants and addresses.
  std::string text = print(low);
  CHECK(text.find("T.allocate_const(metadata[\"fc.weight\"], \"float32\", [12])") !=
        std::string::npos);
  CHECK(text.find("T.call_kernel(\"relu\", T.address_of(") != std::string::npos);
  ParseOptions opts;
  opts.constants = &low.constants();
  opts.load_constants = false;
  IRModule back = parse_module(text, "<lowered>", opts);
  CHECK(structural_equal(low, back));
  CHECK(print(back) == text);
  // Bit-identical results.
  for (uint64_t seed : {1u, 2u, 3u}) {
    std::vector<NDArray> in = random_inputs(m.at("run"), seed, false);
    std::vector<NDArray> in2 = in;
    run_module(m, "run", {Argument{&in[0]}, Argument{&in[1]}});
    run_module(low, "run", {Argument{&in2[0]}, Argument{&in2[1]}});
    CHECK(in[1].bitwise_equal(in2[1]));
  }
  CHECK(check_equivalent(m, "run", low, "run", 3, 0, false).equal);
}

TEST_CASE("plan-storage never shares constant storage or storage passed to kernels while live",
          "[model-ir]") {
  // Two workspaces used by overlapping calls must stay apart; a third used only
  // after both may reuse one.
  std::string text = slurp(kExample);
  std::string from =
      "        workspace = T.allocate([128], \"uint8\", \"global\")\n"
      "        workspace_1 = T.Buffer((128,), \"uint8\", data=workspace)\n"
      "        T.call_kernel(\"dense\", x.data, fc_weight, fc_bias, "
      "T.address_of(workspace_1[64]))\n"
      "        T.call_kernel(\"relu\", T.address_of(workspace_1[64]), y.data)\n";
  std::string to =
      "        a = T.allocate([3], \"float32\", \"global\")\n"
      "        b = T.allocate([3], \"float32\", \"global\")\n"
      "        c = T.allocate([3], \"float32\", \"global\")\n"
      "        T.call_kernel(\"dense\", x.data, fc_weight, fc_bias, a)\n"
      "        T.call_kernel(\"relu\", a, b)\n"
      "        T.call_kernel(\"relu\", b, c)\n"
      "        T.call_kernel(\"relu\", c, y.data)\n";
  size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  text.replace(at, from.size(), to);
  IRModule m = parse_module(text, kExample.string());
  REQUIRE(all_messages(verify(m)).empty());
  IRModule low = lower(m);
  std::string printed = print(low);
  // a and c may share (a is dead once b is written); b overlaps both.
  CHECK(printed.find("b = T.allocate") != std::string::npos);
  CHECK(printed.find("c = T.allocate") == std::string::npos);
  CHECK(printed.find("T.call_kernel(\"relu\", b, a)") != std::string::npos);
  CHECK(printed.find("fc_weight = T.allocate_const") != std::string::npos);
  CHECK(check_equivalent(m, "run", low, "run", 3, 0, false).equal);
}

TEST_CASE("constant names are part of structural identity; malformed calls are reported",
          "[model-ir]") {
  Var w = make_var("w", DataType::handle());
  auto alloc = [&](const std::string& constant, Stmt body) {
    return Stmt(std::make_shared<AllocateConstNode>(
        w, DataType::float32(), std::vector<Expr>{make_int(3)}, constant, std::move(body)));
  };
  Buffer out = make_buffer("out", DataType::float32(), {make_int(3)});
  Stmt call = make_evaluate(make_call_kernel("relu", {Expr(w), Expr(out->data)}));
  CHECK(structural_equal(alloc("a", call), alloc("a", call)));
  CHECK(structural_hash(alloc("a", call)) == structural_hash(alloc("a", call)));
  CHECK_FALSE(structural_equal(alloc("a", call), alloc("b", call)));
  CHECK(structural_hash(alloc("a", call)) != structural_hash(alloc("b", call)));

  // address_of of a non-element, and a scalar of the wrong type.
  Stmt bad_addr = make_evaluate(
      make_call_kernel("relu", {make_call(DataType::handle(), kAddressOf, {}), Expr(out->data)}));
  IRModule m = load_example();
  m.add("bad", make_prim_func({Param{out->data, out}}, alloc("fc.bias", bad_addr)));
  std::string msgs = all_messages(verify(m));
  CHECK(msgs.find("bad: T.address_of takes one buffer element (buf[i]), got 0 argument(s)") !=
        std::string::npos);
  Var n = make_var("n", DataType::int32());
  Buffer a = make_buffer("a", DataType::float32(), {make_int(3)});
  m.add("scaled",
        make_prim_func({Param{a->data, a}, Param{n, nullptr}}, make_evaluate(make_int(0))));
  m.add("caller", make_prim_func({Param{out->data, out}},
                                 make_evaluate(make_call_kernel(
                                     "scaled", {Expr(out->data), make_float(1.0)}))));
  msgs = all_messages(verify(m));
  CHECK(msgs.find("caller: call_kernel \"scaled\": argument 2 (parameter n) has type float32 but "
                  "the parameter is int32") != std::string::npos);
  m.add("self", make_prim_func({}, make_evaluate(make_call_kernel("self", {}))));
  CHECK(all_messages(verify(m)).find("a function cannot call itself") != std::string::npos);
}
