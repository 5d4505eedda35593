// LoopTune's per-loop features and the whole-program feature vector: exact
// values on a small matmul, after split / reorder / fuse / cache_write.
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "ir/text/parser.h"
#include "passes/pipeline.h"
#include "rule_context_util.h"
#include "schedule/schedule.h"
#include "tuner/auto_schedule.h"
#include "tuner/features.h"

using namespace tirc;

namespace {

// C[64, 16] += A[64, 32] * B[32, 16]: flattened offsets C: 16 i + j,
// A: 32 i + k, B: 16 k + j.
const char* kMatmul = R"(@T.prim_func
def main(A: T.Buffer((64, 32), "float32"), B: T.Buffer((32, 16), "float32"), C: T.Buffer((64, 16), "float32")):
    for i, j, k in T.grid(64, 16, 32):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0.0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)";

const char* kAdd = R"(@T.prim_func
def main(A: T.Buffer((8, 128), "float32"), B: T.Buffer((8, 128), "float32")):
    for i, j in T.grid(8, 128):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] + T.float32(1)
)";

const char* kSymbolic = R"(@T.prim_func
def main(a: T.handle, n: T.int32):
    A = T.match_buffer(a, (n, n), "float32")
    for i, j in T.grid(n, 4):
        with T.block("A"):
            vi = T.axis.spatial(n, i)
            vj = T.axis.spatial(n, j)
            A[vi, vj] = A[vj, vi]
)";

struct Expect {
  float size, tail, compute;
  std::map<int, double> bins;  // the nonzero stride bins
};

void check_loop(const LoopFeatures& f, const Expect& e, bool cursor = false) {
  CHECK(f.cursor() == (cursor ? 1.0f : 0.0f));
  CHECK(f.size() == e.size);
  CHECK(f.tail() == e.tail);
  CHECK(f.compute() == e.compute);
  for (int b = 0; b < kStrideBins; ++b) {
    INFO("stride bin " << b);
    auto it = e.bins.find(b);
    CHECK(f.stride_bin(b) == Approx(it == e.bins.end() ? 0.0 : it->second).margin(1e-6));
  }
}

PrimFunc func(const Schedule& sch) {
  return sch.func("main");
}

// The plain nest: each of the 4 accesses (C store, C load, A, B) weighs 1/4.
const Expect kI{64, 0, 1, {{0, 0.25}, {5, 0.5}, {6, 0.25}}};  // C 16, A 32, B 0
const Expect kJ{16, 0, 1, {{0, 0.25}, {1, 0.75}}};            // C 1, A 0, B 1
const Expect kK{32, 0, 1, {{0, 0.5}, {1, 0.25}, {5, 0.25}}};  // C 0, A 1, B 16

}  // namespace

TEST_CASE("stride bins: 0 alone, then 1 + floor(log2 |s|), capped at 15", "[features]") {
  CHECK(stride_bin(0) == 0);
  CHECK(stride_bin(1) == 1);
  CHECK(stride_bin(-1) == 1);
  CHECK(stride_bin(2) == 2);
  CHECK(stride_bin(3) == 2);
  CHECK(stride_bin(4) == 3);
  CHECK(stride_bin(16) == 5);
  CHECK(stride_bin(80) == 7);
  CHECK(stride_bin(8191) == 13);
  CHECK(stride_bin(8192) == 14);
  CHECK(stride_bin(16384) == 15);
  CHECK(stride_bin(INT64_MIN) == 15);
}

TEST_CASE("features of a matmul in i, j, k order", "[features]") {
  IRModule mod = parse_module(kMatmul);
  std::vector<LoopFeatures> f = loop_features(mod.at("main"), -1);
  REQUIRE(f.size() == 3);
  check_loop(f[0], kI);
  check_loop(f[1], kJ);
  check_loop(f[2], kK);
}

TEST_CASE("the cursor bit marks one loop", "[features]") {
  IRModule mod = parse_module(kMatmul);
  for (int c = -1; c < 4; ++c) {
    std::vector<LoopFeatures> f = loop_features(mod.at("main"), c);
    REQUIRE(f.size() == 3);
    for (int l = 0; l < 3; ++l) CHECK(f[static_cast<size_t>(l)].cursor() == (l == c ? 1.0f : 0.0f));
  }
  std::vector<LoopFeatures> f = loop_features(mod.at("main"), 1);
  check_loop(f[0], kI);
  check_loop(f[1], kJ, true);
  check_loop(f[2], kK);
}

TEST_CASE("a split that does not divide has a tail; one that divides has none", "[features]") {
  Schedule sch(parse_module(kMatmul));
  auto loops = sch.get_loops(sch.get_block("C"));
  sch.split(loops[2], {nullptr, 5});  // k: 7 x 5 under k_0 * 5 + k_1 < 32
  std::vector<LoopFeatures> f = loop_features(func(sch), 3);
  REQUIRE(f.size() == 4);
  check_loop(f[0], kI);
  check_loop(f[1], kJ);
  // k_0: 6 full iterations and 2 left (LoopTune's `for k in 6r2`); A moves
  // by 5 (bin 3), B by 80 (bin 7).
  check_loop(f[2], {6, 2, 1, {{0, 0.5}, {3, 0.25}, {7, 0.25}}});
  check_loop(f[3], {5, 0, 1, {{0, 0.5}, {1, 0.25}, {5, 0.25}}}, true);

  Schedule even(parse_module(kMatmul));
  auto l = even.get_loops(even.get_block("C"));
  even.split(l[2], {nullptr, 8});
  f = loop_features(func(even), -1);
  REQUIRE(f.size() == 4);
  check_loop(f[2], {4, 0, 1, {{0, 0.5}, {4, 0.25}, {8, 0.25}}});
  check_loop(f[3], {8, 0, 1, {{0, 0.5}, {1, 0.25}, {5, 0.25}}});
}

TEST_CASE("a three-level split cuts only the outermost loop of the chain", "[features]") {
  Schedule sch(parse_module(kMatmul));
  auto loops = sch.get_loops(sch.get_block("C"));
  sch.split(loops[0], {nullptr, 4, 4});  // i = 64: 4 x 4 x 4, divides
  Schedule odd(parse_module(kMatmul));
  auto l = odd.get_loops(odd.get_block("C"));
  odd.split(l[2], {3, 4, 3});  // k = 32 over 36 points: k_0 * 12 + k_1 * 3 + k_2 < 32
  std::vector<LoopFeatures> f = loop_features(func(odd), -1);
  REQUIRE(f.size() == 5);
  CHECK(f[2].size() == 2);  // two full k_0 iterations, then 8 points
  CHECK(f[2].tail() == 8);
  CHECK(f[3].size() == 4);
  CHECK(f[3].tail() == 0);
  CHECK(f[4].size() == 3);
  CHECK(f[4].tail() == 0);
  f = loop_features(func(sch), -1);
  REQUIRE(f.size() == 5);
  for (size_t i = 0; i < 3; ++i) CHECK(f[i].size() == 4);
}

TEST_CASE("reorder moves the features with their loops", "[features]") {
  Schedule sch(parse_module(kMatmul));
  auto loops = sch.get_loops(sch.get_block("C"));
  auto k = sch.split(loops[2], {nullptr, 5});
  sch.reorder({k[0], loops[0]});  // k_0, j, i, k_1
  std::vector<LoopFeatures> f = loop_features(func(sch), 0);
  REQUIRE(f.size() == 4);
  check_loop(f[0], {6, 2, 1, {{0, 0.5}, {3, 0.25}, {7, 0.25}}}, true);
  check_loop(f[1], kJ);
  check_loop(f[2], kI);
  check_loop(f[3], {5, 0, 1, {{0, 0.5}, {1, 0.25}, {5, 0.25}}});
}

TEST_CASE("cache_write: the copy-out loops are write-back", "[features]") {
  Schedule sch(parse_module(kMatmul));
  sch.cache_write(sch.get_block("C"), 0, "local");
  std::vector<LoopFeatures> f = loop_features(func(sch), -1);
  REQUIRE(f.size() == 5);
  check_loop(f[0], kI);
  check_loop(f[1], kJ);
  check_loop(f[2], kK);
  // C[v0, v1] = C_local[v0, v1]: both move by 16 with ax0 and by 1 with ax1.
  check_loop(f[3], {64, 0, 0, {{5, 1.0}}});
  check_loop(f[4], {16, 0, 0, {{1, 1.0}}});
}

TEST_CASE("accesses weigh by their share of the iterations", "[features]") {
  // The copy out under j: per (i, j), 32 iterations of 4 accesses, then one of 2.
  Schedule sch(parse_module(kMatmul));
  BlockRV c = sch.get_block("C");
  BlockRV out = sch.cache_write(c, 0, "local");
  auto loops = sch.get_loops(c);
  sch.reverse_compute_at(out, loops[1], true);
  std::vector<LoopFeatures> f = loop_features(func(sch), -1);
  REQUIRE(f.size() == 5);  // i, j, k, ax0, ax1
  // i: update C_local x2 and C x1 and C_local x1 move by 16 (66 of 130), A by 32, B 0.
  check_loop(f[0], {64, 0, 1, {{0, 32.0 / 130}, {5, 66.0 / 130}, {6, 32.0 / 130}}});
  check_loop(f[1], {16, 0, 1, {{0, 32.0 / 130}, {1, 98.0 / 130}}});
  check_loop(f[2], kK);
  check_loop(f[3], {1, 0, 0, {{5, 1.0}}});
  check_loop(f[4], {1, 0, 0, {{1, 1.0}}});
}

TEST_CASE("a fused loop: affine accesses keep their stride, the others are unknown", "[features]") {
  Schedule sch(parse_module(kMatmul));
  auto loops = sch.get_loops(sch.get_block("C"));
  sch.fuse({loops[0], loops[1]});  // vi = f // 16, vj = f % 16
  std::vector<LoopFeatures> f = loop_features(func(sch), -1);
  REQUIRE(f.size() == 2);
  // C: 16 (f // 16) + f % 16 == f, stride 1; A, B: not affine in f (bin 15).
  check_loop(f[0], {1024, 0, 1, {{1, 0.5}, {15, 0.5}}});
  check_loop(f[1], kK);
}

TEST_CASE("vectorized and parallel loops keep their features", "[features]") {
  Schedule sch(parse_module(kAdd));
  auto loops = sch.get_loops(sch.get_block("B"));
  std::vector<LoopFeatures> before = loop_features(func(sch), -1);
  sch.parallel(loops[0]);
  sch.vectorize(loops[1]);
  std::vector<LoopFeatures> after = loop_features(func(sch), -1);
  REQUIRE(before.size() == 2);
  REQUIRE(after.size() == 2);
  CHECK(before[0].v == after[0].v);
  CHECK(before[1].v == after[1].v);
  check_loop(after[0], {8, 0, 1, {{8, 1.0}}});  // 128 -> bin 8
  check_loop(after[1], {128, 0, 1, {{1, 1.0}}});
  std::vector<float> p0 = program_features(parse_module(kAdd).at("main"));
  std::vector<float> p1 = program_features(func(sch));
  const auto& names = program_feature_names();
  auto at = [&](const std::vector<float>& p, const std::string& name) {
    auto it = std::find(names.begin(), names.end(), name);
    REQUIRE(it != names.end());
    return p[static_cast<size_t>(it - names.begin())];
  };
  CHECK(at(p0, "log_parallel") == 0.0f);
  CHECK(at(p0, "log_vectorized") == 0.0f);
  CHECK(at(p1, "log_parallel") == Approx(std::log2(9.0)));
  CHECK(at(p1, "log_vectorized") == Approx(std::log2(129.0)));
}

TEST_CASE("symbolic extents and shapes: size 0, strides unknown", "[features]") {
  std::vector<LoopFeatures> f = loop_features(parse_module(kSymbolic).at("main"), -1);
  REQUIRE(f.size() == 2);
  // A[vi, vj] = A[vj, vi]: the stride of dimension 0 is n, so any move along
  // it is unknown; dimension 1 has stride 1.
  check_loop(f[0], {0, 0, 1, {{1, 0.5}, {15, 0.5}}});
  check_loop(f[1], {4, 0, 1, {{1, 0.5}, {15, 0.5}}});
}

TEST_CASE("program features: fixed length, exact summary of a matmul", "[features]") {
  const auto& names = program_feature_names();
  REQUIRE(names.size() == static_cast<size_t>(kProgramFeatureCount));
  std::vector<PrimFunc> programs = {parse_module(kMatmul).at("main"), parse_module(kAdd).at("main"),
                                    parse_module(kSymbolic).at("main")};
  Schedule sch(parse_module(kMatmul));
  BlockRV c = sch.get_block("C");
  sch.cache_write(c, 0, "local");
  auto loops = sch.get_loops(c);
  for (int i = 0; i < 3; ++i) sch.split(loops[static_cast<size_t>(i)], {nullptr, 2, 2});
  programs.push_back(func(sch));  // 11 loops
  for (int i = 0; i < 2; ++i) {   // 15 loops: more than kProgramFeatureLoops
    auto l = sch.get_loops(c);
    sch.split(l[static_cast<size_t>(i)], {nullptr, 2});
  }
  programs.push_back(func(sch));
  for (const PrimFunc& p : programs) CHECK(program_features(p).size() == names.size());

  std::vector<float> p = program_features(programs[0]);
  auto at = [&](const std::string& name) {
    auto it = std::find(names.begin(), names.end(), name);
    REQUIRE(it != names.end());
    return p[static_cast<size_t>(it - names.begin())];
  };
  double flops = 2.0 * 64 * 16 * 32;                   // count_flops
  double bytes = 4.0 * (64 * 32 + 32 * 16 + 64 * 16);  // A, B, C once
  double moved = 4.0 * 4 * 64 * 16 * 32;               // 4 accesses per iteration
  CHECK(at("loops") == 3);
  CHECK(at("depth") == 3);
  CHECK(at("blocks") == 1);
  CHECK(at("log_flops") == Approx(std::log2(1 + flops)));
  CHECK(at("log_bytes") == Approx(std::log2(1 + bytes)));
  CHECK(at("flops_per_byte") == Approx(flops / bytes));
  CHECK(at("log_dyn_bytes") == Approx(std::log2(1 + moved)));
  CHECK(at("dyn_flops_per_byte") == Approx(flops / moved));
  CHECK(at("bytes_per_inner") == Approx(16));
  CHECK(at("tails") == 0);
  CHECK(at("compute_share") == 1);
  CHECK(at("local_buffers") == 0);
  CHECK(at("inner_extent") == 32);
  // Innermost loop k: C 0, C 0, A 1, B 16.
  CHECK(at("inner_stride0") == Approx(0.5));
  CHECK(at("inner_stride1") == Approx(0.25));
  CHECK(at("inner_stride5") == Approx(0.25));
  // The loop part is loop_features with no cursor, zero-padded.
  std::vector<LoopFeatures> lf = loop_features(programs[0], -1);
  for (size_t l = 0; l < static_cast<size_t>(kProgramFeatureLoops); ++l)
    for (size_t k = 0; k < static_cast<size_t>(kLoopFeatureCount); ++k)
      CHECK(p[static_cast<size_t>(kProgramScalarFeatures) + l * kLoopFeatureCount + k] ==
            (l < lf.size() ? lf[l].v[k] : 0.0f));

  std::vector<float> cw = program_features(programs[3]);
  CHECK(cw[0] == 11);                                 // loops
  CHECK(cw[14] == 1);                                 // local_buffers: C_local
  CHECK(cw[15] == Approx(std::log2(1.0 + 64 * 16)));  // its elements
  CHECK(cw[13] == Approx(9.0 / 11));                  // 2 write-back loops
}

namespace {

// Well-formed features: bits are 0/1, sizes non-negative, each histogram sums
// to 1 (or is empty), the program vector has its fixed length and is finite.
void check_well_formed(const PrimFunc& f, const std::string& what) {
  INFO(what);
  std::vector<LoopFeatures> lf = loop_features(f, 0);
  for (size_t i = 0; i < lf.size(); ++i) {
    INFO("loop " << i);
    CHECK(lf[i].cursor() == (i == 0 ? 1.0f : 0.0f));
    CHECK((lf[i].compute() == 0.0f || lf[i].compute() == 1.0f));
    CHECK(lf[i].size() >= 0);
    CHECK(lf[i].tail() >= 0);
    double sum = 0;
    for (int b = 0; b < kStrideBins; ++b) sum += lf[i].stride_bin(b);
    CHECK((sum == Approx(1.0).margin(1e-5) || sum == 0.0));
  }
  std::vector<float> p = program_features(f);
  REQUIRE(p.size() == static_cast<size_t>(kProgramFeatureCount));
  for (float x : p) CHECK(std::isfinite(x));
}

}  // namespace

TEST_CASE("features of every corpus program, scheduled and lowered", "[features]") {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  for (const char* dir : {"examples", "test/corpus"})
    for (const auto& e : fs::recursive_directory_iterator(fs::path(TIRC_SOURCE_DIR) / dir))
      if (e.path().extension() == ".tir") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() >= 20);
  const RuleContext cx = test::fixed_rules(Isa::avx512, 2);
  for (const fs::path& path : files) {
    std::ifstream in(path);
    std::ostringstream text;
    text << in.rdbuf();
    IRModule m = parse_module(text.str(), path.string());
    std::string name = path.filename().string();
    for (const auto& [fn, f] : m.functions()) check_well_formed(f, name + " " + fn);
    IRModule scheduled = auto_schedule(m, cx).schedule.mod();
    for (const auto& [fn, f] : scheduled.functions()) {
      check_well_formed(f, name + " " + fn + " scheduled");
      try {
        check_well_formed(lower(f), name + " " + fn + " lowered");
      } catch (const Error&) {
        // not every program lowers (thread bindings, symbolic buffers)
      }
    }
  }
}
