// The legality proof (schedule/iteration_conflict.h) against the exhaustive
// oracle: random loop nests whose stores and loads use random affine,
// floordiv and floormod indices, each run in the interpreter's race-checking
// mode with the candidate loop parallel. Whenever the proof says the
// iterations are independent, the run must find no race (soundness); the
// test also reports how many race-free loops the proof could not show
// (precision), with TIRC_CONFLICT_VERBOSE=1.
// TIRC_CONFLICT_PROGRAMS sets the number of programs (default 300).
#include <catch2/catch.hpp>
#include <cstdlib>
#include <iostream>
#include <random>

#include "env_int.h"
#include "eval_test_util.h"
#include "ir/eval/interpreter.h"
#include "ir/text/parser.h"
#include "schedule/iteration_conflict.h"
#include "schedule/state.h"

using namespace tirc;

namespace {

// The loops, outermost first: o encloses the candidate loop l; u and v are
// inside it.
struct LoopSpec {
  const char* name;
  int64_t extent;
};

// A random index expression over the loops and the largest value it takes
// (every coefficient is positive, so the smallest is at least 0).
struct Index {
  std::string text;
  int64_t max = 0;
};

class Generator {
 public:
  explicit Generator(uint64_t seed) : rng_(seed) {}

  std::vector<LoopSpec> loops() {
    return {{"o", pick({1, 2, 3})},
            {"l", pick({2, 3, 4, 6, 8})},
            {"u", pick({1, 2, 3, 4})},
            {"v", pick({1, 2, 4})}};
  }

  // [X // k, X % k] for a random index X: a flattened position written into
  // two dimensions (a convolution's output pixel), which the proof may read
  // as the one dimension X when the buffer's second extent is k.
  std::vector<Index> split_pair(const std::vector<LoopSpec>& loops) {
    Index x = index(loops);
    int64_t k = pick({2, 3, 4});
    std::string ks = std::to_string(k);
    return {{"(" + x.text + ") // " + ks, x.max / k},
            {"(" + x.text + ") % " + ks, std::min(x.max, k - 1)}};
  }

  Index index(const std::vector<LoopSpec>& loops, int depth = 0) {
    Index sum{"", 0};
    int terms = static_cast<int>(pick({1, 2, 2, 3}));
    for (int t = 0; t < terms; ++t) {
      Index term = depth < 1 && chance(0.3) ? wrapped(loops, depth) : scaled(loops);
      sum.text += (sum.text.empty() ? "" : " + ") + term.text;
      sum.max += term.max;
    }
    if (chance(0.4)) {
      int64_t c = pick({1, 2, 5});
      sum.text += " + " + std::to_string(c);
      sum.max += c;
    }
    return sum;
  }

 private:
  Index scaled(const std::vector<LoopSpec>& loops) {
    const LoopSpec& l = loops[static_cast<size_t>(pick({0, 1, 1, 1, 2, 2, 3}))];
    int64_t c = pick({1, 1, 2, 3, 4, 8});
    // A digit of a fused loop: l // k or l % k, as fuse writes the bindings.
    if (std::string(l.name) == "l" && chance(0.3)) {
      int64_t k = pick({2, 4});
      if (chance(0.5))
        return {"l // " + std::to_string(k) + " * " + std::to_string(c), (l.extent - 1) / k * c};
      return {"l % " + std::to_string(k) + " * " + std::to_string(c), std::min(l.extent - 1, k - 1) * c};
    }
    return {std::string(l.name) + " * " + std::to_string(c), c * (l.extent - 1)};
  }
  Index wrapped(const std::vector<LoopSpec>& loops, int depth) {
    Index inner = index(loops, depth + 1);
    int64_t k = pick({2, 3, 4, 8});
    if (chance(0.5)) return {"(" + inner.text + ") // " + std::to_string(k), inner.max / k};
    return {"(" + inner.text + ") % " + std::to_string(k), std::min(inner.max, k - 1)};
  }
  int64_t pick(std::initializer_list<int64_t> xs) {
    std::uniform_int_distribution<size_t> d(0, xs.size() - 1);
    return *(xs.begin() + static_cast<std::ptrdiff_t>(d(rng_)));
  }
  bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }

  std::mt19937_64 rng_;
};

// B[W] = B[R] + 1 (or a 2-D B) under the four loops, l parallel.
std::string program(const std::vector<LoopSpec>& loops, const std::vector<Index>& w,
                    const std::vector<Index>& r) {
  std::string shape, wi, ri;
  for (size_t d = 0; d < w.size(); ++d) {
    shape += (d ? ", " : "") + std::to_string(std::max(w[d].max, r[d].max) + 1);
    wi += (d ? ", " : "") + w[d].text;
    ri += (d ? ", " : "") + r[d].text;
  }
  std::string text = "@T.prim_func\ndef main(B: T.Buffer((" + shape + (w.size() == 1 ? "," : "") +
                     "), \"float32\")):\n";
  std::string indent = "    ";
  for (const LoopSpec& l : loops) {
    std::string kind = std::string(l.name) == "l" ? "T.parallel" : "range";
    text += indent + "for " + l.name + " in " + kind + "(" + std::to_string(l.extent) + "):\n";
    indent += "    ";
  }
  return text + indent + "B[" + wi + "] = B[" + ri + "] + T.float32(1)\n";
}

}  // namespace

TEST_CASE("the legality proof never accepts a loop the race checker finds racy",
          "[schedule][conflict][oracle]") {
  const int programs = test::env_int("TIRC_CONFLICT_PROGRAMS", 300);
  int proved = 0, racy = 0, unproved_race_free = 0;
  for (int p = 0; p < programs; ++p) {
    Generator gen(static_cast<uint64_t>(p) * 7919 + 1);
    std::vector<LoopSpec> loops = gen.loops();
    size_t dims = p % 3 == 2 ? 2 : 1;
    std::vector<Index> w, r;
    for (size_t d = 0; d < dims; ++d) {
      w.push_back(gen.index(loops));
      r.push_back(gen.index(loops));
    }
    // Every sixth program writes (and reads) split pairs.
    if (p % 6 == 5) {
      w = gen.split_pair(loops);
      r = gen.split_pair(loops);
    }
    // Every third program reads where it writes: the common in-place update.
    if (p % 3 == 1) r = w;
    std::string text = program(loops, w, r);
    PrimFunc f = parse_module(text, "oracle.tir").functions().front().second;
    const ForNode* o = f->body.as<ForNode>();
    REQUIRE(o);
    std::optional<StmtPath> path = find_loop(f->body, o->body.as<ForNode>()->loop_var.get());
    REQUIRE(path);
    bool accepted = !iteration_conflict(*path).has_value();
    bool race = !test::race_of(f).empty();
    INFO("program " << p << ":\n" << text);
    CHECK_FALSE((accepted && race));
    proved += accepted;
    racy += race;
    unproved_race_free += !accepted && !race;
    if (!accepted && !race && std::getenv("TIRC_CONFLICT_DUMP")) std::cout << text << "\n";
  }
  if (std::getenv("TIRC_CONFLICT_VERBOSE"))
    std::cout << "[conflict][oracle] " << programs << " programs: " << proved << " proved, " << racy
              << " racy (all refused), " << unproved_race_free << " race-free but not proved\n";
  // The proof must not be vacuous: it accepts a good share of the programs.
  CHECK(proved > programs / 20);
}
