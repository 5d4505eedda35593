// The hand matmul schedule (bench/matmul_schedules.cpp) with the register
// tile's row split replaced by a given factor, to compare a dividing factor
// with one that leaves a T.where tail (issue 11, "No cliffs").
//
//   tirc_split_tail_bench [N] [ROWS...]     default: 256, rows 8 and 6
//
// Prints GFLOPS (one thread, best of several runs), what the x86 generator did
// (contraction nests, vectorized loops, serial fallbacks) and checks every
// result against a plain triple loop.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "bench/matmul_schedules.h"
#include "codegen/x86/generator.h"
#include "codegen/x86/jit.h"
#include "ir/error.h"
#include "ir/text/parser.h"
#include "passes/pipeline.h"
#include "runtime/tirc_runtime.h"
#include "schedule/schedule.h"
#include "schedule/trace.h"
#include "tuner/timing.h"

namespace tirc::bench {
namespace {

// matmul_schedule's script with its first split (the rows of the register
// tile) taking `rows` instead.
std::string with_rows(std::string script, int64_t rows) {
  const std::string key = "sch.split(loop=l1, factors=[None, ";
  size_t at = script.find(key);
  if (at == std::string::npos) throw Error("matmul_schedule no longer splits l1 first");
  size_t from = at + key.size(), to = script.find(']', from);
  return script.replace(from, to - from, std::to_string(rows));
}

int run(int64_t n, const std::vector<int64_t>& row_factors) {
  tirc_set_num_threads(1);
  std::vector<float> a(static_cast<size_t>(n * n)), b(a.size()), c(a.size()), ref(a.size());
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> small(-3, 3);  // sums stay exact in float32
  for (float& x : a) x = static_cast<float>(small(rng));
  for (float& x : b) x = static_cast<float>(small(rng));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = 0; k < n; ++k)
      for (int64_t j = 0; j < n; ++j) ref[i * n + j] += a[i * n + k] * b[k * n + j];

  const Target target = host_target();
  bool ok = true;
  for (int64_t rows : row_factors) {
    IRModule mod = parse_module(matmul_tir(n, n, n), "matmul.tir");
    Schedule sch(mod);
    Trace::parse(with_rows(matmul_schedule(n, n, n, target, true), rows), "schedule").apply_to(sch);
    GeneratorOptions options;
    options.target = target;
    GeneratorStats stats;
    MachineCode code = generate_x86({{"matmul", lower(sch.mod().at("main"))}}, options, &stats);
    JitModule jit(code);
    auto fn = jit.packed("matmul");
    void* args[] = {a.data(), b.data(), c.data()};
    fn(args);
    bool same = c == ref;
    ok &= same;
    double s = best_seconds([&] { fn(args); }, 10);
    std::printf(
        "n %ld rows %ld: %8.2f GFLOPS%s  contraction nests %d, vectorized loops %d, "
        "serial fallbacks %d\n",
        static_cast<long>(n), static_cast<long>(rows), 2.0 * double(n) * n * n / s * 1e-9,
        same ? "" : " WRONG", stats.contraction_nests, stats.vectorized_loops,
        stats.serial_fallbacks);
    for (const KernelStats& k : stats.kernels)
      for (const std::string& why : k.not_contraction)
        std::printf("    not a contraction: %s\n", why.c_str());
  }
  return ok ? 0 : 1;
}

}  // namespace
}  // namespace tirc::bench

int main(int argc, char** argv) {
  int64_t n = argc > 1 ? std::atoll(argv[1]) : 256;
  std::vector<int64_t> rows;
  for (int i = 2; i < argc; ++i) rows.push_back(std::atoll(argv[i]));
  if (rows.empty()) rows = {8, 6};
  try {
    return tirc::bench::run(n, rows);
  } catch (const tirc::Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
