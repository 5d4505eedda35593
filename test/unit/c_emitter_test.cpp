#include <catch2/catch.hpp>

#include "c_compile_util.h"
#include "codegen/c/c_emitter.h"
#include "ir/text/parser.h"
#include "passes/pipeline.h"
#include "semantics_programs.h"

using namespace tirc;
using namespace tirc::test;

namespace {

const char* const kCompileFlags = "-O1 -std=c99 -ffp-contract=off -Wall -Wextra -pedantic -Werror";

// Both are installed by cmake/install-deps.sh: a missing one is a broken
// setup, which fails here rather than passing without compiling anything.
std::vector<std::string> compilers() {
  std::vector<std::string> out;
  for (const char* c : {"cc", "clang-19"}) {
    INFO("C compiler " << c << " (cmake/install-deps.sh installs it)");
    REQUIRE(have_program(c));
    out.push_back(c);
  }
  return out;
}

PrimFunc parse_main(const std::string& body_text) {
  IRModule m = parse_module("# from tvm.script import tir as T\n\n@T.prim_func\n" + body_text);
  return m.functions().front().second;
}

// Runs f through the interpreter and through C compiled by `compiler` on the
// same random inputs; every buffer must agree bit for bit afterwards.
void check_matches_interpreter(const PrimFunc& f, const std::string& compiler,
                               const std::vector<Argument>& scalars = {}, int trials = 3) {
  const std::string source = emit_c({{"kernel", f}});
  INFO(source);
  LoadedC lib(source, compiler, kCompileFlags);
  LoadedC::PackedFn fn = lib.packed("kernel");
  for (int trial = 0; trial < trials; ++trial) {
    std::vector<NDArray> expected = random_inputs(f, static_cast<uint64_t>(trial) + 11);
    std::vector<NDArray> actual = expected;
    auto args_for = [&](std::vector<NDArray>& arrays) {
      std::vector<Argument> args;
      size_t next_array = 0, next_scalar = 0;
      for (const Param& p : f->params)
        args.push_back(p.buffer ? Argument{&arrays[next_array++]} : scalars.at(next_scalar++));
      return args;
    };
    std::vector<Argument> expected_args = args_for(expected), actual_args = args_for(actual);
    // Checking mode: the reference run also proves the program race-free.
    run(f, expected_args, RunOptions::checked(static_cast<uint64_t>(trial)));
    PackedArgs packed(f, actual_args);
    REQUIRE(fn(packed.pointers.data()) == 0);
    for (size_t i = 0; i < expected.size(); ++i) {
      INFO("buffer " << i << " trial " << trial << " compiler " << compiler);
      if (!expected[i].bitwise_equal(actual[i])) {
        for (int64_t k = 0; k < expected[i].num_elements(); ++k)
          if (expected[i].get_float(k) != actual[i].get_float(k)) {
            FAIL("element " << k << ": interpreter " << expected[i].get_float(k) << ", C "
                            << actual[i].get_float(k));
          }
        FAIL("bytes differ (NaN payloads?)");
      }
    }
  }
}

void check_all_compilers(const std::string& text, const std::vector<Argument>& scalars = {}) {
  PrimFunc f = parse_main(text);
  for (const std::string& cc : compilers()) check_matches_interpreter(f, cc, scalars);
}

}  // namespace

TEST_CASE("C emitter: int32 arithmetic wraps like the interpreter", "[cemit]") {
  check_all_compilers(
      R"(def main(A: T.Buffer((64,), "int32"), B: T.Buffer((64,), "int32"), C: T.Buffer((64,), "int32")):
    for i in range(64):
        C[i] = A[i] * 1073741824 + B[i] * 2147483647 - (A[i] - 2147483647) + T.min(A[i], B[i]) * T.max(A[i], 3)
)");
}

TEST_CASE("C emitter: floor and truncating division and modulo of negative operands", "[cemit]") {
  check_all_compilers(kIntegerDivisionProgram);
}

TEST_CASE("C emitter: narrow and unsigned integers, casts and intrinsics", "[cemit]") {
  check_all_compilers(kNarrowIntegerProgram);
}

TEST_CASE("C emitter: bitwise and shift intrinsics", "[cemit]") {
  // The text format has no spelling for these: build the store directly.
  Buffer A = make_buffer("A", DataType::int8(), {32}),
         B = make_buffer("B", DataType::int32(), {32});
  Buffer E = make_buffer("E", DataType::int8(), {128}),
         F = make_buffer("F", DataType(DataType::Code::UInt, 32), {32});
  Var i = make_var("i");
  const DataType i8 = DataType::int8(), u32 = DataType(DataType::Code::UInt, 32);
  Expr a = make_load(A, {i}), b = make_load(B, {i});
  Expr fb = make_cast(u32, b);
  Stmt body = make_seq({
      make_store(E, make_call(i8, "bitwise_xor", {a, make_int(5, i8)}), {i}),
      make_store(E, make_call(i8, "shift_right", {a, make_int(1, i8)}), {i + 32}),
      make_store(E, make_call(i8, "shift_left", {a, make_int(3, i8)}), {i + 64}),
      make_store(E,
                 make_call(i8, "bitwise_not", {make_call(i8, "bitwise_and", {a, make_int(6, i8)})}),
                 {i + 96}),
      make_store(F,
                 make_call(u32, "bitwise_or",
                           {make_call(u32, "shift_right",
                                      {fb * make_int(1000000000, u32), make_int(3, u32)}),
                            make_call(u32, "abs", {fb})}),
                 {i}),
  });
  PrimFunc f = make_prim_func({{A->data, A}, {B->data, B}, {E->data, E}, {F->data, F}},
                              make_for(i, 0, 32, ForKind::Serial, body));
  for (const std::string& cc : compilers()) check_matches_interpreter(f, cc);
}

TEST_CASE("C emitter: float32 arithmetic, comparisons and float/int casts", "[cemit]") {
  check_all_compilers(kFloat32ArithmeticProgram);
}

TEST_CASE("C emitter: float floor division and modulo", "[cemit]") {
  for (DataType t : {DataType::float32(), DataType::float64(), DataType::float16()}) {
    Buffer A = make_buffer("A", t, {32}), B = make_buffer("B", t, {96});
    Var i = make_var("i");
    Expr a = make_load(A, {i}), d = make_const(t, 2.5);
    Stmt body = make_seq({make_store(B, floordiv(a * make_const(t, 1.3), d), {i}),
                          make_store(B, floormod(a * make_const(t, 1.3), d), {i + 32}),
                          make_store(B, make_binary(ExprKind::Mod, a, d), {i + 64})});
    PrimFunc f =
        make_prim_func({{A->data, A}, {B->data, B}}, make_for(i, 0, 32, ForKind::Serial, body));
    for (const std::string& cc : compilers()) check_matches_interpreter(f, cc);
  }
}

TEST_CASE("C emitter: math intrinsics round like the interpreter", "[cemit]") {
  check_all_compilers(R"(def main(A: T.Buffer((64,), "float32"), B: T.Buffer((512,), "float32")):
    for i in range(64):
        B[i] = T.exp(A[i] * T.float32(0.37))
        B[i + 64] = T.log(T.abs(A[i]) + T.float32(0.3))
        B[i + 128] = T.tanh(A[i] * T.float32(0.41))
        B[i + 192] = T.erf(A[i] * T.float32(0.29))
        B[i + 256] = T.sqrt(T.abs(A[i]) * T.float32(1.7))
        B[i + 320] = T.sigmoid(A[i] * T.float32(0.77))
        B[i + 384] = T.pow(T.abs(A[i]) + T.float32(1), T.float32(0.3)) + T.floor(A[i] * T.float32(0.3)) + T.round(A[i] * T.float32(0.5))
        B[i + 448] = T.if_then_else(A[i] > T.float32(0), T.log(A[i]), T.exp(A[i]))
)");
}

TEST_CASE("C emitter: let, if/else and evaluate", "[cemit]") {
  check_all_compilers(R"(def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    for i in range(64):
        x: T.float32 = A[i] * T.float32(2)
        k: T.int32 = i % 3
        T.evaluate(0)
        if k == 0:
            B[i] = x + T.float32(1)
        else:
            if k == 1 or x < T.float32(0):
                B[i] = x - T.float32(1)
            else:
                B[i] = -x
)");
}

TEST_CASE("C emitter: Ramp and Broadcast vector stores and vector lets", "[cemit]") {
  check_all_compilers(
      R"(def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32"), D: T.Buffer((64,), "int32")):
    for i in range(16):
        C[T.Ramp(i * 4, 1, 4)] = A[T.Ramp(i * 4, 1, 4)] + B[T.Ramp(i * 4, 1, 4)] * T.Broadcast(T.float32(2), 4)
    for i in range(8):
        v: T.int32x8 = T.Ramp(i * 8, 1, 8) * T.Broadcast(3, 8)
        D[T.Ramp(63 - i * 8, -1, 8)] = v + T.Broadcast(i, 8)
    for i in range(4):
        C[T.Ramp(i, 4, 4)] = T.Ramp(T.float32(0.5), T.float32(0.25), 4) + C[T.Ramp(i, 4, 4)]
)");
}

TEST_CASE("C emitter: stack and heap allocations", "[cemit]") {
  check_all_compilers(R"(def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    tmp_data = T.allocate([64], "float32", "global")
    tmp = T.decl_buffer((64,), "float32", data=tmp_data)
    big_data = T.allocate([20000], "float32", "global")
    big = T.decl_buffer((20000,), "float32", data=big_data)
    for i in range(64):
        tmp[i] = A[i] * T.float32(2)
    for j in range(20000):
        big[j] = T.Cast("float32", j % 7)
    for j in range(64):
        B[j] = tmp[63 - j] + big[j * 300 + 7]
)");
}

TEST_CASE("C emitter: parallel, vectorized and unrolled loops", "[cemit]") {
  check_all_compilers(
      R"(def main(A: T.Buffer((1024,), "float32"), B: T.Buffer((1024,), "float32"), C: T.Buffer((256,), "int32"), n: T.int32):
    s: T.float32 = T.Cast("float32", n)
    w: T.int32x4 = T.Broadcast(n, 4) * T.Ramp(0, 1, 4)
    for i in T.parallel(32):
        for j in T.parallel(2):
            for k in T.vectorized(8):
                B[i * 32 + j * 16 + k] = A[i * 32 + j * 16 + k] * s
            C[T.Ramp(i * 8 + j * 4, 1, 4)] = w + T.Broadcast(i, 4)
            for k in T.unroll(8):
                B[i * 32 + j * 16 + 8 + k] = A[i * 32 + j * 16 + 8 + k] - s
    for i in T.parallel(n - 3, n):
        tmp_data = T.allocate([16], "float32", "global")
        tmp = T.decl_buffer((16,), "float32", data=tmp_data)
        for k in range(16):
            tmp[k] = A[i * 16 + k]
        for k in range(16):
            B[i * 16 + k] = tmp[15 - k]
)",
      {Argument{nullptr, 7, 0}});
}

TEST_CASE("C emitter: float16 and bfloat16 round like the interpreter", "[cemit]") {
  check_all_compilers(
      R"(def main(A: T.Buffer((64,), "float16"), B: T.Buffer((64,), "float16"), C: T.Buffer((64,), "float16"), D: T.Buffer((64,), "bfloat16")):
    for i in range(64):
        C[i] = A[i] + B[i] * T.float16(0.1) + T.exp(A[i] * T.float16(0.7))
        D[i] = T.Cast("bfloat16", A[i] * T.float16(1.37)) / T.bfloat16(3)
)");
}

TEST_CASE("C emitter: examples already in lowered form", "[cemit]") {
  for (const char* name : {"vector_add_ramp", "allocate", "let_if"}) {
    INFO(name);
    std::ifstream in(std::string(TIRC_SOURCE_DIR) + "/examples/" + name + ".tir");
    std::stringstream text;
    text << in.rdbuf();
    PrimFunc f = parse_module(text.str()).functions().front().second;
    for (const std::string& cc : compilers()) check_matches_interpreter(f, cc);
  }
}

TEST_CASE("C emitter: the ABI of the direct entry point", "[cemit]") {
  PrimFunc f = parse_main(R"(def main(A: T.Buffer((4,), "float32"), x: T.float32, n: T.int64):
    for i in range(4):
        A[i] = x * T.Cast("float32", n + T.int64(i))
)");
  const std::string source = emit_c({{"scale", f}});
  CHECK(source.find("int scale(float* restrict") == std::string::npos);  // no noalias attr
  CHECK(source.find("int scale(float* A_") != std::string::npos);
  CHECK(source.find("float x_arg_") != std::string::npos);
  CHECK(source.find("int64_t n_arg_") != std::string::npos);
  CHECK(source.find("int scale_packed(void* const* args)") != std::string::npos);
  CHECK(source.find("tirc_parallel_for") == std::string::npos);
  REQUIRE(have_program("cc"));
  LoadedC lib(source, "cc", kCompileFlags);
  float a[4] = {};
  float x = 0.5f;
  int64_t n = 10;
  void* args[] = {a, &x, &n};
  REQUIRE(lib.packed("scale")(args) == 0);
  CHECK(a[0] == 5.0f);
  CHECK(a[3] == 6.5f);
}

TEST_CASE("C emitter: several functions in one translation unit", "[cemit]") {
  PrimFunc f = parse_main(R"(def main(A: T.Buffer((8,), "int32")):
    for i in T.parallel(8):
        A[i] = i
)");
  const std::string source = emit_c({{"first", f}, {"second", f}});
  CHECK(source.find("first_parallel_0") != std::string::npos);
  CHECK(source.find("second_parallel_0") != std::string::npos);
  CHECK_THROWS_AS(emit_c({{"same", f}, {"same", f}}), Error);
}

TEST_CASE("C emitter refuses programs outside the lowered form", "[cemit]") {
  PrimFunc blocks = parse_main(R"(def main(A: T.Buffer((8,), "float32")):
    for i in range(8):
        with T.block("B"):
            vi = T.axis.spatial(8, i)
            A[vi] = T.float32(1)
)");
  CHECK_THROWS_WITH(emit_c({{"k", blocks}}),
                    Catch::Contains("blocks are not part of the lowered form"));
  PrimFunc two_d = parse_main(R"(def main(A: T.Buffer((8, 8), "float32")):
    for i in range(8):
        A[i, i] = T.float32(1)
)");
  CHECK_THROWS_WITH(emit_c({{"k", two_d}}), Catch::Contains("flat (1-D) buffers"));
  PrimFunc ok = parse_main(R"(def main(A: T.Buffer((8,), "float32")):
    A[0] = T.float32(1)
)");
  CHECK_THROWS_WITH(emit_c({{"not an identifier", ok}}), Catch::Contains("not a C identifier"));
  CHECK_THROWS_WITH(emit_c({{"tirc_kernel", ok}}), Catch::Contains("reserved prefix"));
  PrimFunc thread = parse_main(R"(def main(A: T.Buffer((8,), "float32")):
    for i in T.thread_binding(8, thread="threadIdx.x"):
        A[i] = T.float32(1)
)");
  CHECK_THROWS_WITH(emit_c({{"k", thread}}), Catch::Contains("no CPU meaning"));
  Buffer A = make_buffer("A", DataType::float32(), {8});
  PrimFunc unknown = make_prim_func(
      {{A->data, A}},
      make_store(A, make_call(DataType::float32(), "my_intrinsic", {make_load(A, {1})}), {0}));
  CHECK_THROWS_WITH(emit_c({{"k", unknown}}), Catch::Contains("unknown intrinsic"));
}

TEST_CASE("C emitter: every example, lowered, matches the interpreter", "[cemit]") {
  const std::vector<std::string> ccs = compilers();
  int checked = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(TIRC_SOURCE_DIR) + "/examples")) {
    if (entry.path().extension() != ".tir") continue;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    IRModule m = parse_module(text.str(), entry.path().filename().string());
    for (const auto& [name, f] : m.functions()) {
      INFO(entry.path().filename().string() << " function " << name);
      PrimFunc lowered = lower(f);
      for (const std::string& cc : ccs) check_matches_interpreter(lowered, cc, {}, 2);
      ++checked;
    }
  }
  CHECK(checked >= 28);
}
