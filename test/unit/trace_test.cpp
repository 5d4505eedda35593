// Traces: the script form (print/parse), hand-written scripts, JSON, errors.
#include <catch2/catch.hpp>
#include <set>

#include "ir/text/parser.h"
#include "schedule/schedule.h"
#include "schedule/trace_spec.h"

using namespace tirc;

namespace {

TraceValue rv(char kind, int id) {
  return TraceValue(TraceRV{kind, id});
}

Instruction inst(std::string kind, std::vector<std::pair<std::string, TraceValue>> keywords,
                 std::vector<TraceRV> outputs = {}, bool list_output = false,
                 std::vector<TraceValue> positional = {}) {
  Instruction i;
  i.kind = std::move(kind);
  i.keywords = std::move(keywords);
  i.outputs = std::move(outputs);
  i.list_output = list_output;
  i.positional = std::move(positional);
  return i;
}

std::shared_ptr<const IndexMap> tiling_map() {
  auto m = std::make_shared<IndexMap>();
  Var i = make_var("i"), j = make_var("j");
  m->params = {i, j};
  m->results = {floordiv(i, make_int(16)), j, floormod(i, make_int(16))};
  return m;
}

std::shared_ptr<const IndexMap> identity_map() {
  auto m = std::make_shared<IndexMap>();
  Var i = make_var("i");
  m->params = {i};
  m->results = {i};
  return m;
}

// One instruction of every kind, with the argument forms each takes.
Trace every_kind() {
  Trace t;
  auto b = [](int id) { return TraceRV{'b', id}; };
  auto l = [](int id) { return TraceRV{'l', id}; };
  auto v = [](int id) { return TraceRV{'v', id}; };
  t.append(inst("get_block", {{"name", "C"}, {"func_name", "main"}}, {b(0)}));
  t.append(inst("get_loops", {{"block", rv('b', 0)}}, {l(1), l(2), l(3)}, true));
  t.append(inst("get_child_blocks", {}, {b(4)}, true, {rv('b', 0)}));
  t.append(inst("get_producers", {{"block", rv('b', 0)}}, {b(5), b(6)}, true));
  t.append(inst("get_consumers", {{"block", rv('b', 0)}}, {}, true));
  t.append(inst("sample_perfect_tile",
                {{"loop", rv('l', 1)},
                 {"n", 2},
                 {"max_innermost_factor", 16},
                 {"decision", TraceList{4, 16}}},
                {v(7), v(8)}, true));
  t.append(inst("sample_categorical",
                {{"candidates", TraceList{1, 2}}, {"probs", TraceList{0.5, 0.5}}, {"decision", 1}},
                {v(9)}));
  t.append(inst("split",
                {{"loop", rv('l', 1)},
                 {"factors", TraceList{nullptr, rv('v', 8)}},
                 {"preserve_unit_iters", true}},
                {l(10), l(11)}, true));
  t.append(inst("split", {{"loop", rv('l', 2)}, {"factors", TraceList{nullptr, 32}}},
                {l(21), l(23)}, true));
  t.append(
      inst("fuse", {{"preserve_unit_iters", false}}, {l(12)}, false, {rv('l', 10), rv('l', 2)}));
  t.append(inst("reorder", {}, {}, false, {rv('l', 12), rv('l', 11), rv('l', 3)}));
  t.append(inst("add_unit_loop", {{"block_or_loop", rv('b', 0)}}, {l(13)}));
  t.append(inst("parallel", {{"loop", rv('l', 12)}}));
  t.append(inst("vectorize", {{"loop", rv('l', 3)}}));
  t.append(inst("unroll", {{"loop", rv('l', 11)}}));
  t.append(inst("bind", {{"loop", rv('l', 12)}, {"thread_axis", "threadIdx.x"}}));
  t.append(inst("annotate", {{"block_or_loop", rv('b', 0)},
                             {"ann_key", "pragma_auto_unroll_max_step"},
                             {"ann_val", 16}}));
  t.append(inst("annotate",
                {{"block_or_loop", rv('l', 3)}, {"ann_key", "s"}, {"ann_val", "a\"b\\c\n\x01"}}));
  t.append(inst("annotate", {{"block_or_loop", rv('l', 3)}, {"ann_key", "f"}, {"ann_val", 2.0}}));
  t.append(
      inst("annotate", {{"block_or_loop", rv('l', 3)}, {"ann_key", "g"}, {"ann_val", -1e-05}}));
  t.append(inst("annotate", {{"block_or_loop", rv('l', 3)}, {"ann_key", "h"}, {"ann_val", false}}));
  t.append(inst("unannotate", {{"block_or_loop", rv('l', 3)}, {"ann_key", "h"}}));
  t.append(inst("compute_at", {{"block", rv('b', 5)},
                               {"loop", rv('l', 12)},
                               {"preserve_unit_loops", true},
                               {"index", -1}}));
  t.append(inst("reverse_compute_at", {{"block", rv('b', 6)},
                                       {"loop", rv('l', 12)},
                                       {"preserve_unit_loops", false},
                                       {"index", 0}}));
  t.append(inst("compute_inline", {{"block", rv('b', 5)}}));
  t.append(inst("reverse_compute_inline", {{"block", rv('b', 6)}}));
  t.append(inst("cache_read",
                {{"block", rv('b', 0)}, {"read_buffer_index", 1}, {"storage_scope", "shared"}},
                {b(14)}));
  t.append(inst("cache_read",
                {{"block", rv('b', 0)},
                 {"read_buffer_index", 0},
                 {"storage_scope", "local"},
                 {"consumer_blocks", TraceList{rv('b', 0), rv('b', 4)}}},
                {b(22)}));
  t.append(inst("cache_write",
                {{"block", rv('b', 0)}, {"write_buffer_index", 0}, {"storage_scope", "local"}},
                {b(15)}));
  t.append(
      inst("set_scope", {{"block", rv('b', 0)}, {"buffer_index", 0}, {"storage_scope", "shared"}}));
  t.append(inst(
      "storage_align",
      {{"block", rv('b', 14)}, {"buffer_index", 0}, {"axis", 0}, {"factor", 32}, {"offset", 8}}));
  t.append(inst("transform_layout", {{"block", rv('b', 0)},
                                     {"buffer", TraceValue::Tuple{{"write", 0}}},
                                     {"index_map", tiling_map()}}));
  t.append(inst("transform_layout", {{"block", rv('b', 0)},
                                     {"buffer", TraceValue::Tuple{{"read", 1}}},
                                     {"index_map", identity_map()}}));
  t.append(inst("reindex", {{"block", rv('b', 0)}, {"buffer", TraceValue::Tuple{{"read", 1}}}},
                {b(16)}));
  t.append(inst("decompose_reduction", {{"block", rv('b', 0)}, {"loop", rv('l', 3)}}, {b(17)}));
  t.append(inst("rfactor", {{"loop", rv('l', 3)}, {"factor_axis", 0}}, {b(18)}));
  t.append(inst("blockize", {{"target", rv('l', 11)}, {"preserve_unit_iters", true}}, {b(19)}));
  t.append(inst("blockize",
                {{"target", TraceList{rv('b', 0), rv('b', 4)}}, {"preserve_unit_iters", false}},
                {b(20)}));
  t.append(inst("tensorize", {{"block_or_loop", rv('l', 11)},
                              {"tensor_intrin", "mma_16x16"},
                              {"preserve_unit_iters", true}}));
  return t;
}

const char* kMatmul = R"(@T.prim_func
def main(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32")):
    for i, j, k in T.grid(64, 64, 64):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)";

// The error a parse throws, for checking its position and message.
Error parse_error(const std::string& text) {
  try {
    Trace::parse(text, "s.py");
  } catch (const Error& e) {
    return e;
  }
  FAIL("no error for:\n" << text);
  return Error("");
}

}  // namespace

TEST_CASE("trace prints every instruction kind in TVM's form", "[schedule][trace]") {
  std::string text = every_kind().print();
  CHECK(text.find("b0 = sch.get_block(name=\"C\", func_name=\"main\")\n") == 0);
  CHECK(text.find("l1, l2, l3 = sch.get_loops(block=b0)\n") != std::string::npos);
  CHECK(text.find("b4, = sch.get_child_blocks(b0)\n") != std::string::npos);
  CHECK(text.find("\nsch.get_consumers(block=b0)\n") != std::string::npos);
  CHECK(
      text.find("l10, l11 = sch.split(loop=l1, factors=[None, v8], preserve_unit_iters=True)\n") !=
      std::string::npos);
  CHECK(text.find("l21, l23 = sch.split(loop=l2, factors=[None, 32])\n") != std::string::npos);
  CHECK(text.find("l12 = sch.fuse(l10, l2, preserve_unit_iters=False)\n") != std::string::npos);
  CHECK(text.find("\nsch.reorder(l12, l11, l3)\n") != std::string::npos);
  CHECK(text.find("ann_val=\"a\\\"b\\\\c\\n\\x01\")") != std::string::npos);
  CHECK(text.find("ann_val=2.0)") != std::string::npos);
  CHECK(text.find("ann_val=-1e-05)") != std::string::npos);
  CHECK(text.find("buffer=(\"write\", 0), index_map=lambda i, j: (i // 16, j, i % 16))") !=
        std::string::npos);
  CHECK(text.find("index_map=lambda i: (i,))") != std::string::npos);
  CHECK(text.find("v7, v8 = sch.sample_perfect_tile(loop=l1, n=2, max_innermost_factor=16, "
                  "decision=[4, 16])") != std::string::npos);
  CHECK(text.find("v9 = sch.sample_categorical(candidates=[1, 2], probs=[0.5, 0.5], decision=1)") !=
        std::string::npos);
  CHECK(text.find("b20 = sch.blockize(target=[b0, b4], preserve_unit_iters=False)") !=
        std::string::npos);

  // Every primitive of the table appears.
  std::set<std::string> kinds;
  Trace all = every_kind();
  for (const Instruction& i : all.instructions()) kinds.insert(i.kind);
  for (const std::string& k : trace_detail::primitive_names()) CHECK(kinds.count(k) == 1);
}

TEST_CASE("trace print -> parse -> print is the identity for every kind", "[schedule][trace]") {
  Trace original = every_kind();
  std::string text = original.print();
  Trace parsed = Trace::parse(text);
  CHECK(parsed.print() == text);
  REQUIRE(parsed.size() == original.size());
  CHECK(parsed.instructions()[2].positional.size() == 1);
  CHECK(parsed.instructions()[1].list_output);
  CHECK(parsed.instructions()[3].line == 4);
  const TraceValue* probs = parsed.instructions()[6].keyword("probs");
  REQUIRE(probs);
  CHECK(std::holds_alternative<double>(std::get<TraceList>(probs->v)[0].v));
}

TEST_CASE("trace to_json -> from_json -> print is the identity for every kind",
          "[schedule][trace]") {
  Trace original = every_kind();
  std::string json = original.to_json();
  CHECK(json.find("{\"version\": 1, \"instructions\": [") == 0);
  CHECK(
      json.find(
          R"({"kind": "get_block", "positional": [], "keywords": [["name", "C"], ["func_name", "main"]], )"
          R"("outputs": ["b0"], "list_output": false})") != std::string::npos);
  CHECK(json.find(R"(["factors", [null, {"rv": "v8"}]])") != std::string::npos);
  CHECK(json.find(R"({"tuple": ["write", 0]})") != std::string::npos);
  CHECK(json.find(R"j({"index_map": "lambda i, j: (i // 16, j, i % 16)"})j") != std::string::npos);
  Trace back = Trace::from_json(json);
  CHECK(back.print() == original.print());
  CHECK(back.to_json() == json);
  // Both forms of an empty trace.
  CHECK(Trace::from_json(Trace().to_json()).empty());
  CHECK(Trace::parse("").empty());
}

TEST_CASE("trace parse accepts hand-written scripts", "[schedule][trace]") {
  SECTION("def apply(sch) wrapper, positional arguments, custom names") {
    Trace t = Trace::parse(R"(# a schedule written by hand
from tvm import tir
import tvm

def apply(sch: tir.Schedule) -> None:
    """Tile the matmul."""
    blk = sch.get_block("C")
    (i, j, k) = sch.get_loops(blk)
    outer, inner = sch.split(i, [None, 16])
    sch.reorder(outer, j, inner)
    sch.reorder([j, k])
    f = sch.fuse(outer, j, preserve_unit_iters=False)
    sch.parallel(f)
    sch.annotate(blk, "key", 1.5)
    return sch
)");
    CHECK(t.print() ==
          "b0 = sch.get_block(name=\"C\")\n"
          "l1, l2, l3 = sch.get_loops(block=b0)\n"
          "l4, l5 = sch.split(loop=l1, factors=[None, 16])\n"
          "sch.reorder(l4, l2, l5)\n"
          "sch.reorder(l2, l3)\n"
          "l6 = sch.fuse(l4, l2, preserve_unit_iters=False)\n"
          "sch.parallel(loop=l6)\n"
          "sch.annotate(block_or_loop=b0, ann_key=\"key\", ann_val=1.5)\n");
    CHECK(t.instructions()[0].line == 7);
  }
  SECTION("sch = tir.Schedule(mod) and keyword order are normalized") {
    Trace t = Trace::parse(
        "sch = tir.Schedule(mod)\n"
        "b0 = sch.get_block(func_name=\"main\", name=\"C\")\n"
        "l1, = sch.get_loops(b0)\n"
        "sch.compute_at(b0, l1, index=2, preserve_unit_loops=True)\n"
        "b2 = sch.cache_read(b0, 0, \"shared\", [b0])\n"
        "sch.transform_layout(b0, (\"read\", 0), lambda a, b: (b, a))\n"
        "b3, = sch.get_child_blocks(block_or_loop=l1)\n");
    CHECK(t.print() ==
          "b0 = sch.get_block(name=\"C\", func_name=\"main\")\n"
          "l1, = sch.get_loops(block=b0)\n"
          "sch.compute_at(block=b0, loop=l1, preserve_unit_loops=True, index=2)\n"
          "b2 = sch.cache_read(block=b0, read_buffer_index=0, storage_scope=\"shared\", "
          "consumer_blocks=[b0])\n"
          "sch.transform_layout(block=b0, buffer=(\"read\", 0), index_map=lambda a, b: (b, a))\n"
          "b3, = sch.get_child_blocks(l1)\n");
  }
  SECTION("printed names keep their numbers; others come after them") {
    Trace t = Trace::parse(
        "b5 = sch.get_block(\"C\")\n"
        "blk = sch.get_block(\"D\")\n"
        "l0, = sch.get_loops(blk)\n"
        "b5 = sch.get_block(\"E\")\n"
        "sch.parallel(l0)\n");
    CHECK(t.print() ==
          "b5 = sch.get_block(name=\"C\")\n"
          "b6 = sch.get_block(name=\"D\")\n"
          "l0, = sch.get_loops(block=b6)\n"
          "b7 = sch.get_block(name=\"E\")\n"
          "sch.parallel(loop=l0)\n");
  }
  SECTION("values: negative numbers, nested lists, non-finite floats, escapes") {
    Trace t = Trace::parse(
        "b0 = sch.get_block('C')\n"
        "sch.annotate(b0, 'k', -3)\n"
        "sch.annotate(b0, \"k\", float(\"inf\"))\n"
        "sch.annotate(b0, \"k\\t\", \"\\x41\")\n"
        "v1 = sch.sample_categorical([1, 2], [1, 3])\n");
    CHECK(t.print() ==
          "b0 = sch.get_block(name=\"C\")\n"
          "sch.annotate(block_or_loop=b0, ann_key=\"k\", ann_val=-3)\n"
          "sch.annotate(block_or_loop=b0, ann_key=\"k\", ann_val=float(\"inf\"))\n"
          "sch.annotate(block_or_loop=b0, ann_key=\"k\\t\", ann_val=\"A\")\n"
          "v1 = sch.sample_categorical(candidates=[1, 2], probs=[1.0, 3.0])\n");
    CHECK(Trace::parse(t.print()).print() == t.print());
  }
}

TEST_CASE("trace parse errors carry file:line:col", "[schedule][trace]") {
  struct Case {
    std::string text;
    int line, col;
    std::string message;
  };
  const std::string pre = "b0 = sch.get_block(\"C\")\nl1, l2 = sch.get_loops(b0)\n";
  std::vector<Case> cases = {
      {pre + "sch.frob(b0)\n", 3, 5, "unknown schedule primitive 'frob'"},
      {pre + "sch.parallel(lop=l1)\n", 3, 14, "parallel has no parameter 'lop'"},
      {pre + "sch.parallel(l1, l2)\n", 3, 18, "parallel takes 1 argument but more were given"},
      {pre + "x, = sch.split(l1)\n", 3, 15, "split: missing argument 'factors'"},
      {pre + "sch.parallel(l9)\n", 3, 14, "undefined name 'l9'"},
      {pre + "sch.parallel(b0)\n", 3, 14, "parallel: loop must be a loop, not b0"},
      {pre + "b1 = sch.get_loops(b0)\n", 3, 1, "get_loops returns a list"},
      {pre + "b1, = sch.get_block(\"D\")\n", 3, 1, "get_block returns one value"},
      {pre + "x = sch.reorder(l1, l2)\n", 3, 1, "reorder returns nothing"},
      {pre + "a, b, c = sch.split(l1, [None, 4])\n", 3, 1,
       "split gives 2 values but 3 names are bound"},
      {pre + "sch.split(l1, factors=7)\n", 3, 23,
       "split: factors must be a list of None, integers or sampled values"},
      {pre + "sch.split(loop=l1, [None, 4])\n", 3, 20,
       "positional argument after keyword arguments"},
      {pre + "sch.get_block(name=\"C\", name=\"D\")\n", 3, 25, "got multiple values for 'name'"},
      {pre + "sch.get_block(\"C)\n", 3, 15, "unterminated string literal"},
      {pre + "print(b0)\n", 3, 1, "expected a call 'sch.<primitive>(...)'"},
      {pre + "    sch.parallel(l1)\n", 3, 5, "unexpected indent"},
      {pre + "sch.transform_layout(b0, (\"write\", 0), lambda i, j: (i +* 2, j))\n", 3, 57,
       "expected an expression"},
      {pre + "sch.transform_layout(b0, (\"write\", 0), lambda i, j: (i, k))\n", 3, 57,
       "undefined variable 'k'"},
      {pre + "sch.transform_layout(b0, (\"load\", 0), lambda i: (i,))\n", 3, 26,
       "buffer must be a tuple"},
      {pre + "sch.reorder(l1, b0)\n", 3, 17, "reorder: must be a loop, not b0"},
      {pre + "sch.parallel(l1) extra\n", 3, 18, "after the statement"},
      {pre + "sch.annotate(b0, \"k\", [1])\n", 3, 23,
       "ann_val must be an integer, float, bool, string or sampled value"},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    Error e = parse_error(c.text);
    CHECK(e.message().find(c.message) != std::string::npos);
    INFO(e.message());
    CHECK(e.loc().line == c.line);
    CHECK(e.loc().col == c.col);
    REQUIRE(e.loc().file);
    CHECK(*e.loc().file == "s.py");
    // The rendering quotes the line with a caret.
    CHECK(e.render().find("s.py:" + std::to_string(c.line) + ":" + std::to_string(c.col) +
                          ": error: ") == 0);
    CHECK(e.render().find("^\n") != std::string::npos);
  }
}

TEST_CASE("trace from_json rejects malformed input with errors", "[schedule][trace]") {
  const std::string ok_head = R"({"version": 1, "instructions": [)";
  const std::string get_block =
      R"({"kind": "get_block", "positional": [], "keywords": [["name", "C"]], "outputs": ["b0"], "list_output": false})";
  std::vector<std::pair<std::string, std::string>> cases = {
      {"", "unexpected end of input"},
      {"{", "unexpected end of input; expected string literal"},
      {"[1, 2]", "must be an object"},
      {R"({"version": 2, "instructions": []})", "\"version\" must be 1"},
      {R"({"version": 1})", "\"instructions\" must be an array"},
      {R"({"version": 1, "instructions": {}})", "\"instructions\" must be an array"},
      {ok_head + R"({"kind": "frob"}]})", "unknown schedule primitive 'frob'"},
      {ok_head + R"({"kind": "get_loops", "keywords": [["block", {"rv": "b0"}]]}]})",
       "b0 is not defined"},
      {ok_head + get_block + R"(, {"kind": "get_loops", "keywords": [["block", {"rv": "x0"}]]}]})",
       "\"rv\" must name a random variable"},
      {ok_head + R"({"kind": "get_block", "keywords": [["name", "C"]], "outputs": ["l0"]}]})",
       "outputs must be names like \"b0\""},
      {ok_head + get_block + "]} trailing", "expected end of input"},
      {std::string(10000, '['), "nesting too deep"},
      {R"({"version": 1, "instructions": ["\q"]})", "forbidden character after backslash"},
      {R"({"version": 1, "instructions": ["abc)", "missing closing quote"},
      {R"({"version": 1, "instructions": ["\ud800"]})", "must be followed by U+DC00..U+DFFF"},
      {R"({"version": 1e999, "instructions": []})", "number overflow"},
      // Beyond uint64_t an integer reads as a float; beyond int64_t it is refused.
      {R"({"version": 99999999999999999999, "instructions": []})", "\"version\" must be 1"},
      {ok_head + get_block +
           R"(, {"kind": "sample_categorical", "keywords": [["candidates", [9223372036854775808]], ["probs", [1]]]}]})",
       "integer 9223372036854775808 out of range"},
      {ok_head + R"({"kind": "get_block", "keywords": [["name"]]}]})", "[name, value] pair"},
      {ok_head + R"({"kind": "get_block", "keywords": [["name", "C"]], "extra": 1}]})",
       "unknown field \"extra\""},
      {ok_head + R"({"kind": "get_block", "keywords": [["name", "C"]], "list_output": true}]})",
       "list_output must be false"},
      {ok_head + R"({"kind": "get_block", "keywords": []}]})", "missing argument 'name'"},
      {ok_head + get_block + "," + get_block + "]}", "b0 is defined twice"},
      {ok_head +
           R"j({"kind": "transform_layout", "keywords": [["index_map", {"index_map": "lambda i: (i +)"}]]}]})j",
       "index map"},
      {ok_head + R"({"kind": "get_block", "keywords": [["name", {"what": 1}]]}]})",
       "unknown value object"},
      {R"({"version": tru, "instructions": []})", "invalid literal"},
      {R"({"version": -, "instructions": []})", "invalid number"},
  };
  for (const auto& [json, message] : cases) {
    INFO(json.substr(0, 200));
    try {
      Trace::from_json(json);
      FAIL("accepted");
    } catch (const Error& e) {
      INFO(e.message());
      CHECK(e.message().find(message) != std::string::npos);
    }
  }
}

TEST_CASE("trace from_json syntax errors point at line and column", "[schedule][trace]") {
  try {
    Trace::from_json("{\"version\": 1,\n  \"instructions\" []}");
    FAIL("accepted");
  } catch (const Error& e) {
    INFO(e.render());
    CHECK(e.loc().line == 2);
    CHECK(e.loc().col == 18);
    CHECK(e.render().find("<json>:2:18: error: malformed trace JSON: ") == 0);
  }
}

TEST_CASE("trace to_json refuses strings that are not UTF-8", "[schedule][trace]") {
  // A script's "\xff" is a byte JSON text cannot carry; UTF-8 passes through.
  const std::string head =
      "b0 = sch.get_block(name=\"C\")\n"
      "sch.annotate(block_or_loop=b0, ann_key=\"k\", ann_val=";
  CHECK_THROWS_WITH(Trace::parse(head + "\"\\xff\")\n").to_json(),
                    Catch::Contains("cannot write the trace as JSON: instruction 1:"));
  Trace utf8 = Trace::parse(head + "\"caf\xc3\xa9 \\x7f\")\n");
  CHECK(Trace::from_json(utf8.to_json()).print() == utf8.print());
}

TEST_CASE("trace readers never crash on mutated input", "[schedule][trace]") {
  const std::string script = every_kind().print();
  const std::string json = every_kind().to_json();
  uint64_t state = 12345;
  auto next = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return state >> 33;
  };
  const std::string alphabet = "()[]{},:=\"'\\ \n.-0123456789abclv_lambda#";
  int accepted = 0;
  for (int round = 0; round < 1500; ++round) {
    for (const std::string* base : {&script, &json}) {
      std::string text = *base;
      int edits = 1 + static_cast<int>(next() % 4);
      for (int e = 0; e < edits; ++e) {
        size_t pos = next() % text.size();
        switch (next() % 3) {
          case 0:
            text[pos] = alphabet[next() % alphabet.size()];
            break;
          case 1:
            text.erase(pos, 1 + next() % 8);
            break;
          default:
            text.insert(pos, 1, alphabet[next() % alphabet.size()]);
        }
      }
      try {
        Trace t = base == &script ? Trace::parse(text) : Trace::from_json(text);
        // Whatever loads prints and reloads consistently.
        CHECK(Trace::parse(t.print()).print() == t.print());
        ++accepted;
      } catch (const Error&) {
      }
    }
  }
  CHECK(accepted > 0);
}

TEST_CASE("trace replay of lookup and sampling reproduces the trace", "[schedule][trace]") {
  IRModule mod = parse_module(kMatmul);
  const std::string script =
      "b0 = sch.get_block(name=\"C\", func_name=\"main\")\n"
      "l1, l2, l3 = sch.get_loops(block=b0)\n"
      "v4, v5, v6 = sch.sample_perfect_tile(loop=l1, n=3, max_innermost_factor=16, decision=[2, 4, "
      "8])\n"
      "v7 = sch.sample_categorical(candidates=[16, 32, 64], probs=[0.25, 0.25, 0.5], decision=2)\n"
      "b8, = sch.get_child_blocks(l3)\n"
      "sch.get_producers(block=b0)\n"
      "sch.get_consumers(block=b8)\n";
  Schedule sch(mod);
  Trace::parse(script).apply_to(sch);
  CHECK(sch.trace().print() == script);
  CHECK(sch.get(ExprRV{5}) == 4);
  CHECK(sch.get(ExprRV{7}) == 64);

  // Hand-written, with no decisions: replay records the decisions it took,
  // and replaying that recorded trace again gives the same one.
  Schedule first(mod, 7);
  Trace::parse(
      "c = sch.get_block(\"C\")\n"
      "i, j, k = sch.get_loops(c)\n"
      "a, b = sch.sample_perfect_tile(k, 2)\n"
      "x = sch.sample_categorical([1, 2], [0.5, 0.5])\n")
      .apply_to(first);
  std::string recorded = first.trace().print();
  CHECK(recorded.find("decision=[") != std::string::npos);
  Schedule second(mod, 99);
  Trace::parse(recorded).apply_to(second);
  CHECK(second.trace().print() == recorded);
  Schedule third(mod, 5);
  Trace::from_json(first.trace().to_json()).apply_to(third);
  CHECK(third.trace().print() == recorded);
}

TEST_CASE("trace replay errors name the instruction's line", "[schedule][trace]") {
  IRModule mod = parse_module(kMatmul);
  const std::string script =
      "b0 = sch.get_block(\"C\")\n"
      "\n"
      "    # the block has three loops\n"
      "l1, l2 = sch.get_loops(b0)\n";
  SECTION("parsed from a script: the error points into it") {
    Schedule sch(mod);
    try {
      Trace::parse(script, "s.py").apply_to(sch);
      FAIL("replayed");
    } catch (const ScheduleError& e) {
      CHECK(e.primitive() == "get_loops");
      CHECK(e.message() == "get_loops: the trace names 2 results but there are 3");
      CHECK(e.loc().line == 4);
      CHECK(e.render().find("s.py:4:1: error: get_loops:") == 0);
    }
  }
  SECTION("from JSON: the instruction's number") {
    Schedule sch(mod);
    Trace t = Trace::from_json(Trace::parse(script).to_json());
    CHECK_THROWS_WITH(t.apply_to(sch),
                      "instruction 1: get_loops: the trace names 2 results but there are 3");
  }
  SECTION("built by hand with a line") {
    Trace t;
    Instruction i = inst("get_block", {{"name", "nope"}}, {TraceRV{'b', 0}});
    i.line = 4;
    t.append(i);
    Schedule sch(mod);
    CHECK_THROWS_WITH(t.apply_to(sch), "line 4: get_block: no block named nope in function main");
  }
  SECTION("a sampling decision that does not fit") {
    Schedule sch(mod);
    Trace t = Trace::parse(
        "b0 = sch.get_block(\"C\")\n"
        "l1, l2, l3 = sch.get_loops(b0)\n"
        "v4, v5 = sch.sample_perfect_tile(l1, 2, 16, [3, 16])\n",
        "s.py");
    try {
      t.apply_to(sch);
      FAIL("replayed");
    } catch (const ScheduleError& e) {
      CHECK(e.loc().line == 3);
      CHECK(e.message().find("sample_perfect_tile: decision [3, 16] multiplies to 48") == 0);
    }
  }
  SECTION("get_block in a default function") {
    Schedule sch(mod);
    CHECK_THROWS_WITH(Trace::parse("b0 = sch.get_block(\"C\")\n").apply_to(sch, "other"),
                      Catch::Contains("no function named other"));
  }
}
