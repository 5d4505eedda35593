// vectorize-loops (passes/vectorize_loops.h): every Vectorized loop of the
// lowered examples, of the lit schedule results and of the default schedules
// of the examples, rewritten for 16-, 32- and 64-byte vectors, computes in the
// interpreter bit for bit what the lowered program computes, in well-typed
// vector TIR; small programs show each refusal and each shape of the rewrite.
// TIRC_VECTORIZE_REPORT=1 prints what the corpus vectorized and refused; 2
// also every rewritten function of the corpus.
#include <catch2/catch.hpp>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>

#include "env_int.h"
#include "eval_test_util.h"
#include "ir/functor.h"
#include "ir/lowered_form.h"
#include "ir/text/parser.h"
#include "ir/text/printer.h"
#include "ir/verify.h"
#include "lit_schedule_cases.h"
#include "passes/pipeline.h"
#include "passes/vectorize_loops.h"
#include "rule_context_util.h"
#include "schedule/schedule.h"
#include "schedule/trace.h"
#include "tuner/auto_schedule.h"

namespace fs = std::filesystem;
using namespace tirc;

namespace {

const int kVectorBytes[] = {16, 32, 64};

// Loops of each kind, Ramps and Broadcasts in a statement.
struct Census {
  std::map<ForKind, int> loops;
  int ramps = 0, broadcasts = 0;
  std::vector<const ForNode*> for_nodes;
  std::vector<int> ramp_lanes;
};

Census census(const Stmt& s) {
  struct Walker : StmtVisitor {
    Census c;
    void visit_for(const ForNode* n) override {
      ++c.loops[n->for_kind];
      c.for_nodes.push_back(n);
      StmtVisitor::visit_for(n);
    }
    void visit_ramp(const RampNode* n) override {
      ++c.ramps;
      c.ramp_lanes.push_back(n->lanes);
      StmtVisitor::visit_ramp(n);
    }
    void visit_broadcast(const BroadcastNode* n) override {
      ++c.broadcasts;
      StmtVisitor::visit_broadcast(n);
    }
  } w;
  w.visit(s);
  return w.c;
}

// The first place where vector types do not line up (empty when none): the
// operands of every lane-wise operation have the lanes of its result, a load
// has its index's lanes, a store's value has its index's.
std::string type_error(const Stmt& s) {
  struct Checker : StmtVisitor {
    std::string error;
    void bad(const std::string& what, const Expr& e) {
      if (error.empty()) error = what + ": " + print_expr(e);
    }
    void bad_stmt(const std::string& what, const Stmt& st) {
      if (error.empty()) error = what + ": " + print_stmt(st);
    }
    static Expr wrap(const ExprNode* n) {
      // A non-owning handle for printing a node met by a visitor hook.
      return Expr(std::shared_ptr<const ExprNode>(std::shared_ptr<const ExprNode>{}, n));
    }
    void visit_load(const BufferLoadNode* n) override {
      int lanes = n->indices.empty() ? 1 : n->indices[0].dtype().lanes();
      if (n->dtype != n->buffer->dtype.with_lanes(lanes)) bad("load type", wrap(n));
      StmtVisitor::visit_load(n);
    }
    void visit_binary(const BinaryNode* n) override {
      if (n->a.dtype() != n->b.dtype() || n->dtype.lanes() != n->a.dtype().lanes())
        bad("operand types", wrap(n));
      StmtVisitor::visit_binary(n);
    }
    void visit_not(const NotNode* n) override {
      if (n->dtype != n->a.dtype()) bad("not type", wrap(n));
      StmtVisitor::visit_not(n);
    }
    void visit_cast(const CastNode* n) override {
      if (n->dtype.lanes() != n->value.dtype().lanes()) bad("cast lanes", wrap(n));
      StmtVisitor::visit_cast(n);
    }
    void visit_select(const SelectNode* n) override {
      if (n->true_value.dtype() != n->false_value.dtype() || n->dtype != n->true_value.dtype() ||
          n->cond.dtype() != DataType::boolean().with_lanes(n->dtype.lanes()))
        bad("select types", wrap(n));
      StmtVisitor::visit_select(n);
    }
    void visit_call(const CallNode* n) override {
      for (const Expr& a : n->args)
        if (a.dtype().lanes() != n->dtype.lanes()) bad("call argument lanes", wrap(n));
      StmtVisitor::visit_call(n);
    }
    void visit_ramp(const RampNode* n) override {
      if (!n->base.dtype().is_scalar() || n->base.dtype() != n->stride.dtype() ||
          n->dtype != n->base.dtype().with_lanes(n->lanes))
        bad("ramp types", wrap(n));
      StmtVisitor::visit_ramp(n);
    }
    void visit_broadcast(const BroadcastNode* n) override {
      if (!n->value.dtype().is_scalar() || n->dtype != n->value.dtype().with_lanes(n->lanes))
        bad("broadcast types", wrap(n));
      StmtVisitor::visit_broadcast(n);
    }
    void visit_store(const BufferStoreNode* n) override {
      const int lanes = n->indices.empty() ? 1 : n->indices[0].dtype().lanes();
      if (n->value.dtype() != n->buffer->dtype.with_lanes(lanes))
        bad("store type", n->indices.empty() ? n->value : n->indices[0]);
      StmtVisitor::visit_store(n);
    }
    void visit_for(const ForNode* n) override {
      if (!n->min.dtype().is_scalar() || !n->extent.dtype().is_scalar())
        bad("loop bounds", n->extent);
      StmtVisitor::visit_for(n);
    }
  } c;
  c.visit(s);
  return c.error;
}

// A variable that a loop or let defines more than once (empty when none).
std::string defined_twice(const Stmt& s) {
  struct Walker : StmtVisitor {
    std::set<const VarNode*> seen;
    std::string twice;
    void define(const Var& v) {
      if (!seen.insert(v.get()).second && twice.empty()) twice = v->name;
    }
    void visit_for(const ForNode* n) override {
      define(n->loop_var);
      StmtVisitor::visit_for(n);
    }
    void visit_let(const LetStmtNode* n) override {
      define(n->var);
      StmtVisitor::visit_let(n);
    }
  } w;
  w.visit(s);
  return w.twice;
}

std::string diagnostics(const PrimFunc& f) {
  std::string out;
  for (const Diagnostic& d : verify(f)) out += d.message + "\n";
  return out;
}

// Runs f on `arrays` (and `scalars`, one per scalar parameter in order); the
// error's message, or "" when it ran.
std::string run_on(const PrimFunc& f, std::vector<NDArray>& arrays,
                   const std::vector<int64_t>& scalars) {
  std::vector<Argument> args;
  size_t a = 0, s = 0;
  for (const Param& p : f->params) {
    if (p.buffer) {
      args.push_back({&arrays.at(a++)});
    } else {
      Argument arg;
      arg.int_value = scalars.at(s);
      arg.float_value = static_cast<double>(scalars.at(s));
      ++s;
      args.push_back(arg);
    }
  }
  try {
    run(f, args);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// Runs both on the same random inputs (small integers, then real values) and
// compares every buffer bit for bit; an input the original faults on must
// make the rewritten program fault too.
void check_same_results(const PrimFunc& original, const PrimFunc& rewritten,
                        const std::vector<int64_t>& scalars = {}) {
  for (uint64_t seed : {1, 2}) {
    std::vector<NDArray> expected = random_inputs(original, seed, seed == 1);
    std::vector<NDArray> got = expected;
    const std::string e1 = run_on(original, expected, scalars);
    const std::string e2 = run_on(rewritten, got, scalars);
    INFO("seed " << seed << ": original: " << e1 << "; rewritten: " << e2);
    REQUIRE(e1.empty() == e2.empty());
    if (!e1.empty()) continue;
    for (size_t p = 0; p < expected.size(); ++p) {
      INFO("buffer parameter " << p);
      CHECK(expected[p].bitwise_equal(got[p]));
    }
  }
}

// The rewrite's invariants on one function: no Vectorized loop is left, each
// was counted once, the result is well-typed vector TIR in the lowered form
// that verifies, and it computes what the input computes.
void check_rewrite(const PrimFunc& input, const PrimFunc& output, const VectorizeStats& stats,
                   const std::vector<int64_t>& scalars = {}) {
  INFO("rewritten:\n" << print_func(output));
  const Census before = census(input->body), after = census(output->body);
  CHECK(after.loops.count(ForKind::Vectorized) == 0);
  const auto vectorized = before.loops.find(ForKind::Vectorized);
  CHECK(stats.vectorized + static_cast<int>(stats.refused.size()) ==
        (vectorized == before.loops.end() ? 0 : vectorized->second));
  CHECK(type_error(output->body) == "");
  CHECK(defined_twice(output->body) == "");
  if (diagnostics(input).empty()) CHECK(diagnostics(output) == "");
  CHECK_NOTHROW(check_lowered_form(output));
  check_same_results(input, output, scalars);
}

// ---- the corpus ------------------------------------------------------------------

struct Tally {
  int functions = 0;                   // lowered functions with Vectorized loops
  int loops = 0;                       // their Vectorized loops
  int vectorized = 0;                  // of these, rewritten (at 16 bytes)
  int with_ramps = 0;                  // functions whose rewrite has Ramps (at 16 bytes)
  std::map<std::string, int> refused;  // reason (without "loop <var>: ") -> loops (16 bytes)
};

void check_corpus_function(const PrimFunc& lowered, const std::string& what, Tally& tally) {
  const Census c = census(lowered->body);
  auto it = c.loops.find(ForKind::Vectorized);
  if (it == c.loops.end()) return;
  ++tally.functions;
  tally.loops += it->second;
  for (int bytes : kVectorBytes) {
    INFO(what << ", " << bytes << "-byte vectors\nlowered:\n" << print_func(lowered));
    VectorizeStats stats;
    const PrimFunc out = vectorize_loops(lowered, bytes, &stats);
    check_rewrite(lowered, out, stats);
    if (test::env_int("TIRC_VECTORIZE_REPORT", 0) >= 2)
      std::cout << "# " << what << ", " << bytes << "-byte vectors\n" << print_func(out) << "\n";
    if (bytes != 16) continue;
    tally.vectorized += stats.vectorized;
    if (census(out->body).ramps > 0) ++tally.with_ramps;
    for (const std::string& r : stats.refused) {
      const size_t colon = r.find(": ");
      ++tally.refused[colon == std::string::npos ? r : r.substr(colon + 2)];
    }
  }
}

void report(const char* corpus, const Tally& t) {
  if (!test::env_int("TIRC_VECTORIZE_REPORT", 0)) return;
  std::cout << corpus << ": " << t.functions << " functions with " << t.loops
            << " vectorized loops; rewritten " << t.vectorized << " (" << t.with_ramps
            << " functions with Ramps)\n";
  for (const auto& [why, n] : t.refused) std::cout << "  refused " << n << ": " << why << "\n";
}

// The lowered examples (functions a model's entry would run only in its module
// have no vectorized loops and are left out).
std::vector<std::pair<std::string, IRModule>> example_modules() {
  std::vector<std::pair<std::string, IRModule>> out;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(fs::path(TIRC_SOURCE_DIR) / "examples"))
    if (entry.path().extension() == ".tir") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (const fs::path& p : files)
    out.emplace_back(p.filename().string(), parse_module(read_text_file(p), p.string()));
  return out;
}

}  // namespace

TEST_CASE("vectorize-loops: the examples' vectorized loops", "[vectorize]") {
  Tally tally;
  for (const auto& [file, m] : example_modules())
    for (const auto& [name, f] : m.functions()) {
      if (needs_module(f)) continue;
      check_corpus_function(lower(f), file + " function " + name, tally);
    }
  report("examples", tally);
  CHECK(tally.functions >= 1);
  CHECK(tally.vectorized >= 1);
  CHECK(tally.with_ramps >= 1);
}

TEST_CASE("vectorize-loops: the lit schedule results' vectorized loops", "[vectorize]") {
  Tally tally;
  for (const ScheduleResult& r : lit_schedule_results())
    check_corpus_function(lower(r.scheduled), r.what, tally);
  report("lit schedule results", tally);
  CHECK(tally.functions >= 2);
  CHECK(tally.vectorized >= 2);
  CHECK(tally.with_ramps >= 2);
}

TEST_CASE("vectorize-loops: the default schedules of the examples", "[vectorize]") {
  Tally tally;
  for (const auto& [file, m] : example_modules())
    for (Isa isa : {Isa::avx2, Isa::avx512}) {
      const AutoScheduleResult r = auto_schedule(m, test::fixed_rules(isa, 2));
      for (const auto& [name, f] : r.schedule.mod().functions()) {
        if (needs_module(f)) continue;
        check_corpus_function(lower(f), file + " (" + Target{isa}.name() + ") function " + name,
                              tally);
      }
    }
  report("default schedules", tally);
  CHECK(tally.functions >= 20);
  CHECK(tally.vectorized >= 20);
  CHECK(tally.with_ramps >= 20);
}

// ---- small programs ---------------------------------------------------------------

namespace {

PrimFunc tir(const std::string& params, const std::string& body) {
  return parse_module("@T.prim_func\ndef main(" + params + "):\n" + body).at("main");
}

struct Rewrite {
  PrimFunc func;
  VectorizeStats stats;
  Census census;
};

Rewrite rewrite(const PrimFunc& f, int bytes = 16, const std::vector<int64_t>& scalars = {}) {
  Rewrite r;
  r.func = vectorize_loops(f, bytes, &r.stats);
  r.census = census(r.func->body);
  INFO("input:\n" << print_func(f));
  check_rewrite(f, r.func, r.stats, scalars);
  return r;
}

// The one refusal of f's one Vectorized loop; the loop is left serial and
// otherwise unchanged.
std::string refusal(const PrimFunc& f, int bytes = 16) {
  Rewrite r = rewrite(f, bytes);
  INFO(print_func(r.func));
  CHECK(r.stats.vectorized == 0);
  REQUIRE(r.stats.refused.size() == 1);
  CHECK(r.census.ramps == census(f->body).ramps);
  CHECK(r.census.loops[ForKind::Serial] == census(f->body).loops[ForKind::Serial] + 1);
  return r.stats.refused[0];
}

const std::string kAB = R"(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32"))";

// The store of a loop body that is a single store.
const BufferStoreNode* only_store(const ForNode& loop) {
  auto* s = loop.body.as<BufferStoreNode>();
  REQUIRE(s);
  return s;
}

}  // namespace

TEST_CASE("vectorize-loops: full vectors and a tail", "[vectorize]") {
  PrimFunc f = tir(kAB,
                   "    for i in T.vectorized(63):\n"
                   "        B[i] = A[i] * T.float32(2) + A[3]\n");
  Rewrite r = rewrite(f);
  CHECK(r.stats.vectorized == 1);
  CHECK(r.stats.refused.empty());
  REQUIRE(r.census.for_nodes.size() == 2);
  const ForNode& vec = *r.census.for_nodes[0];
  const ForNode& tail = *r.census.for_nodes[1];
  CHECK(vec.for_kind == ForKind::Serial);
  CHECK(vec.loop_var->name == "i_vec");
  CHECK(is_const_int(vec.min, 0));
  CHECK(is_const_int(vec.extent, 15));  // 16 bytes of float32: 4 lanes
  CHECK(tail.loop_var->name == "i_tail");
  CHECK(is_const_int(tail.min, 60));
  CHECK(is_const_int(tail.extent, 3));
  const BufferStoreNode* s = only_store(vec);
  auto* ramp = s->indices[0].as<RampNode>();
  REQUIRE(ramp);
  CHECK(ramp->lanes == 4);
  CHECK(is_const_int(ramp->stride, 1));
  CHECK(s->value.dtype() == DataType::float32().with_lanes(4));
  // A[3] and 2 do not depend on i: scalars broadcast.
  CHECK(r.census.broadcasts == 2);
  CHECK(only_store(tail)->value.dtype() == DataType::float32());
}

TEST_CASE("vectorize-loops: a short constant extent is straight-line vector code", "[vectorize]") {
  // 19 = 4 vectors of 4 lanes, one of 2 and one scalar iteration: no loop.
  Rewrite r = rewrite(tir(kAB,
                          "    for i in T.vectorized(19):\n"
                          "        B[i] = A[i] * T.float32(2) + A[3]\n"));
  CHECK(r.stats.vectorized == 1);
  CHECK(r.census.for_nodes.empty());
  auto* seq = r.func->body.as<SeqStmtNode>();
  REQUIRE(seq);
  std::vector<std::string> indices;
  for (const Stmt& st : seq->seq) {
    auto* store = st.as<BufferStoreNode>();
    REQUIRE(store);
    indices.push_back(print_expr(store->indices[0]));
  }
  CHECK(indices == std::vector<std::string>{"T.Ramp(0, 1, 4)", "T.Ramp(4, 1, 4)", "T.Ramp(8, 1, 4)",
                                            "T.Ramp(12, 1, 4)", "T.Ramp(16, 1, 2)", "18"});
}

TEST_CASE("vectorize-loops: lanes from the widest stored element", "[vectorize]") {
  const std::string params = R"(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "int8"), )"
                             R"(C: T.Buffer((64,), "float64"))";
  auto lanes_of = [&](const std::string& body, int bytes) {
    Rewrite r = rewrite(tir(params, body), bytes);
    REQUIRE(r.stats.vectorized == 1);
    REQUIRE(!r.census.ramp_lanes.empty());
    for (int lanes : r.census.ramp_lanes) CHECK(lanes == r.census.ramp_lanes[0]);
    return r.census.ramp_lanes[0];
  };
  const std::string int8 =
      "    for i in T.vectorized(64):\n"
      "        B[i] = T.Cast(\"int8\", A[i])\n";
  CHECK(lanes_of(int8, 16) == 16);
  CHECK(lanes_of(int8, 64) == 64);
  const std::string both =
      "    for i in T.vectorized(64):\n"
      "        B[i] = T.Cast(\"int8\", A[i])\n"
      "        C[i] = T.Cast(\"float64\", A[i]) * T.float64(0.5)\n";
  CHECK(lanes_of(both, 16) == 2);
  CHECK(lanes_of(both, 32) == 4);
  const std::string f32 =
      "    for i in T.vectorized(64):\n"
      "        A[i] = A[i] + T.float32(1)\n";
  CHECK(lanes_of(f32, 64) == 16);
  CHECK(vector_lanes(8, 8) == 2);  // at least 2
  CHECK(vector_lanes(4, 8) == 2);
  CHECK(vector_lanes(64, 4, 8) == 8);  // a short loop: the power of two that fits
  CHECK(vector_lanes(64, 4, 12) == 8);
  CHECK(vector_lanes(64, 4, 16) == 16);
  CHECK(vector_lanes(64, 4, 100) == 16);
  CHECK(vector_lanes(16, 4, 3) == 2);
  CHECK(vector_lanes(16, 4, 1) == 2);
  CHECK(vector_lanes(16, 4, 0) == 2);
}

TEST_CASE("vectorize-loops: extents smaller than the lanes", "[vectorize]") {
  auto loop_of = [](int extent) {
    return tir(kAB, "    for i in T.vectorized(" + std::to_string(extent) +
                        "):\n"
                        "        B[i] = A[i] + T.float32(1)\n");
  };
  SECTION("one iteration: the scalar body alone") {
    Rewrite r = rewrite(loop_of(1));
    CHECK(r.stats.vectorized == 1);
    CHECK(r.census.ramps == 0);
    CHECK(r.census.for_nodes.empty());
    auto* s = r.func->body.as<BufferStoreNode>();
    REQUIRE(s);
    CHECK(print_expr(s->indices[0]) == "0");
  }
  SECTION("3 iterations of 4 lanes: one vector of 2 lanes, then one scalar iteration") {
    Rewrite r = rewrite(loop_of(3));
    CHECK(r.stats.vectorized == 1);
    auto* seq = r.func->body.as<SeqStmtNode>();
    REQUIRE(seq);
    REQUIRE(seq->seq.size() == 2);
    auto* vec = seq->seq[0].as<BufferStoreNode>();  // a single vector: no loop
    REQUIRE(vec);
    CHECK(print_expr(vec->indices[0]) == "T.Ramp(0, 1, 2)");
    auto* last = seq->seq[1].as<BufferStoreNode>();
    REQUIRE(last);
    CHECK(print_expr(last->indices[0]) == "2");
    CHECK(r.census.for_nodes.empty());
  }
  SECTION("8 iterations of 16 lanes: one vector of 8 lanes") {
    Rewrite r = rewrite(loop_of(8), 64);
    CHECK(r.stats.vectorized == 1);
    CHECK(r.census.for_nodes.empty());
    auto* s = r.func->body.as<BufferStoreNode>();
    REQUIRE(s);
    CHECK(print_expr(s->indices[0]) == "T.Ramp(0, 1, 8)");
  }
}

TEST_CASE("vectorize-loops: extent a multiple of the lanes has no tail", "[vectorize]") {
  Rewrite r = rewrite(tir(kAB,
                          "    for i in range(2):\n"
                          "        for j in T.vectorized(32):\n"
                          "            B[i * 32 + j] = A[i * 32 + j] + T.float32(1)\n"),
                      16);
  CHECK(r.stats.vectorized == 1);
  REQUIRE(r.census.for_nodes.size() == 2);  // i and j_vec (8 vectors of 4: a loop)
  CHECK(r.census.for_nodes[1]->loop_var->name == "j_vec");
  CHECK(is_const_int(r.census.for_nodes[1]->extent, 8));
  auto* ramp = only_store(*r.census.for_nodes[1])->indices[0].as<RampNode>();
  REQUIRE(ramp);
  CHECK(ramp->lanes == 4);
  CHECK(print_expr(ramp->base) == "i * 32 + j_vec * 4");
}

TEST_CASE("vectorize-loops: symbolic extent", "[vectorize]") {
  PrimFunc f = tir(kAB + ", n: T.int32",
                   "    for i in T.vectorized(n):\n"
                   "        B[i] = A[i] * T.float32(3)\n");
  VectorizeStats stats;
  PrimFunc out = vectorize_loops(f, 16, &stats);
  INFO(print_func(out));
  CHECK(stats.vectorized == 1);
  const Census c = census(out->body);
  REQUIRE(c.for_nodes.size() == 2);
  CHECK(print_expr(c.for_nodes[0]->extent) == "T.truncdiv(n, 4)");
  CHECK(print_expr(c.for_nodes[1]->min) == "T.truncdiv(n, 4) * 4");
  CHECK(print_expr(c.for_nodes[1]->extent) == "T.truncmod(n, 4)");
  for (int64_t n : {-5, 0, 1, 3, 4, 5, 8, 63, 64}) {
    INFO("n = " << n);
    check_rewrite(f, out, stats, {n});
  }
}

TEST_CASE("vectorize-loops: an int64 loop variable", "[vectorize]") {
  Rewrite r = rewrite(tir(kAB,
                          "    for i in T.vectorized(T.int64(30)):\n"
                          "        B[i] = A[i] + T.float32(1)\n"));
  CHECK(r.stats.vectorized == 1);
  REQUIRE(r.census.for_nodes.size() == 2);
  CHECK(r.census.for_nodes[0]->loop_var->dtype == DataType::int64());
  CHECK(r.census.for_nodes[1]->loop_var->dtype == DataType::int64());
  auto* ramp = only_store(*r.census.for_nodes[0])->indices[0].as<RampNode>();
  REQUIRE(ramp);
  CHECK(ramp->dtype == DataType::int64().with_lanes(4));
}

TEST_CASE("vectorize-loops: a strided store", "[vectorize]") {
  Rewrite r = rewrite(tir(kAB,
                          "    for i in T.vectorized(30):\n"
                          "        B[i * 2 + 1] = A[i]\n"));
  CHECK(r.stats.vectorized == 1);
  auto* ramp = only_store(*r.census.for_nodes.at(0))->indices[0].as<RampNode>();
  REQUIRE(ramp);
  CHECK(is_const_int(ramp->stride, 2));
}

TEST_CASE("vectorize-loops: read-modify-write of the stored element", "[vectorize]") {
  Rewrite r = rewrite(tir(kAB + R"(, C: T.Buffer((64,), "float32"))",
                          "    for k in range(3):\n"
                          "        for i in T.vectorized(37):\n"
                          "            C[i] = C[i] + A[i] * B[k]\n"));
  CHECK(r.stats.vectorized == 1);
  CHECK(r.census.ramps == 3);  // C's store and load, A's load
}

TEST_CASE("vectorize-loops: accepted shapes", "[vectorize]") {
  const std::string params = R"(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32"), )"
                             R"(I: T.Buffer((64,), "int32"), M: T.Buffer((64,), "bool"), )"
                             R"(U: T.Buffer((64,), "uint16"), D: T.Buffer((64,), "float64"))";
  const char* bodies[] = {
      // a gather at a non-linear index, and an index read from memory
      "    for i in T.vectorized(37):\n"
      "        B[i] = A[i * 7 % 19] + A[I[i] % 8 + 8]\n",
      // if_then_else whose arms cannot fault; Select of loads
      "    for i in T.vectorized(37):\n"
      "        B[i] = T.if_then_else(A[i] > T.float32(0), T.float32(1), T.Cast(\"float32\", i))\n"
      "        D[i] = T.Select(i < 5 and not M[0], T.Cast(\"float64\", A[i]), T.Cast(\"float64\", "
      "A[i + 1]))\n",
      // lets of loop-invariant values (the tail gets its own)
      "    for j in range(2):\n"
      "        s: T.float32 = A[j] * T.float32(2)\n"
      "        for i in T.vectorized(37):\n"
      "            t: T.int32 = j * 16\n"
      "            B[t + i] = A[t + i] + s\n",
      // math, predicates, casts and integer operations
      "    for i in T.vectorized(37):\n"
      "        B[i] = T.exp(A[i]) + T.pow(A[i], T.float32(2)) + T.sqrt(T.fabs(A[i]))\n"
      "        I[i] = T.Select(T.isnan(A[i]), 0, T.Cast(\"int32\", A[i]) // 3 + T.truncmod(i, 5))\n"
      "        U[i] = T.bitwise_and(T.Cast(\"uint16\", I[i]), T.uint16(7)) + "
      "T.shift_left(T.uint16(1), T.Cast(\"uint16\", i % 4))\n"
      "        D[i] = T.Cast(\"float64\", A[i]) / T.float64(3) + T.Cast(\"float64\", T.max(I[i], "
      "0))\n",
      // one storage through two buffers of the same element size
      "    A_i = T.Buffer((64,), \"int32\", data=A.data)\n"
      "    for i in T.vectorized(37):\n"
      "        A_i[i] = A_i[i] + 1\n"
      "        B[i] = A[i]\n",
      // a loop-invariant if_then_else may still fault: it stays scalar and lazy
      "    for i in T.vectorized(37):\n"
      "        B[i] = A[i] + T.if_then_else(I[0] < 64 and I[0] >= 0, A[I[0] % 64], T.float32(0))\n",
  };
  for (const char* body : bodies) {
    INFO(body);
    for (int bytes : kVectorBytes) {
      Rewrite r = rewrite(tir(params, body), bytes);
      CHECK(r.stats.refused.empty());
      CHECK(r.stats.vectorized == 1);
      CHECK(r.census.ramps > 0);
    }
  }
}

TEST_CASE("vectorize-loops: refusals name the loop and the reason", "[vectorize]") {
  const std::string params = R"(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32"), )"
                             R"(I: T.Buffer((64,), "int32"), M: T.Buffer((64,), "bool"), )"
                             R"(H: T.Buffer((64,), "float16"))";
  struct Case {
    const char* body;
    const char* why;
  };
  const Case cases[] = {
      {"    for i in T.vectorized(8):\n"
       "        if i < 4:\n"
       "            B[i] = A[i]\n",
       "loop i: body is not straight-line stores (it contains IfThenElse)"},
      {"    for i in T.vectorized(8):\n"
       "        for k in range(2):\n"
       "            B[i] = A[i + k]\n",
       "loop i: body is not straight-line stores (it contains For)"},
      {"    for i in T.vectorized(8):\n"
       "        T.evaluate(0)\n",
       "loop i: body is not straight-line stores (it contains Evaluate)"},
      {"    for i in T.vectorized(8):\n"
       "        x: T.int32 = i * 2\n"
       "        B[x] = A[i]\n",
       "loop i: let x depends on the loop variable"},
      {"    for i in T.vectorized(8):\n"
       "        B[i] = A[i * i]\n"
       "        B[i * i] = A[i]\n",
       "loop i: store index of B is not linear in the loop variable with a constant coefficient"},
      {"    for i in T.vectorized(8):\n"
       "        B[0] = A[i]\n",
       "loop i: store index of B does not move with the loop"},
      {"    for i in T.vectorized(8):\n"
       "        B[i * 1073741824] = A[i]\n",
       "loop i: store index of B has stride 1073741824, too large for 4 lanes"},
      {"    for i in T.vectorized(8):\n"
       "        B[i] = A[i]\n"
       "        B[i + 8] = A[i]\n",
       "loop i: B is stored at two indices"},
      {"    A_b = T.Buffer((256,), \"int8\", data=A.data)\n"
       "    for i in T.vectorized(8):\n"
       "        A[i] = B[i]\n"
       "        A_b[i] = T.int8(1)\n",
       "loop i: A_b and A share storage but have elements of different sizes"},
      {"    for i in T.vectorized(8):\n"
       "        A[i] = A[i + 1]\n",
       "loop i: A is read at another index than A is stored at"},
      {"    for i in T.vectorized(8):\n"
       "        B[i] = A[i]\n"
       "        A[i] = B[0]\n",
       "loop i: B is read at another index than B is stored at"},
      {"    A_i = T.Buffer((64,), \"int32\", data=A.data)\n"
       "    for i in T.vectorized(8):\n"
       "        A[i] = B[i]\n"
       "        I[i] = A_i[i + 1]\n",
       "loop i: A_i is read at another index than A is stored at"},
      {"    A_b = T.Buffer((256,), \"int8\", data=A.data)\n"
       "    for i in T.vectorized(8):\n"
       "        A[i] = B[i]\n"
       "        I[i] = T.Cast(\"int32\", A_b[i])\n",
       "loop i: A_b is read with another element size than A is stored with"},
      {"    for i in T.vectorized(8):\n"
       "        H[i] = H[i] + T.float16(1)\n",
       "loop i: store to float16 buffer H"},
      {"    for i in T.vectorized(8):\n"
       "        B[i] = T.Cast(\"float32\", H[i])\n",
       "loop i: load from float16 buffer H"},
      {"    for i in T.vectorized(8):\n"
       "        B[i] = T.Cast(\"float32\", T.Cast(\"float16\", A[i]))\n",
       "loop i: a value of type float16"},
      {"    for i in T.vectorized(8):\n"
       "        M[i] = A[i] > T.float32(0)\n",
       "loop i: store to bool buffer M"},
      {"    for i in T.vectorized(8):\n"
       "        B[i] = T.Select(M[i], A[i], T.float32(0))\n",
       "loop i: load from bool buffer M at an index that moves with the loop"},
      {"    for i in T.vectorized(8):\n"
       "        B[i] = T.if_then_else(i < 7, A[i + 1], T.float32(0))\n",
       "loop i: if_then_else whose arms may fault (a load or an integer division)"},
      {"    for i in T.vectorized(8):\n"
       "        I[i] = T.if_then_else(i > 0, 64 // i, 0)\n",
       "loop i: if_then_else whose arms may fault (a load or an integer division)"},
      {"    for i in T.vectorized(2):\n"
       "        B[T.Ramp(i * 4, 1, 4)] = A[T.Ramp(i * 4, 1, 4)]\n",
       "loop i: a vector expression inside the loop"},
  };
  for (const Case& c : cases) {
    INFO(c.body);
    CHECK(refusal(tir(params, c.body)) == c.why);
  }
}

TEST_CASE("vectorize-loops: a loop variable that is not int32 or int64", "[vectorize]") {
  Buffer A = make_buffer("A", DataType::float32(), {64});
  Var i = make_var("i", DataType::int16());
  Stmt loop = make_for(i, make_int(0, DataType::int16()), make_int(8, DataType::int16()),
                       ForKind::Vectorized,
                       make_store(A, make_float(1), {make_cast(DataType::int32(), i)}));
  VectorizeStats stats;
  Stmt out = vectorize_loops(loop, 16, &stats);
  REQUIRE(stats.refused.size() == 1);
  CHECK(stats.refused[0] == "loop i: loop variable of type int16 (int32 or int64 expected)");
  auto* f = out.as<ForNode>();
  REQUIRE(f);
  CHECK(f->for_kind == ForKind::Serial);
  CHECK(f->body.same_as(loop.as<ForNode>()->body));
}

TEST_CASE("vectorize-loops: nested vectorized loops and bad vector widths", "[vectorize]") {
  // The inner loop is rewritten (straight-line vector code); the outer one then
  // holds vectors and stays serial.
  Rewrite r = rewrite(tir(kAB,
                          "    for i in T.vectorized(4):\n"
                          "        for j in T.vectorized(16):\n"
                          "            B[i * 16 + j] = A[i * 16 + j] * T.float32(2)\n"));
  CHECK(r.stats.vectorized == 1);
  REQUIRE(r.stats.refused.size() == 1);
  CHECK(r.stats.refused[0] == "loop i: a vector expression inside the loop");
  PrimFunc f = tir(kAB, "    for i in T.vectorized(4):\n        B[i] = A[i]\n");
  CHECK_THROWS_AS(vectorize_loops(f, 0), Error);
  CHECK_THROWS_AS(vectorize_loops(f, 8192), Error);
  // Nothing to do: the same function back.
  PrimFunc plain = tir(kAB, "    for i in range(4):\n        B[i] = A[i]\n");
  CHECK(vectorize_loops(plain, 16) == plain);
}
