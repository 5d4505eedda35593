// What the generator and the JIT refuse, and how.
#include "x86_test_util.h"

using namespace tirc;
using namespace tirc::x86test;

namespace {

std::string error_of(const PrimFunc& f, Isa isa = Isa::avx2) {
  try {
    generate_x86({{"k", f}}, {Target{isa}, false});
  } catch (const Error& e) {
    return e.message();
  }
  return "";
}

}  // namespace

TEST_CASE("x86: refuses programs outside the lowered form", "[x86]") {
  PrimFunc blocks = parse_func(R"(@T.prim_func
def main(A: T.Buffer((4,), "float32")):
    for i in range(4):
        with T.block("b"):
            vi = T.axis.spatial(4, i)
            A[vi] = T.float32(1)
)");
  CHECK(error_of(blocks).find("not in the lowered form") != std::string::npos);

  PrimFunc two_d = parse_func(R"(@T.prim_func
def main(A: T.Buffer((4, 4), "float32")):
    for i in range(4):
        A[i, i] = T.float32(1)
)");
  CHECK(error_of(two_d).find("flat buffers") != std::string::npos);

  PrimFunc thread = parse_func(R"(@T.prim_func
def main(A: T.Buffer((4,), "float32")):
    for i in T.thread_binding(4, thread="threadIdx.x"):
        A[i] = T.float32(1)
)");
  CHECK(error_of(thread).find("thread") != std::string::npos);
}

TEST_CASE("x86: errors carry the statement's source location", "[x86]") {
  PrimFunc f = parse_func(R"(@T.prim_func
def main(A: T.Buffer((4,), "float32")):
    for i in T.parallel(4):
        big = T.allocate([2000000], "float32", "global")
        A[i] = T.float32(1)
)");
  // Outside parallel loops such an allocation goes to the heap; inside one it
  // would have to fit the worker thread's stack.
  try {
    generate_x86({{"k", f}}, {Target{Isa::avx2}, false});
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(e.message().find("stack allocation limit") != std::string::npos);
    CHECK(e.loc().line == 4);
  }
}

TEST_CASE("x86: refuses unsupported types and operations", "[x86]") {
  PrimFunc bf16 = parse_func(R"(@T.prim_func
def main(A: T.Buffer((4,), "bfloat16")):
    for i in range(4):
        A[i] = A[i] + A[i]
)");
  CHECK(error_of(bf16).find("bfloat16") != std::string::npos);

  Buffer A = make_buffer("A", DataType::float32(), {4});
  Var i = make_var("i");
  PrimFunc fmod = make_prim_func(
      {{A->data, A}},
      make_for(i, 0, 4, ForKind::Serial,
               make_store(A, make_binary(ExprKind::Mod, make_load(A, {i}), make_float(2.0)), {i})));
  CHECK(error_of(fmod).find("modulo") != std::string::npos);

  Var unbound = make_var("u");
  PrimFunc free_var = make_prim_func(
      {{A->data, A}}, make_for(i, 0, 4, ForKind::Serial,
                               make_store(A, make_cast(DataType::float32(), unbound), {i})));
  CHECK(error_of(free_var).find("not bound") != std::string::npos);

  PrimFunc unknown = make_prim_func(
      {{A->data, A}},
      make_for(i, 0, 4, ForKind::Serial,
               make_store(
                   A, make_call(DataType::float32(), "atan2", {make_load(A, {i}), make_float(1.0)}),
                   {i})));
  CHECK(error_of(unknown).find("atan2") != std::string::npos);

  PrimFunc half_param = parse_func(R"(@T.prim_func
def main(A: T.Buffer((4,), "float16"), s: T.float16):
    for i in range(4):
        A[i] = s
)");
  CHECK(error_of(half_param).find("float16") != std::string::npos);

  CHECK_THROWS_AS(
      generate_x86({{"bad name", make_prim_func({{A->data, A}}, make_evaluate(make_int(0)))}},
                   {Target{Isa::avx2}, false}),
      Error);
}

TEST_CASE("x86: the JIT checks arguments and external symbols", "[x86]") {
  PrimFunc f = tir("A: T.Buffer((4,), \"float32\")",
                   "    for i in range(4):\n        A[i] = T.float32(1)\n");
  MachineCode mc = generate_x86({{"k", f}}, {Target{Isa::avx2}, false});
  JitModule jit(mc);
  NDArray wrong_shape(DataType::float32(), {5}), wrong_type(DataType::int32(), {4}),
      ok(DataType::float32(), {4});
  CHECK_THROWS_AS(call_jit(jit, "k", f, {{&wrong_shape}}), Error);
  CHECK_THROWS_AS(call_jit(jit, "k", f, {{&wrong_type}}), Error);
  CHECK_THROWS_AS(call_jit(jit, "k", f, {}), Error);
  CHECK(call_jit(jit, "k", f, {{&ok}}) == 0);
  CHECK(ok.get_float(3) == 1.0);

  MachineCode bad;
  bad.text = {0xE8, 0, 0, 0, 0, 0xC3};
  bad.symbols.push_back({"f", 0, 6, true});
  bad.external_calls.push_back({1, "tirc_no_such_symbol_anywhere"});
  CHECK_THROWS_AS(JitModule(bad), Error);
}
