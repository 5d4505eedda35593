// Cost of the schedule legality proof for parallel/vectorize/bind
// (schedule/iteration_conflict.h) per call, at loop extents from 64 to 10^6:
// it must not grow with the extent (a tuner applies it thousands of times).
#include <cstdio>
#include <string>

#include "ir/text/parser.h"
#include "schedule/iteration_conflict.h"
#include "schedule/state.h"
#include "tuner/timing.h"

using namespace tirc;

namespace {

// A tiled matmul-like nest: C[i, j] += A[i, k] * B[k, j] with i split by 16,
// so the proof sees an outer tile loop, inner loops and a read of C.
std::string program(int64_t n) {
  std::string s = std::to_string(n);
  return "@T.prim_func\ndef main(A: T.Buffer((" + s + ", 64), \"float32\"), B: T.Buffer((64, 64), "
         "\"float32\"), C: T.Buffer((" + s + ", 64), \"float32\")):\n"
         "    for io, ii, j, k in T.grid(" + std::to_string(n / 16) + ", 16, 64, 64):\n"
         "        with T.block(\"C\"):\n"
         "            vi = T.axis.spatial(" + s + ", io * 16 + ii)\n"
         "            vj, vk = T.axis.remap(\"SR\", [j, k])\n"
         "            with T.init():\n"
         "                C[vi, vj] = T.float32(0)\n"
         "            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]\n";
}

}  // namespace

int main() {
  std::printf("%-10s %14s %8s\n", "extent", "us per call", "result");
  for (int64_t n : {64, 4096, 1000000}) {
    IRModule m = parse_module(program(n), "legality.tir");
    const PrimFunc& f = m.at("main");
    StmtPath path = *find_block(f->body, "C");
    // The outermost loop (io): the path up to it.
    size_t at = 0;
    while (!path.stmts[at].as<ForNode>()) ++at;
    StmtPath loop{std::vector<Stmt>(path.stmts.begin(), path.stmts.begin() + at + 1)};
    bool ok = false;
    const int calls = 200;
    double s = best_seconds(
        [&] {
          for (int c = 0; c < calls; ++c) ok = !iteration_conflict(loop).has_value();
        },
        10);
    std::printf("%-10lld %14.2f %8s\n", static_cast<long long>(n), s / calls * 1e6,
                ok ? "proved" : "refused");
  }
  return 0;
}
