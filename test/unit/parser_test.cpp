// Parsing FORMAT.md's examples into IR and checking the structure.
#include <catch2/catch.hpp>

#include "ir/structural.h"
#include "ir/text/parser.h"
#include "ir/text/printer.h"
#include "ir/verify.h"

using namespace tirc;

namespace {

const BlockRealizeNode* root_realize(const PrimFunc& f) {
  return f->body.as<BlockRealizeNode>();
}

// The body of the function's root block.
Stmt root_body(const PrimFunc& f) {
  auto* r = root_realize(f);
  REQUIRE(r);
  return r->block->body;
}

const char* kMatmul = R"(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32"),
         C: T.Buffer((128, 128), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    for i, j, k in T.grid(128, 128, 64):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            T.reads(A[vi, vk], B[vk, 0:64])
            T.writes(C[vi, vj])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)";

}  // namespace

TEST_CASE("parser: matmul from FORMAT.md", "[parser]") {
  IRModule m = parse_module(kMatmul, "matmul.tir");
  REQUIRE(m.size() == 1);
  const PrimFunc& f = m.at("main");
  REQUIRE(f->params.size() == 3);
  CHECK(f->params[0].buffer->name == "A");
  CHECK(f->params[0].buffer->dtype == DataType::float32());
  CHECK(f->attrs.count("global_symbol") == 1);
  CHECK(f->attrs.at("tir.noalias").dtype() == DataType::boolean());
  auto* root = root_realize(f);
  REQUIRE(root);
  CHECK(root->block->name == "root");
  CHECK(root->block->iter_vars.empty());
  auto* fi = root->block->body.as<ForNode>();
  REQUIRE(fi);
  CHECK(is_const_int(fi->extent, 128));
  CHECK(is_const_int(fi->min, 0));
  auto* fj = fi->body.as<ForNode>();
  REQUIRE(fj);
  auto* fk = fj->body.as<ForNode>();
  REQUIRE(fk);
  CHECK(is_const_int(fk->extent, 64));
  auto* realize = fk->body.as<BlockRealizeNode>();
  REQUIRE(realize);
  const BlockNode& b = *realize->block;
  CHECK(b.name == "C");
  REQUIRE(b.iter_vars.size() == 3);
  CHECK(b.iter_vars[0].kind == IterKind::DataPar);
  CHECK(b.iter_vars[2].kind == IterKind::Reduce);
  CHECK(is_const_int(b.iter_vars[2].dom.extent, 64));
  CHECK(realize->iter_values[0].get() == fi->loop_var.get());
  CHECK(realize->iter_values[2].get() == fk->loop_var.get());
  REQUIRE(b.reads.size() == 2);
  CHECK(b.reads[0].buffer == f->params[0].buffer);  // buffers shared between uses
  CHECK(b.reads[0].region[0].min.get() == b.iter_vars[0].var.get());
  CHECK(is_const_int(b.reads[0].region[0].extent, 1));
  CHECK(is_const_int(b.reads[1].region[1].min, 0));
  CHECK(is_const_int(b.reads[1].region[1].extent, 64));
  REQUIRE(b.writes.size() == 1);
  CHECK(b.writes[0].buffer == f->params[2].buffer);
  REQUIRE(b.init);
  auto* init = b.init.as<BufferStoreNode>();
  REQUIRE(init);
  CHECK(init->value.dtype() == DataType::float32());
  auto* store = b.body.as<BufferStoreNode>();
  REQUIRE(store);
  CHECK(store->value.kind() == ExprKind::Add);
  CHECK(store->buffer == f->params[2].buffer);
  CHECK(realize->loc.line == 8);
}

TEST_CASE("parser: full block header", "[parser]") {
  const char* text = R"(@T.prim_func
def f(A: T.Buffer((128, 64), "float32"), C: T.Buffer((128, 64), "float32")):
    for i_0, i_1, j, k in T.grid(4, 32, 16, 64):
        with T.block("C"):
            vb = T.axis.spatial(128, i_0 * 32 + i_1)
            vr = T.axis.reduce((0, 64), k)
            vo = T.axis.opaque(16, j)
            T.where(i_0 * 32 + i_1 < 100)
            T.reads(A[vb, vr])
            T.writes(C[vb, vo])
            T.block_attr({"meta_schedule.unroll": 16})
            C_local = T.alloc_buffer((16, 16), "float32", scope="local")
            A_sub = T.match_buffer(A[vb, 0:16], (16,), "float32", strides=(1,))
            C[vb, vo] = A_sub[vo] + C_local[0, 0]
)";
  PrimFunc f = parse_module(text).at("f");
  auto* fl = root_body(f).as<ForNode>();
  while (fl->body.as<ForNode>()) fl = fl->body.as<ForNode>();
  auto* realize = fl->body.as<BlockRealizeNode>();
  REQUIRE(realize);
  const BlockNode& b = *realize->block;
  REQUIRE(b.iter_vars.size() == 3);
  CHECK(b.iter_vars[0].kind == IterKind::DataPar);
  CHECK(b.iter_vars[1].kind == IterKind::Reduce);
  CHECK(b.iter_vars[2].kind == IterKind::Opaque);
  CHECK(is_const_int(b.iter_vars[1].dom.extent, 64));
  CHECK(realize->iter_values[0].kind() == ExprKind::Add);
  CHECK(realize->predicate.kind() == ExprKind::LT);
  CHECK(b.annotations.at("meta_schedule.unroll").as<IntImmNode>()->value == 16);
  REQUIRE(b.alloc_buffers.size() == 1);
  CHECK(b.alloc_buffers[0]->scope == "local");
  REQUIRE(b.match_buffers.size() == 1);
  CHECK(b.match_buffers[0].source.buffer == f->params[0].buffer);
  CHECK(is_const_int(b.match_buffers[0].source.region[1].extent, 16));
  CHECK(b.match_buffers[0].buffer->strides.size() == 1);
  auto* store = b.body.as<BufferStoreNode>();
  REQUIRE(store);
  auto* add = store->value.as<BinaryNode>();
  CHECK(add->a.as<BufferLoadNode>()->buffer == b.match_buffers[0].buffer);
  CHECK(add->b.as<BufferLoadNode>()->buffer == b.alloc_buffers[0]);
}

TEST_CASE("parser: match_buffer declares undefined stride and elem_offset names", "[parser]") {
  const char* text = R"(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((32, 32), "float32"), C: T.Buffer((2,), "float32")):
    # with T.block("root"):
    for i in range(2):
        with T.block("blk"):
            vi = T.axis.spatial(2, i)
            T.reads(A[vi * 16:vi * 16 + 16, 0:16])
            T.writes(C[vi])
            A_sub = T.match_buffer(A[vi * 16:vi * 16 + 16, 0:16], (16, 16), "float32", strides=(lda, 1), elem_offset=off)
            C[vi] = A_sub[1, 0] + T.Cast("float32", lda + off)
)";
  PrimFunc f = parse_module(text, "m.tir").at("main");
  auto* loop = root_body(f).as<ForNode>();
  REQUIRE(loop);
  const BlockNode& b = *loop->body.as<BlockRealizeNode>()->block;
  REQUIRE(b.match_buffers.size() == 1);
  const Buffer& sub = b.match_buffers[0].buffer;
  REQUIRE(sub->strides.size() == 2);
  auto* lda = sub->strides[0].as<VarNode>();
  REQUIRE(lda);
  CHECK(lda->name == "lda");
  CHECK(lda->dtype == DataType::int32());
  CHECK(is_const_int(sub->strides[1], 1));
  auto* off = sub->elem_offset.as<VarNode>();
  REQUIRE(off);
  CHECK(off->name == "off");
  CHECK(off->dtype == DataType::int32());
  // The body's lda and off are the variables the match declared.
  auto* cast = b.body.as<BufferStoreNode>()->value.as<BinaryNode>()->b.as<CastNode>();
  REQUIRE(cast);
  auto* sum = cast->value.as<BinaryNode>();
  REQUIRE(sum);
  CHECK(sum->a.get() == lda);
  CHECK(sum->b.get() == off);
  CHECK(verify(f).empty());
  // print -> parse -> print
  std::string printed = print_func(f, "main");
  CHECK(printed == text);
  PrimFunc back = parse_module(printed, "back.tir").at("main");
  CHECK(print_func(back, "main") == printed);
  INFO(structural_diff(back, f));
  CHECK(structural_equal(back, f));
}

TEST_CASE("parser: a name used twice in one match_buffer is one variable", "[parser]") {
  const char* text = R"(@T.prim_func
def main(A: T.Buffer((32, 32), "float32"), C: T.Buffer((1,), "float32")):
    with T.block("blk"):
        A_sub = T.match_buffer(A[0:16, 0:16], (16, 16), "float32", strides=(s, s))
        C[0] = A_sub[1, 0] + T.Cast("float32", s)
)";
  PrimFunc f = parse_module(text).at("main");
  const BlockNode& b = *root_body(f).as<BlockRealizeNode>()->block;
  const Buffer& sub = b.match_buffers[0].buffer;
  REQUIRE(sub->strides.size() == 2);
  CHECK(sub->strides[0].as<VarNode>());
  CHECK(sub->strides[0].get() == sub->strides[1].get());
}

TEST_CASE("parser: function-level match_buffer declares stride and offset names", "[parser]") {
  const char* text = R"(@T.prim_func
def main(a: T.handle, C: T.Buffer((1,), "float32")):
    A = T.match_buffer(a, (16, 16), "float32", strides=[lda, 1], elem_offset=off)
    C[0] = A[1, 0] + T.Cast("float32", lda + off)
)";
  PrimFunc f = parse_module(text).at("main");
  const Buffer& A = f->params[0].buffer;
  REQUIRE(A);
  auto* lda = A->strides[0].as<VarNode>();
  REQUIRE(lda);
  CHECK(lda->name == "lda");
  auto* off = A->elem_offset.as<VarNode>();
  REQUIRE(off);
  auto* store = f->body.as<BufferStoreNode>();
  REQUIRE(store);
  auto* sum = store->value.as<BinaryNode>()->b.as<CastNode>()->value.as<BinaryNode>();
  REQUIRE(sum);
  CHECK(sum->a.get() == lda);
  CHECK(sum->b.get() == off);
  CHECK(verify(f).empty());
}

TEST_CASE("parser: loops kinds and ranges", "[parser]") {
  const char* text = R"(@T.prim_func
def f(A: T.Buffer((128,), "float32"), n: T.int32):
    for i in range(2, 10):
        A[i] = 1.0
    for i in T.serial(n):
        A[i] = 2.0
    for i in T.parallel(4):
        for j in T.vectorized(0, 4):
            A[i * 4 + j] = 3.0
    for t in T.thread_binding(32, thread="threadIdx.x"):
        A[t] = 4.0
    for u in T.unroll(4, annotations={"pragma": 1}):
        A[u] = 5.0
)";
  PrimFunc f = parse_module(text).at("f");
  CHECK_FALSE(f->body.as<BlockRealizeNode>());  // no block anywhere: no root block
  auto* seq = f->body.as<SeqStmtNode>();
  REQUIRE(seq);
  REQUIRE(seq->seq.size() == 5);
  auto* l0 = seq->seq[0].as<ForNode>();
  CHECK(is_const_int(l0->min, 2));
  CHECK(is_const_int(l0->extent, 8));
  auto* l1 = seq->seq[1].as<ForNode>();
  CHECK(l1->extent.get() == f->params[1].var.get());
  auto* l2 = seq->seq[2].as<ForNode>();
  CHECK(l2->for_kind == ForKind::Parallel);
  CHECK(l2->body.as<ForNode>()->for_kind == ForKind::Vectorized);
  auto* l3 = seq->seq[3].as<ForNode>();
  CHECK(l3->for_kind == ForKind::ThreadBinding);
  CHECK(l3->thread_tag == "threadIdx.x");
  auto* l4 = seq->seq[4].as<ForNode>();
  CHECK(l4->for_kind == ForKind::Unrolled);
  CHECK(l4->annotations.count("pragma") == 1);
  // A new loop with the same name in a sibling position is a new variable.
  CHECK(l0->loop_var.get() != l1->loop_var.get());
  CHECK(l0->body.as<BufferStoreNode>()->indices[0].get() == l0->loop_var.get());
}

TEST_CASE("parser: literal typing", "[parser]") {
  Var x = make_var("x", DataType::int64());
  Var y = make_var("y", DataType::float16());
  Expr e = parse_expr("x + 1", {x});
  CHECK(e.dtype() == DataType::int64());
  CHECK(e.as<BinaryNode>()->b.dtype() == DataType::int64());
  CHECK(parse_expr("y * 2", {y}).dtype() == DataType::float16());
  CHECK(parse_expr("2.5 * y", {y}).dtype() == DataType::float16());
  CHECK(parse_expr("1.5").dtype() == DataType::float32());
  CHECK(parse_expr("7").dtype() == DataType::int32());
  CHECK(parse_expr("T.int8(-3)").dtype() == DataType::int8());
  CHECK(parse_expr("T.int8(-3)").as<IntImmNode>()->value == -3);
  CHECK(parse_expr("T.uint8(255)").dtype() == DataType::uint8());
  CHECK(parse_expr("T.int16(7)").dtype() == DataType::int16());
  CHECK(parse_expr("T.int64(128)").dtype() == DataType::int64());
  CHECK(parse_expr("T.float64(1e-05)").as<FloatImmNode>()->value == 1e-05);
  CHECK(parse_expr("T.bfloat16(2)").dtype() == DataType::bfloat16());
  CHECK(parse_expr("T.float16(1)").dtype() == DataType::float16());
  CHECK(parse_expr("T.bool(True)").dtype() == DataType::boolean());
  CHECK(parse_expr("True").dtype() == DataType::boolean());
  CHECK(std::isinf(parse_expr("T.float32(\"-inf\")").as<FloatImmNode>()->value));
  CHECK(std::isnan(parse_expr("T.float32(\"nan\")").as<FloatImmNode>()->value));
  CHECK(parse_expr("-1").as<IntImmNode>()->value == -1);
  CHECK(parse_expr("x < 5", {x}).as<BinaryNode>()->b.dtype() == DataType::int64());
  CHECK(parse_expr("T.max(x, 0)", {x}).kind() == ExprKind::Max);
  CHECK(parse_expr("T.max(x, 0)", {x}).dtype() == DataType::int64());
  Expr neg = parse_expr("-x", {x});
  REQUIRE(neg.kind() == ExprKind::Mul);
  CHECK(neg.as<BinaryNode>()->b.as<IntImmNode>()->value == -1);
  CHECK(neg.as<BinaryNode>()->b.dtype() == DataType::int64());
}

TEST_CASE("parser: expression forms", "[parser]") {
  Var i = make_var("i", DataType::int32());
  Var j = make_var("j", DataType::int32());
  Var f = make_var("f", DataType::float32());
  Var c = make_var("c", DataType::boolean());
  CHECK(parse_expr("i - j", {i, j}).kind() == ExprKind::Sub);
  CHECK(parse_expr("f / f", {f}).kind() == ExprKind::Div);
  CHECK(parse_expr("T.truncdiv(i, j)", {i, j}).kind() == ExprKind::Div);
  CHECK(parse_expr("T.truncmod(i, j)", {i, j}).kind() == ExprKind::Mod);
  CHECK(parse_expr("i // j", {i, j}).kind() == ExprKind::FloorDiv);
  CHECK(parse_expr("i % j", {i, j}).kind() == ExprKind::FloorMod);
  CHECK(parse_expr("T.min(i, j)", {i, j}).kind() == ExprKind::Min);
  for (auto [text, kind] : {std::pair{"i == j", ExprKind::EQ},
                            {"i != j", ExprKind::NE},
                            {"i < j", ExprKind::LT},
                            {"i <= j", ExprKind::LE},
                            {"i > j", ExprKind::GT},
                            {"i >= j", ExprKind::GE}})
    CHECK(parse_expr(text, {i, j}).kind() == kind);
  CHECK(parse_expr("c and i < j or not c", {c, i, j}).kind() == ExprKind::Or);
  CHECK(parse_expr("not c", {c}).kind() == ExprKind::Not);
  Expr cast = parse_expr("T.Cast(\"float32\", i)", {i});
  CHECK(cast.kind() == ExprKind::Cast);
  CHECK(cast.dtype() == DataType::float32());
  CHECK(parse_expr("T.Select(c, f, 1.0)", {c, f}).kind() == ExprKind::Select);
  Expr ite = parse_expr("T.if_then_else(c, f, T.float32(0))", {c, f});
  CHECK(ite.as<CallNode>()->op == "if_then_else");
  Expr ex = parse_expr("T.exp(f)", {f});
  CHECK(ex.as<CallNode>()->op == "exp");
  CHECK(ex.dtype() == DataType::float32());
  CHECK(parse_expr("T.pow(f, 2.0)", {f}).as<CallNode>()->op == "pow");
  Expr ramp = parse_expr("T.Ramp(i, 1, 4)", {i});
  CHECK(ramp.dtype() == DataType::int32().with_lanes(4));
  CHECK(parse_expr("T.Broadcast(f, 8)", {f}).dtype() == DataType::float32().with_lanes(8));
  // precedence: a - (b - c) keeps its grouping; * binds tighter than +
  Expr p = parse_expr("i - (j - i) * 2", {i, j});
  REQUIRE(p.kind() == ExprKind::Sub);
  CHECK(p.as<BinaryNode>()->b.kind() == ExprKind::Mul);
  CHECK(parse_expr("i + j * 2 < 3 and c", {i, j, c}).kind() == ExprKind::And);
}

TEST_CASE("parser: let, allocate, decl_buffer nesting", "[parser]") {
  const char* text = R"(@T.prim_func(private=True)
def f(A: T.Buffer((32, 32), "float32"), n: T.int64):
    """A docstring."""
    x: T.int32 = 5
    m: T.int64 = n + 1
    B = T.allocate([1024], "float32", "global")
    B_buf = T.decl_buffer((32, 32), "float32", data=B)
    C = T.decl_buffer((4,), "int8")
    B_buf[0, 0] = A[x, 0]
    T.evaluate(m)
    if x < 3:
        A[0, 0] = 1.0
    elif x < 4:
        A[0, 1] = 1.0
    else:
        A[0, 2] = 0
)";
  PrimFunc f = parse_module(text).at("f");
  auto* let_x = f->body.as<LetStmtNode>();
  REQUIRE(let_x);
  CHECK(let_x->var->name == "x");
  CHECK(let_x->var->dtype == DataType::int32());
  auto* let_m = let_x->body.as<LetStmtNode>();
  REQUIRE(let_m);
  CHECK(let_m->value.dtype() == DataType::int64());
  auto* alloc = let_m->body.as<AllocateNode>();
  REQUIRE(alloc);
  CHECK(alloc->buffer_var->dtype.is_handle());
  CHECK(alloc->scope == "global");
  CHECK(is_const_int(alloc->extents[0], 1024));
  auto* decl = alloc->body.as<DeclBufferNode>();
  REQUIRE(decl);
  CHECK(decl->buffer->data.get() == alloc->buffer_var.get());
  auto* decl2 = decl->body.as<DeclBufferNode>();
  REQUIRE(decl2);
  CHECK(decl2->buffer->data.get() != alloc->buffer_var.get());
  CHECK(decl2->buffer->dtype == DataType::int8());
  auto* seq = decl2->body.as<SeqStmtNode>();
  REQUIRE(seq);
  REQUIRE(seq->seq.size() == 3);
  auto* store = seq->seq[0].as<BufferStoreNode>();
  CHECK(store->buffer == decl->buffer);
  auto* load = store->value.as<BufferLoadNode>();
  CHECK(load->indices[0].get() == let_x->var.get());
  CHECK(seq->seq[1].as<EvaluateNode>()->value.get() == let_m->var.get());
  auto* iff = seq->seq[2].as<IfThenElseNode>();
  REQUIRE(iff);
  auto* elif = iff->else_case.as<IfThenElseNode>();
  REQUIRE(elif);
  REQUIRE(elif->else_case);
  CHECK(elif->else_case.as<BufferStoreNode>()->value.dtype() == DataType::float32());
}

TEST_CASE("parser: module with two functions", "[parser]") {
  const char* text = R"(# from tvm.script import ir as I
from tvm.script import tir as T
import tvm

@I.ir_module
class Module:
    @T.prim_func
    def add(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        for i in range(8):
            B[i] = A[i] + T.float32(1)

    @T.prim_func
    def main(a: T.handle, b: T.handle):
        A = T.match_buffer(a, (8,), "float32")
        B = T.match_buffer(b, [8])
        for i in range(8):
            B[i] = A[i] * 2.0
)";
  IRModule m = parse_module(text);
  REQUIRE(m.size() == 2);
  CHECK(m.functions()[0].first == "add");
  CHECK(m.functions()[1].first == "main");
  const PrimFunc& main = m.at("main");
  REQUIRE(main->params.size() == 2);
  REQUIRE(main->params[0].buffer);
  CHECK(main->params[0].var->name == "a");
  CHECK(main->params[0].buffer->name == "A");
  CHECK(main->params[1].buffer->dtype == DataType::float32());  // missing dtype
  auto* loop = main->body.as<ForNode>();
  REQUIRE(loop);
  CHECK(loop->body.as<BufferStoreNode>()->buffer == main->params[1].buffer);
}

TEST_CASE("parser: root block and function-level alloc_buffer", "[parser]") {
  const char* text = R"(@T.prim_func
def f(A: T.Buffer([16], "float32")):
    # with T.block("root"):
    B = T.alloc_buffer((16,), "float32")
    for i in range(16):
        B[i] = A[i]
)";
  PrimFunc f = parse_module(text).at("f");
  auto* root = root_realize(f);
  REQUIRE(root);
  CHECK(root->block->name == "root");
  REQUIRE(root->block->alloc_buffers.size() == 1);
  CHECK(root->block->alloc_buffers[0]->name == "B");
  CHECK(root->block->reads.empty());
  auto* loop = root->block->body.as<ForNode>();
  REQUIRE(loop);
  CHECK(loop->body.as<BufferStoreNode>()->buffer == root->block->alloc_buffers[0]);

  // An explicit root block is not wrapped again.
  const char* explicit_root = R"(@T.prim_func
def g(A: T.Buffer((16,), "float32")):
    with T.block("root"):
        B = T.alloc_buffer((16,))
        for i in range(16):
            with T.block("copy"):
                vi = T.axis.S(16, i)
                T.reads(A[vi])
                T.writes(B[vi])
                B[vi] = A[vi]
)";
  PrimFunc g = parse_module(explicit_root).at("g");
  auto* r = root_realize(g);
  REQUIRE(r);
  CHECK(r->block->alloc_buffers.size() == 1);
  REQUIRE(r->block->body.as<ForNode>());
  CHECK(r->block->body.as<ForNode>()->body.as<BlockRealizeNode>()->block->name == "copy");
}

TEST_CASE("parser: nested blocks, reads list, zero-dim buffer, CRLF", "[parser]") {
  std::string text =
      "@T.prim_func\r\n"
      "def f(A: T.Buffer((4, 4), \"float32\"), S: T.Buffer((), \"float32\")):\r\n"
      "    with T.block(\"outer\"):\r\n"
      "        T.reads([A[0:4, 0:4]])\r\n"
      "        T.writes([S[()]])\r\n"
      "        for i in range(4):\r\n"
      "            with T.block(\"inner\"):\r\n"
      "                vi = T.axis.R(4, i)\r\n"
      "                T.reads(A[vi, 0:4])\r\n"
      "                T.writes(S[()])\r\n"
      "                S[()] = S[()] + A[vi, 0]\r\n";
  PrimFunc f = parse_module(text).at("f");
  auto* root = root_realize(f);
  REQUIRE(root);
  auto* outer = root->block->body.as<BlockRealizeNode>();
  REQUIRE(outer);
  CHECK(outer->block->name == "outer");
  CHECK(is_const_int(outer->block->reads[0].region[1].extent, 4));
  CHECK(outer->block->writes[0].region.empty());
  auto* inner = outer->block->body.as<ForNode>()->body.as<BlockRealizeNode>();
  REQUIRE(inner);
  CHECK(inner->block->iter_vars[0].kind == IterKind::Reduce);
  CHECK(inner->block->body.as<BufferStoreNode>()->indices.empty());
}

TEST_CASE("parser: symbolic shapes and scalar params after buffers", "[parser]") {
  const char* text = R"(@T.prim_func
def f(A: T.Buffer((n, 4), "int64"), n: T.int32):
    for i, j in T.grid(n, 4):
        A[i, j] = A[i, j] + 1
)";
  PrimFunc f = parse_module(text).at("f");
  CHECK(f->params[0].buffer->shape[0].get() == f->params[1].var.get());
  auto* store = f->body.as<ForNode>()->body.as<ForNode>()->body.as<BufferStoreNode>();
  CHECK(store->value.as<BinaryNode>()->b.dtype() == DataType::int64());
}

TEST_CASE("parser: infers reads and writes when omitted", "[parser][needs-regions]") {
  const char* text = R"(@T.prim_func
def f(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    for i in range(8):
        with T.block("B"):
            vi = T.axis.spatial(8, i)
            B[vi] = A[vi]
)";
  PrimFunc f = parse_module(text).at("f");
  auto* block = root_body(f).as<ForNode>()->body.as<BlockRealizeNode>()->block.get();
  REQUIRE(block->reads.size() == 1);
  CHECK(block->reads[0].buffer == f->params[0].buffer);
  REQUIRE(block->writes.size() == 1);
  CHECK(block->writes[0].buffer == f->params[1].buffer);
}
