// The TIRx surface TVM 0.27 prints (ir/text/surface.h) next to the classic
// one, the constructs TVM prints that came with it (node calls, list
// annotations, slices), and the trace arguments of TVM 0.27's primitives.
#include <catch2/catch.hpp>

#include "ir/eval/interpreter.h"
#include "ir/structural.h"
#include "ir/text/parser.h"
#include "ir/text/printer.h"
#include "schedule/schedule.h"
#include "schedule/trace.h"

using namespace tirc;

namespace {

// The same argmax-like reduction in both surfaces: a typed let, a block
// attribute, a block-level buffer.
const char* kTirx = R"(# from tvm.script import tirx as T

@T.prim_func(s_tir=True)
def main(x: T.Buffer((4, 16), "float32"), y: T.Buffer((4,), "int32")):
    T.func_attr({"layout_free_buffers": [1], "tirx.noalias": True})
    best = T.sblock_alloc_buffer((4,))
    for i, k in T.grid(4, 16):
        with T.sblock("red"):
            vi, vk = T.axis.remap("SR", [i, k])
            T.reads(x[vi, vk])
            T.writes(y[vi], best[vi])
            T.sblock_attr({"buffer_dim_align": [[0, 0, 8, 1]]})
            with T.init():
                y[vi] = -1
                best[vi] = T.float32(-1000.0)
            v_y: T.let[T.int32] = T.Select(best[vi] < x[vi, vk], vk, y[vi])
            y[vi] = v_y
            best[vi] = T.max(best[vi], x[vi, vk])
)";

const char* kClassic = R"(# from tvm.script import tir as T

@T.prim_func
def main(x: T.Buffer((4, 16), "float32"), y: T.Buffer((4,), "int32")):
    T.func_attr({"layout_free_buffers": [1], "tirx.noalias": True})
    best = T.alloc_buffer((4,))
    for i, k in T.grid(4, 16):
        with T.block("red"):
            vi, vk = T.axis.remap("SR", [i, k])
            T.reads(x[vi, vk])
            T.writes(y[vi], best[vi])
            T.block_attr({"buffer_dim_align": [[0, 0, 8, 1]]})
            with T.init():
                y[vi] = -1
                best[vi] = T.float32(-1000.0)
            v_y: T.int32 = T.Select(best[vi] < x[vi, vk], vk, y[vi])
            y[vi] = v_y
            best[vi] = T.max(best[vi], x[vi, vk])
)";

IRModule parse_with_surface(std::string_view text, Surface* surface) {
  ParseOptions options;
  options.surface = surface;
  return parse_module(text, "<test>", options);
}

const char* kMatmul = R"(
@T.prim_func
def main(A: T.Buffer((16, 8), "float32"), B: T.Buffer((8, 12), "float32"), C: T.Buffer((16, 12), "float32")):
    for i, j, k in T.grid(16, 12, 8):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            T.reads(A[vi, vk], B[vk, vj])
            T.writes(C[vi, vj])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)";

const char* kMixedWidths = R"(
@T.prim_func
def main(x: T.Buffer((T.int64(3), 2), "float32"), y: T.Buffer((T.int64(3), 2), "float32")):
    for i, j in T.grid(T.int64(3), 2):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(x[vi, vj])
            T.writes(y[vi, vj])
            y[vi, vj] = x[vi, vj] * T.float32(2)
)";

Schedule replayed(const char* program, const std::string& script) {
  Schedule sch(parse_module(program));
  Trace::parse(script).apply_to(sch);
  return sch;
}

}  // namespace

TEST_CASE("tirx: both surfaces parse to the same program", "[parser][tirx]") {
  Surface a = Surface::classic, b = Surface::tirx;
  const IRModule tirx = parse_with_surface(kTirx, &a);
  const IRModule classic = parse_with_surface(kClassic, &b);
  CHECK(a == Surface::tirx);
  CHECK(b == Surface::classic);
  CHECK(structural_equal(tirx, classic));
  // s_tir=True alone marks the surface.
  Surface c = Surface::classic;
  parse_with_surface(std::string("@T.prim_func(s_tir=True)") + std::string(kMatmul).substr(13), &c);
  CHECK(c == Surface::tirx);
}

TEST_CASE("tirx: printing either surface round-trips", "[parser][tirx]") {
  const IRModule m = parse_module(kTirx);
  const std::string tirx = print(m, Surface::tirx);
  const std::string classic = print(m, Surface::classic);
  CHECK(tirx.find("# from tvm.script import tirx as T") != std::string::npos);
  CHECK(tirx.find("@T.prim_func(s_tir=True)") != std::string::npos);
  CHECK(tirx.find("with T.sblock(\"red\"):") != std::string::npos);
  CHECK(tirx.find("T.sblock_alloc_buffer((4,), \"float32\")") != std::string::npos);
  CHECK(tirx.find("T.sblock_attr({\"buffer_dim_align\": [[0, 0, 8, 1]]})") != std::string::npos);
  CHECK(tirx.find("v_y: T.let[T.int32] = ") != std::string::npos);
  CHECK(tirx.find("\"layout_free_buffers\": [1]") != std::string::npos);
  for (const char* word : {"sblock", "s_tir", "T.let", "tirx as T"})
    CHECK(classic.find(word) == std::string::npos);
  Surface seen = Surface::classic;
  CHECK(structural_equal(parse_with_surface(tirx, &seen), m));
  CHECK(seen == Surface::tirx);
  CHECK(print(parse_module(tirx), Surface::tirx) == tirx);
  CHECK(print(parse_module(classic)) == classic);
  // A function without blocks carries no s_tir mark.
  const IRModule flat = parse_module(R"(
@T.prim_func
def main(a: T.Buffer((4,), "float32")):
    for i in range(4):
        a[i] = T.float32(1)
)");
  CHECK(print(flat, Surface::tirx).find("@T.prim_func\n") != std::string::npos);
}

TEST_CASE("tirx: operators written as node calls", "[parser][tirx]") {
  const Var a = make_var("a"), b = make_var("b");
  const auto same = [&](const char* call, const char* infix) {
    INFO(call);
    CHECK(structural_equal(parse_expr(call, {a, b}), parse_expr(infix, {a, b})));
  };
  same("T.Add(a, b)", "a + b");
  same("T.Sub(a, b)", "a - b");
  same("T.Mul(a, b)", "a * b");
  same("T.FloorDiv(a, b)", "a // b");
  same("T.FloorMod(a, b)", "a % b");
  same("T.Div(a, b)", "T.truncdiv(a, b)");
  same("T.Mod(a, b)", "T.truncmod(a, b)");
  same("T.Min(a, b)", "T.min(a, b)");
  same("T.Max(a, b)", "T.max(a, b)");
  same("T.LT(a, b)", "a < b");
  same("T.GE(a, b)", "a >= b");
  same("T.EQ(a, b)", "a == b");
  same("T.NE(a, b)", "a != b");
  same("T.And(a < b, b < a)", "a < b and b < a");
  same("T.Or(a < b, b < a)", "a < b or b < a");
  same("T.Not(a < b)", "not a < b");
  // TVM writes T.Mul(0, 137) so that the product stays unfolded: so does tirc.
  const Expr product = parse_expr("T.Mul(0, 137) + a", {a});
  const auto* add = product.as<BinaryNode>();
  REQUIRE(add);
  CHECK(add->a.kind() == ExprKind::Mul);
  CHECK_THROWS_WITH(parse_expr("T.Not(a)", {a}), Catch::Contains("T.Not needs a bool argument"));
  CHECK_THROWS_WITH(parse_expr("T.Add(a)", {a}), Catch::Contains("T.Add"));
}

TEST_CASE("tirx: list annotation values", "[parser][tirx]") {
  const IRModule m = parse_module(kTirx);
  const PrimFunc& f = m.functions()[0].second;
  const std::vector<Expr>* list = annotation_list_elements(f->attrs.at("layout_free_buffers"));
  REQUIRE(list);
  REQUIRE(list->size() == 1);
  CHECK(is_const_int((*list)[0], 1));
  CHECK_FALSE(annotation_list_elements(f->attrs.at("tirx.noalias")));
  CHECK_THROWS_WITH(
      parse_module(R"(
@T.prim_func
def main(a: T.Buffer((4,), "float32")):
    T.func_attr({"k": [1, a[0]]})
    a[0] = T.float32(1)
)"),
      Catch::Contains("annotation value must be a constant") && Catch::Contains("or a list"));
  CHECK_THROWS_WITH(parse_module(R"(
@T.prim_func
def main(a: T.Buffer((4,), "float32")):
    T.func_attr({"k": [1 2]})
    a[0] = T.float32(1)
)"),
                    Catch::Contains("to close the list"));
}

TEST_CASE("tirx: a typed let needs its closing bracket", "[parser][tirx]") {
  CHECK_THROWS_WITH(parse_module(R"(
@T.prim_func
def main(a: T.Buffer((4,), "int32")):
    v: T.let[T.int32 T.int32] = 1
    a[0] = v
)"),
                    Catch::Contains("expected ']' to close T.let["));
}

TEST_CASE("tirx: a slice's stop prints back as written", "[parser][tirx]") {
  // blockize's regions: the extent parses as stop - start and must not grow
  // on every round trip.
  const char* text = R"(
@T.prim_func
def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    for io in range(4):
        with T.block("outer"):
            vio = T.axis.spatial(4, io)
            T.reads(A[vio * 4:vio * 4 + 4])
            T.writes(B[vio * 4:vio * 4 + 4])
            for ii in range(4):
                with T.block("inner"):
                    vi = T.axis.spatial(16, vio * 4 + ii)
                    T.reads(A[vi])
                    T.writes(B[vi])
                    B[vi] = A[vi]
)";
  const std::string once = print(parse_module(text));
  CHECK(once.find("A[vio * 4:vio * 4 + 4]") != std::string::npos);
  CHECK(print(parse_module(once)) == once);
}

TEST_CASE("tirx traces: TVM 0.27's names and arguments", "[schedule][trace][tirx]") {
  SECTION("get_sblock is get_block") {
    Schedule sch = replayed(kMatmul,
                            "# from tvm import s_tir\n"
                            "def apply_trace(sch: s_tir.Schedule) -> None:\n"
                            "  b0 = sch.get_sblock(name=\"C\", func_name=\"main\")\n"
                            "  l1, l2, l3 = sch.get_loops(block=b0)\n");
    CHECK(sch.trace().print().find("sch.get_block(name=\"C\", func_name=\"main\")") !=
          std::string::npos);
  }
  SECTION("disable_predication: honoured on an exact split, refused on one that needs a guard") {
    Schedule sch = replayed(kMatmul,
                            "b0 = sch.get_block(name=\"C\")\n"
                            "l1, l2, l3 = sch.get_loops(block=b0)\n"
                            "l4, l5 = sch.split(loop=l1, factors=[None, 4], "
                            "preserve_unit_iters=True, disable_predication=True)\n");
    CHECK(sch.trace().print().find("disable_predication=True") != std::string::npos);
    CHECK(check_equivalent(parse_module(kMatmul), "main", sch.mod(), "main", 2).equal);
    CHECK_THROWS_WITH(replayed(kMatmul,
                               "b0 = sch.get_block(name=\"C\")\n"
                               "l1, l2, l3 = sch.get_loops(block=b0)\n"
                               "l4, l5 = sch.split(loop=l1, factors=[None, 5], "
                               "disable_predication=True)\n"),
                      Catch::Contains("disable_predication=True") &&
                          Catch::Contains("exceeds the extent 16 of loop i"));
    // False is the default and is not recorded.
    Schedule plain = replayed(kMatmul,
                              "b0 = sch.get_block(name=\"C\")\n"
                              "l1, l2, l3 = sch.get_loops(block=b0)\n"
                              "l4, l5 = sch.split(loop=l1, factors=[None, 5], "
                              "disable_predication=False)\n");
    CHECK(plain.trace().print().find("disable_predication") == std::string::npos);
  }
  SECTION("transform_layout: pad_value None and assume_injective_transform accepted") {
    Schedule sch = replayed(kMatmul,
                            "b0 = sch.get_block(name=\"C\")\n"
                            "sch.transform_layout(block=b0, buffer=(\"read\", 1), "
                            "index_map=lambda k, j: (j // 4, k, j % 4,), pad_value=None, "
                            "assume_injective_transform=False)\n");
    CHECK(sch.mod().functions()[0].second->params[1].buffer->shape.size() == 3);
    CHECK_THROWS_WITH(replayed(kMatmul,
                               "b0 = sch.get_block(name=\"C\")\n"
                               "sch.transform_layout(block=b0, buffer=(\"read\", 1), "
                               "index_map=lambda k, j: (j // 4, k, j % 4,), pad_value=0.0)\n"),
                      Catch::Contains("pad_value=0.0 is not supported"));
  }
  SECTION("annotate with a sampled value annotates with what was drawn") {
    Schedule sch = replayed(kMatmul,
                            "b0 = sch.get_block(name=\"C\")\n"
                            "v1 = sch.sample_categorical(candidates=[0, 16, 64], "
                            "probs=[0.2, 0.3, 0.5], decision=2)\n"
                            "sch.annotate(block_or_loop=b0, ann_key=\"unroll\", ann_val=v1)\n");
    CHECK(print(sch.mod()).find("T.block_attr({\"unroll\": 64})") != std::string::npos);
  }
}

TEST_CASE("tirx: fusing loops of two integer widths", "[schedule][tirx]") {
  // TVM prints int64 shapes with int32 unit loops; the fused loop is int64 and
  // each old variable keeps its own type.
  Schedule sch = replayed(kMixedWidths,
                          "b0 = sch.get_block(name=\"B\")\n"
                          "l1, l2 = sch.get_loops(block=b0)\n"
                          "l3 = sch.fuse(l1, l2)\n");
  const std::string text = print(sch.mod());
  CHECK(text.find("for i_j_fused in range(T.int64(6)):") != std::string::npos);
  CHECK(text.find("T.Cast(\"int32\", i_j_fused % T.int64(2))") != std::string::npos);
  CHECK(check_equivalent(parse_module(kMixedWidths), "main", sch.mod(), "main", 2).equal);
}

TEST_CASE("tirx: decompose_reduction of a block whose reads omit its output", "[schedule][tirx]") {
  // kMatmul's block, as TVM prints reduction blocks, reads C without listing
  // it; the update block, with no init, lists it first (as TVM's does).
  Schedule sch = replayed(kMatmul,
                          "b0 = sch.get_block(name=\"C\")\n"
                          "l1, l2, l3 = sch.get_loops(block=b0)\n"
                          "b4 = sch.decompose_reduction(block=b0, loop=l3)\n");
  const std::string text = print(sch.mod());
  const size_t update = text.find("with T.block(\"C_update\")");
  REQUIRE(update != std::string::npos);
  CHECK(text.find("T.reads(C[", update) < text.find("T.writes(C[", update));
  CHECK(check_equivalent(parse_module(kMatmul), "main", sch.mod(), "main", 2).equal);
}

TEST_CASE("tirx: rfactor keeps TVM's reads, so later buffer indices agree", "[schedule][tirx]") {
  // kMatmul's block leaves C out of T.reads (as TVM prints it): the rfactor
  // block reads A and B only and the write-back block C_rf only, as in TVM,
  // so cache_read(read_buffer_index=0) of the rfactor block is A's.
  Schedule sch = replayed(kMatmul,
                          "b0 = sch.get_block(name=\"C\")\n"
                          "l1, l2, l3 = sch.get_loops(block=b0)\n"
                          "l4, l5 = sch.split(loop=l3, factors=[None, 4])\n"
                          "b6 = sch.rfactor(loop=l5, factor_axis=0)\n"
                          "b7 = sch.cache_read(block=b6, read_buffer_index=0, "
                          "storage_scope=\"global\")\n");
  const std::string text = print(sch.mod());
  CHECK(text.find("A_global = T.alloc_buffer") != std::string::npos);
  const size_t rf = text.find("with T.block(\"C_rf\")");
  REQUIRE(rf != std::string::npos);
  CHECK(text.find("T.reads(", rf) == text.find("T.reads(A_global[", rf));
  CHECK(check_equivalent(parse_module(kMatmul), "main", sch.mod(), "main", 2).equal);
  // A block that lists its output keeps listing it in both new blocks.
  std::string listing = kMatmul;
  listing.replace(listing.find("T.reads(A[vi, vk]"), 8, "T.reads(C[vi, vj], ");
  Schedule classic = replayed(listing.c_str(),
                              "b0 = sch.get_block(name=\"C\")\n"
                              "l1, l2, l3 = sch.get_loops(block=b0)\n"
                              "l4, l5 = sch.split(loop=l3, factors=[None, 4])\n"
                              "b6 = sch.rfactor(loop=l5, factor_axis=0)\n");
  const std::string classic_text = print(classic.mod());
  const size_t classic_rf = classic_text.find("with T.block(\"C_rf\")");
  CHECK(classic_text.find("T.reads(", classic_rf) ==
        classic_text.find("T.reads(C_rf[", classic_rf));
}

TEST_CASE("tirx: a predicate that only bounds the domain may be dropped, no other",
          "[schedule][tirx]") {
  const char* program = R"(
@T.prim_func
def main(a: T.Buffer((16,), "float32"), c: T.Buffer((16,), "float32")):
    b = T.alloc_buffer((16,))
    for i in range(16):
        with T.block("B"):
            vi = T.axis.spatial(16, i)
            b[vi] = a[vi] + T.float32(1)
    for i in range(16):
        with T.block("C"):
            vi = T.axis.spatial(16, i)
            c[vi] = b[vi] * T.float32(2)
)";
  // An inexact split gives B `T.where(i_0 * 5 + i_1 < 16)`: inlining drops it.
  Schedule inlined = replayed(program,
                              "b0 = sch.get_block(name=\"B\")\n"
                              "l1, = sch.get_loops(block=b0)\n"
                              "l2, l3 = sch.split(loop=l1, factors=[None, 5])\n"
                              "sch.compute_inline(block=b0)\n");
  CHECK(check_equivalent(parse_module(program), "main", inlined.mod(), "main", 2).equal);
  // A predicate that cuts the domain short changes what B computes: refused.
  std::string cut = program;
  cut.replace(cut.find("            b[vi] ="), 0, "            T.where(i < 8)\n");
  CHECK_THROWS_WITH(replayed(cut.c_str(),
                             "b0 = sch.get_block(name=\"B\")\n"
                             "sch.compute_inline(block=b0)\n"),
                    Catch::Contains("does more than keep its iteration values in their domains"));
  CHECK_THROWS_WITH(replayed(cut.c_str(),
                             "b0 = sch.get_block(name=\"B\")\n"
                             "b1 = sch.get_block(name=\"C\")\n"
                             "l2, = sch.get_loops(block=b1)\n"
                             "sch.compute_at(block=b0, loop=l2)\n"),
                    Catch::Contains("does more than keep its iteration values in their domains"));
}
