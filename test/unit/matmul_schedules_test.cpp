// The benchmark's hand-written matmul schedule (bench/matmul_schedules.h).
#include <catch2/catch.hpp>

#include "codegen_test_util.h"

#include "bench/matmul_schedules.h"
#include "ir/eval/interpreter.h"
#include "ir/text/parser.h"
#include "schedule/schedule.h"
#include "schedule/trace.h"

namespace tirc {

TEST_CASE("matmul schedule: tiles fit the register budget and divide the shape", "[contraction]") {
  MatmulTiling t = choose_matmul_tiling(1024, 1024, 1024, Target{Isa::avx512});
  CHECK(t.rows == 8);
  CHECK(t.columns == 32);  // 8 x 2 vectors: 16 accumulators
  CHECK(t.kc == 256);      // 256 x 32 floats = 32 KiB of B
  MatmulTiling u = choose_matmul_tiling(96, 96, 64, Target{Isa::avx512});
  CHECK(u.rows * ((u.columns + 15) / 16) <= 28);
  CHECK(96 % u.rows == 0);
  CHECK(96 % u.columns == 0);
  CHECK(u.rows == 12);  // 12 x 2 vectors: 24 accumulators
  CHECK(u.columns == 32);
  MatmulTiling v = choose_matmul_tiling(96, 96, 64, Target{Isa::avx2});
  CHECK(v.rows * ((v.columns + 7) / 8) <= 12);
  CHECK(choose_matmul_tiling(256, 256, 256, Target{Isa::avx2}).rows == 4);
  CHECK(choose_matmul_tiling(256, 256, 256, Target{Isa::avx2}).columns == 16);
  MatmulTiling w = choose_matmul_tiling(17, 33, 65, Target{Isa::avx512});
  CHECK(w.columns == 33);
  CHECK(w.rows == 1);  // 17 is prime: 17 x 3 vectors would not fit
  // A matrix-vector product (MobileNetV2's classifier): B is read once, so
  // the widest tile (16 vectors, 250 of 256 lanes used) and no k blocks.
  MatmulTiling x = choose_matmul_tiling(1, 1000, 1280, Target{Isa::avx512});
  CHECK(x.rows == 1);
  CHECK(x.columns == 250);
  CHECK(x.kc == 1280);
}

TEST_CASE("matmul schedule: applies and computes the same as the plain matmul", "[contraction]") {
  struct Shape {
    int64_t m, n, k;
  };
  // {8, 256, 24}: n >= 256 packs B into panels.
  for (Shape s : {Shape{48, 64, 32}, Shape{12, 40, 24}, Shape{16, 16, 16}, Shape{8, 256, 24}}) {
    for (Isa isa : {Isa::avx512, Isa::avx2}) {
      for (bool parallel : {false, true}) {
        std::string script = matmul_schedule(s.m, s.n, s.k, Target{isa}, parallel);
        INFO(script);
        IRModule mod = parse_module(matmul_tir(s.m, s.n, s.k));
        Schedule sch(mod);
        Trace::parse(script).apply_to(sch);
        auto eq = check_equivalent(mod.at("main"), sch.func("main"), 1);
        CHECK(eq.equal);
        if (s.n >= 256) CHECK(script.find("cache_read") != std::string::npos);
        // Compiled (contraction kernels on), it computes the same.
        if (host_supports(Target{isa})) {
          GeneratorOptions options;
          options.target = Target{isa};
          CHECK(compile_and_compare(mod.at("main"), sch.func("main"), options, 3, true).message ==
                "");
        }
      }
    }
  }
  std::string bad = matmul_schedule(48, 64, 32, Target{Isa::avx512}) + "sch.vectorize(loop=l99)\n";
  IRModule mod = parse_module(matmul_tir(48, 64, 32));
  Schedule sch(mod);
  CHECK_THROWS_AS(Trace::parse(bad).apply_to(sch), Error);
}

}  // namespace tirc
