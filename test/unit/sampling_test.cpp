// sample_perfect_tile and sample_categorical: validity, determinism, the
// recorded decisions, and refusals.
#include <catch2/catch.hpp>
#include <map>
#include <set>

#include "ir/text/parser.h"
#include "ir/text/printer.h"
#include "schedule/schedule.h"

using namespace tirc;

namespace {

const char* kLoops = R"(@T.prim_func
def main(A: T.Buffer((64, 48, 7), "float32")):
    for i, j, k in T.grid(64, 48, 7):
        with T.block("A"):
            vi, vj, vk = T.axis.remap("SSS", [i, j, k])
            A[vi, vj, vk] = T.float32(0)
)";

const char* kSymbolic = R"(@T.prim_func
def main(A: T.Buffer((64,), "float32"), n: T.int32):
    for i in range(n):
        with T.block("B"):
            vi = T.axis.spatial(64, i)
            A[vi] = T.float32(0)
)";

std::vector<int64_t> values(const Schedule& sch, const std::vector<ExprRV>& rvs) {
  std::vector<int64_t> out;
  for (ExprRV v : rvs) out.push_back(sch.get(v));
  return out;
}

std::vector<int64_t> tile(uint64_t seed, int loop, int n, int max_inner) {
  Schedule sch(parse_module(kLoops), seed);
  auto loops = sch.get_loops(sch.get_block("A"));
  return values(sch, sch.sample_perfect_tile(loops[static_cast<size_t>(loop)], n, max_inner));
}

}  // namespace

TEST_CASE("sample_perfect_tile gives valid tilings, deterministic per seed", "[schedule][trace]") {
  const int64_t extents[] = {64, 48, 7};
  std::set<std::vector<int64_t>> seen;
  for (uint64_t seed = 0; seed < 300; ++seed) {
    for (int loop = 0; loop < 3; ++loop) {
      for (int n : {1, 2, 3, 4}) {
        int max_inner = n == 1 ? -1 : 8;
        std::vector<int64_t> f = tile(seed, loop, n, max_inner);
        REQUIRE(f.size() == static_cast<size_t>(n));
        int64_t product = 1;
        for (int64_t x : f) {
          CHECK(x >= 1);
          product *= x;
        }
        CHECK(product == extents[loop]);
        CHECK((max_inner == -1 || f.back() <= max_inner));
        if (loop == 0 && n == 3) seen.insert(f);
      }
    }
    CHECK(tile(seed, 0, 3, 8) == tile(seed, 0, 3, 8));
  }
  // 64 = 2^6 into three factors with the innermost <= 8: many distinct outcomes.
  CHECK(seen.size() > 20);
  // -1: no bound on the innermost factor.
  CHECK(tile(3, 2, 1, -1) == std::vector<int64_t>{7});
}

TEST_CASE("sample_perfect_tile is uniform over the factorizations", "[schedule][trace]") {
  // 48 = a * b with b <= 16: b in {1, 2, 3, 4, 6, 8, 12, 16}, each 1/8.
  std::map<int64_t, int> counts;
  const int trials = 4000;
  for (uint64_t seed = 0; seed < trials; ++seed) ++counts[tile(seed, 1, 2, 16).back()];
  CHECK(counts.size() == 8);
  for (const auto& [inner, count] : counts) {
    INFO(inner);
    CHECK(count > trials / 8 * 0.8);
    CHECK(count < trials / 8 * 1.2);
  }
}

TEST_CASE("sample_perfect_tile records its decision and honours a given one", "[schedule][trace]") {
  Schedule sch(parse_module(kLoops), 11);
  auto loops = sch.get_loops(sch.get_block("A"));
  auto rvs = sch.sample_perfect_tile(loops[1], 3, 4, std::vector<int64_t>{4, 3, 4});
  CHECK(values(sch, rvs) == std::vector<int64_t>{4, 3, 4});
  const Instruction& inst = sch.trace().instructions().back();
  CHECK(inst.kind == "sample_perfect_tile");
  CHECK(inst.list_output);
  CHECK(inst.outputs.size() == 3);
  CHECK(sch.trace().print().find("v4, v5, v6 = sch.sample_perfect_tile(loop=l2, n=3, "
                                 "max_innermost_factor=4, decision=[4, 3, 4])") !=
        std::string::npos);
  // A given decision draws nothing from the generator.
  Schedule a(parse_module(kLoops), 5), b(parse_module(kLoops), 5);
  auto la = a.get_loops(a.get_block("A"));
  auto lb = b.get_loops(b.get_block("A"));
  a.sample_perfect_tile(la[0], 2, 64, std::vector<int64_t>{8, 8});
  CHECK(values(a, a.sample_perfect_tile(la[0], 2)) == values(b, b.sample_perfect_tile(lb[0], 2)));
}

TEST_CASE("sample_perfect_tile refusals leave the schedule unchanged", "[schedule][trace]") {
  Schedule sch(parse_module(kLoops));
  auto loops = sch.get_loops(sch.get_block("A"));
  std::string before = print(sch.mod());
  size_t trace_size = sch.trace().size();
  auto refuses = [&](LoopRV loop, int n, int max_inner,
                     std::optional<std::vector<int64_t>> decision, const std::string& message) {
    INFO(message);
    try {
      sch.sample_perfect_tile(loop, n, max_inner, decision);
      FAIL("accepted");
    } catch (const ScheduleError& e) {
      CHECK(e.primitive() == "sample_perfect_tile");
      CHECK(e.message().find(message) != std::string::npos);
    }
    CHECK(sch.trace().size() == trace_size);
    CHECK(print(sch.mod()) == before);
  };
  refuses(loops[0], 0, 16, {}, "n must be at least 1, not 0");
  refuses(loops[0], 2, 0, {}, "max_innermost_factor must be positive");
  refuses(loops[0], 2, 16, std::vector<int64_t>{8, 4},
          "decision [8, 4] multiplies to 32, not to the extent 64");
  refuses(loops[0], 2, 16, std::vector<int64_t>{64}, "decision [64] has 1 factors but n is 2");
  refuses(loops[0], 2, 16, std::vector<int64_t>{2, 32},
          "innermost factor 32 above max_innermost_factor 16");
  refuses(loops[0], 2, 16, std::vector<int64_t>{0, 64}, "has a factor below 1");
  refuses(loops[0], 2, 16, std::vector<int64_t>{1 << 30, 1 << 30},
          "does not multiply to the extent 64");
  refuses(loops[2], 1, 4, {}, "loop k of extent 7 has no tiling into 1 factors");
  refuses(LoopRV{99}, 2, 16, {}, "unknown loop handle");

  Schedule sym(parse_module(kSymbolic));
  auto l = sym.get_loops(sym.get_block("B"));
  CHECK_THROWS_WITH(sym.sample_perfect_tile(l[0], 2),
                    "sample_perfect_tile: loop i has a non-constant extent");
}

TEST_CASE("sample_categorical draws by the probabilities and validates", "[schedule][trace]") {
  std::map<int64_t, int> counts;
  for (uint64_t seed = 0; seed < 4000; ++seed) {
    Schedule sch(parse_module(kLoops), seed);
    ExprRV v = sch.sample_categorical({10, 20, 30}, {0.5, 0.0, 1.5});
    ++counts[sch.get(v)];
    Schedule again(parse_module(kLoops), seed);
    CHECK(again.get(again.sample_categorical({10, 20, 30}, {0.5, 0.0, 1.5})) == sch.get(v));
  }
  CHECK(counts.count(20) == 0);
  CHECK(counts[10] > 800);
  CHECK(counts[10] < 1200);
  CHECK(counts[30] > 2800);

  Schedule sch(parse_module(kLoops));
  ExprRV v = sch.sample_categorical({1, 2, 4}, {1, 1, 1}, 2);
  CHECK(sch.get(v) == 4);
  CHECK(sch.trace().print() ==
        "v0 = sch.sample_categorical(candidates=[1, 2, 4], probs=[1.0, 1.0, 1.0], decision=2)\n");
  auto refuses = [&](std::vector<int64_t> c, std::vector<double> p, std::optional<int> d,
                     const std::string& msg) {
    INFO(msg);
    CHECK_THROWS_WITH(sch.sample_categorical(c, p, d), Catch::Contains(msg));
    CHECK(sch.trace().size() == 1);
  };
  refuses({}, {}, {}, "sample_categorical: no candidates");
  refuses({1, 2}, {1}, {}, "2 candidates but 1 probabilities");
  refuses({1, 2}, {1, -1}, {}, "must be finite and not negative");
  refuses({1, 2}, {0, 0}, {}, "the probabilities sum to 0");
  refuses({1, 2}, {1, 1}, 2, "decision 2 is not an index of the 2 candidates");
  refuses({1, 2}, {1, 1}, -1, "decision -1 is not an index");
}

TEST_CASE("forked schedules draw their own samples; queries record nothing", "[schedule][sample]") {
  Schedule parent(parse_module(kLoops), 7);
  auto loops = parent.get_loops(parent.get_block("A"));
  // A plain copy draws what the original would; a reseeded copy its own.
  std::set<std::vector<int64_t>> draws;
  Schedule same = parent;
  const auto first = values(same, same.sample_perfect_tile(loops[0], 3, 64));
  Schedule other = parent;
  CHECK(values(other, other.sample_perfect_tile(loops[0], 3, 64)) == first);
  for (int child = 0; child < 8; ++child) {
    Schedule c = parent;
    c.seed(parent.fork_seed());
    draws.insert(values(c, c.sample_perfect_tile(loops[0], 3, 64)));
  }
  CHECK(draws.size() > 1);
  // The same seed gives the same draw.
  Schedule a = parent, b = parent;
  a.seed(42);
  b.seed(42);
  CHECK(values(a, a.sample_perfect_tile(loops[1], 2, 16)) ==
        values(b, b.sample_perfect_tile(loops[1], 2, 16)));

  // loop_info and loop_nest read extents and kinds without writing the trace.
  Schedule q(parse_module(kLoops));
  auto ls = q.get_loops(q.get_block("A"));
  q.vectorize(ls[2]);
  const size_t recorded = q.trace().size();
  LoopInfo k = q.loop_info(ls[2]);
  CHECK(k.const_extent == 7);
  CHECK(k.kind == ForKind::Vectorized);
  std::vector<LoopInfo> nest = q.loop_nest(q.get_block("A"));
  REQUIRE(nest.size() == 3);
  CHECK(nest[0].const_extent == 64);
  CHECK(nest[1].var.get() == q.get(ls[1]).get());
  CHECK(q.trace().size() == recorded + 1);  // the get_block above, nothing more
  auto parts = q.split(ls[0], {nullptr, 8});
  CHECK(q.loop_info(parts[1]).const_extent == 8);
  CHECK_THROWS_AS(q.loop_info(ls[0]), ScheduleError);  // split away
}
