// The x86 tests that loop over ISAs (x86test::targets(), available_targets(),
// and loops over {avx2, avx512} that skip what host_supports() refuses) run the
// ISAs this CPU has and leave the others out without failing. These test
// cases, one per ISA, are where a missing ISA shows: ctest lists the one this
// CPU lacks as skipped, so a run without AVX-512 never reads as full coverage.
#include <catch2/catch.hpp>

#include "skip.h"
#include "x86_test_util.h"

namespace tirc::x86test {
namespace {

void check_host_runs(Isa isa) {
  Target t{isa};
  if (!host_supports(t))
    TIRC_SKIP("this CPU lacks " << t.name() << ": every multi-ISA x86 test ran without it");
  PrimFunc f = tir(R"(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32"))",
                   "    for i in T.vectorized(64):\n"
                   "        B[i] = A[i] * T.float32(3) + T.float32(1)\n");
  GeneratorStats stats = expect_same(f, t);
  CHECK(stats.vectorized_loops == 1);
}

}  // namespace

TEST_CASE("this CPU runs x86-64-avx2 code", "[x86][host-isa]") {
  check_host_runs(Isa::avx2);
}

TEST_CASE("this CPU runs x86-64-avx512 code", "[x86][host-isa]") {
  check_host_runs(Isa::avx512);
}

}  // namespace tirc::x86test
