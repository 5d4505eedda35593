// fp32 matmul GFLOPS: tirc (hand schedule, default rules, plain nest) vs OpenBLAS
// and oneDNN, against the measured FMA peak, on 1 and 2 threads; and code
// generation time per kernel: tirc (lower + generate_x86) vs clang-19 compiling
// the same lowered kernel emitted as C; and the rules' kernel through tirc's LLVM
// generator (x86-64 for this CPU, -O3) against the same kernel through xbyak:
// GFLOPS and code generation time.
//
//   tirc_matmul_bench [--quick] [--threads 1,2] [--csv]
//
// Every kernel's result is compared with OpenBLAS's before its time is
// reported; a wrong kernel prints WRONG and the program exits with status 1.
#include <cblas.h>
#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <oneapi/dnnl/dnnl.hpp>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench/omp_threads.h"
#include "bench/matmul_schedules.h"
#include "bench/matmul_shapes.h"
#include "bench/onednn_matmul.h"
#include "codegen/c/c_emitter.h"
#include "codegen/llvm/generator.h"
#include "codegen/x86/generator.h"
#include "codegen/x86/jit.h"
#include "ir/error.h"
#include "ir/text/parser.h"
#include "passes/pipeline.h"
#include "runtime/tirc_runtime.h"
#include "schedule/schedule.h"
#include "schedule/trace.h"
#include "tuner/auto_schedule.h"
#include "tuner/fma_peak.h"
#include "tuner/timing.h"

namespace tirc {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

using Shape = MatmulShape;

struct Options {
  bool quick = false;
  bool csv = false;
  std::vector<int> threads{1, 2};
  std::vector<Shape> shapes;  // --shapes: instead of the standard set
};

// A tirc kernel ready to call, and what it cost to generate.
struct TircKernel {
  std::unique_ptr<JitModule> jit;
  JitModule::PackedFn fn = nullptr;
  PrimFunc lowered;
  double codegen_ms = 0;  // lower() + generate_x86(), excluding parsing and scheduling
};

// How the kernel is scheduled: a script, the default rules, or not at all.
enum class Scheduling { Script, Rules, None };

TircKernel build_tirc(const Shape& s, Scheduling how, const std::string& trace = "") {
  IRModule mod = parse_module(matmul_tir(s.m, s.n, s.k), "matmul.tir");
  if (how == Scheduling::Script) {
    Schedule sch(mod);
    Trace::parse(trace, "matmul_schedule").apply_to(sch);
    mod = sch.mod();
  } else if (how == Scheduling::Rules) {
    RuleContext cx;
    cx.cpu = host_cpu_model(host_target());
    mod = auto_schedule(mod, cx).schedule.mod();
  }
  TircKernel k;
  GeneratorOptions options;
  options.target = host_target();
  auto t0 = Clock::now();
  k.lowered = lower(mod.at("main"));
  MachineCode code = generate_x86({{"matmul", k.lowered}}, options);
  k.codegen_ms = seconds_since(t0) * 1e3;
  k.jit = std::make_unique<JitModule>(code);
  k.fn = k.jit->packed("matmul");
  return k;
}

// A kernel from the LLVM generator: the object linked into a shared object by
// cc and loaded (the LLVM object has relocations the JIT does not resolve).
struct LlvmKernel {
  using PackedFn = int (*)(void* const*);
  void* handle = nullptr;
  PackedFn fn = nullptr;
  double codegen_ms = 0;  // generate_llvm (IR, -O3 pipeline, object) from the lowered kernel
  std::filesystem::path dir;
  LlvmKernel() = default;
  LlvmKernel(const LlvmKernel&) = delete;
  LlvmKernel& operator=(const LlvmKernel&) = delete;
  ~LlvmKernel() {
    if (handle) dlclose(handle);
    std::error_code ec;
    if (!dir.empty()) std::filesystem::remove_all(dir, ec);
  }
};

void build_llvm(const PrimFunc& lowered, LlvmKernel& k) {
  LlvmOptions options;
  options.target = parse_llvm_target("native");
  auto t0 = Clock::now();
  const std::string object = generate_llvm({{"matmul", lowered}}, options, LlvmOutput::object);
  k.codegen_ms = seconds_since(t0) * 1e3;
  k.dir = std::filesystem::temp_directory_path() / ("tirc_bench_llvm_" + std::to_string(getpid()));
  std::filesystem::create_directories(k.dir);
  const std::string o = (k.dir / "k.o").string(), so = (k.dir / "k.so").string();
  std::ofstream(o, std::ios::binary) << object;
  // tirc_parallel_for resolves to this executable's runtime (it exports its symbols).
  if (std::system(("cc -shared -o " + so + " " + o).c_str()) != 0)
    throw Error("linking the LLVM kernel failed");
  k.handle = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!k.handle) throw Error(std::string("dlopen: ") + dlerror());
  k.fn = reinterpret_cast<LlvmKernel::PackedFn>(dlsym(k.handle, "matmul_packed"));
  if (!k.fn) throw Error("no matmul_packed in the LLVM kernel");
}

// Wall time of `command` run as a child process (no shell), in ms; -1 when it fails.
double time_child_ms(const std::vector<std::string>& command) {
  std::vector<char*> argv;
  for (const std::string& a : command) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  auto t0 = Clock::now();
  pid_t pid = fork();
  if (pid == 0) {
    // clang-19 warns about -march=native on this CPU (avx10.1); keep the table clean.
    if (std::freopen("/dev/null", "w", stderr) == nullptr) _exit(126);
    execvp(argv[0], argv.data());
    _exit(127);
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) < 0) return -1;
  double ms = seconds_since(t0) * 1e3;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? ms : -1;
}

// clang-19 compile time of the kernel emitted as C, best of `reps`.
double clang_ms(const std::string& c_source, const std::string& opt, int reps) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path();
  const std::string stem = (dir / ("tirc_bench_" + std::to_string(getpid()))).string();
  std::ofstream(stem + ".c") << c_source;
  double best = std::numeric_limits<double>::infinity();
  for (int r = 0; r < reps; ++r) {
    double ms = time_child_ms(
        {"clang-19", opt, "-march=native", "-std=c99", "-c", stem + ".c", "-o", stem + ".o"});
    if (ms < 0) return -1;
    best = std::min(best, ms);
  }
  std::filesystem::remove(stem + ".c");
  std::filesystem::remove(stem + ".o");
  return best;
}

// max |x - ref| / max |ref|.
double relative_error(const std::vector<float>& x, const std::vector<float>& ref) {
  double diff = 0, scale = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    diff = std::max(diff, std::fabs(static_cast<double>(x[i]) - ref[i]));
    scale = std::max(scale, std::fabs(static_cast<double>(ref[i])));
  }
  return scale > 0 ? diff / scale : diff;
}

void set_threads(int t) {
  openblas_set_num_threads(t);
  tirc_set_num_threads(t);
  // oneDNN 2.6 from Debian threads with OpenMP (checked in main): its parallel
  // regions use omp_set_num_threads's value.
  omp_set_num_threads(t);
}

struct Row {
  Shape shape;
  int threads;
  double hand, rules, untransformed, openblas, onednn;  // GFLOPS; NaN when wrong
  double llvm;  // the rules' kernel through the LLVM generator
};

struct CodegenRow {
  Shape shape;
  double tirc_hand_ms, tirc_default_ms, clang_o3_ms, clang_o0_ms;
  double xbyak_rules_ms, llvm_rules_ms;  // the rules' kernel: generate_x86 vs generate_llvm
};

std::string fmt(double v, const char* f = "%.1f") {
  if (std::isnan(v)) return "WRONG";
  if (v < 0) return "n/a";
  char buf[32];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

int run(const Options& opt) {
  const dnnl_version_t* v = dnnl_version();
  const bool dnnl_omp = v->cpu_runtime == DNNL_RUNTIME_OMP;
  std::printf("# oneDNN %d.%d.%d, CPU runtime %s; OpenBLAS %s\n", v->major, v->minor, v->patch,
              dnnl_omp ? "OpenMP (threads set with omp_set_num_threads)"
                       : "not OpenMP (thread count not controlled)",
              openblas_get_config());
  std::map<int, FmaPeak> peak;
  for (int t : opt.threads) {
    peak[t] = measure_fma_peak(t, opt.quick ? 0.1 : 0.5);
    std::printf("# measured fp32 FMA peak, %d thread(s), %d-bit vectors: %.1f GFLOPS\n", t,
                peak[t].vector_bits, peak[t].gflops);
  }
  const Budget fast = opt.quick ? Budget{3, 0.01, 0.5} : Budget{10, 0.2, 2.0};
  std::vector<Row> rows;
  std::vector<CodegenRow> codegen;
  bool all_correct = true;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);

  for (const Shape& s : opt.shapes.empty() ? matmul_bench_shapes(opt.quick) : opt.shapes) {
    std::vector<float> a(static_cast<size_t>(s.m * s.k)), b(static_cast<size_t>(s.k * s.n));
    std::vector<float> ref(static_cast<size_t>(s.m * s.n)), c(ref.size());
    for (float& x : a) x = uniform(rng);
    for (float& x : b) x = uniform(rng);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(s.m),
                static_cast<int>(s.n), static_cast<int>(s.k), 1.0f, a.data(), static_cast<int>(s.k),
                b.data(), static_cast<int>(s.n), 0.0f, ref.data(), static_cast<int>(s.n));

    // One kernel for every thread count: its outer loop is parallel, and with one
    // thread tirc_parallel_for runs it inline.
    TircKernel hand =
        build_tirc(s, Scheduling::Script, matmul_schedule(s.m, s.n, s.k, host_target(), true));
    TircKernel rules = build_tirc(s, Scheduling::Rules);
    TircKernel plain = build_tirc(s, Scheduling::None);
    LlvmKernel llvm_rules;
    build_llvm(rules.lowered, llvm_rules);
    const std::string c_source = emit_c({{"matmul", hand.lowered}});
    codegen.push_back(
        {s, hand.codegen_ms, plain.codegen_ms, clang_ms(c_source, "-O3", opt.quick ? 1 : 3),
         clang_ms(c_source, "-O0", opt.quick ? 1 : 3), rules.codegen_ms, llvm_rules.codegen_ms});
    OneDnnMatmul dnnl_mm(s.m, s.n, s.k, a.data(), b.data(), c.data());

    void* args[] = {a.data(), b.data(), c.data()};
    // GFLOPS of `call`, or NaN when its result differs from OpenBLAS's.
    auto measure = [&](const std::function<void()>& call, const Budget& budget) {
      // OpenBLAS and OpenMP worker threads spin for a while after a call; let
      // them go idle so they do not steal the next library's cores.
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
      std::fill(c.begin(), c.end(), std::numeric_limits<float>::quiet_NaN());
      call();
      if (!(relative_error(c, ref) <= 1e-4)) {
        all_correct = false;
        return std::numeric_limits<double>::quiet_NaN();
      }
      return s.flops() / best_seconds(call, budget) * 1e-9;
    };
    for (int t : opt.threads) {
      set_threads(t);
      Row r{s, t, 0, 0, 0, 0, 0, 0};
      r.hand = measure([&] { hand.fn(args); }, fast);
      r.rules = measure([&] { rules.fn(args); }, fast);
      r.llvm = measure([&] { llvm_rules.fn(args); }, fast);
      r.untransformed = measure([&] { plain.fn(args); }, fast);
      r.openblas = measure(
          [&] {
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(s.m),
                        static_cast<int>(s.n), static_cast<int>(s.k), 1.0f, a.data(),
                        static_cast<int>(s.k), b.data(), static_cast<int>(s.n), 0.0f, c.data(),
                        static_cast<int>(s.n));
          },
          fast);
      r.onednn = measure([&] { dnnl_mm.run(); }, fast);
      rows.push_back(r);
      if (!opt.csv) {
        std::printf(
            "%4ld %4ld %4ld  thr %d  hand %8s  rules %8s  llvm %8s  plain %6s  openblas %8s  "
            "onednn %8s\n",
            static_cast<long>(s.m), static_cast<long>(s.n), static_cast<long>(s.k), t,
            fmt(r.hand).c_str(), fmt(r.rules).c_str(), fmt(r.llvm).c_str(),
            fmt(r.untransformed).c_str(), fmt(r.openblas).c_str(), fmt(r.onednn).c_str());
        std::fflush(stdout);
      }
    }
  }

  if (opt.csv) {
    std::printf(
        "m,n,k,threads,tirc_hand_gflops,tirc_rules_gflops,tirc_plain_gflops,openblas_gflops,"
        "onednn_gflops,hand_vs_onednn,rules_vs_onednn,plain_vs_onednn,openblas_vs_onednn,"
        "peak_gflops,hand_peak_fraction,rules_peak_fraction,plain_peak_fraction,"
        "openblas_peak_fraction,onednn_peak_fraction,llvm_rules_gflops,llvm_vs_onednn\n");
    for (const Row& r : rows) {
      const double p = peak[r.threads].gflops;
      std::printf(
          "%ld,%ld,%ld,%d,%.3f,%.3f,%.3f,%.3f,%.3f,%.4f,%.4f,%.4f,%.4f,%.3f,%.4f,%.4f,%.4f,%.4f,"
          "%.4f,%.3f,%.4f\n",
          static_cast<long>(r.shape.m), static_cast<long>(r.shape.n), static_cast<long>(r.shape.k),
          r.threads, r.hand, r.rules, r.untransformed, r.openblas, r.onednn, r.hand / r.onednn,
          r.rules / r.onednn, r.untransformed / r.onednn, r.openblas / r.onednn, p, r.hand / p,
          r.rules / p, r.untransformed / p, r.openblas / p, r.onednn / p, r.llvm,
          r.llvm / r.onednn);
    }
    std::printf(
        "\nm,n,k,tirc_hand_codegen_ms,tirc_plain_codegen_ms,clang19_O3_ms,clang19_O0_ms,"
        "xbyak_rules_ms,llvm_rules_ms\n");
    for (const CodegenRow& r : codegen)
      std::printf("%ld,%ld,%ld,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f\n", static_cast<long>(r.shape.m),
                  static_cast<long>(r.shape.n), static_cast<long>(r.shape.k), r.tirc_hand_ms,
                  r.tirc_default_ms, r.clang_o3_ms, r.clang_o0_ms, r.xbyak_rules_ms,
                  r.llvm_rules_ms);
  } else {
    std::printf("\nfp32 matmul GFLOPS (ratio to oneDNN; percent of measured peak)\n");
    std::printf("%4s %4s %4s %3s | %8s %8s %8s %8s %8s %8s | %6s %6s %6s %6s | %6s %6s %6s\n", "M",
                "N", "K", "thr", "hand", "rules", "llvm", "plain", "openblas", "onednn", "hand/D",
                "rules/D", "llvm/D", "blas/D", "hand%", "rules%", "dnnl%");
    for (const Row& r : rows) {
      const double p = peak[r.threads].gflops;
      std::printf("%4ld %4ld %4ld %3d | %8s %8s %8s %8s %8s %8s | %6s %6s %6s %6s | %6s %6s %6s\n",
                  static_cast<long>(r.shape.m), static_cast<long>(r.shape.n),
                  static_cast<long>(r.shape.k), r.threads, fmt(r.hand).c_str(),
                  fmt(r.rules).c_str(), fmt(r.llvm).c_str(), fmt(r.untransformed).c_str(),
                  fmt(r.openblas).c_str(), fmt(r.onednn).c_str(),
                  fmt(r.hand / r.onednn, "%.2f").c_str(), fmt(r.rules / r.onednn, "%.2f").c_str(),
                  fmt(r.llvm / r.onednn, "%.2f").c_str(),
                  fmt(r.openblas / r.onednn, "%.2f").c_str(), fmt(100 * r.hand / p).c_str(),
                  fmt(100 * r.rules / p).c_str(), fmt(100 * r.onednn / p).c_str());
    }
    // Geometric means over the shapes, per thread count.
    for (int t : opt.threads) {
      double log_hand = 0, log_rules = 0, log_llvm = 0;
      int n = 0;
      for (const Row& r : rows) {
        if (r.threads != t) continue;
        log_hand += std::log(r.hand / r.onednn);
        log_rules += std::log(r.rules / r.onednn);
        log_llvm += std::log(r.llvm / r.onednn);
        ++n;
      }
      if (n)
        std::printf(
            "geomean over %d shapes, %d thread(s): hand %.3fx oneDNN, rules %.3fx oneDNN, rules "
            "through LLVM %.3fx oneDNN\n",
            n, t, std::exp(log_hand / n), std::exp(log_rules / n), std::exp(log_llvm / n));
    }
    std::printf(
        "\nCode generation per kernel, ms (tirc: lower + generate_x86 in process; "
        "clang-19: the hand-scheduled kernel emitted as C, -march=native -c, child process; "
        "rules: the rules' kernel from its lowered form, generate_x86 vs generate_llvm -O3 to an "
        "object, in process)\n");
    std::printf("%4s %4s %4s | %10s %12s | %12s %12s | %11s %10s %7s\n", "M", "N", "K", "tirc hand",
                "tirc plain", "clang-19 -O3", "clang-19 -O0", "xbyak rules", "llvm rules",
                "llvm/x");
    for (const CodegenRow& r : codegen)
      std::printf("%4ld %4ld %4ld | %10s %12s | %12s %12s | %11s %10s %7s\n",
                  static_cast<long>(r.shape.m), static_cast<long>(r.shape.n),
                  static_cast<long>(r.shape.k), fmt(r.tirc_hand_ms, "%.2f").c_str(),
                  fmt(r.tirc_default_ms, "%.2f").c_str(), fmt(r.clang_o3_ms, "%.1f").c_str(),
                  fmt(r.clang_o0_ms, "%.1f").c_str(), fmt(r.xbyak_rules_ms, "%.2f").c_str(),
                  fmt(r.llvm_rules_ms, "%.1f").c_str(),
                  fmt(r.llvm_rules_ms / r.xbyak_rules_ms, "%.0f").c_str());
  }
  if (!all_correct) std::fprintf(stderr, "error: some kernels computed wrong results (WRONG)\n");
  return all_correct ? 0 : 1;
}

std::vector<int> parse_threads(const std::string& list) {
  std::vector<int> out;
  size_t pos = 0;
  while (pos <= list.size()) {
    size_t comma = list.find(',', pos);
    if (comma == std::string::npos) comma = list.size();
    int t = std::atoi(list.substr(pos, comma - pos).c_str());
    if (t < 1) throw Error("--threads expects a comma-separated list of positive counts");
    out.push_back(t);
    pos = comma + 1;
  }
  return out;
}

// "256x256x256,64x80x96" -> shapes.
std::vector<Shape> parse_shapes(const std::string& list) {
  std::vector<Shape> out;
  std::stringstream in(list);
  std::string item;
  while (std::getline(in, item, ',')) {
    Shape s{0, 0, 0};
    if (std::sscanf(item.c_str(), "%ldx%ldx%ld", &s.m, &s.n, &s.k) != 3 || s.m < 1 || s.n < 1 ||
        s.k < 1)
      throw Error("--shapes expects MxNxK[,MxNxK...], got '" + item + "'");
    out.push_back(s);
  }
  return out;
}

}  // namespace
}  // namespace tirc

int main(int argc, char** argv) {
  using namespace tirc;
  try {
    Options opt;
    for (int i = 1; i < argc; ++i) {
      std::string a = argv[i];
      if (a == "--quick") {
        opt.quick = true;
      } else if (a == "--csv") {
        opt.csv = true;
      } else if (a == "--threads" && i + 1 < argc) {
        opt.threads = parse_threads(argv[++i]);
      } else if (a == "--shapes" && i + 1 < argc) {
        opt.shapes = parse_shapes(argv[++i]);
      } else {
        std::fprintf(stderr, "usage: %s [--quick] [--threads 1,2] [--shapes MxNxK,...] [--csv]\n",
                     argv[0]);
        return 2;
      }
    }
    return run(opt);
  } catch (const tirc::Error& e) {
    std::fprintf(stderr, "%s\n", e.render().c_str());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
