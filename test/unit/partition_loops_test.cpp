// partition-loops: loops guarded by the T.where of a non-dividing split are
// split into an unguarded main part and a guarded or shrunk tail; every shape
// of guard computes what the interpreter computes on the unpartitioned
// program, and the x86 generator's vector and contraction paths take the main
// part.
#include <catch2/catch.hpp>

#include <functional>
#include <sstream>

#include "bench/matmul_schedules.h"
#include "ir/functor.h"
#include "ir/lowered_form.h"
#include "ir/text/printer.h"
#include "passes/passes.h"
#include "passes/pipeline.h"
#include "schedule/schedule.h"
#include "schedule/trace.h"
#include "x86_test_util.h"

using namespace tirc;

namespace {

// B[i, j] = A[i, j] * 3 + 1 over rows x cols, block "B".
IRModule elementwise(int64_t rows, int64_t cols) {
  std::ostringstream os;
  os << "@T.prim_func\n"
     << "def main(A: T.Buffer((" << rows << ", " << cols << "), \"float32\"), B: T.Buffer((" << rows
     << ", " << cols << "), \"float32\")):\n"
     << "    for i, j in T.grid(" << rows << ", " << cols << "):\n"
     << "        with T.block(\"B\"):\n"
     << "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"
     << "            B[vi, vj] = A[vi, vj] * T.float32(3) + T.float32(1)\n";
  return parse_module(os.str());
}

// The pipeline up to partition-loops and the pass itself, separately.
struct Lowered {
  PrimFunc before;  // after simplify
  PrimFunc after;   // after partition-loops
  PrimFunc full;    // lower()
};

Lowered lower_split(const PrimFunc& f) {
  Lowered out;
  lower(f, [&](std::string_view pass, const PrimFunc& r) {
    if (pass == "simplify") out.before = r;
    if (pass == "partition-loops") out.after = r;
  });
  out.full = lower(f);
  return out;
}

// Every loop of s, outermost first, with its depth of enclosing ifs.
void walk_loops(const Stmt& s, const std::function<void(const ForNode&)>& f) {
  struct Walker : StmtVisitor {
    const std::function<void(const ForNode&)>& fn;
    explicit Walker(const std::function<void(const ForNode&)>& g) : fn(g) {}
    void visit_for(const ForNode* n) override {
      fn(*n);
      StmtVisitor::visit_for(n);
    }
  } w(f);
  w.visit(s);
}

int count_ifs(const Stmt& s) {
  struct Counter : StmtVisitor {
    int n = 0;
    void visit_if(const IfThenElseNode* i) override {
      ++n;
      StmtVisitor::visit_if(i);
    }
  } c;
  c.visit(s);
  return c.n;
}

// The loop over `name` (the main part keeps the original variable's name).
const ForNode* loop_named(const PrimFunc& f, const std::string& name) {
  const ForNode* found = nullptr;
  walk_loops(f->body, [&](const ForNode& n) {
    if (!found && n.loop_var->name == name) found = &n;
  });
  return found;
}

int count_loops(const PrimFunc& f, ForKind kind) {
  int n = 0;
  walk_loops(f->body, [&](const ForNode& l) { n += l.for_kind == kind; });
  return n;
}

// Interpreter (checking mode: races count) on the scheduled program against
// the partitioned one, lowered form, and the x86 generator on every host ISA.
void check_all(const PrimFunc& scheduled, const Lowered& l, bool contraction = false) {
  INFO(print_func(l.after, "main"));
  EquivResult eq = check_equivalent(scheduled, l.after, 3);
  INFO(eq.message);
  REQUIRE(eq.equal);
  REQUIRE_NOTHROW(check_lowered_form(l.full));
  x86test::RunOptions o;
  o.contraction_kernels = contraction;
  x86test::expect_same_all_targets(l.full, o);
}

}  // namespace

TEST_CASE("partition-loops: prefix guard of a split by 7 on 100", "[passes][partition]") {
  Schedule s(elementwise(3, 100));
  auto loops = s.get_loops(s.get_block("B"));
  s.split(loops[1], {nullptr, 7});  // 15 * 7 = 105: if j_0 * 7 + j_1 < 100
  PrimFunc f = s.func("main");
  Lowered l = lower_split(f);
  CHECK(count_ifs(l.before->body) == 1);
  // Main part j_0 in [0, 14) without the guard; the tail j_0 = 14 shrinks its
  // inner loop to the 2 iterations that remain, so no if is left at all.
  const ForNode* main = loop_named(l.after, "j_0");
  REQUIRE(main);
  CHECK(as_const_int(main->extent) == 14);
  CHECK(count_ifs(main->body) == 0);
  CHECK(count_ifs(l.after->body) == 0);
  CHECK(print_func(l.after, "main").find("for j_1_1 in range(2):") != std::string::npos);
  check_all(f, l);
}

TEST_CASE("partition-loops: conjunction of two guards (splits by 5 on 17 and 7 on 100)",
          "[passes][partition]") {
  Schedule s(elementwise(17, 100));
  auto loops = s.get_loops(s.get_block("B"));
  auto is = s.split(loops[0], {nullptr, 5});
  auto js = s.split(loops[1], {nullptr, 7});
  s.reorder({is[0], js[0], is[1], js[1]});
  PrimFunc f = s.func("main");
  Lowered l = lower_split(f);
  CHECK(print_func(l.before, "main").find(" and ") != std::string::npos);
  const ForNode* i0 = loop_named(l.after, "i_0");
  REQUIRE(i0);
  CHECK(as_const_int(i0->extent) == 3);
  const ForNode* j0 = loop_named(l.after, "j_0");
  REQUIRE(j0);
  CHECK(as_const_int(j0->extent) == 14);
  CHECK(count_ifs(i0->body) == 0);       // both conjuncts hold in the main part
  CHECK(count_ifs(l.after->body) == 0);  // and every tail is exact
  check_all(f, l);
}

TEST_CASE("partition-loops: guard on an outer loop var (split by 6 on 256, inner part outside)",
          "[passes][partition]") {
  Schedule s(elementwise(4, 256));
  auto loops = s.get_loops(s.get_block("B"));
  auto js = s.split(loops[1], {nullptr, 6});
  s.reorder({js[1], loops[0], js[0]});  // j_1, i, j_0: the guard's outer loop is j_1
  PrimFunc f = s.func("main");
  Lowered l = lower_split(f);
  // j_1 < 4 never needs the guard (42 * 6 + 3 < 256); j_1 in [4, 6) keeps it
  // around a j_0 loop, which is then split in turn.
  const ForNode* j1 = loop_named(l.after, "j_1");
  REQUIRE(j1);
  CHECK(as_const_int(j1->extent) == 4);
  CHECK(count_ifs(j1->body) == 0);
  CHECK(count_ifs(l.after->body) == 0);
  check_all(f, l);
}

TEST_CASE("partition-loops: a parallel loop keeps its kind on every part", "[passes][partition]") {
  Schedule s(elementwise(17, 8));
  auto loops = s.get_loops(s.get_block("B"));
  auto is = s.split(loops[0], {nullptr, 5});
  s.parallel(is[0]);
  PrimFunc f = s.func("main");
  Lowered l = lower_split(f);
  CHECK(count_loops(l.before, ForKind::Parallel) == 1);
  // i_0 in [0, 3) and i_0 = 3: two parallel loops one after the other.
  CHECK(count_loops(l.after, ForKind::Parallel) == 2);
  const ForNode* main = loop_named(l.after, "i_0");
  REQUIRE(main);
  CHECK(main->for_kind == ForKind::Parallel);
  CHECK(count_ifs(main->body) == 0);
  check_all(f, l);
}

TEST_CASE("partition-loops: vectorized loop guarded by its own variable", "[passes][partition]") {
  Schedule s(elementwise(3, 100));
  auto loops = s.get_loops(s.get_block("B"));
  auto js = s.split(loops[1], {nullptr, 16});
  s.vectorize(js[1]);
  PrimFunc f = s.func("main");
  Lowered l = lower_split(f);
  // Main part: 6 full vectors; tail: a 4-lane vectorized loop without the guard.
  CHECK(count_ifs(l.after->body) == 0);
  CHECK(count_loops(l.after, ForKind::Vectorized) == 2);
  CHECK(print_func(l.after, "main").find("in T.vectorized(4):") != std::string::npos);
  check_all(f, l);
  for (const Target& t : x86test::targets()) {
    GeneratorStats stats = x86test::expect_same(l.full, t);
    CHECK(stats.vectorized_loops == 2);
    CHECK(stats.serial_fallbacks == 0);
  }
}

TEST_CASE("partition-loops: vector main part, scalar tail where the guard stays",
          "[passes][partition]") {
  PrimFunc f = x86test::tir("A: T.Buffer((64,), \"float32\"), B: T.Buffer((64,), \"float32\")",
                            "    for i in T.vectorized(16):\n"
                            "        for j in range(3):\n"
                            "            B[i * 3 + j] = A[i * 3 + j]\n"
                            "            if i * 3 + j < 40:\n"
                            "                B[i * 3 + j] = B[i * 3 + j] + T.float32(1)\n"
                            "    for i in T.vectorized(16):\n"
                            "        if 2 <= i and i < 13:\n"
                            "            B[i + 48] = A[i + 48] * T.float32(2)\n");
  PrimFunc p = partition_loops(f);
  std::string text = print_func(p, "main");
  INFO(text);
  // i * 3 + 2 < 40 up to i = 12; i in [13, 16) keeps the guard beside the
  // unguarded store, so it runs serially.
  CHECK(text.find("for i in T.vectorized(13):") != std::string::npos);
  CHECK(text.find("for i_tail in range(13, 16):") != std::string::npos);
  // Outside [2, 13) the second body does nothing: only the middle remains.
  CHECK(text.find("in T.vectorized(2, 13):") != std::string::npos);
  CHECK(count_ifs(p->body) == 1);
  EquivResult eq = check_equivalent(f, p, 3);
  INFO(eq.message);
  CHECK(eq.equal);
  x86test::expect_same_all_targets(p);
}

TEST_CASE("partition-loops: unrolled inner part of a split by 5 on 17", "[passes][partition]") {
  Schedule s(elementwise(2, 17));
  auto loops = s.get_loops(s.get_block("B"));
  auto js = s.split(loops[1], {nullptr, 5});
  s.unroll(js[1]);
  PrimFunc f = s.func("main");
  Lowered l = lower_split(f);
  CHECK(count_ifs(l.after->body) == 0);
  CHECK(count_loops(l.after, ForKind::Unrolled) == 2);  // 5 and the 2-iteration tail
  check_all(f, l);
}

TEST_CASE("partition-loops: leaves loops alone when nothing can be proved", "[passes][partition]") {
  PrimFunc f = x86test::tir(
      "A: T.Buffer((32,), \"float32\"), B: T.Buffer((32,), \"float32\"), "
      "n: T.int32",
      "    for i in range(32):\n"
      "        if A[i] > T.float32(0):\n"
      "            B[i] = A[i]\n"
      "    for i in range(32):\n"
      "        if i * i < 50:\n"
      "            B[i] = B[i] + T.float32(1)\n"
      "    for i in range(32):\n"
      "        if i < n:\n"
      "            B[i] = B[i] * T.float32(2)\n"
      "    for i in range(32):\n"
      "        if i % 3 == 0:\n"
      "            B[i] = B[i] - T.float32(1)\n");
  PrimFunc p = partition_loops(f);
  CHECK(p.get() == f.get());
}

TEST_CASE(
    "partition-loops: the hand matmul schedule with rows split by 6 takes the contraction "
    "emitter",
    "[passes][partition]") {
  // 100 rows: 17 row blocks of 6, the last one 4 rows.
  const int64_t m = 100, n = 64, k = 16;
  for (Isa isa : {Isa::avx512, Isa::avx2}) {
    std::string script = matmul_schedule(m, n, k, Target{isa}, true);
    const std::string key = "sch.split(loop=l1, factors=[None, ";
    const size_t at = script.find(key);
    REQUIRE(at != std::string::npos);
    const size_t from = at + key.size();
    script = script.substr(0, from) + "6" + script.substr(script.find(']', from));
    INFO(script);
    IRModule mod = parse_module(matmul_tir(m, n, k));
    Schedule sch(mod);
    Trace::parse(script).apply_to(sch);
    PrimFunc f = sch.func("main");
    Lowered l = lower_split(f);
    CHECK(count_ifs(l.before->body) >= 1);
    CHECK(count_ifs(l.after->body) == 0);
    EquivResult eq = check_equivalent(mod.at("main"), l.after, 1);
    INFO(eq.message);
    CHECK(eq.equal);
    if (!host_supports(Target{isa})) continue;
    x86test::RunOptions o;
    o.contraction_kernels = true;
    o.seeds = 1;
    GeneratorStats stats = x86test::expect_same(l.full, Target{isa}, o);
    CHECK(stats.contraction_nests == 2);  // the main part and the 4-row tail
    CHECK(stats.serial_fallbacks == 0);
  }
}

// A GPU block's serial loop around its thread loops (a convolution's window
// rows r, each a copy into shared memory that tests the pad's border, then a
// product): the guard holds on a middle range of r, but parts would repeat
// both phases; the loops inside the threads are still partitioned.
TEST_CASE("partition-loops: a loop around thread-bound loops stays whole", "[passes][partition]") {
  PrimFunc f = x86test::tir(
      "X: T.Buffer((8, 16), \"float32\"), Z: T.Buffer((8, 3, 16, 3), \"float32\")",
      "    for b in T.thread_binding(8, thread=\"blockIdx.x\"):\n"
      "        for r in range(3):\n"
      "            for t in T.thread_binding(16, thread=\"threadIdx.x\"):\n"
      "                for q in range(3):\n"
      "                    Z[b, r, t, q] = T.if_then_else(b + r - 1 >= 0 and b + r - 1 < 8 "
      "and t + q - 1 >= 0 and t + q - 1 < 16, X[b + r - 1, t + q - 1], T.float32(0))\n");
  PrimFunc p = partition_loops(f);
  INFO(print_func(p, "main"));
  CHECK(loop_named(p, "r") != nullptr);
  CHECK(loop_named(p, "r_head") == nullptr);
  CHECK(loop_named(p, "r_tail") == nullptr);
  // q, inside the thread loop, is partitioned by its own guard.
  CHECK(loop_named(p, "q_head") != nullptr);
  CHECK(loop_named(p, "q_tail") != nullptr);
  EquivResult eq = check_equivalent(f, p, 2);
  INFO(eq.message);
  CHECK(eq.equal);
}

TEST_CASE("partition-loops: if_then_else conditions of a pad and a concat", "[passes][partition]") {
  // P[i, j] = X[i - 1, j - 1] inside, 0 on the border: a 3 x 3 grid of parts,
  // only the inner one reads X, none keeps a selection on its loops.
  const char* pad =
      "@T.prim_func\n"
      "def main(X: T.Buffer((6, 20), \"float32\"), P: T.Buffer((8, 22), \"float32\")):\n"
      "    for i in range(8):\n"
      "        for j in T.vectorized(22):\n"
      "            with T.block(\"P\"):\n"
      "                vi, vj = T.axis.remap(\"SS\", [i, j])\n"
      "                P[vi, vj] = T.if_then_else(vi - 1 >= 0 and vi - 1 < 6 and vj >= 1 and "
      "vj - 1 < 20, X[vi - 1, vj - 1], T.float32(0))\n";
  // C[c, w] from A for c < 3, from B after: the channel loop splits in two.
  const char* concat =
      "@T.prim_func\n"
      "def main(A: T.Buffer((3, 17), \"float32\"), B: T.Buffer((2, 17), \"float32\"), C: "
      "T.Buffer((5, 17), \"float32\")):\n"
      "    for c in range(5):\n"
      "        for w in T.vectorized(17):\n"
      "            with T.block(\"C\"):\n"
      "                vc, vw = T.axis.remap(\"SS\", [c, w])\n"
      "                C[vc, vw] = T.if_then_else(vc < 3, T.max(A[vc, vw], T.float32(0)), "
      "B[vc - 3, vw])\n";
  for (const char* text : {pad, concat}) {
    PrimFunc f = parse_module(text).functions().front().second;
    Lowered l = lower_split(f);
    const std::string printed = print_func(l.after, "main");
    INFO(printed);
    CHECK(printed.find("if_then_else") == std::string::npos);
    check_all(f, l);
    for (const Target& t : x86test::targets()) {
      GeneratorStats stats = x86test::expect_same(l.full, t);
      CHECK(stats.serial_fallbacks == 0);
    }
  }
  // A condition the loops cannot decide (it reads memory) stays a selection.
  PrimFunc g = x86test::tir("A: T.Buffer((16,), \"float32\"), B: T.Buffer((16,), \"float32\")",
                            "    for i in range(16):\n"
                            "        B[i] = T.if_then_else(A[i] > T.float32(0), A[i], "
                            "T.float32(1))\n");
  Lowered lg = lower_split(g);
  CHECK(print_func(lg.after, "main").find("if_then_else") != std::string::npos);
}

TEST_CASE("partition-loops: an inlined pad splits output loops, never reduction loops",
          "[passes][partition]") {
  // Y[o] += if_then_else(0 <= o + k - 1 < 16, X[o + k - 1], 0) * W[k]: the
  // guard of an operand (a pad inlined into a convolution). The output loop
  // splits into the border iterations and an unguarded middle; the
  // reduction loop, and with the reduction outermost every loop inside it,
  // stays whole (the contraction emitter resolves the guard per product).
  auto conv = [](const char* order) {
    return std::string(
               "@T.prim_func\n"
               "def main(X: T.Buffer((16,), \"float32\"), W: T.Buffer((3,), \"float32\"), Y: "
               "T.Buffer((16,), \"float32\")):\n"
               "    for ") +
           order + " in T.grid(" + (std::string(order) == "o, k" ? "16, 3" : "3, 16") +
           "):\n"
           "        with T.block(\"conv\"):\n"
           "            vo, vk = T.axis.remap(\"SR\", [o, k])\n"
           "            with T.init():\n"
           "                Y[vo] = T.float32(0)\n"
           "            Y[vo] = Y[vo] + T.if_then_else(0 <= vo + vk - 1 and vo + vk - 1 < 16, "
           "X[vo + vk - 1], T.float32(0)) * W[vk]\n";
  };
  {
    PrimFunc f = parse_module(conv("o, k")).functions().front().second;
    Lowered l = lower_split(f);
    const std::string printed = print_func(l.after, "main");
    INFO(printed);
    const ForNode* main = loop_named(l.after, "o");
    REQUIRE(main);
    CHECK(as_const_int(main->min) == 1);
    CHECK(as_const_int(main->extent) == 14);
    CHECK(print_func(l.after, "main").find("for k in range(3)") != std::string::npos);
    int whole_k = 0;
    walk_loops(l.after->body, [&](const ForNode& n) {
      if (n.loop_var->name.rfind("k", 0) == 0) whole_k += as_const_int(n.extent) == 3;
    });
    CHECK(whole_k == 3);  // in the head, the middle and the tail
    check_all(f, l);
  }
  {
    PrimFunc f = parse_module(conv("k, o")).functions().front().second;
    Lowered l = lower_split(f);
    INFO(print_func(l.after, "main"));
    int loops = 0;
    walk_loops(l.after->body, [&](const ForNode&) { ++loops; });
    CHECK(loops == 3);  // the init's loop and the two of the update, unsplit
    check_all(f, l);
  }
}
