// A model module through the back ends: kernels called from an entry
// function (T.call_kernel), weights bound by AllocateConst (read-only data),
// a heap-allocated uint8 workspace viewed as float32 through T.address_of; the
// JIT, the ELF object linked into a C program, the C emitter, the header; and
// general float32 pow.
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>

#include "c_compile_util.h"
#include "codegen/c/c_emitter.h"
#include "codegen/object/c_header.h"
#include "codegen/object/elf_writer.h"
#include "codegen/x86/generator.h"
#include "codegen/x86/jit.h"
#include "codegen/x86/math.h"
#include "codegen_test_util.h"
#include "ir/eval/interpreter.h"
#include "ir/text/parser.h"
#include "object_test_util.h"
#include "passes/pipeline.h"

namespace tirc {
namespace {

namespace fs = std::filesystem;

const char* kDense = R"(@T.prim_func
def dense_relu(X: T.Buffer((4, 8), "float32"), W: T.Buffer((8, 6), "float32"), B: T.Buffer((6,), "float32"), Y: T.Buffer((4, 6), "float32")):
    for i, j in T.grid(4, 6):
        Y[i, j] = B[j]
        for k in range(8):
            Y[i, j] = Y[i, j] + X[i, k] * W[k, j]
        Y[i, j] = T.max(Y[i, j], T.float32(0))
)";

// 11 parameters: 7 pointers (rdi..r9 and one on the stack), two floats in
// xmm0/xmm1, an int32 in a register and an int64 on the stack.
const char* kAffine = R"(@T.prim_func
def affine(X: T.Buffer((24,), "float32"), Y: T.Buffer((24,), "float32"), alpha: T.float32, beta: T.float32, n: T.int32, Z1: T.Buffer((24,), "float32"), Z2: T.Buffer((24,), "float32"), Z3: T.Buffer((24,), "float32"), Z4: T.Buffer((24,), "float32"), Z5: T.Buffer((24,), "float32"), k: T.int64):
    for i in range(24):
        Z1[i] = X[i] * alpha + Y[i] * beta
        Z2[i] = X[i] + T.Cast("float32", n)
        Z3[i] = Y[i] - T.Cast("float32", k)
        Z4[i] = X[i] * Y[i]
        Z5[i] = alpha - X[i]
)";

// Fails (returns nonzero) when d is 0: integer division by zero.
const char* kDivide = R"(@T.prim_func
def divide(A: T.Buffer((4,), "int32"), d: T.int32):
    for i in range(4):
        A[i] = A[i] // d
)";

PrimFunc parse_one(const char* text) {
  IRModule m = parse_module(text, "test");
  return m.functions().front().second;
}

std::shared_ptr<NDArray> constant(std::vector<int64_t> shape, uint64_t seed) {
  auto a = std::make_shared<NDArray>(DataType::float32(), shape);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  for (int64_t i = 0; i < a->num_elements(); ++i) a->set_float(i, dist(rng));
  return a;
}

Expr addr(const Buffer& b, int64_t i) {
  return make_call(DataType::handle(), kAddressOf, {make_load(b, {make_int(i)})});
}

Stmt allocate_const(const Var& v, const std::string& name, std::vector<Expr> extents, Stmt body) {
  return Stmt(std::make_shared<AllocateConstNode>(v, DataType::float32(), std::move(extents), name,
                                                  std::move(body)));
}

Stmt allocate(const Var& v, DataType t, int64_t n, Stmt body) {
  return Stmt(std::make_shared<AllocateNode>(v, t, std::vector<Expr>{make_int(n)}, "global", body));
}

constexpr int64_t kWorkspaceBytes = 5 << 20;  // above the stack limit: heap
constexpr int64_t kT1 = 64, kZ1 = 4096, kZ3 = 8192, kZ4 = kWorkspaceBytes - 2048;

// The model: run(input (4, 8), output (24,), out2 (24,)):
//   t1 = dense_relu(input, w, b)        (t1 in the workspace at byte kT1)
//   affine(t1, s, 2.5, -1.5, 3, z1, output, z3, z4, out2, 7)
// with z1, z3, z4 in the workspace.
struct Model {
  IRModule module;
  PrimFunc dense, affine, divide, entry;
};

Model make_model() {
  Model m;
  m.dense = parse_one(kDense);
  m.affine = parse_one(kAffine);
  m.divide = parse_one(kDivide);
  Buffer input = make_buffer("input", DataType::float32(), {make_int(4), make_int(8)});
  Buffer output = make_buffer("output", DataType::float32(), {make_int(24)});
  Buffer out2 = make_buffer("out2", DataType::float32(), {make_int(24)});
  Buffer ws = make_buffer("ws_1", DataType::uint8(), {make_int(kWorkspaceBytes)});
  Var w = make_var("w", DataType::handle()), b = make_var("b", DataType::handle()),
      s = make_var("s", DataType::handle());
  Stmt calls = make_seq({
      make_evaluate(make_call_kernel("dense_relu", {input->data, w, b, addr(ws, kT1)})),
      make_evaluate(
          make_call_kernel("affine", {addr(ws, kT1), s, make_float(2.5), make_float(-1.5),
                                      make_int(3), addr(ws, kZ1), output->data, addr(ws, kZ3),
                                      addr(ws, kZ4), out2->data, make_int(7, DataType::int64())})),
  });
  Stmt body = allocate_const(w, "dense.weight", {make_int(8), make_int(6)},
                             allocate_const(b, "dense.bias", {make_int(6)},
                                            allocate_const(s, "scale", {make_int(24)},
                                                           allocate(ws->data, DataType::uint8(),
                                                                    kWorkspaceBytes, calls))));
  Annotations attrs;
  attrs[kEntryAttr] = make_bool(true);
  attrs["tirc.num_inputs"] = make_int(1);
  attrs["tirc.io_names"] = make_string("input.1;output;out2");
  m.entry = make_prim_func({{input->data, input}, {output->data, output}, {out2->data, out2}}, body,
                           attrs);
  m.module.add("dense_relu", m.dense);
  m.module.add("affine", m.affine);
  m.module.add("run", m.entry);
  m.module.add_constant("dense.weight", constant({8, 6}, 1));
  m.module.add_constant("dense.bias", constant({6}, 2));
  m.module.add_constant("scale", constant({24}, 3));
  return m;
}

std::vector<FunctionToCompile> functions_of(const Model& m, const std::string& prefix) {
  return {{prefix + "_dense_relu", lower(m.dense), "dense_relu"},
          {prefix + "_affine", lower(m.affine), "affine"},
          {prefix + "_run", m.entry, "run"}};
}

NDArray input_array() {
  NDArray in(DataType::float32(), {4, 8});
  for (int64_t i = 0; i < in.num_elements(); ++i)
    in.set_float(i, 0.25 * static_cast<double>(i % 11) - 1.0);
  return in;
}

// The model run kernel by kernel in the interpreter: {output, out2}.
std::pair<NDArray, NDArray> reference(const Model& m, const NDArray& input) {
  NDArray in = input;
  NDArray w = *m.module.find_constant("dense.weight"), b = *m.module.find_constant("dense.bias"),
          s = *m.module.find_constant("scale");
  NDArray t1(DataType::float32(), {4, 6});
  run(m.dense, {{&in}, {&w}, {&b}, {&t1}});
  NDArray x(DataType::float32(), {24});
  std::memcpy(x.data(), t1.data(), x.num_bytes());
  NDArray z1(DataType::float32(), {24}), z2 = z1, z3 = z1, z4 = z1, z5 = z1;
  Argument alpha, beta, n, k;
  alpha.float_value = 2.5;
  beta.float_value = -1.5;
  n.int_value = 3;
  k.int_value = 7;
  run(m.affine, {{&x}, {&s}, alpha, beta, n, {&z1}, {&z2}, {&z3}, {&z4}, {&z5}, k});
  return {z2, z5};
}

}  // namespace

TEST_CASE("x86 model: entry calls kernels with weights and a heap workspace", "[x86-model]") {
  const Model m = make_model();
  const NDArray input = input_array();
  const auto [want_out, want_out2] = reference(m, input);
  for (const Target& target : available_targets()) {
    INFO(target.name());
    GeneratorOptions options{target};
    options.module = &m.module;
    const MachineCode code = generate_x86(functions_of(m, "net"), options);
    // Three constants, each once, 64-byte aligned: 48, 6 (padded), 24 floats.
    CHECK(code.rodata.size() == 192 + 64 + 96);
    CHECK(code.data_references.size() == 3);
    bool calls_alloc = false, calls_free = false;
    for (const auto& c : code.external_calls) {
      calls_alloc |= c.symbol == "tirc_alloc";
      calls_free |= c.symbol == "tirc_free";
    }
    CHECK(calls_alloc);
    CHECK(calls_free);
    const JitModule jit(code);
    NDArray in = input, out(DataType::float32(), {24}), out2(DataType::float32(), {24});
    REQUIRE(call_jit(jit, "net_run", m.entry, {{&in}, {&out}, {&out2}}) == 0);
    CHECK(out.bitwise_equal(want_out));
    CHECK(out2.bitwise_equal(want_out2));
    CHECK(in.bitwise_equal(input));
  }
}

TEST_CASE("x86 model: a constant bound in two functions is placed once", "[x86-model]") {
  IRModule mod;
  mod.add_constant("c", constant({16}, 9));
  Buffer out = make_buffer("out", DataType::float32(), {make_int(16)});
  std::vector<FunctionToCompile> fns;
  for (const char* name : {"a", "b"}) {
    Buffer view = make_buffer("cv", DataType::float32(), {make_int(16)});
    Var i = make_var("i");
    Stmt copy = make_for(i, make_int(0), make_int(16), ForKind::Serial,
                         make_store(out, make_load(view, {i}) * make_float(2.0), {i}));
    // The view's data var is the AllocateConst's.
    Stmt body = allocate_const(view->data, "c", {make_int(16)}, copy);
    fns.push_back({std::string("f_") + name, make_prim_func({{out->data, out}}, body), name});
  }
  GeneratorOptions options{available_targets().front()};
  options.module = &mod;
  const MachineCode code = generate_x86(fns, options);
  CHECK(code.rodata.size() == 64);
  CHECK(code.data_references.size() == 2);
  const JitModule jit(code);
  for (const char* sym : {"f_a", "f_b"}) {
    NDArray o(DataType::float32(), {16});
    REQUIRE(call_jit(jit, sym, fns[0].lowered, {{&o}}) == 0);
    for (int64_t i = 0; i < 16; ++i)
      CHECK(o.get_float(i) == 2.0 * mod.find_constant("c")->get_float(i));
  }
}

TEST_CASE("x86 model: a failing kernel's result propagates and storage is freed", "[x86-model]") {
  const PrimFunc divide = parse_one(kDivide);
  Buffer a = make_buffer("a", DataType::int32(), {make_int(4)});
  Buffer ws = make_buffer("ws_1", DataType::uint8(), {make_int(kWorkspaceBytes)});
  Var d = make_var("d");
  // divide(ws, 1) succeeds; divide(a, d) fails when d == 0; the last call must not run.
  Stmt calls = make_seq({
      make_evaluate(make_call_kernel("divide", {addr(ws, 128), make_int(1)})),
      make_evaluate(make_call_kernel("divide", {a->data, d})),
      make_evaluate(make_call_kernel("divide", {a->data, make_int(2)})),
  });
  PrimFunc entry = make_prim_func({{a->data, a}, {d, Buffer()}},
                                  allocate(ws->data, DataType::uint8(), kWorkspaceBytes, calls));
  // The entry itself divides by zero inside a heap allocation's scope.
  Var j = make_var("j");
  Buffer wsi = make_buffer("ws_2", DataType::int32(), {make_int(1024 * 1024)});
  Stmt own = allocate(wsi->data, DataType::int32(), 1024 * 1024,
                      make_seq({make_store(wsi, make_int(6), {make_int(0)}),
                                make_store(a, make_load(wsi, {make_int(0)}) / d, {make_int(0)})}));
  PrimFunc self_divide = make_prim_func({{a->data, a}, {d, Buffer()}}, own);
  for (const Target& target : available_targets()) {
    INFO(target.name());
    const MachineCode code = generate_x86({{"k_divide", lower(divide), "divide"},
                                           {"k_entry", entry, "entry"},
                                           {"k_self", self_divide, ""}},
                                          GeneratorOptions{target});
    const JitModule jit(code);
    NDArray arr(DataType::int32(), {4});
    for (int i = 0; i < 4; ++i) arr.set_int(i, 8 + i);
    Argument zero, one;
    zero.int_value = 0;
    one.int_value = 1;
    CHECK(call_jit(jit, "k_entry", entry, {{&arr}, zero}) == 1);
    for (int i = 0; i < 4; ++i) CHECK(arr.get_int(i) == 8 + i);  // the third call did not run
    CHECK(call_jit(jit, "k_entry", entry, {{&arr}, one}) == 0);
    for (int i = 0; i < 4; ++i) CHECK(arr.get_int(i) == (8 + i) / 2);
    CHECK(call_jit(jit, "k_self", self_divide, {{&arr}, zero}) == 1);
    CHECK(call_jit(jit, "k_self", self_divide, {{&arr}, one}) == 0);
    CHECK(arr.get_int(0) == 6);
  }
}

TEST_CASE("x86 model: a failed heap allocation returns -1", "[x86-model]") {
#if defined(TIRC_SANITIZED)
  // AddressSanitizer's allocator aborts on impossible sizes instead of failing.
  SUCCEED("skipped under AddressSanitizer");
#else
  Buffer a = make_buffer("a", DataType::int32(), {make_int(4)});
  Buffer outer = make_buffer("outer", DataType::int32(), {make_int(1 << 20)});
  Buffer huge = make_buffer("huge", DataType::uint8(), {make_int(int64_t{1} << 50)});
  Stmt inner = allocate(huge->data, DataType::uint8(), int64_t{1} << 50,
                        make_store(a, make_int(5), {make_int(0)}));
  PrimFunc f = make_prim_func(
      {{a->data, a}}, allocate(outer->data, DataType::int32(), 1 << 20,
                               make_seq({make_store(a, make_int(4), {make_int(1)}), inner})));
  for (const Target& target : available_targets()) {
    const JitModule jit(generate_x86({{"k_huge", f}}, GeneratorOptions{target}));
    NDArray arr(DataType::int32(), {4});
    CHECK(call_jit(jit, "k_huge", f, {{&arr}}) == -1);
    CHECK(arr.get_int(1) == 4);  // ran up to the failing allocation
    CHECK(arr.get_int(0) == 0);
  }
#endif
}

TEST_CASE("x86 model: errors name the statement", "[x86-model]") {
  const Model m = make_model();
  GeneratorOptions options{available_targets().front()};
  // Without the module the weights cannot be bound.
  CHECK_THROWS_WITH(generate_x86(functions_of(m, "net"), options),
                    Catch::Contains("no module was given"));
  options.module = &m.module;
  // The callee must be compiled alongside, under its module name.
  std::vector<FunctionToCompile> fns = functions_of(m, "net");
  fns[0].name.clear();
  CHECK_THROWS_WITH(generate_x86(fns, options), Catch::Contains("no function named 'dense_relu'"));
  // A constant of another size is refused.
  IRModule wrong = m.module;
  wrong.add_constant("scale", constant({23}, 3));
  options.module = &wrong;
  CHECK_THROWS_WITH(generate_x86(functions_of(m, "net"), options), Catch::Contains("23"));
  IRModule missing;
  options.module = &missing;
  CHECK_THROWS_WITH(generate_x86(functions_of(m, "net"), options),
                    Catch::Contains("no constant 'dense.weight'"));
  // Wrong argument count and type.
  options.module = &m.module;
  Buffer out = make_buffer("out", DataType::float32(), {make_int(24)});
  PrimFunc bad_count =
      make_prim_func({{out->data, out}}, make_evaluate(make_call_kernel("affine", {out->data})));
  CHECK_THROWS_WITH(
      generate_x86({{"k_affine", lower(m.affine), "affine"}, {"k_bad", bad_count}}, options),
      Catch::Contains("passes 1 arguments"));
  // Stores into a constant are refused.
  Var i = make_var("i");
  Buffer cv = make_buffer("cv", DataType::float32(), {make_int(24)});
  PrimFunc store_const = make_prim_func(
      {{out->data, out}}, allocate_const(cv->data, "scale", {make_int(24)},
                                         make_store(cv, make_float(1.0), {make_int(0)})));
  CHECK_THROWS_WITH(generate_x86({{"k_store", store_const}}, options),
                    Catch::Contains("read-only"));
}

TEST_CASE("ELF model object: .rodata, PC32 relocations, links into a C program", "[x86-model]") {
  const Model m = make_model();
  const NDArray input = input_array();
  const auto [want_out, want_out2] = reference(m, input);
  test::TempDir dir;
  int linked = 0;
  for (const Target& target : available_targets()) {
    GeneratorOptions options{target};
    options.module = &m.module;
    const MachineCode code = generate_x86(functions_of(m, "net"), options);
    const std::vector<uint8_t> obj = write_elf_object(code);
    const std::string o = dir.file("net_" + target.name() + ".o");
    test::write_bytes(o, std::string(obj.begin(), obj.end()));
    REQUIRE(test::have_program("llvm-readelf-19"));  // cmake/install-deps.sh installs it
    test::CommandResult r = test::run_command("llvm-readelf-19 -S -r -s " + o, dir);
    REQUIRE(r.status == 0);
    std::string squeezed;  // runs of spaces as one
    for (char ch : r.out)
      if (ch != ' ' || squeezed.empty() || squeezed.back() != ' ') squeezed += ch;
    // .rodata: allocated, read-only, 64-byte aligned, 3 constants (352 bytes).
    CHECK_THAT(squeezed, Catch::Contains("] .rodata PROGBITS 0000000000000000"));
    CHECK_THAT(squeezed, Catch::Contains(" 000160 00 A 0 0 64\n"));
    CHECK_THAT(squeezed, Catch::Contains("R_X86_64_PC32 0000000000000000 .rodata + bc"));
    CHECK_THAT(r.out, Catch::Contains("R_X86_64_PC32"));
    CHECK_THAT(r.out, Catch::Contains("R_X86_64_PLT32"));
    CHECK_THAT(r.out, Catch::Contains("tirc_alloc"));
    // The header, and a C program checking the outputs bit for bit.
    std::vector<HeaderEntry> entries = {
        {"net_dense_relu", m.dense}, {"net_affine", m.affine}, {"net_run", m.entry}};
    std::ofstream(dir.file("net.h")) << write_c_header("net", entries);
    std::ofstream main(dir.file("main.c"));
    main << "#include <stdio.h>\n#include <string.h>\n#include \"net.h\"\n";
    auto array = [&](const char* name, const NDArray& a) {
      main << "static const uint32_t " << name << "[" << a.num_elements() << "] = {";
      for (int64_t i = 0; i < a.num_elements(); ++i) {
        uint32_t bits;
        std::memcpy(&bits, a.data() + 4 * i, 4);
        main << bits << "u,";
      }
      main << "};\n";
    };
    array("input_bits", input);
    array("want_out", want_out);
    array("want_out2", want_out2);
    main << "int main(void) {\n"
            "  float in[32], out[24], out2[24];\n"
            "  memcpy(in, input_bits, sizeof in);\n"
            "  if (net_run(in, out, out2) != 0) return 2;\n"
            "  if (memcmp(out, want_out, sizeof out) || memcmp(out2, want_out2, sizeof out2)) "
            "return 3;\n"
            "  puts(\"ok\");\n  return 0;\n}\n";
    main.close();
    for (const std::string& cc :
         {test::runtime_c_compiler(), std::string("clang-19 -fuse-ld=lld")}) {
      REQUIRE(test::have_program(cc.substr(0, cc.find(' '))));
      INFO(cc << " " << target.name());
      test::CommandResult link = test::run_command(
          cc + " -std=c11 -Wall -Werror " + dir.file("main.c") + " " + o + " " + TIRC_RUNTIME_LIB +
              " -lpthread -lm" + test::sanitizer_flags() + " -o " + dir.file("prog"),
          dir);
      REQUIRE(link.status == 0);
      test::CommandResult run_prog = test::run_command(dir.file("prog"), dir);
      CHECK(run_prog.status == 0);
      CHECK(run_prog.out == "ok\n");
      ++linked;
    }
  }
  CHECK(linked >= 1);
}

TEST_CASE("C emitter on a model module matches the interpreter", "[x86-model]") {
  const Model m = make_model();
  const NDArray input = input_array();
  const auto [want_out, want_out2] = reference(m, input);
  const std::string c = emit_c(functions_of(m, "net"), &m.module);
  CHECK_THAT(c, Catch::Contains("tirc_alloc(" + std::to_string(kWorkspaceBytes) + ")"));
  CHECK_THAT(c, Catch::Contains("static const uint32_t tirc_const_dense_weight"));
  CHECK_THROWS_WITH(emit_c(functions_of(m, "net")), Catch::Contains("no module was given"));
  REQUIRE(test::have_program(test::runtime_c_compiler()));
  test::LoadedC loaded(c, test::runtime_c_compiler(),
                       "-std=c11 -O1 -Wall -Werror" + test::sanitizer_flags());
  NDArray in = input, out(DataType::float32(), {24}), out2(DataType::float32(), {24});
  void* args[3] = {in.data(), out.data(), out2.data()};
  REQUIRE(loaded.packed("net_run")(args) == 0);
  CHECK(out.bitwise_equal(want_out));
  CHECK(out2.bitwise_equal(want_out2));
}

TEST_CASE("header of a model's entry documents its ONNX inputs and outputs", "[x86-model]") {
  const Model m = make_model();
  const std::string h = write_c_header("net", {{"net_affine", m.affine}, {"net_run", m.entry}});
  CHECK_THAT(h, Catch::Contains(
                    "/* net_run: a model's entry point; returns 0, or nonzero when it fails (-1: "
                    "out of memory). */\n"
                    "/*   input 0 \"input.1\": float32[4, 8] */\n"
                    "/*   output 0 \"output\": float32[24] */\n"
                    "/*   output 1 \"out2\": float32[24] */\n"
                    "int net_run(const float* input, float* output, float* out2);\n"));
  // Kernels keep their prototypes.
  CHECK_THAT(h, Catch::Contains("int net_affine(float* X, float* Y, float alpha, float beta, "
                                "int32_t n, float* Z1,"));
  // Names that could end the comment are escaped; a wrong name count is refused.
  Annotations attrs = m.entry->attrs;
  attrs["tirc.io_names"] = make_string("a*/b;\"q\";c");
  PrimFunc odd = make_prim_func(m.entry->params, m.entry->body, attrs);
  const std::string h2 = write_c_header("net", {{"net_run", odd}});
  CHECK_THAT(h2, Catch::Contains("input 0 \"a*\\/b\""));
  CHECK_THAT(h2, Catch::Contains("output 0 \"\\\"q\\\"\""));
  attrs["tirc.io_names"] = make_string("a;b");
  CHECK_THROWS_WITH(
      write_c_header("net", {{"net_run", make_prim_func(m.entry->params, m.entry->body, attrs)}}),
      Catch::Contains("2 names for 3 parameters"));
}

namespace {

// C = pow(A, B) elementwise, serial (the scalar path) or vectorized.
PrimFunc pow_kernel(int64_t n, bool vectorized) {
  const std::string ns = std::to_string(n);
  const std::string text =
      "@T.prim_func\ndef main(A: T.Buffer((" + ns + ",), \"float32\"), B: T.Buffer((" + ns +
      ",), \"float32\"), C: T.Buffer((" + ns + ",), \"float32\")):\n    for i in " +
      (vectorized ? "T.vectorized(" : "range(") + ns + "):\n        C[i] = T.pow(A[i], B[i])\n";
  return parse_one(text.c_str());
}

}  // namespace

TEST_CASE("x86 pow: accuracy against std::pow and the C special cases", "[x86-model]") {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::nanf("");
  const std::vector<float> xs = {0.0f,  -0.0f, 1.0f, -1.0f, 2.0f,   -2.0f, 0.5f,
                                 -0.5f, inf,   -inf, nan,   1e-40f, -3.0f, 10.0f};
  const std::vector<float> ys = {0.0f,  -0.0f, 1.0f, -1.0f, 2.0f,  3.0f, -3.0f,       0.5f,
                                 -0.5f, inf,   -inf, nan,   1e10f, 2.5f, 16777217.0f, -5.0f};
  std::vector<std::pair<float, float>> cases;
  for (float x : xs)
    for (float y : ys) cases.emplace_back(x, y);
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> mag(-8.0f, 8.0f), expo(-12.0f, 12.0f);
  std::uniform_int_distribution<int> coin(0, 3), small(-9, 9);
  for (int i = 0; i < 6000; ++i) {
    float x = std::exp2(mag(rng)) * (coin(rng) == 0 ? -1.0f : 1.0f);
    float y = coin(rng) == 0 ? static_cast<float>(small(rng)) : expo(rng);
    cases.emplace_back(x, y);
  }
  const auto n = static_cast<int64_t>(cases.size());
  for (const Target& target : available_targets()) {
    for (bool vectorized : {false, true}) {
      INFO(target.name() << (vectorized ? " vector" : " scalar"));
      const PrimFunc f = pow_kernel(n, vectorized);
      GeneratorStats stats;
      const MachineCode code = generate_x86({{"pw", lower(f)}}, GeneratorOptions{target}, &stats);
      CHECK(stats.vectorized_loops == (vectorized ? 1 : 0));
      const JitModule jit(code);
      NDArray a(DataType::float32(), {n}), b = a, c = a;
      for (int64_t i = 0; i < n; ++i) {
        std::memcpy(a.data() + 4 * i, &cases[i].first, 4);
        std::memcpy(b.data() + 4 * i, &cases[i].second, 4);
      }
      REQUIRE(call_jit(jit, "pw", f, {{&a}, {&b}, {&c}}) == 0);
      int failures = 0;
      for (int64_t i = 0; i < n && failures < 10; ++i) {
        const float x = cases[i].first, y = cases[i].second;
        float got;
        std::memcpy(&got, c.data() + 4 * i, 4);
        const float want = std::pow(x, y);  // powf
        const double exact = std::pow(static_cast<double>(x), static_cast<double>(y));
        bool ok;
        if (std::isnan(want)) {
          ok = std::isnan(got);
        } else if (std::isinf(want) || want == 0.0f) {
          ok = got == want && std::signbit(got) == std::signbit(want);
        } else if (got == want) {
          ok = true;
        } else {
          const double z =
              std::fabs(static_cast<double>(y) * std::log(std::fabs(static_cast<double>(x))));
          const MathAccuracy acc = vec_pow_accuracy(z);
          ok = std::fabs(got - exact) <= acc.max_abs + acc.max_rel * std::fabs(exact);
        }
        if (!ok) {
          ++failures;
          FAIL_CHECK("pow(" << x << ", " << y << ") = " << got << ", C gives " << want);
        }
      }
      CHECK(failures == 0);
    }
  }
}

TEST_CASE("x86 pow: float64 pow other than x^2 is refused", "[x86-model]") {
  const PrimFunc f = parse_one(R"(@T.prim_func
def main(A: T.Buffer((4,), "float64"), B: T.Buffer((4,), "float64")):
    for i in range(4):
        B[i] = T.pow(A[i], T.float64(3))
)");
  CHECK_THROWS_WITH(generate_x86({{"pw", lower(f)}}, GeneratorOptions{available_targets().front()}),
                    Catch::Contains("float64 pow"));
}

}  // namespace tirc
