#include "tuner/measure.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <optional>
#include <variant>

#include "codegen/x86/generator.h"
#include "codegen/x86/jit.h"
#include "ir/error.h"
#include "ir/eval/interpreter.h"
#include "ir/flops.h"
#include "passes/pipeline.h"

namespace tirc {

std::string to_string(Measurement::Status s) {
  switch (s) {
    case Measurement::Status::ok:
      return "ok";
    case Measurement::Status::cut_off:
      return "cut off";
    case Measurement::Status::compile_error:
      return "compile error";
    case Measurement::Status::wrong_result:
      return "wrong result";
    case Measurement::Status::crashed:
      return "crashed";
    case Measurement::Status::timed_out:
      return "timed out";
    case Measurement::Status::failed_run:
      return "failed run";
  }
  return "?";
}

namespace {

// What a worker reports before the argument bytes (when asked for them).
struct WorkerReport {
  double best = 0;
  int reps = 0;
  int cut_off = 0;
  int rc = 0;             // the kernel's result; nonzero ends the runs
  int mismatch_arg = -1;  // the first argument that differs from the reference
};

// Outputs may differ from the reference's within rounding: a schedule may
// sum a reduction in another order (and vectorized exp/erf differ from scalar
// ones within their documented bounds).
constexpr double kResultRtol = 1e-4, kResultAtol = 1e-5;

// The timed runs and the result check, in whichever process runs them. args
// are the kernel's buffers; the runs write their outputs.
WorkerReport run_candidate(JitModule::PackedFn fn, std::vector<NDArray>& args, const Budget& budget,
                           const std::vector<NDArray>& reference) {
  std::vector<void*> pointers;
  for (NDArray& a : args) pointers.push_back(a.data());
  WorkerReport r;
  Timing t = time_best(
      [&] {
        if (r.rc == 0) r.rc = fn(pointers.data());
      },
      budget);
  r.best = t.best;
  r.reps = t.reps;
  r.cut_off = t.cut_off;
  for (size_t i = 0; i < reference.size() && r.mismatch_arg < 0; ++i)
    if (args[i].first_mismatch(reference[i], kResultRtol, kResultAtol) >= 0)
      r.mismatch_arg = static_cast<int>(i);
  return r;
}

bool write_all(int fd, const void* data, size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

// Reads until end of file or until `deadline`; false on timeout.
bool read_until_eof(int fd, std::string& out, std::chrono::steady_clock::time_point deadline) {
  char buf[1 << 16];
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline - std::chrono::steady_clock::now())
                    .count();
    if (left <= 0) return false;
    pollfd p{fd, POLLIN, 0};
    int rc = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 1000)));
    if (rc < 0 && errno == EINTR) continue;
    if (rc <= 0) continue;
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return true;
    out.append(buf, static_cast<size_t>(n));
  }
}

Measurement failure(Measurement::Status status, std::string message) {
  Measurement m;
  m.status = status;
  m.message = std::move(message);
  return m;
}

// A run's report, and the arguments after it (when asked for).
struct RunResult {
  WorkerReport report;
  std::vector<NDArray> outputs;
};

// run_candidate in a forked worker, which reports through a pipe and leaves
// without running the parent's exit handlers. The worker writes its own
// (copy-on-write) pages of args; the caller's stay as they were. A worker that
// dies, hangs past the timeout or reports nothing complete is a failed
// Measurement.
std::variant<RunResult, Measurement> run_in_worker(JitModule::PackedFn fn,
                                                   std::vector<NDArray>& args, const Budget& budget,
                                                   const std::vector<NDArray>& reference,
                                                   bool want_outputs, double timeout_seconds) {
  int fds[2];
  if (::pipe(fds) != 0) throw Error(std::string("tuner: pipe failed: ") + std::strerror(errno));
  pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw Error(std::string("tuner: fork failed: ") + std::strerror(errno));
  }
  if (pid == 0) {
    ::close(fds[0]);
    // A crash must end the worker, whatever handlers the host installed.
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) ::signal(sig, SIG_DFL);
    WorkerReport r = run_candidate(fn, args, budget, reference);
    bool ok = write_all(fds[1], &r, sizeof r);
    if (want_outputs)
      for (const NDArray& a : args) ok = ok && write_all(fds[1], a.data(), a.num_bytes());
    ::_exit(ok ? 0 : 3);
  }
  ::close(fds[1]);
  std::string bytes;
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                      std::chrono::duration<double>(timeout_seconds));
  bool finished = read_until_eof(fds[0], bytes, deadline);
  ::close(fds[0]);
  if (!finished) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!finished)
    return failure(Measurement::Status::timed_out,
                   "killed after " + std::to_string(timeout_seconds) + " s");
  if (WIFSIGNALED(status))
    return failure(Measurement::Status::crashed,
                   std::string("the worker died of signal ") + strsignal(WTERMSIG(status)));
  size_t expect = sizeof(WorkerReport);
  if (want_outputs)
    for (const NDArray& a : args) expect += a.num_bytes();
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || bytes.size() != expect)
    return failure(Measurement::Status::crashed, "the worker ended without a complete report");
  RunResult out;
  std::memcpy(&out.report, bytes.data(), sizeof out.report);
  if (want_outputs) {
    size_t at = sizeof out.report;
    for (const NDArray& a : args) {
      NDArray copy = a;
      std::memcpy(copy.data(), bytes.data() + at, a.num_bytes());
      at += a.num_bytes();
      out.outputs.push_back(std::move(copy));
    }
  }
  return out;
}

}  // namespace

Measurer::Measurer(const PrimFunc& workload, MeasureOptions options)
    : options_(std::move(options)) {
  for (const Param& p : workload->params)
    if (!p.buffer) throw Error("tuner: kernels with scalar parameters cannot be measured");
  args_ = random_inputs(workload, options_.input_seed);
  flops_ = count_flops(workload).value_or(0);
}

Measurement Measurer::measure(const PrimFunc& scheduled) {
  const std::string symbol = "tirc_tune_candidate";
  std::optional<JitModule> jit;
  try {
    GeneratorOptions g;
    g.target = options_.target;
    jit.emplace(generate_x86({FunctionToCompile{symbol, lower(scheduled)}}, g));
  } catch (const Error& e) {
    return failure(Measurement::Status::compile_error, e.what());
  }
  JitModule::PackedFn fn = jit->packed(symbol);

  Budget budget = options_.budget;
  if (best_seconds_ > 0) budget.cutoff_seconds = best_seconds_ * options_.cutoff_ratio;
  const bool want_outputs = options_.check_results && reference_.empty();
  const std::vector<NDArray> no_reference;
  const std::vector<NDArray>& reference = options_.check_results ? reference_ : no_reference;

  // Every candidate starts from the same inputs: each run works on a copy
  // (the worker's own pages, or one made here).
  RunResult run;
  if (options_.isolate) {
    auto result =
        run_in_worker(fn, args_, budget, reference, want_outputs, options_.timeout_seconds);
    if (Measurement* failed = std::get_if<Measurement>(&result)) return *failed;
    run = std::move(std::get<RunResult>(result));
  } else {
    std::vector<NDArray> args = args_;
    run.report = run_candidate(fn, args, budget, reference);
    if (want_outputs) run.outputs = std::move(args);
  }

  const WorkerReport& report = run.report;
  if (report.rc != 0)
    return failure(Measurement::Status::failed_run,
                   "the kernel returned " + std::to_string(report.rc));
  if (report.mismatch_arg >= 0)
    return failure(Measurement::Status::wrong_result,
                   "parameter " + std::to_string(report.mismatch_arg) +
                       " differs from the first measured program's (a code generator or "
                       "primitive bug)");
  Measurement m;
  m.seconds = report.best;
  m.reps = report.reps;
  if (report.cut_off) {
    m.status = Measurement::Status::cut_off;
    m.message = "slower than " + std::to_string(options_.cutoff_ratio) + "x the best so far";
    return m;
  }
  if (want_outputs) reference_ = std::move(run.outputs);
  m.gflops = flops_ > 0 && m.seconds > 0 ? static_cast<double>(flops_) / m.seconds * 1e-9 : 0;
  if (best_seconds_ == 0 || m.seconds < best_seconds_) best_seconds_ = m.seconds;
  return m;
}

}  // namespace tirc
