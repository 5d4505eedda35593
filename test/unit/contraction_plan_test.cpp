// Plans of the LoopNest-style contraction emitter (codegen/x86/contraction_plan.h).
#include <catch2/catch.hpp>

#include "codegen/x86/contraction_plan.h"
#include "contraction_test_util.h"

namespace tirc::test {
namespace {

using Role = ContractionPlan::LoopRole;
const Target kAvx512{Isa::avx512};
const Target kAvx2{Isa::avx2};

struct Planned {
  PrimFunc func;
  std::optional<ContractionPlan> plan;
  std::string why;
};

Planned plan_text(const std::string& text, const Target& t, const PlanLimits& limits = {}) {
  Planned p;
  p.func = parse_single(text);
  p.plan = plan_contraction(root_for(p.func), t, limits, &p.why);
  if (p.plan) INFO(p.plan->summary());
  return p;
}

std::vector<Role> roles(const ContractionPlan& p) {
  std::vector<Role> r;
  for (const auto& l : p.loops) r.push_back(l.role);
  return r;
}

}  // namespace

TEST_CASE("contraction plan: plain matmul i j k on AVX-512", "[contraction]") {
  MatmulSpec s{.m = 64, .n = 64, .k = 64, .ti = 0, .order = {"i1", "j1", "k1"}};
  auto p = plan_text(matmul_text(s), kAvx512);
  REQUIRE(p.plan);
  INFO(p.plan->summary());
  CHECK(p.plan->loops.size() == 3);
  CHECK(p.plan->vector_loop == 1);
  CHECK(p.plan->vector_lanes == 16);
  CHECK(p.plan->vector_tail == 0);
  CHECK(p.plan->a_is_broadcast);
  CHECK(p.plan->tile_scope == 1);
  CHECK(p.plan->accumulators == 4);
  CHECK(roles(*p.plan) == std::vector<Role>{Role::Outer, Role::Vector, Role::Unrolled});
  CHECK(p.plan->unrolled_fmas == 256);
  CHECK(p.plan->loops[0].stride_c == 64);
  CHECK(p.plan->loops[0].stride_a == 64);
  CHECK(p.plan->loops[0].stride_b == 0);
  CHECK(p.plan->loops[2].stride_a == 1);
  CHECK(p.plan->loops[2].stride_b == 64);
  CHECK(p.plan->c.data == p.func->params[2].buffer->data);
  CHECK(p.plan->a.data == p.func->params[0].buffer->data);
  CHECK(is_const_int(p.plan->a.offset, 0));
}

TEST_CASE("contraction plan: AVX2 keeps a too-long reduction counted and unrolls a divisor",
          "[contraction]") {
  MatmulSpec s{.m = 64, .n = 64, .k = 64, .ti = 0, .order = {"i1", "j1", "k1"}};
  auto p = plan_text(matmul_text(s), kAvx2);
  REQUIRE(p.plan);
  INFO(p.plan->summary());
  CHECK(p.plan->vector_lanes == 8);
  CHECK(p.plan->accumulators == 8);
  CHECK(roles(*p.plan) == std::vector<Role>{Role::Outer, Role::Vector, Role::TileLoop});
  CHECK(p.plan->loops[2].unroll == 32);  // 8 accumulators * 32 <= 320
  CHECK(p.plan->unrolled_fmas == 256);
}

TEST_CASE("contraction plan: register tile i1 x j1 below a k loop", "[contraction]") {
  MatmulSpec s{
      .m = 96, .n = 1024, .k = 128, .ti = 6, .tj = 32, .order = {"i0", "j0", "k1", "i1", "j1"}};
  auto p = plan_text(matmul_text(s), kAvx512);
  REQUIRE(p.plan);
  INFO(p.plan->summary());
  CHECK(p.plan->tile_scope == 2);
  CHECK(p.plan->accumulators == 12);
  CHECK(p.plan->vector_loop == 4);
  CHECK(roles(*p.plan) ==
        std::vector<Role>{Role::Outer, Role::Outer, Role::TileLoop, Role::Unrolled, Role::Vector});
  CHECK(p.plan->loops[2].unroll == 16);  // 12 * 16 = 192 <= 320, 16 divides 128
  CHECK(p.plan->unrolled_fmas == 192);
}

TEST_CASE("contraction plan: the scope grows outward while the tile fits", "[contraction]") {
  // j0 has extent 2: a 6 x 64 tile (24 accumulators) still fits in 28.
  MatmulSpec s{
      .m = 96, .n = 64, .k = 128, .ti = 6, .tj = 32, .order = {"i0", "j0", "k1", "i1", "j1"}};
  auto p = plan_text(matmul_text(s), kAvx512);
  REQUIRE(p.plan);
  CHECK(p.plan->tile_scope == 1);
  CHECK(p.plan->accumulators == 24);
  CHECK(p.plan->loops[1].role == Role::Unrolled);
  // AVX2: 6 x 4 vectors = 24 > 12 at k: only j1 fits (the outermost rule).
  auto q = plan_text(matmul_text(s), kAvx2);
  REQUIRE(q.plan);
  CHECK(q.plan->tile_scope == 4);
  CHECK(q.plan->accumulators == 4);
}

TEST_CASE("contraction plan: odd sizes give a masked tail", "[contraction]") {
  MatmulSpec s{.m = 17, .n = 33, .k = 65, .ti = 0, .order = {"i1", "j1", "k1"}};
  auto p = plan_text(matmul_text(s), kAvx512);
  REQUIRE(p.plan);
  CHECK(p.plan->vector_tail == 1);
  CHECK(p.plan->accumulators == 3);
  CHECK(p.plan->tile_scope == 1);
  CHECK(p.plan->loops[2].role == Role::Unrolled);  // 3 * 65 = 195
  auto q = plan_text(matmul_text(s), kAvx2);
  REQUIRE(q.plan);
  CHECK(q.plan->vector_tail == 1);
  CHECK(q.plan->accumulators == 5);
  CHECK(q.plan->loops[2].role == Role::TileLoop);
  CHECK(q.plan->loops[2].unroll == 13);  // 5 * 65 = 325 > 320; 13 divides 65
}

TEST_CASE("contraction plan: k outermost keeps the outer loops outside the tile", "[contraction]") {
  MatmulSpec s{.m = 32, .n = 32, .k = 32, .ti = 0, .order = {"k1", "i1", "j1"}};
  auto p = plan_text(matmul_text(s), kAvx512);
  REQUIRE(p.plan);
  CHECK(p.plan->tile_scope == 2);
  CHECK(p.plan->accumulators == 2);
  CHECK(roles(*p.plan) == std::vector<Role>{Role::Outer, Role::Outer, Role::Vector});
  CHECK(p.plan->unrolled_fmas == 2);
  // Small enough: the whole nest is the tile and k is unrolled around it.
  MatmulSpec t{.m = 16, .n = 16, .k = 16, .ti = 0, .order = {"k1", "i1", "j1"}};
  auto q = plan_text(matmul_text(t), kAvx512);
  REQUIRE(q.plan);
  CHECK(q.plan->tile_scope == 0);
  CHECK(q.plan->accumulators == 16);
  CHECK(roles(*q.plan) == std::vector<Role>{Role::Unrolled, Role::Unrolled, Role::Vector});
  CHECK(q.plan->unrolled_fmas == 256);
}

TEST_CASE("contraction plan: transposed A is broadcast; transposed B is refused", "[contraction]") {
  MatmulSpec s{
      .m = 16, .n = 16, .k = 16, .ti = 0, .order = {"i1", "k1", "j1"}, .a_transposed = true};
  auto p = plan_text(matmul_text(s), kAvx512);
  REQUIRE(p.plan);
  CHECK(p.plan->a_is_broadcast);
  CHECK(p.plan->tile_scope == 0);
  CHECK(p.plan->accumulators == 16);
  CHECK(p.plan->loops[0].stride_a == 1);
  CHECK(p.plan->loops[1].stride_a == 16);

  MatmulSpec t{
      .m = 16, .n = 16, .k = 16, .ti = 0, .order = {"i1", "j1", "k1"}, .b_transposed = true};
  auto q = plan_text(matmul_text(t), kAvx512);
  CHECK_FALSE(q.plan);
  CHECK(q.why.find("unit stride") != std::string::npos);
}

TEST_CASE("contraction plan: vector operand first and operands swapped", "[contraction]") {
  // C[i, j] += B'[k, j] * A'[i, k] written with the vector operand as A.
  std::string text = nest_text(16 * 16, 16 * 16, 16 * 16, {{"i", 16}, {"j", 16}, {"k", 16}},
                               "C[i * 16 + j] = A[k * 16 + j] * B[i * 16 + k] + C[i * 16 + j]");
  auto p = plan_text(text, kAvx512);
  REQUIRE(p.plan);
  CHECK_FALSE(p.plan->a_is_broadcast);
  CHECK(p.plan->vector_loop == 1);
  CHECK(p.plan->loops[1].stride_a == 1);
}

TEST_CASE("contraction plan: batch matmul", "[contraction]") {
  std::string text =
      nest_text(4 * 8 * 8, 4 * 8 * 32, 4 * 8 * 32, {{"b", 4}, {"i", 8}, {"j", 32}, {"k", 8}},
                update_stmt("b * 256 + i * 32 + j", "b * 64 + i * 8 + k", "b * 256 + k * 32 + j"));
  auto p = plan_text(text, kAvx512);
  REQUIRE(p.plan);
  INFO(p.plan->summary());
  CHECK(p.plan->tile_scope == 1);  // b * i * 2 vectors = 64 > 28; i * 2 = 16
  CHECK(p.plan->accumulators == 16);
  CHECK(p.plan->loops[0].stride_b == 256);
  CHECK(p.plan->loops[0].role == Role::Outer);
  CHECK(p.plan->loops[3].role == Role::Unrolled);
}

TEST_CASE("contraction plan: conv2d NCHW as a contraction", "[contraction]") {
  // out[oc, oh, ow] += in[ic, oh + kh, ow + kw] * w[oc, ic, kh, kw]
  std::string text =
      nest_text(3 * 10 * 10, 4 * 3 * 3 * 3, 4 * 8 * 8,
                {{"oc", 4}, {"oh", 8}, {"ic", 3}, {"kh", 3}, {"kw", 3}, {"ow", 8, "T.vectorized"}},
                update_stmt("oc * 64 + oh * 8 + ow", "ic * 100 + (oh + kh) * 10 + ow + kw",
                            "oc * 27 + ic * 9 + kh * 3 + kw"));
  auto p = plan_text(text, kAvx512);
  REQUIRE(p.plan);
  INFO(p.plan->summary());
  CHECK(p.plan->vector_loop == 5);
  CHECK(p.plan->vector_tail == 8);
  CHECK_FALSE(p.plan->a_is_broadcast);  // the weights are broadcast
  CHECK(p.plan->tile_scope == 1);       // oh * 1 vector = 8 accumulators
  CHECK(p.plan->accumulators == 8);
  CHECK(roles(*p.plan) == std::vector<Role>{Role::Outer, Role::Unrolled, Role::Unrolled,
                                            Role::Unrolled, Role::Unrolled, Role::Vector});
  CHECK(p.plan->unrolled_fmas == 8 * 27);
  CHECK(p.plan->loops[3].stride_a == 10);  // kh
}

TEST_CASE("contraction plan: a stride-2 vector operand", "[contraction]") {
  // out[oc, ow] += in[ic, 2 ow + kw] * w[oc, ic, kw]
  std::string strided =
      nest_text(2 * 33, 4 * 2 * 3, 4 * 16, {{"oc", 4}, {"ic", 2}, {"kw", 3}, {"ow", 16}},
                update_stmt("oc * 16 + ow", "ic * 33 + ow * 2 + kw", "oc * 6 + ic * 3 + kw"));
  auto p = plan_text(strided, kAvx512);
  REQUIRE(p.plan);
  INFO(p.plan->summary());
  CHECK(p.plan->vector_loop == 3);
  CHECK(p.plan->vector_stride == 2);
  CHECK_FALSE(p.plan->a_is_broadcast);
  CHECK(p.plan->summary().find("stride=2") != std::string::npos);
  // A stride-3 operand is still refused.
  auto q = plan_text(
      nest_text(2 * 48, 4 * 2 * 3, 4 * 16, {{"oc", 4}, {"ic", 2}, {"kw", 3}, {"ow", 16}},
                update_stmt("oc * 16 + ow", "ic * 48 + ow * 3 + kw", "oc * 6 + ic * 3 + kw")),
      kAvx512);
  CHECK_FALSE(q.plan);
}

TEST_CASE("contraction plan: both operands vectors (channels-last depthwise)", "[contraction]") {
  // out[ow, c] += in[ow + kw, c] * w[kw, c]: no operand is invariant along c.
  auto p = plan_text(nest_text(10 * 32, 3 * 32, 8 * 32, {{"kw", 3}, {"ow", 8}, {"c", 32}},
                               update_stmt("ow * 32 + c", "(ow + kw) * 32 + c", "kw * 32 + c")),
                     kAvx512);
  REQUIRE(p.plan);
  INFO(p.plan->summary());
  CHECK(p.plan->vector_loop == 2);
  CHECK(p.plan->both_vectors);
  CHECK_FALSE(p.plan->a_is_broadcast);
  CHECK(p.plan->accumulators == 16);  // 8 rows x 2 vectors
  CHECK(p.plan->summary().find("broadcast=-") != std::string::npos);
  // A broadcast operand still wins where there is one.
  auto q = plan_text(nest_text(10 * 32, 3, 8 * 32, {{"kw", 3}, {"ow", 8}, {"c", 32}},
                               update_stmt("ow * 32 + c", "(ow + kw) * 32 + c", "kw")),
                     kAvx512);
  REQUIRE(q.plan);
  CHECK_FALSE(q.plan->both_vectors);
}

TEST_CASE("contraction plan: an init nest before the update nest", "[contraction]") {
  // The init writes exactly the register tile: the scope is the update nest.
  auto p = plan_text(init_nest_text({.init = "B[j]"}), kAvx512);
  REQUIRE(p.plan);
  INFO(p.plan->summary());
  CHECK(p.plan->init.present);
  CHECK(p.plan->init.load);
  CHECK(p.plan->tile_scope == 1);
  CHECK(p.plan->loops[p.plan->vector_loop].stride_init == 1);
  CHECK(p.plan->summary().find("init=load") != std::string::npos);
  auto row = plan_text(init_nest_text({.init = "A[io * 4 + i]"}), kAvx512);
  REQUIRE(row.plan);
  CHECK(row.plan->loops[0].stride_init == 4);  // io
  CHECK(row.plan->loops[row.plan->vector_loop].stride_init == 0);
  auto constant = plan_text(init_nest_text({.init = "T.float32(2)"}), kAvx512);
  REQUIRE(constant.plan);
  CHECK_FALSE(constant.plan->init.load);
  CHECK(constant.plan->init.constant == 2.0f);
  // Refused: the init in another loop order, at another offset, of another
  // value, or writing more than a tile that fits.
  struct Bad {
    InitNestSpec spec;
    std::string why;
  };
  for (const Bad& bad :
       {Bad{{.init_loops = "j i"}, "the init nest's loops are not the register tile's"},
        Bad{{.c_shift = 1}, "the init nest writes another part of C"},
        Bad{{.init = "B[j] * T.float32(2)"}, "the init value is not a float32 constant or load"},
        Bad{{.init = "B[j * 2]"}, "neither contiguous nor invariant along the vector loop"},
        Bad{{.m = 64, .n = 64, .rows = 32}, "the init nest writes more than the register tile"}}) {
    auto q = plan_text(init_nest_text(bad.spec), kAvx512);
    CHECK_FALSE(q.plan);
    CHECK(q.why.find(bad.why) != std::string::npos);
  }
}

TEST_CASE("contraction plan: overlapping C elements push the scope inward", "[contraction]") {
  std::string text = nest_text(64, 64, 64, {{"i", 4}, {"j", 16}}, update_stmt("i + j", "i", "j"));
  auto p = plan_text(text, kAvx512);
  REQUIRE(p.plan);
  CHECK(p.plan->tile_scope == 1);
  CHECK(p.plan->accumulators == 1);
  CHECK(p.plan->loops[0].role == Role::Outer);
}

TEST_CASE("contraction plan: constant loop starts and invariant offsets", "[contraction]") {
  std::string text =
      "@T.prim_func\n"
      "def main(A: T.Buffer((256,), \"float32\"), B: T.Buffer((256,), \"float32\"), C: "
      "T.Buffer((256,), \"float32\")):\n"
      "    for i in range(2, 6):\n"
      "        for j in range(16):\n"
      "            for k in range(1, 9):\n"
      "                C[i * 16 + j + 3] = C[i * 16 + j + 3] + A[i * 16 + k] * B[k * 16 + j]\n";
  auto p = plan_text(text, kAvx512);
  REQUIRE(p.plan);
  CHECK(p.plan->loops[0].min == 2);
  CHECK(p.plan->loops[2].min == 1);
  CHECK(as_const_int(p.plan->c.offset) == 35);
  CHECK(as_const_int(p.plan->a.offset) == 33);
  CHECK(as_const_int(p.plan->b.offset) == 16);
  CHECK(p.plan->tile_scope == 0);
  CHECK(p.plan->accumulators == 4);
}

TEST_CASE("contraction plan: limits bound the unrolled FMAs", "[contraction]") {
  MatmulSpec s{.m = 16, .n = 64, .k = 64, .ti = 0, .tk = 8, .order = {"i1", "j1", "k0", "k1"}};
  auto p = plan_text(matmul_text(s), kAvx512);
  REQUIRE(p.plan);
  CHECK(roles(*p.plan) ==
        std::vector<Role>{Role::Outer, Role::Vector, Role::Unrolled, Role::Unrolled});
  CHECK(p.plan->unrolled_fmas == 256);
  PlanLimits small{.max_unrolled_fmas = 128};
  auto q = plan_text(matmul_text(s), kAvx512, small);
  REQUIRE(q.plan);
  CHECK(roles(*q.plan) ==
        std::vector<Role>{Role::Outer, Role::Vector, Role::TileLoop, Role::Unrolled});
  CHECK(q.plan->loops[2].unroll == 4);
  CHECK(q.plan->unrolled_fmas == 128);
  PlanLimits tiny{.max_unrolled_fmas = 4};
  auto r = plan_text(matmul_text(s), kAvx512, tiny);
  REQUIRE(r.plan);
  CHECK(roles(*r.plan) ==
        std::vector<Role>{Role::Outer, Role::Vector, Role::TileLoop, Role::TileLoop});
  CHECK(r.plan->loops[2].unroll == 1);
  CHECK(r.plan->loops[3].unroll == 1);
  CHECK(r.plan->unrolled_fmas == 4);
}

TEST_CASE("contraction plan: refusals", "[contraction]") {
  auto refused = [](const std::string& text, const std::string& reason, const Target& t = kAvx512,
                    const PlanLimits& limits = {}) {
    auto p = plan_text(text, t, limits);
    INFO(text);
    CHECK_FALSE(p.plan);
    CHECK(p.why.find(reason) != std::string::npos);
  };
  std::string good = update_stmt("i * 16 + j", "i * 16 + k", "k * 16 + j");
  refused(nest_text(256, 256, 256, {{"i", 16}, {"j", 16, "T.parallel"}, {"k", 16}}, good),
          "parallel");
  refused(nest_text(256, 256, 256, {{"i", 16}, {"j", 16}, {"k", 16}},
                    update_stmt("i * 16 + j", "i * k", "k * 16 + j")),
          "not affine");
  refused(nest_text(256, 256, 256, {{"i", 16}, {"j", 16}, {"k", 16}},
                    update_stmt("i * 16 + j", "i // 2 + k", "k * 16 + j")),
          "not affine");
  refused(nest_text(256, 256, 256, {{"i", 16}, {"j", 16}, {"k", 16}},
                    "C[i * 16 + j] = A[i * 16 + k] * B[k * 16 + j]"),
          "not C[c] = C[c] + A[a] * B[b]");
  refused(nest_text(256, 256, 256, {{"i", 16}, {"j", 16}, {"k", 16}},
                    "C[i * 16 + j] = C[i * 16 + j + 1] + A[i * 16 + k] * B[k * 16 + j]"),
          "not C[c]");
  refused(nest_text(256, 256, 256, {{"i", 16}, {"j", 16}, {"k", 16}},
                    "C[i * 16 + j] = C[i * 16 + j] + A[i * 16 + k] * C[k * 16 + j]"),
          "reads the accumulated buffer");
  refused(nest_text(256, 256, 256, {{"i", 16}, {"j", 16}, {"k", 16}},
                    "C[i * 16 + j] = C[i * 16 + j] + A[i * 16 + k] + B[k * 16 + j]"),
          "not C[c]");
  refused(nest_text(256, 256, 256, {{"i", 16}, {"j", 16}},
                    "if i < 4:\n                " + update_stmt("i * 16 + j", "i", "j")),
          "IfThenElse");
  refused(nest_text(256, 256, 256, {{"i", 16}, {"j", 16}},
                    update_stmt("i * 16 + j", "i", "j") + "\n            A[i] = T.float32(0)"),
          "not a store");
  // j varies with stride 2 in C: nothing to vectorise.
  refused(nest_text(256, 256, 256, {{"i", 8}, {"j", 8}, {"k", 8}},
                    update_stmt("i * 16 + j * 2", "i * 8 + k", "k * 8 + j")),
          "unit stride");
  // Both operands vary along j, one not with unit stride.
  refused(nest_text(256, 256, 256, {{"i", 8}, {"j", 8}}, update_stmt("i * 16 + j", "j * 2", "j")),
          "unit stride");
  MatmulSpec wide{.m = 4, .n = 1024, .k = 4, .ti = 0, .order = {"i1", "k1", "j1"}};
  refused(matmul_text(wide), "does not fit");
  MatmulSpec plain{.m = 64, .n = 64, .k = 64, .ti = 0, .order = {"i1", "j1", "k1"}};
  refused(matmul_text(plain), "does not fit", kAvx512, PlanLimits{.reserved_vector_registers = 29});
  std::string triangle =
      "@T.prim_func\n"
      "def main(A: T.Buffer((256,), \"float32\"), B: T.Buffer((256,), \"float32\"), C: "
      "T.Buffer((256,), \"float32\")):\n"
      "    for i in range(16):\n"
      "        for j in range(i):\n"
      "            C[i * 16 + j] = C[i * 16 + j] + A[i] * B[j]\n";
  refused(triangle, "non-constant");
}

}  // namespace tirc::test
