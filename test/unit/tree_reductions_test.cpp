// tree-reductions: a block's threads' partial results, summed by one thread
// in a serial loop over shared memory, become a tree of threadIdx.x steps;
// the lowered kernel computes what the plain one does (within rounding), with
// no race between the threads of a step. Where the rewrite would not be safe
// (the parts read afterwards, other thread axes, a length that is no power
// of two) nothing changes.
#include <catch2/catch.hpp>

#include "ir/eval/interpreter.h"
#include "ir/text/parser.h"
#include "ir/text/printer.h"
#include "passes/passes.h"

using namespace tirc;

namespace {

// A lowered GPU kernel: 4 rows, each summed by `threads` threads into the
// shared P, then the final loop `last` (the serial sum by default).
std::string kernel(int threads, const std::string& axis = "threadIdx.x",
                   const std::string& after = "") {
  const std::string t = std::to_string(threads);
  return "@T.prim_func\n"
         "def main(X: T.Buffer((" +
         std::to_string(4 * threads * 2) +
         ",), \"float32\"), R: T.Buffer((4,), \"float32\")):\n"
         "    T.func_attr({\"tir.noalias\": T.bool(True)})\n"
         "    for b in T.thread_binding(4, thread=\"blockIdx.x\"):\n"
         "        P_data = T.allocate([" +
         t +
         "], \"float32\", \"shared\")\n"
         "        P = T.Buffer((" +
         t +
         ",), data=P_data, scope=\"shared\")\n"
         "        for t in T.thread_binding(" +
         t + ", thread=\"" + axis +
         "\"):\n"
         "            P[t] = X[b * " +
         std::to_string(2 * threads) + " + t] + X[b * " + std::to_string(2 * threads) + " + " + t +
         " + t]\n"
         "        R[b] = T.float32(0)\n"
         "        for k in range(" +
         t +
         "):\n"
         "            R[b] = R[b] + P[k]\n" +
         after;
}

}  // namespace

TEST_CASE("tree-reductions: a serial sum of 64 partial results becomes 6 steps", "[passes]") {
  const PrimFunc f = parse_module(kernel(64), "tree.tir").at("main");
  const PrimFunc out = tree_reductions(f);
  const std::string text = print_func(out, "main");
  INFO(text);
  for (int half : {32, 16, 8, 4, 2, 1})
    CHECK(text.find("T.thread_binding(" + std::to_string(half) + ", thread=\"threadIdx.x\")") !=
          std::string::npos);
  CHECK(text.find("for k in range(64)") == std::string::npos);
  CHECK(text.find("R[b] = R[b] + P[0]") != std::string::npos);
  EquivOptions options;
  options.small_ints = false;
  options.rtol = 1e-5;
  const EquivResult eq = check_equivalent(f, out, options);
  INFO(eq.message);
  CHECK(eq.equal);
}

TEST_CASE("tree-reductions: left alone where the rewrite would not be safe", "[passes]") {
  for (const auto& [what, text] : std::vector<std::pair<std::string, std::string>>{
           {"a length of no power of two", kernel(48)},
           {"threads along another axis", kernel(64, "threadIdx.y")},
           {"the parts read afterwards",
            kernel(64, "threadIdx.x",
                   "        for t2 in T.thread_binding(64, thread=\"threadIdx.x\"):\n"
                   "            X[b * 128 + t2] = P[t2]\n")}}) {
    INFO(what);
    const PrimFunc f = parse_module(text, "tree.tir").at("main");
    CHECK(tree_reductions(f).get() == f.get());
  }
}
