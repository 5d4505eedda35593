#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>

#include "ir/text/float_repr.h"
#include "ir/text/name_table.h"
#include "ir/text/printer.h"

using namespace tirc;

namespace {

const DataType f32 = DataType::float32();

// Each index read as a single element.
BufferRegion at(const Buffer& b, std::vector<Expr> indices) {
  BufferRegion r{b, {}};
  for (Expr& i : indices) r.region.push_back({i, make_int(1, i.dtype())});
  return r;
}

IterVar axis(const Var& v, Expr extent, IterKind kind = IterKind::DataPar) {
  return IterVar{v, Range::from_min_extent(0, std::move(extent)), kind, {}};
}

Stmt realize(std::vector<Expr> values, std::shared_ptr<BlockNode> block,
             Expr predicate = make_bool(true)) {
  return make_block_realize(std::move(values), std::move(predicate), std::move(block));
}

std::shared_ptr<BlockNode> new_block(std::string name) {
  auto b = std::make_shared<BlockNode>();
  b->name = std::move(name);
  return b;
}

Stmt root(Stmt body, std::vector<Buffer> allocs = {}) {
  auto b = new_block("root");
  b->alloc_buffers = std::move(allocs);
  b->body = std::move(body);
  return realize({}, b);
}

Param buffer_param(const Buffer& b) {
  return Param{make_var(b->name, DataType::handle()), b};
}

}  // namespace

TEST_CASE("matmul with a root block and init prints as in FORMAT.md", "[printer]") {
  Buffer A = make_buffer("A", f32, {128, 128});
  Buffer B = make_buffer("B", f32, {128, 128});
  Buffer C = make_buffer("C", f32, {128, 128});
  Var i = make_var("i"), j = make_var("j"), k = make_var("k");
  Var vi = make_var("vi"), vj = make_var("vj"), vk = make_var("vk");
  auto blk = new_block("C");
  blk->iter_vars = {axis(vi, 128), axis(vj, 128), axis(vk, 128, IterKind::Reduce)};
  blk->reads = {at(C, {vi, vj}), at(A, {vi, vk}), at(B, {vk, vj})};
  blk->writes = {at(C, {vi, vj})};
  blk->init = make_store(C, make_float(0.0), {vi, vj});
  blk->body = make_store(
      C, make_load(C, {vi, vj}) + make_load(A, {vi, vk}) * make_load(B, {vk, vj}), {vi, vj});
  Stmt nest = make_for(i, 0, 128, ForKind::Serial,
                       make_for(j, 0, 128, ForKind::Serial,
                                make_for(k, 0, 128, ForKind::Serial, realize({i, j, k}, blk))));
  PrimFunc f =
      make_prim_func({buffer_param(A), buffer_param(B), buffer_param(C)}, root(nest),
                     {{"tir.noalias", make_bool(true)}, {"global_symbol", make_string("main")}});
  CHECK(print_func(f) ==
        R"(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32"), C: T.Buffer((128, 128), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i, j, k in T.grid(128, 128, 128):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            T.reads(C[vi, vj], A[vi, vk], B[vk, vj])
            T.writes(C[vi, vj])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)");
  IRModule m;
  m.add("mm", f);
  CHECK(print(m) == print_func(f, "mm"));
}

TEST_CASE("split loops print T.axis.spatial and T.where", "[printer]") {
  Buffer A = make_buffer("A", f32, {100});
  Buffer B = make_buffer("B", f32, {100});
  Var i0 = make_var("i_0"), i1 = make_var("i_1"), k = make_var("k");
  Var vi = make_var("vi"), vr = make_var("vr"), vo = make_var("vo");
  auto blk = new_block("B");
  blk->iter_vars = {axis(vi, 100), IterVar{vr, Range::from_min_extent(2, 8), IterKind::Reduce, {}},
                    axis(vo, 4, IterKind::Opaque)};
  blk->reads = {at(A, {vi})};
  blk->writes = {at(B, {vi})};
  blk->body = make_store(B, make_load(A, {vi}) * make_float(2.0), {vi});
  Expr fused = i0 * 32 + i1;
  Stmt s = make_for(
      i0, 0, 4, ForKind::Serial,
      make_for(i1, 0, 32, ForKind::Serial,
               make_for(k, 0, 8, ForKind::Serial, realize({fused, k + 2, i0}, blk, fused < 100))));
  CHECK(print_stmt(s) == R"(for i_0, i_1, k in T.grid(4, 32, 8):
    with T.block("B"):
        vi = T.axis.spatial(100, i_0 * 32 + i_1)
        vr = T.axis.reduce((2, 10), k + 2)
        vo = T.axis.opaque(4, i_0)
        T.where(i_0 * 32 + i_1 < 100)
        T.reads(A[vi])
        T.writes(B[vi])
        B[vi] = A[vi] * T.float32(2)
)");
}

TEST_CASE("remap covers runs of two or more remappable axes only", "[printer]") {
  Buffer A = make_buffer("A", f32, {16, 16, 16, 16});
  Var i = make_var("i"), j = make_var("j"), k = make_var("k"), l = make_var("l");
  Var vi = make_var("vi"), vj = make_var("vj"), vk = make_var("vk"), vl = make_var("vl");
  auto blk = new_block("A");
  // vj's extent differs from its loop's, so it breaks the run: vi alone, then vk, vl.
  blk->iter_vars = {axis(vi, 16), axis(vj, 8), axis(vk, 16, IterKind::Reduce), axis(vl, 16)};
  blk->writes = {at(A, {vi, vj, vk, vl})};
  blk->body = make_store(A, make_float(1.0), {vi, vj, vk, vl});
  Stmt s = make_for(
      i, 0, 16, ForKind::Serial,
      make_for(j, 0, 16, ForKind::Serial,
               make_for(k, 0, 16, ForKind::Serial,
                        make_for(l, 0, 16, ForKind::Parallel, realize({i, j, k, l}, blk)))));
  CHECK(print_stmt(s) == R"(for i, j, k in T.grid(16, 16, 16):
    for l in T.parallel(16):
        with T.block("A"):
            vi = T.axis.spatial(16, i)
            vj = T.axis.spatial(8, j)
            vk, vl = T.axis.remap("RS", [k, l])
            T.reads()
            T.writes(A[vi, vj, vk, vl])
            A[vi, vj, vk, vl] = T.float32(1)
)");
}

TEST_CASE("loop kinds, bounds and annotations", "[printer]") {
  Buffer A = make_buffer("A", f32, {64});
  Var bx = make_var("bx"), tx = make_var("threadIdx.x"), i = make_var("i"), j = make_var("j");
  Var k = make_var("k"), l = make_var("l"), m = make_var("m"), n = make_var("n");
  Stmt store = make_store(A, make_float(0.5), {l + m});
  Stmt s = make_for(
      bx, 0, 8, ForKind::ThreadBinding,
      make_for(
          tx, 2, 8, ForKind::ThreadBinding,
          make_for(i, 0, 4, ForKind::Parallel,
                   make_for(j, 0, 2, ForKind::Unrolled,
                            make_for(k, 0, 4, ForKind::Serial,
                                     make_for(l, 2, 8, ForKind::Serial,
                                              make_for(m, 0, 4, ForKind::Vectorized,
                                                       make_for(n, 0, 2, ForKind::Serial, store))),
                                     {}, {{"b", make_int(1)}, {"a", make_bool(false)}}),
                            {}, {{"pragma_unroll_explicit", make_int(1)}}),
                   {}, {{"note", make_string("say \"hi\"\\")}}),
          "threadIdx.x"),
      "blockIdx.x");
  CHECK(print_stmt(s) == R"(for bx in T.thread_binding(8, thread="blockIdx.x"):
    for threadIdx_x in T.thread_binding(2, 10, thread="threadIdx.x"):
        for i in T.parallel(4, annotations={"note": "say \"hi\"\\"}):
            for j in T.unroll(2, annotations={"pragma_unroll_explicit": 1}):
                for k in T.serial(4, annotations={"a": T.bool(False), "b": 1}):
                    for l in range(2, 10):
                        for m in T.vectorized(4):
                            for n in range(2):
                                A[l + m] = T.float32(0.5)
)");
}

TEST_CASE("a grid stops at a loop whose extent depends on an outer one", "[printer]") {
  Buffer A = make_buffer("A", f32, {64});
  Var i = make_var("i"), j = make_var("j"), n = make_var("n");
  Stmt s =
      make_for(i, 0, 8, ForKind::Serial,
               make_for(j, 0, i + 1, ForKind::Serial, make_store(A, make_float(1.0), {i * 8 + j})));
  CHECK(print_stmt(s) ==
        "for i in range(8):\n    for j in range(i + 1):\n        A[i * 8 + j] = T.float32(1)\n");
  // a non-zero symbolic min prints `start, start + extent`
  Stmt t = make_for(j, n, 4, ForKind::Parallel, make_store(A, make_float(1.0), {j}));
  CHECK(print_stmt(t) == "for j in T.parallel(n, n + 4):\n    A[j] = T.float32(1)\n");
}

TEST_CASE("block with alloc_buffer, match_buffer and block_attr", "[printer]") {
  Buffer A = make_buffer("A", f32, {128});
  Buffer B = make_buffer("B", f32, {128});
  auto local = std::make_shared<BufferNode>(*make_buffer("C_local", f32, {16}, "local"));
  auto sub = std::make_shared<BufferNode>(*make_buffer("A_sub", f32, {16}));
  sub->strides = {1};
  sub->elem_offset = make_var("off");
  Var i = make_var("i"), k = make_var("k"), vi = make_var("vi");
  auto slice = [&](const Buffer& b) {
    return BufferRegion{b, {Range::from_min_extent(vi * 16, 16)}};
  };
  auto blk = new_block("blk");
  blk->iter_vars = {axis(vi, 8)};
  blk->reads = {slice(A)};
  blk->writes = {slice(B)};
  blk->annotations = {{"meta_schedule.unroll", make_int(16)}};
  blk->alloc_buffers = {local};
  blk->match_buffers = {MatchBufferRegion{sub, slice(A)}};
  blk->body = make_seq(
      {make_for(k, 0, 16, ForKind::Serial, make_store(local, make_load(sub, {k}), {k})),
       make_for(k, 0, 16, ForKind::Serial, make_store(B, make_load(local, {k}), {vi * 16 + k}))});
  Stmt s = make_for(i, 0, 8, ForKind::Serial, realize({i}, blk));
  CHECK(print_stmt(s) == R"(for i in range(8):
    with T.block("blk"):
        vi = T.axis.spatial(8, i)
        T.reads(A[vi * 16:vi * 16 + 16])
        T.writes(B[vi * 16:vi * 16 + 16])
        T.block_attr({"meta_schedule.unroll": 16})
        C_local = T.alloc_buffer((16,), "float32", scope="local")
        A_sub = T.match_buffer(A[vi * 16:vi * 16 + 16], (16,), "float32", strides=(1,), elem_offset=off)
        for k in range(16):
            C_local[k] = A_sub[k]
        for k in range(16):
            B[vi * 16 + k] = C_local[k]
)");
}

TEST_CASE("module with two functions", "[printer]") {
  Buffer A = make_buffer("A", f32, {8});
  Buffer B = make_buffer("B", f32, {8});
  Var i = make_var("i");
  PrimFunc add = make_prim_func(
      {buffer_param(A), buffer_param(B)},
      make_for(i, 0, 8, ForKind::Serial, make_store(B, make_load(A, {i}) + make_float(1.0), {i})));
  Buffer X = make_buffer("A", f32, {});
  Var n = make_var("n");
  PrimFunc scale = make_prim_func({buffer_param(X), Param{n, nullptr}},
                                  make_store(X, make_load(X, {}) * make_cast(f32, n), {}));
  IRModule m;
  m.add("add", add);
  m.add("main", scale);
  std::string expected = R"(# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def add(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        for i in range(8):
            B[i] = A[i] + T.float32(1)

    @T.prim_func
    def main(A: T.Buffer((), "float32"), n: T.int32):
        A[()] = A[()] * T.Cast("float32", n)
)";
  CHECK(print_module(m) == expected);
  CHECK(print(m) == expected);
  IRModule single;
  single.add("main", scale);
  CHECK(print_module(single).find("@I.ir_module") != std::string::npos);
  CHECK(print(single).rfind("# from tvm.script import tir as T\n\n@T.prim_func\ndef main(", 0) ==
        0);
  CHECK(print(IRModule{}) ==
        "# from tvm.script import ir as I\n# from tvm.script import tir as T\n\n"
        "@I.ir_module\nclass Module:\n    pass\n");
}

TEST_CASE("expressions take parentheses only where precedence needs them", "[printer]") {
  // Expr, not Var: shared_ptr's own operator< would compare pointers.
  Expr a = make_var("a"), b = make_var("b"), c = make_var("c");
  Expr p = make_var("p", DataType::boolean()), q = make_var("q", DataType::boolean());
  CHECK(print_expr((a + b) * c) == "(a + b) * c");
  CHECK(print_expr(a + b * c) == "a + b * c");
  CHECK(print_expr(a - (b - c)) == "a - (b - c)");
  CHECK(print_expr((a - b) - c) == "a - b - c");
  CHECK(print_expr(a + (b + c)) == "a + (b + c)");
  CHECK(print_expr(a * floordiv(b, c)) == "a * (b // c)");
  CHECK(print_expr(floordiv(a * b, c)) == "a * b // c");
  CHECK(print_expr(floormod(a, b + c)) == "a % (b + c)");
  CHECK(print_expr(logical_and(make_not(a < b), p)) == "not (a < b) and p");
  CHECK(print_expr(make_not(logical_and(p, q))) == "not (p and q)");
  CHECK(print_expr(make_not(p)) == "not p");
  CHECK(print_expr(logical_or(logical_and(p, q), p)) == "p and q or p");
  CHECK(print_expr(logical_and(logical_or(p, q), p)) == "(p or q) and p");
  CHECK(print_expr(logical_and(p, logical_and(q, p))) == "p and (q and p)");
  CHECK(print_expr((a < b) == (b < c)) == "(a < b) == (b < c)");
  CHECK(print_expr(a + b < c * 2) == "a + b < c * 2");
  CHECK(print_expr(a * -1) == "a * -1");
  CHECK(print_expr(a - -1) == "a - -1");
  CHECK(print_expr(Expr(-3) * a) == "-3 * a");
  CHECK(print_expr(truncdiv(a + b, c)) == "T.truncdiv(a + b, c)");
  CHECK(print_expr(truncmod(a, c) * 2) == "T.truncmod(a, c) * 2");
  CHECK(print_expr(tirc::min(a, b) + tirc::max(b, c)) == "T.min(a, b) + T.max(b, c)");
  Expr x = make_var("x", f32), y = make_var("y", f32);
  CHECK(print_expr(x / (y / x)) == "x / (y / x)");
  CHECK(print_expr(make_select(p, x, y)) == "T.Select(p, x, y)");
  CHECK(print_expr(make_call(f32, "exp", {x - y})) == "T.exp(x - y)");
  CHECK(print_expr(make_call(f32, "if_then_else", {a < b, x, make_float(0.0)})) ==
        "T.if_then_else(a < b, x, T.float32(0))");
  CHECK(print_expr(make_cast(DataType::int8(), a)) == "T.Cast(\"int8\", a)");
  CHECK(print_expr(make_ramp(a * 4, 1, 4)) == "T.Ramp(a * 4, 1, 4)");
  CHECK(print_expr(make_broadcast(x, 8)) == "T.Broadcast(x, 8)");
  Buffer A = make_buffer("A", f32, {16, 16});
  CHECK(print_expr(make_load(A, {a, make_ramp(b, 1, 4)})) == "A[a, T.Ramp(b, 1, 4)]");
}

TEST_CASE("every literal kind", "[printer]") {
  CHECK(print_expr(make_int(128)) == "128");
  CHECK(print_expr(make_int(-1)) == "-1");
  CHECK(print_expr(make_int(128, DataType::int64())) == "T.int64(128)");
  CHECK(print_expr(make_int(-3, DataType::int8())) == "T.int8(-3)");
  CHECK(print_expr(make_int(255, DataType::uint8())) == "T.uint8(255)");
  CHECK(print_expr(make_int(7, DataType::int16())) == "T.int16(7)");
  CHECK(print_expr(make_bool(true)) == "T.bool(True)");
  CHECK(print_expr(make_bool(false)) == "T.bool(False)");
  CHECK(print_expr(make_float(0.0)) == "T.float32(0)");
  CHECK(print_expr(make_float(-2.0)) == "T.float32(-2)");
  CHECK(print_expr(make_float(0.5)) == "T.float32(0.5)");
  CHECK(print_expr(make_float(0.1)) == "T.float32(0.1)");
  CHECK(print_expr(make_float(static_cast<float>(0.1))) == "T.float32(0.10000000149011612)");
  CHECK(print_expr(make_float(1.0, DataType::float16())) == "T.float16(1)");
  CHECK(print_expr(make_float(1e-05, DataType::float64())) == "T.float64(1e-05)");
  CHECK(print_expr(make_float(2.0, DataType::bfloat16())) == "T.bfloat16(2)");
  CHECK(print_expr(make_float(1e20)) == "T.float32(1e+20)");
  CHECK(print_expr(make_float(INFINITY)) == "T.float32(\"inf\")");
  CHECK(print_expr(make_float(-INFINITY)) == "T.float32(\"-inf\")");
  CHECK(print_expr(make_float(NAN)) == "T.float32(\"nan\")");
  CHECK(print_expr(make_string("a \"b\"\n")) == "\"a \\\"b\\\"\\n\"");
}

TEST_CASE("float_repr gives Python's shortest round-trip spelling", "[printer]") {
  CHECK(float_repr(0.1) == "0.1");
  CHECK(float_repr(1e-05) == "1e-05");
  CHECK(float_repr(0.0001) == "0.0001");
  CHECK(float_repr(1.5e-07) == "1.5e-07");
  CHECK(float_repr(1e16) == "1e+16");
  CHECK(float_repr(1e15) == "1000000000000000");
  CHECK(float_repr(123.456) == "123.456");
  CHECK(float_repr(-0.75) == "-0.75");
  CHECK(float_repr(0.30000000000000004) == "0.30000000000000004");
  CHECK(float_repr(5e-324) == "5e-324");
  CHECK(float_repr(1.7976931348623157e308) == "1.7976931348623157e+308");
  CHECK(float_repr(3.0) == "3");
  CHECK(float_repr(-0.0) == "-0");
  CHECK(float_repr(1234.5) == "1234.5");
  CHECK(float_repr(std::ldexp(1.0, 60)) == "1.152921504606847e+18");
  for (double v : {0.1, 1.0 / 3, 2.0 / 3e10, 6.02214076e23, 1e-300, 0.007, 9007199254740993.0})
    CHECK(std::strtod(float_repr(v).c_str(), nullptr) == v);
}

TEST_CASE("distinct objects sharing a name get numbered suffixes", "[printer]") {
  Buffer A = make_buffer("A", f32, {8});
  Buffer A2 = make_buffer("A", f32, {8});
  Var i1 = make_var("i"), i2 = make_var("i"), i3 = make_var("i");
  Var n = make_var("i");  // a scalar parameter named like the loops
  Stmt body = make_seq({
      make_for(i1, 0, 8, ForKind::Serial, make_store(A, make_load(A2, {i1}), {i1})),
      make_for(i2, 0, 8, ForKind::Serial, make_store(A2, make_cast(f32, n), {i2})),
      make_for(i1, 0, 8, ForKind::Serial,
               make_store(A, make_float(0.0), {i1})),  // the same i again
      make_for(i3, 0, 8, ForKind::Serial, make_store(A, make_float(1.0), {i3})),
  });
  PrimFunc f = make_prim_func({buffer_param(A), buffer_param(A2), Param{n, nullptr}}, body);
  CHECK(print_func(f, "f") == R"(# from tvm.script import tir as T

@T.prim_func
def f(A: T.Buffer((8,), "float32"), A_1: T.Buffer((8,), "float32"), i: T.int32):
    for i_1 in range(8):
        A[i_1] = A_1[i_1]
    for i_2 in range(8):
        A_1[i_2] = T.Cast("float32", i)
    for i_1 in range(8):
        A[i_1] = T.float32(0)
    for i_3 in range(8):
        A[i_3] = T.float32(1)
)");
  // Printing is deterministic.
  CHECK(print_func(f, "f") == print_func(f, "f"));
}

TEST_CASE("names are sanitized and keywords avoided", "[printer]") {
  CHECK(NameTable::sanitize("threadIdx.x") == "threadIdx_x");
  CHECK(NameTable::sanitize("") == "v");
  CHECK(NameTable::sanitize("0a") == "_0a");
  NameTable names;
  int k1 = 0, k2 = 0, k3 = 0, k4 = 0;
  CHECK(names.define(&k1, "in") == "in_1");
  CHECK(names.define(&k2, "T") == "T_1");
  CHECK(names.define(&k3, "x") == "x");
  CHECK(names.define(&k3, "y") == "x");
  CHECK(names.define(&k4, "x") == "x_1");
  CHECK(names.find(&k4) != nullptr);
  CHECK(names.find(nullptr) == nullptr);
}

TEST_CASE("let, if/else, allocate, decl_buffer, evaluate and scalar params", "[printer]") {
  Buffer C = make_buffer("C", f32, {});
  Var n = make_var("n"), x = make_var("x", f32), i = make_var("i");
  Var storage = make_var("A", DataType::handle());
  auto view = std::make_shared<BufferNode>(*make_buffer("A", f32, {32, 32}));
  view->data = storage;
  Buffer fresh = make_buffer("D", f32, {4}, "local");
  Stmt inner = make_seq({
      make_store(view, make_float(1.0), {i, 0}),
      make_if(Expr(i) < n, make_store(C, x, {}), make_store(C, make_load(view, {i, 1}), {})),
      make_if(make_not(Expr(i) == 3),
              make_evaluate(make_call(DataType::int32(), "tvm_thread_fence", {}))),
  });
  Stmt body = std::make_shared<const LetStmtNode>(
      x, make_float(0.5) * make_cast(f32, n),
      std::make_shared<const AllocateNode>(
          storage, f32, std::vector<Expr>{1024}, "global",
          std::make_shared<const DeclBufferNode>(
              view, std::make_shared<const DeclBufferNode>(
                        fresh, make_for(i, 0, 32, ForKind::Serial, inner)))));
  PrimFunc f =
      make_prim_func({buffer_param(C), Param{n, nullptr}}, body,
                     {{"tir.noalias", make_bool(true)}, {"global_symbol", make_string("f")}});
  CHECK(print_func(f, "f") == R"(# from tvm.script import tir as T

@T.prim_func
def f(C: T.Buffer((), "float32"), n: T.int32):
    T.func_attr({"global_symbol": "f", "tir.noalias": T.bool(True)})
    x: T.float32 = T.float32(0.5) * T.Cast("float32", n)
    A = T.allocate([1024], "float32", "global")
    A_1 = T.decl_buffer((32, 32), "float32", data=A)
    D = T.decl_buffer((4,), "float32", scope="local")
    for i in range(32):
        A_1[i, 0] = T.float32(1)
        if i < n:
            C[()] = x
        else:
            C[()] = A_1[i, 1]
        if not (i == 3):
            T.evaluate(T.tvm_thread_fence())
)");
}

TEST_CASE("buffer parameters print non-default keywords in order", "[printer]") {
  auto B = std::make_shared<BufferNode>(
      *make_buffer("B", DataType::float16(), {make_int(4, DataType::int64()), 16}));
  B->strides = {16, 1};
  B->elem_offset = make_int(8);
  B->scope = "shared";
  B->align = 64;
  PrimFunc f = make_prim_func({buffer_param(B), Param{make_var("h", DataType::handle()), nullptr}},
                              make_evaluate(0));
  CHECK(print_func(f) ==
        "# from tvm.script import tir as T\n\n@T.prim_func\n"
        "def main(B: T.Buffer((T.int64(4), 16), \"float16\", strides=(16, 1), elem_offset=8, "
        "scope=\"shared\", align=64), h: T.handle):\n    T.evaluate(0)\n");
}

TEST_CASE("odd but constructible IR prints without throwing", "[printer]") {
  Buffer A = make_buffer("A", f32, {4});
  Var i = make_var("i"), free = make_var("free");
  // an empty SeqStmt as a loop body and as a whole function body
  Stmt empty = std::make_shared<const SeqStmtNode>(std::vector<Stmt>{});
  CHECK(print_stmt(make_for(i, 0, 4, ForKind::Serial, empty)) ==
        "for i in range(4):\n    T.evaluate(0)\n");
  CHECK(print_stmt(empty).empty());
  CHECK(print_stmt(Stmt()).empty());
  CHECK(print_expr(Expr()) == "None");
  CHECK_NOTHROW(print_func(make_prim_func({}, empty)));
  CHECK(print_func(make_prim_func({}, Stmt())) ==
        "# from tvm.script import tir as T\n\n@T.prim_func\ndef main():\n    T.evaluate(0)\n");
  CHECK(print_func(nullptr).find("def main():") != std::string::npos);
  // a loop without a variable
  Stmt nameless = std::make_shared<const ForNode>(nullptr, Expr(0), Expr(2), ForKind::Serial,
                                                  make_store(A, make_float(1.0), {0}));
  CHECK(print_stmt(nameless) == "for v in range(2):\n    A[0] = T.float32(1)\n");
  // an if without else, a free variable, and a root block that is empty
  CHECK(print_stmt(make_if(Expr(free) < 2, make_store(A, make_float(1.0), {free}))) ==
        "if free < 2:\n    A[free] = T.float32(1)\n");
  CHECK(print_func(make_prim_func({buffer_param(A)}, root(Stmt(), {make_buffer("B", f32, {4})}))) ==
        R"(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((4,), "float32")):
    # with T.block("root"):
    B = T.alloc_buffer((4,), "float32")
    T.evaluate(0)
)");
  // a block whose iteration values are missing, outside any realize
  auto blk = new_block("b");
  blk->iter_vars = {axis(make_var("v"), 4)};
  blk->body = make_store(A, make_float(1.0), {0});
  CHECK(print_stmt(Stmt(blk)) == R"(with T.block("b"):
    v = T.axis.spatial(4, None)
    T.reads()
    T.writes()
    A[0] = T.float32(1)
)");
  // a root-named block that carries reads is an ordinary block
  auto notroot = new_block("root");
  notroot->reads = {BufferRegion::full(A)};
  notroot->body = make_evaluate(0);
  CHECK(print_func(make_prim_func({buffer_param(A)}, realize({}, notroot)))
            .find("    with T.block(\"root\"):\n"
                  "        T.reads(A[0:4])\n") != std::string::npos);
}
