// cache_read, cache_write, set_scope, storage_align, transform_layout, reindex.
#include <catch2/catch.hpp>

#include "ir/eval/interpreter.h"
#include "ir/text/printer.h"
#include "ir/verify.h"
#include "schedule_cache_programs.h"

using namespace tirc;
using namespace tirc::cache_test;

namespace {

std::string read_expected(const std::string& name) {
  std::ifstream in(std::string(TIRC_SOURCE_DIR) + "/test/unit/schedule_cache_expected/" + name +
                   ".tir");
  REQUIRE(in.good());
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string printed(const Schedule& s) {
  return print_func(s.func("main"), "main");
}

// Applies a primitive that must refuse: the message names the primitive and
// holds `reason`, and the module and trace are as before.
void expect_refused(Schedule& s, const std::function<void()>& apply, const std::string& reason) {
  std::string before = printed(s);
  size_t trace_size = s.trace().size();
  try {
    apply();
    FAIL("the primitive applied; expected: " << reason);
  } catch (const ScheduleError& e) {
    INFO(e.what());
    CHECK(std::string(e.what()).find(reason) != std::string::npos);
  }
  CHECK(printed(s) == before);
  CHECK(s.trace().size() == trace_size);
}

IRModule parse(const char* text) {
  return parse_module(text);
}

// Block R reads B before block W writes it; block Z reads it afterwards.
const char* kReadBeforeWrite = R"(
@T.prim_func
def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32"), D: T.Buffer((8,), "float32")):
    for i in range(8):
        with T.block("R"):
            vi = T.axis.spatial(8, i)
            C[vi] = B[vi]
    for i in range(8):
        with T.block("W"):
            vi = T.axis.spatial(8, i)
            B[vi] = A[vi]
    for i in range(8):
        with T.block("Z"):
            vi = T.axis.spatial(8, i)
            D[vi] = B[vi] + C[vi]
)";

// P writes only the first column of B; Q writes B too; R and S read B in
// the nest of P2.
const char* kPartialWrites = R"(
@T.prim_func
def main(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8, 8), "float32"), C: T.Buffer((8, 8), "float32")):
    for i in range(8):
        with T.block("P"):
            vi = T.axis.spatial(8, i)
            B[vi, 0] = A[vi, 0]
    for i, j in T.grid(8, 8):
        with T.block("Q"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj]
)";

const char* kSameNest = R"(
@T.prim_func
def main(A: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32"), D: T.Buffer((8,), "float32")):
    B = T.alloc_buffer((8,), "float32")
    for i in range(8):
        with T.block("P"):
            vi = T.axis.spatial(8, i)
            B[vi] = A[vi]
        with T.block("R"):
            vi = T.axis.spatial(8, i)
            C[vi] = B[vi]
    for i in range(8):
        with T.block("S"):
            vi = T.axis.spatial(8, i)
            D[vi] = B[vi]
)";

// Accesses reindex cannot turn into plain iteration variables.
const char* kIrregular = R"(
@T.prim_func
def main(A: T.Buffer((9,), "float32"), B: T.Buffer((8,), "float32"), C: T.Buffer((16,), "float32"), D: T.Buffer((7,), "float32")):
    for i in range(8):
        with T.block("two"):
            vi = T.axis.spatial(8, i)
            B[vi] = A[vi] + A[vi + 1]
    for i in range(4):
        with T.block("square"):
            vi = T.axis.spatial(4, i)
            C[vi * vi] = A[vi]
    for i, j in T.grid(4, 4):
        with T.block("sum"):
            vi, vj = T.axis.remap("SS", [i, j])
            D[vi + vj] = A[vi]
)";

}  // namespace

TEST_CASE("cache and layout primitives print as expected, keep results, verify",
          "[schedule][cache]") {
  for (const Case& c : cases()) {
    SECTION(c.name) {
      IRModule m = load_example(c.example);
      Schedule s(m);
      c.apply(s);
      CHECK(printed(s) == read_expected(c.name));
      auto diags = verify(s.func("main"));
      for (const auto& d : diags) INFO(d.message);
      CHECK(diags.empty());
      if (c.equivalent) {
        EquivResult r = check_equivalent(m.at("main"), s.func("main"));
        INFO(r.message);
        CHECK(r.equal);
      }
      // The printed result reads back as the same program.
      CHECK(print_func(parse_module(printed(s)).at("main"), "main") == printed(s));
    }
  }
}

TEST_CASE("cache_read returns the copy block and records its arguments", "[schedule][cache]") {
  Schedule s(load_example("softmax.tir"));
  BlockRV exp = s.get_block("T_exp");
  BlockRV cache = s.cache_read(exp, 0, "shared", {exp});
  CHECK(s.get(cache) == "A_shared");
  const Instruction& inst = s.trace().instructions().back();
  CHECK(inst.kind == "cache_read");
  REQUIRE(inst.keywords.size() == 4);
  CHECK(inst.keywords[0].first == "block");
  CHECK(inst.keywords[1].first == "read_buffer_index");
  CHECK(std::get<int64_t>(inst.keywords[1].second.v) == 0);
  CHECK(inst.keywords[2].first == "storage_scope");
  CHECK(std::get<std::string>(inst.keywords[2].second.v) == "shared");
  CHECK(inst.keywords[3].first == "consumer_blocks");
  CHECK(std::get<TraceList>(inst.keywords[3].second.v).size() == 1);
  REQUIRE(inst.outputs.size() == 1);
  CHECK(inst.outputs[0] == s.trace_rv(cache));
  CHECK_FALSE(inst.list_output);
  // A second cache of the same buffer and scope gets a fresh name.
  BlockRV again = s.cache_read(s.get_block("T_max"), 1, "shared");
  CHECK(s.get(again) == "A_shared_1");
}

TEST_CASE("cache_write records its arguments without empty consumer_blocks", "[schedule][cache]") {
  Schedule s(load_example("matmul.tir"));
  BlockRV c = s.get_block("C");
  BlockRV local = s.cache_write(c, 0, "local");
  CHECK(s.get(local) == "C_local");
  const Instruction& inst = s.trace().instructions().back();
  CHECK(inst.kind == "cache_write");
  REQUIRE(inst.keywords.size() == 3);
  CHECK(inst.keywords[1].first == "write_buffer_index");
  CHECK(std::get<std::string>(inst.keywords[2].second.v) == "local");
}

TEST_CASE("layout primitives record their arguments", "[schedule][cache]") {
  Schedule s(load_example("elementwise_chain.tir"));
  Var i = make_var("i"), j = make_var("j");
  s.transform_layout(s.get_block("C"), {true, 0}, make_index_map({i, j}, {j, i}));
  const Instruction& tl = s.trace().instructions().back();
  CHECK(tl.kind == "transform_layout");
  REQUIRE(tl.keywords.size() == 3);
  CHECK(tl.keywords[1].first == "buffer");
  const auto& tuple = std::get<TraceValue::Tuple>(tl.keywords[1].second.v);
  REQUIRE(tuple.items.size() == 2);
  CHECK(std::get<std::string>(tuple.items[0].v) == "write");
  CHECK(std::get<int64_t>(tuple.items[1].v) == 0);
  CHECK(tl.keywords[2].first == "index_map");
  CHECK(std::get<std::shared_ptr<const IndexMap>>(tl.keywords[2].second.v)->results.size() == 2);

  s.storage_align(s.get_block("B"), 0, 0, 16, 8);
  const Instruction& sa = s.trace().instructions().back();
  CHECK(sa.kind == "storage_align");
  REQUIRE(sa.keywords.size() == 5);
  CHECK(sa.keywords[2].first == "axis");
  CHECK(sa.keywords[3].first == "factor");
  CHECK(std::get<int64_t>(sa.keywords[4].second.v) == 8);

  s.set_scope(s.get_block("B"), 0, "shared");
  CHECK(s.trace().instructions().back().kind == "set_scope");
  CHECK(s.trace().instructions().back().keywords[2].first == "storage_scope");

  BlockRV re = s.reindex(s.get_block("D"), {false, 0});
  CHECK(s.get(re) == "C_reindex");
  const Instruction& ri = s.trace().instructions().back();
  CHECK(ri.kind == "reindex");
  CHECK(std::get<std::string>(std::get<TraceValue::Tuple>(ri.keywords[1].second.v).items[0].v) ==
        "read");
  CHECK(ri.outputs.size() == 1);
}

TEST_CASE("cache_read refusals", "[schedule][cache]") {
  Schedule s(load_example("softmax.tir"));
  BlockRV exp = s.get_block("T_exp");
  expect_refused(
      s, [&] { s.cache_read(exp, 5, "shared"); },
      "cache_read: block T_exp has 2 read buffers, index 5 is out of range");
  expect_refused(
      s, [&] { s.cache_read(exp, -1, "shared"); }, "index -1 is out of range");
  expect_refused(
      s, [&] { s.cache_read(exp, 0, ""); }, "cache_read: the storage scope is empty");
  BlockRV h_s_T_max = s.get_block("T_max");
  expect_refused(
      s, [&] { s.cache_read(h_s_T_max, 0, "shared"); },
      "cache_read: block T_max both reads and writes buffer T_max");
  BlockRV h_s_T_sum = s.get_block("T_sum");
  expect_refused(
      s, [&] { s.cache_read(exp, 0, "shared", {h_s_T_sum}); },
      "cache_read: consumer block T_sum does not read buffer A");

  Schedule r(parse(kReadBeforeWrite));
  BlockRV h_r_Z = r.get_block("Z");
  expect_refused(
      r, [&] { r.cache_read(h_r_Z, 0, "shared"); },
      "cache_read: block R reads buffer B before or in the loop nest where block W writes it");
  // Caching for Z alone is fine.
  IRModule before = parse(kReadBeforeWrite);
  r.cache_read(r.get_block("Z"), 0, "shared", {r.get_block("Z")});
  CHECK(check_equivalent(before.at("main"), r.func("main")).equal);
  CHECK(verify(r.func("main")).empty());
}

TEST_CASE("cache_write refusals", "[schedule][cache]") {
  Schedule s(load_example("softmax.tir"));
  BlockRV exp = s.get_block("T_exp");
  expect_refused(
      s, [&] { s.cache_write(exp, 1, "local"); },
      "cache_write: block T_exp has 1 write buffers, index 1 is out of range");
  expect_refused(
      s, [&] { s.cache_write(exp, 0, ""); }, "cache_write: the storage scope is empty");
  BlockRV h_s_T_max = s.get_block("T_max");
  expect_refused(
      s, [&] { s.cache_write(exp, 0, "local", {h_s_T_max}); },
      "cache_write: consumer block T_max does not read buffer T_exp");
  expect_refused(
      s, [&] { s.cache_write(exp, 0, "local", {exp}); },
      "cache_write: block T_exp cannot be its own consumer");
  Schedule rw(parse(kReadBeforeWrite));
  BlockRV w = rw.get_block("W"), reader = rw.get_block("R");
  expect_refused(
      rw, [&] { rw.cache_write(w, 0, "local", {reader}); },
      "cache_write: consumer block R comes before block W");

  Schedule p(parse(kPartialWrites));
  BlockRV h_p_P = p.get_block("P");
  expect_refused(
      p, [&] { p.cache_write(h_p_P, 0, "local"); },
      "cache_write: block P does not write the whole of buffer B");
  BlockRV h_p_Q = p.get_block("Q");
  expect_refused(
      p, [&] { p.cache_write(h_p_Q, 0, "local"); },
      "cache_write: buffer B is also written by block P");

  Schedule n(parse(kSameNest));
  BlockRV h_n_P = n.get_block("P");
  expect_refused(
      n, [&] { n.cache_write(h_n_P, 0, "local"); },
      "cache_write: block R reads buffer B in the loop nest of block P");
  // Redirecting R to the cache makes it fine.
  IRModule before = parse(kSameNest);
  n.cache_write(n.get_block("P"), 0, "local", {n.get_block("R")});
  CHECK(check_equivalent(before.at("main"), n.func("main")).equal);
  CHECK(verify(n.func("main")).empty());
}

TEST_CASE("set_scope and storage_align refusals", "[schedule][cache]") {
  Schedule s(load_example("softmax.tir"));
  BlockRV exp = s.get_block("T_exp");
  BlockRV out = s.get_block("T_softmax");
  expect_refused(
      s, [&] { s.set_scope(out, 0, "shared"); },
      "set_scope: buffer T_softmax written by block T_softmax is a function parameter");
  expect_refused(
      s, [&] { s.set_scope(exp, 2, "shared"); },
      "set_scope: block T_exp has 1 write buffers, index 2 is out of range");
  expect_refused(
      s, [&] { s.set_scope(exp, 0, ""); }, "set_scope: the storage scope is empty");

  expect_refused(
      s, [&] { s.storage_align(out, 0, 0, 8, 1); },
      "storage_align: buffer T_softmax written by block T_softmax is a function parameter");
  expect_refused(
      s, [&] { s.storage_align(exp, 0, 2, 8, 1); },
      "storage_align: axis 2 is out of range for buffer T_exp with 2 dimensions");
  expect_refused(
      s, [&] { s.storage_align(exp, 0, -1, 8, 1); }, "axis -1 is out of range");
  expect_refused(
      s, [&] { s.storage_align(exp, 0, 0, 0, 0); }, "storage_align: factor 0 must be positive");
  expect_refused(
      s, [&] { s.storage_align(exp, 0, 0, 8, 8); }, "storage_align: offset 8 must be in [0, 8)");
  expect_refused(
      s, [&] { s.storage_align(exp, 0, 0, 8, -1); }, "offset -1 must be in [0, 8)");
  s.storage_align(exp, 0, 0, 8, 1);
  expect_refused(
      s, [&] { s.storage_align(exp, 0, 1, 8, 1); },
      "storage_align: buffer T_exp already has explicit strides");
}

TEST_CASE("transform_layout refusals", "[schedule][cache]") {
  Schedule s(load_example("elementwise_chain.tir"));
  BlockRV b = s.get_block("B");
  Var i = make_var("i"), j = make_var("j"), k = make_var("k");
  expect_refused(
      s,
      [&] {
        s.transform_layout(b, {true, 0}, make_index_map({i, j, k}, {i, j, k}));
      },
      "transform_layout: the index map takes 3 indices but buffer B has 2 dimensions");
  expect_refused(
      s,
      [&] {
        s.transform_layout(b, {true, 0}, make_index_map({i, j}, {floordiv(i, 2), j}));
      },
      "transform_layout: the index map is not a bijection from the shape of buffer B");
  expect_refused(
      s,
      [&] {
        s.transform_layout(b, {true, 0}, make_index_map({i, j}, {i + j, j}));
      },
      "transform_layout: the index map is not a bijection from the shape of buffer B");
  expect_refused(
      s,
      [&] {
        s.transform_layout(b, {true, 0},
                           make_index_map({i, j}, {make_cast(DataType::float32(), i), j}));
      },
      "transform_layout: result 0 of the index map is not an integer expression");
  expect_refused(
      s,
      [&] {
        s.transform_layout(b, {true, 0}, make_index_map({i, j}, {i + 1, j}));
      },
      "transform_layout: result 0 of the index map starts at 1, not 0");
  expect_refused(
      s,
      [&] {
        s.transform_layout(b, {false, 3}, make_index_map({i, j}, {j, i}));
      },
      "transform_layout: block B has 1 read buffers, index 3 is out of range");
  expect_refused(
      s,
      [&] {
        s.transform_layout(b, {true, 0}, make_index_map({i, j}, {k, j}));
      },
      "transform_layout: result 0 of the index map is not an integer function of its parameters");
}

TEST_CASE("reindex refusals", "[schedule][cache]") {
  Schedule s(load_example("matmul.tir"));
  BlockRV h_s_C = s.get_block("C");
  expect_refused(
      s,
      [&] {
        s.reindex(h_s_C, {false, 0});
      },
      "reindex: block C also writes buffer C");
  expect_refused(
      s,
      [&] {
        s.reindex(h_s_C, {true, 4});
      },
      "reindex: block C has 1 write buffers, index 4 is out of range");

  Schedule r(parse(kIrregular));
  BlockRV h_r_two = r.get_block("two");
  expect_refused(
      r,
      [&] {
        r.reindex(h_r_two, {false, 0});
      },
      "reindex: block two accesses buffer A at more than one index");
  BlockRV h_r_square = r.get_block("square");
  expect_refused(
      r,
      [&] {
        r.reindex(h_r_square, {true, 0});
      },
      "reindex: the index of buffer C in block square is not affine in its iteration variables");
  BlockRV h_r_sum = r.get_block("sum");
  expect_refused(
      r,
      [&] {
        r.reindex(h_r_sum, {true, 0});
      },
      "reindex: block sum writes some element of buffer D more than once");
  // Reading A[vi] in block sum is fine: the copy holds A[v0] for every v0.
  IRModule before = parse(kIrregular);
  r.reindex(r.get_block("sum"), {false, 0});
  CHECK(check_equivalent(before.at("main"), r.func("main")).equal);
  CHECK(verify(r.func("main")).empty());

  Schedule acc(parse(R"(
@T.prim_func
def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    for i in range(8):
        with T.block("acc"):
            vi = T.axis.spatial(8, i)
            B[vi] = B[vi] + A[vi]
)"));
  BlockRV acc_block = acc.get_block("acc");
  expect_refused(
      acc,
      [&] {
        acc.reindex(acc_block, {true, 0});
      },
      "reindex: block acc reads buffer B without initializing it");

  Schedule n(parse(kSameNest));
  BlockRV h_n_R = n.get_block("R");
  expect_refused(
      n,
      [&] {
        n.reindex(h_n_R, {false, 0});
      },
      "reindex: block P accesses buffer B in the loop nest of block R");
}

// Found by the randomized schedule test: reindexing the write of a decomposed
// reduction's init block left C_update updating C with nothing initializing it.
TEST_CASE("reindex refuses the init block of a decomposed reduction", "[schedule][cache]") {
  Schedule s(parse(R"(
@T.prim_func
def main(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8, 8), "float32"), C: T.Buffer((8, 8), "float32")):
    for i, j in T.grid(8, 8):
        with T.block("C_init"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = T.float32(0)
    for i, j, k in T.grid(8, 8, 8):
        with T.block("C_update"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)"));
  REQUIRE(verify(s.func("main")).empty());
  BlockRV init = s.get_block("C_init");
  expect_refused(
      s,
      [&] {
        s.reindex(init, {true, 0});
      },
      "reindex: buffer C is also written by block C_update");
}

// Found by the randomized schedule test: reindexing the guarded read of a
// padding block copied data[v2 - 1, ...] for every v2 and read out of bounds;
// cache primitives on the root block threw a plain Error.
TEST_CASE("reindex refuses a guarded read; root block refusals", "[schedule][cache]") {
  Schedule s(load_example("conv2d_nchw.tir"));
  BlockRV pad = s.get_block("data_pad");
  expect_refused(
      s,
      [&] {
        s.reindex(pad, {false, 0});
      },
      "reindex: the access of buffer data in block data_pad leaves the buffer");
  Schedule r(load_example("matmul.tir"));
  BlockRV root = r.get_block("root");
  expect_refused(
      r, [&] { r.cache_read(root, 0, "shared"); },
      "cache_read: block root has no enclosing scope block");
  expect_refused(
      r, [&] { r.cache_write(root, 0, "local"); },
      "cache_write: block root has no enclosing scope block");
  expect_refused(
      r,
      [&] {
        r.reindex(root, {true, 0});
      },
      "reindex: block root has no enclosing scope block");
}

// Found by the randomized schedule test: cache_write of a block inside an
// outer block copied the whole buffer back from each outer instance.
TEST_CASE("cache_write refuses a block writing one element per outer block", "[schedule][cache]") {
  Schedule s(parse(R"(
@T.prim_func
def main(A: T.Buffer((4, 8), "float32"), B: T.Buffer((4, 8), "float32")):
    for i, j in T.grid(4, 8):
        with T.block("B_o"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A[vi, vj])
            T.writes(B[vi, vj])
            with T.block("B"):
                wi = T.axis.spatial(4, vi)
                wj = T.axis.spatial(8, vj)
                T.reads(A[wi, wj])
                T.writes(B[wi, wj])
                B[wi, wj] = A[wi, wj] * T.float32(2)
)"));
  BlockRV b = s.get_block("B");
  expect_refused(
      s, [&] { s.cache_write(b, 0, "shared"); },
      "cache_write: block B does not write the whole of buffer B within block B_o");
  // The same for reindex, which copies the block's whole iteration domain.
  expect_refused(
      s,
      [&] {
        s.reindex(b, {false, 0});
      },
      "reindex: block B depends on the variables of block B_o around it");
}

TEST_CASE("cache_write takes an output dimension numbered by several variables",
          "[schedule][cache]") {
  // Channels split into blocks: B[i, o * 4 + c] with `columns` columns.
  auto program = [](const std::string& index, int columns) {
    const std::string shape = "(4, " + std::to_string(columns) + ")";
    return "@T.prim_func\ndef main(A: T.Buffer(" + shape + ", \"float32\"), B: T.Buffer(" + shape +
           ", \"float32\")):\n    for i, o, c in T.grid(4, 2, 4):\n        with T.block(\"B\"):\n"
           "            vi, vo, vc = T.axis.remap(\"SSS\", [i, o, c])\n            B[vi, " +
           index + "] = A[vi, " + index + "] * T.float32(2)\n";
  };
  // o * 4 + c numbers B's 8 columns exactly once.
  const IRModule m = parse(program("vo * 4 + vc", 8).c_str());
  Schedule s(m);
  s.cache_write(s.get_block("B"), 0, "local");
  CHECK(check_equivalent(m.at("main"), s.func("main")).equal);
  // Digits that leave gaps (o * 5 + c over 9 columns) or overlap (o * 2 + c
  // over 6): refused.
  for (const auto& [index, columns] : {std::pair{"vo * 5 + vc", 9}, std::pair{"vo * 2 + vc", 6}}) {
    INFO(index);
    Schedule g(parse(program(index, columns).c_str()));
    const BlockRV b = g.get_block("B");
    expect_refused(
        g, [&] { g.cache_write(b, 0, "local"); },
        "cache_write: block B does not write the whole of buffer B");
  }
}

// Found by the randomized schedule test: cache_read inside an outer block
// copied all of B there, past the outer block's T.reads.
TEST_CASE("cache_read refuses when an outer block reads part of the buffer", "[schedule][cache]") {
  Schedule s(parse(R"(
@T.prim_func
def main(A: T.Buffer((4, 8), "float32"), B: T.Buffer((4, 8), "float32")):
    for i in range(4):
        with T.block("B_o"):
            vi = T.axis.spatial(4, i)
            T.reads(A[vi, 0:8])
            T.writes(B[vi, 0:8])
            for j in range(8):
                with T.block("B"):
                    vj = T.axis.spatial(8, j)
                    T.reads(A[vi, vj])
                    T.writes(B[vi, vj])
                    B[vi, vj] = A[vi, vj] * T.float32(2)
)"));
  BlockRV b = s.get_block("B");
  expect_refused(
      s, [&] { s.cache_read(b, 0, "shared"); },
      "cache_read: block B_o around block B reads only part of buffer A");
}

TEST_CASE("primitives refuse handles of blocks that are gone", "[schedule][cache]") {
  Schedule s(load_example("matmul.tir"));
  BlockRV stale{42};
  expect_refused(
      s, [&] { s.cache_read(stale, 0, "shared"); }, "cache_read: unknown block handle b42");
  expect_refused(
      s,
      [&] {
        s.reindex(stale, {false, 1});
      },
      "reindex: unknown block handle b42");
}
