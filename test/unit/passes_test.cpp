// The lowering pipeline: every pass on every example and on scheduled
// programs keeps the interpreter's results bit for bit, round-trips through
// the text format, and ends in the lowered form.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "ir/eval/interpreter.h"
#include "ir/structural.h"
#include "ir/text/parser.h"
#include "ir/text/printer.h"
#include "ir/verify.h"
#include "passes/passes.h"
#include "passes/pipeline.h"
#include "schedule/schedule.h"

using namespace tirc;

namespace {

std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::filesystem::path> example_files() {
  std::vector<std::filesystem::path> out;
  for (const auto& e :
       std::filesystem::directory_iterator(std::string(TIRC_SOURCE_DIR) + "/examples"))
    if (e.path().extension() == ".tir") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

void check_round_trip(const PrimFunc& f, const std::string& what) {
  std::string text = print_func(f, "main");
  IRModule back = parse_module(text, what);
  INFO(what << "\n" << text);
  REQUIRE(print_func(back.at("main"), "main") == text);
  INFO(structural_diff(back.at("main"), f));
  REQUIRE(structural_equal(back.at("main"), f));
}

// Runs the pipeline pass by pass, checking each intermediate form.
PrimFunc lower_checked(const PrimFunc& original, const std::string& what) {
  PrimFunc current = original;
  for (const LoweringPass& pass : lowering_passes()) {
    INFO(what << " after " << pass.name);
    current = pass.run(current);
    EquivResult eq = check_equivalent(original, current, 2);
    INFO(eq.message << "\n" << print_func(current, "main"));
    REQUIRE(eq.equal);
    check_round_trip(current, what + " after " + pass.name);
  }
  INFO(what << "\n" << print_func(current, "main"));
  REQUIRE_NOTHROW(check_lowered_form(current));
  // lower() is the same pipeline.
  REQUIRE(structural_equal(lower(original), current));
  return current;
}

IRModule load_example(const std::string& name) {
  return parse_module(read_text(std::string(TIRC_SOURCE_DIR) + "/examples/" + name), name);
}

int count_kind(const Stmt& s, StmtKind kind);

struct KindCounter {
  static int count(const Stmt& s, StmtKind kind) {
    if (!s) return 0;
    int n = s.kind() == kind ? 1 : 0;
    switch (s.kind()) {
      case StmtKind::For:
        return n + count(s.as<ForNode>()->body, kind);
      case StmtKind::Seq: {
        for (const Stmt& c : s.as<SeqStmtNode>()->seq) n += count(c, kind);
        return n;
      }
      case StmtKind::IfThenElse: {
        auto* i = s.as<IfThenElseNode>();
        return n + count(i->then_case, kind) + count(i->else_case, kind);
      }
      case StmtKind::LetStmt:
        return n + count(s.as<LetStmtNode>()->body, kind);
      case StmtKind::Allocate:
        return n + count(s.as<AllocateNode>()->body, kind);
      case StmtKind::DeclBuffer:
        return n + count(s.as<DeclBufferNode>()->body, kind);
      case StmtKind::BlockRealize: {
        const Block& b = s.as<BlockRealizeNode>()->block;
        return n + count(b->body, kind) + count(b->init, kind);
      }
      default:
        return n;
    }
  }
};

int count_kind(const Stmt& s, StmtKind kind) {
  return KindCounter::count(s, kind);
}

}  // namespace

TEST_CASE("every pass on every example keeps results and round-trips", "[passes]") {
  int functions = 0;
  for (const auto& path : example_files()) {
    IRModule m = parse_module(read_text(path), path.string());
    for (const auto& [name, f] : m.functions()) {
      lower_checked(f, path.filename().string() + ":" + name);
      ++functions;
    }
  }
  REQUIRE(functions >= 28);
}

TEST_CASE("lowered matmul: init hoisted, flat accesses", "[passes]") {
  PrimFunc f = load_example("matmul.tir").at("main");
  PrimFunc d = decompose_reductions(f);
  std::string text = print_func(d, "main");
  CHECK(text.find("with T.block(\"C_init\"):") != std::string::npos);
  CHECK(text.find("with T.init():") == std::string::npos);
  PrimFunc l = lower_checked(f, "matmul");
  std::string out = print_func(l, "main");
  CHECK(out.find("C_1 = T.Buffer((4096,), data=C.data)") != std::string::npos);
  CHECK(out.find("C_1[i * 64 + j] = T.float32(0)") != std::string::npos);
  CHECK(count_kind(l->body, StmtKind::IfThenElse) == 0);
}

TEST_CASE("IRModule overload lowers every function, names kept", "[passes]") {
  IRModule m = load_example("module_two_funcs.tir");
  std::vector<std::string> seen;
  IRModule l = lower(m, [&](std::string_view pass, const PrimFunc&) { seen.emplace_back(pass); });
  REQUIRE(l.size() == m.size());
  for (size_t i = 0; i < m.size(); ++i) {
    CHECK(l.functions()[i].first == m.functions()[i].first);
    CHECK_NOTHROW(check_lowered_form(l.functions()[i].second));
  }
  CHECK(seen.size() == 8 * m.size());
  CHECK(seen[0] == "decompose-reductions");
  CHECK(seen[7] == "plan-storage");
}

TEST_CASE("scheduled matmul: tiles, vectorize, parallel, cache_write", "[passes]") {
  Schedule s(load_example("matmul.tir"));
  BlockRV c = s.get_block("C");
  auto loops = s.get_loops(c);
  auto is = s.split(loops[0], {nullptr, 16});
  auto js = s.split(loops[1], {nullptr, 16});
  auto ks = s.split(loops[2], {nullptr, 8});
  s.reorder({is[0], js[0], ks[0], is[1], ks[1], js[1]});
  s.vectorize(js[1]);
  s.parallel(is[0]);
  BlockRV cw = s.cache_write(c, 0, "local");
  s.reverse_compute_at(cw, js[0]);
  PrimFunc l = lower_checked(s.func("main"), "matmul tiled");
  CHECK(count_kind(l->body, StmtKind::Allocate) == 1);
  // The init is hoisted out of the reduction: no guard remains.
  CHECK(count_kind(l->body, StmtKind::IfThenElse) == 0);
}

TEST_CASE("scheduled matmul: decompose_reduction by the schedule", "[passes]") {
  Schedule s(load_example("matmul.tir"));
  BlockRV c = s.get_block("C");
  auto loops = s.get_loops(c);
  auto ks = s.split(loops[2], {nullptr, 4});
  s.decompose_reduction(c, ks[0]);
  s.unroll(ks[1]);
  lower_checked(s.func("main"), "matmul decomposed");
}

TEST_CASE("non-divisible split keeps the init in place as a guard", "[passes]") {
  Schedule s(load_example("matmul.tir"));
  BlockRV c = s.get_block("C");
  auto loops = s.get_loops(c);
  s.split(loops[2], {nullptr, 10});  // 64 = 7 * 10 - 6: a T.where on the reduction loops
  PrimFunc f = s.func("main");
  PrimFunc d = decompose_reductions(f);
  CHECK(print_func(d, "main").find("with T.init():") != std::string::npos);
  PrimFunc l = lower_checked(f, "matmul split 10");
  PrimFunc before_partition = simplify_lowered(flatten_buffers(lower_blocks(d)));
  CHECK(count_kind(before_partition->body, StmtKind::IfThenElse) >= 2);  // predicate and init guard
  // partition-loops drops the predicate where it holds; the init guard stays.
  CHECK(count_kind(l->body, StmtKind::IfThenElse) >= 1);
}

TEST_CASE("non-divisible spatial split: predicate copied to the init nest", "[passes]") {
  Schedule s(load_example("matmul.tir"));
  BlockRV c = s.get_block("C");
  auto loops = s.get_loops(c);
  s.split(loops[0], {nullptr, 5});
  PrimFunc d = decompose_reductions(s.func("main"));
  std::string text = print_func(d, "main");
  CHECK(text.find("C_init") != std::string::npos);
  lower_checked(s.func("main"), "matmul spatial split 5");
}

TEST_CASE("scheduled conv2d: compute_at of the padding", "[passes]") {
  Schedule s(load_example("conv2d_nchw.tir"));
  BlockRV conv = s.get_block("conv");
  BlockRV pad = s.get_block("data_pad");
  auto loops = s.get_loops(conv);
  s.compute_at(pad, loops[1]);
  lower_checked(s.func("main"), "conv2d compute_at");
}

TEST_CASE("scheduled softmax and layer_norm", "[passes]") {
  {
    Schedule s(load_example("softmax.tir"));
    BlockRV exp = s.get_block("T_exp");
    auto loops = s.get_loops(exp);
    s.parallel(loops[0]);
    auto js = s.split(loops[1], {nullptr, 8});
    s.vectorize(js[1]);
    PrimFunc l = lower_checked(s.func("main"), "softmax");
    // T_max and T_sum do not overlap: they share one allocation.
    CHECK(count_kind(l->body, StmtKind::Allocate) == 2);
  }
  {
    IRModule m = load_example("layer_norm.tir");
    Schedule s(m);
    BlockRV out = s.get_block("T_layer_norm");
    auto loops = s.get_loops(out);
    s.parallel(loops[0]);
    auto js = s.split(loops[1], {nullptr, 4});
    s.unroll(js[1]);
    lower_checked(s.func("main"), "layer_norm");
  }
}

TEST_CASE("plan-storage shares storage of disjoint lifetimes only", "[passes]") {
  IRModule m = parse_module(R"(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "int32")):
    # with T.block("root"):
    X = T.alloc_buffer((8,), "float32")
    Y = T.alloc_buffer((16,), "int32")
    Z = T.alloc_buffer((4,), "float32")
    for i in range(8):
        with T.block("x"):
            vi = T.axis.spatial(8, i)
            X[vi] = A[vi] + T.float32(1)
    for i in range(8):
        with T.block("a"):
            vi = T.axis.spatial(8, i)
            A[vi] = X[vi] * T.float32(2)
    for i in range(16):
        with T.block("y"):
            vi = T.axis.spatial(16, i)
            Y[vi] = vi
    for i in range(8):
        with T.block("b"):
            vi = T.axis.spatial(8, i)
            T.reads(Y[vi], Y[vi + 8])
            T.writes(B[vi])
            B[vi] = Y[vi] + Y[vi + 8]
)");
  PrimFunc l = lower_checked(m.at("main"), "storage");
  // X and Y share (X's lifetime ends before Y's starts); Z is never used and dropped.
  CHECK(count_kind(l->body, StmtKind::Allocate) == 1);
  std::string text = print_func(l, "main");
  CHECK(text.find("T.allocate([16], \"int32\", \"global\")") != std::string::npos);
}

// TVM's symbolic match: `lda`, defined nowhere else, takes the stride of the
// matched view (A's row stride, 32) in the interpreter and after lowering.
const char* kMatchStrideVar = R"(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((32, 32), "float32"), C: T.Buffer((2,), "float32")):
    # with T.block("root"):
    for i in range(2):
        with T.block("blk"):
            vi = T.axis.spatial(2, i)
            T.reads(A[vi * 16:vi * 16 + 16, 0:16])
            T.writes(C[vi])
            A_sub = T.match_buffer(A[vi * 16:vi * 16 + 16, 0:16], (16, 16), "float32", strides=(lda, 1))
            C[vi] = A_sub[1, 0] + T.Cast("float32", lda)
)";

// Runs f on A[r, c] = r * 100 + c; C's values.
std::vector<double> run_on_ramp(const PrimFunc& f, int64_t c_size) {
  NDArray a(DataType::float32(), {32, 32}), c(DataType::float32(), {c_size});
  for (int64_t k = 0; k < 32 * 32; ++k) a.set_float(k, static_cast<double>(k / 32 * 100 + k % 32));
  run(f, {Argument{&a}, Argument{&c}});
  std::vector<double> out;
  for (int64_t k = 0; k < c_size; ++k) out.push_back(c.get_float(k));
  return out;
}

TEST_CASE("match_buffer stride variable: bound to the view's stride when lowered", "[passes]") {
  PrimFunc f = parse_module(kMatchStrideVar, "match_stride.tir").at("main");
  // C[vi] = A[vi * 16 + 1, 0] + 32
  CHECK(verify(f).empty());
  std::vector<double> expected = {1 * 100 + 32, 17 * 100 + 32};
  CHECK(run_on_ramp(f, 2) == expected);
  // lower-blocks replaces lda by the view's stride. (Its output, a view
  // whose offset depends on the loop, runs only once flattened.)
  std::string text = print_func(lower_blocks(f), "main");
  INFO(text);
  CHECK(text.find("lda") == std::string::npos);
  CHECK(text.find("strides=(32, 1)") != std::string::npos);
  CHECK(text.find("T.Cast(\"float32\", 32)") != std::string::npos);
  PrimFunc l = lower(f);
  INFO(print_func(l, "main"));
  REQUIRE_NOTHROW(check_lowered_form(l));
  CHECK(run_on_ramp(l, 2) == expected);
  CHECK(check_equivalent(f, l, 2).equal);
}

TEST_CASE("match_buffer elem_offset and repeated stride variables, nested blocks", "[passes]") {
  // off is where A_sub starts (vi * 16 * 32 + 2); s, used twice, is the row
  // stride; the inner block's match of A_sub sees them bound by the outer one.
  PrimFunc f = parse_module(R"(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((32, 32), "float32"), C: T.Buffer((4,), "float32")):
    # with T.block("root"):
    for i in range(2):
        with T.block("outer"):
            vi = T.axis.spatial(2, i)
            T.reads(A[vi * 16:vi * 16 + 16, 2:18])
            T.writes(C[vi * 2:vi * 2 + 2])
            A_sub = T.match_buffer(A[vi * 16:vi * 16 + 16, 2:18], (16, 16), "float32", strides=(s, s), elem_offset=off)
            C[vi * 2] = A_sub[1, 0] + T.Cast("float32", off + s)
            with T.block("inner"):
                T.reads(A_sub[2:4, 0:16])
                T.writes(C[vi * 2 + 1])
                B = T.match_buffer(A_sub[2:4, 0:16], (2, 16), "float32", strides=(s2, 1), elem_offset=off2)
                C[vi * 2 + 1] = B[1, 3] + T.Cast("float32", (off2 - off) * 1000 + s2)
)",
                            "match_offset.tir")
                   .at("main");
  // outer: A[vi * 16 + 1, 2] + (vi * 512 + 2 + 32); inner: A[vi * 16 + 3, 5] + 64 * 1000 + 32
  std::vector<double> expected = {1 * 100 + 2 + 2 + 32, 3 * 100 + 5 + 64000 + 32,
                                  17 * 100 + 2 + 512 + 2 + 32, 19 * 100 + 5 + 64000 + 32};
  CHECK(verify(f).empty());
  CHECK(run_on_ramp(f, 4) == expected);
  std::string text = print_func(lower_blocks(f), "main");
  INFO(text);
  for (const char* name : {" off", "(s, s)", "s2"}) CHECK(text.find(name) == std::string::npos);
  CHECK(text.find("strides=(32, 32)") != std::string::npos);  // (s, s): both s's are 32
  PrimFunc l = lower(f);
  INFO(print_func(l, "main"));
  REQUIRE_NOTHROW(check_lowered_form(l));
  CHECK(run_on_ramp(l, 4) == expected);
  CHECK(check_equivalent(f, l, 2).equal);
}

TEST_CASE("lower refuses thread-bound loops", "[passes]") {
  Schedule s(load_example("matmul.tir"));
  auto loops = s.get_loops(s.get_block("C"));
  s.bind(loops[0], "threadIdx.x");
  try {
    lower(s.func("main"));
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("thread-bound loop") != std::string::npos);
    CHECK(std::string(e.what()).find("no meaning on a CPU target") != std::string::npos);
  }
}

TEST_CASE("lower refuses a buffer of non-constant size, with its location", "[passes]") {
  IRModule m = parse_module(R"(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64,), "float32"), n: T.int32):
    # with T.block("root"):
    for i in range(64):
        with T.block("blk"):
            vi = T.axis.spatial(64, i)
            T.reads(A[vi])
            T.writes(A[vi])
            tmp = T.alloc_buffer((n,), "float32")
            A[vi] = A[vi] + T.float32(1)
)",
                            "nonconst.tir");
  try {
    lower(m.at("main"));
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("non-constant size") != std::string::npos);
    CHECK(e.loc().known());
  }
}

TEST_CASE("check_lowered_form names the violating construct", "[passes]") {
  PrimFunc f = load_example("matmul.tir").at("main");
  try {
    check_lowered_form(f);
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("BlockRealize") != std::string::npos);
  }
  PrimFunc b = lower_blocks(decompose_reductions(f));
  try {
    check_lowered_form(b);
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("indices") != std::string::npos);
  }
  CHECK_NOTHROW(check_lowered_form(lower(f)));
}

TEST_CASE("lowering passes are listed in pipeline order", "[passes]") {
  std::vector<std::string> names;
  for (const LoweringPass& p : lowering_passes()) {
    names.push_back(p.name);
    CHECK(!p.description.empty());
  }
  CHECK(names == std::vector<std::string>{"decompose-reductions", "lower-blocks", "flatten-buffers",
                                          "simplify", "partition-loops", "compact-allocations",
                                          "tree-reductions", "plan-storage"});
  CHECK(find_lowering_pass("simplify") != nullptr);
  CHECK(find_lowering_pass("nope") == nullptr);
}

TEST_CASE("parser reads flat buffer aliases; refuses one without data=", "[passes]") {
  const char* ok = R"(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((4, 4), "float32")):
    A_1 = T.Buffer((16,), data=A.data)
    t = T.allocate([16], "int32", "global")
    t_1 = T.Buffer((16,), "int32", data=t)
    for i in range(16):
        t_1[i] = i
        A_1[i] = T.Cast("float32", t_1[i])
)";
  IRModule m = parse_module(ok);
  CHECK(print(m) == ok);
  CHECK_THROWS_WITH(parse_module(R"(# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((4, 4), "float32")):
    A_1 = T.Buffer((16,))
    A_1[0] = T.float32(0)
)"),
                    Catch::Contains("needs data="));
}
