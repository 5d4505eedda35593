// The tuner's measurement: real timings of compiled candidates in a worker
// process; crashes, hangs, wrong results and slow candidates are recorded,
// never fatal; the runtime's thread pool survives the fork.
#include <catch2/catch.hpp>

#include "codegen_test_util.h"
#include "ir/text/parser.h"
#include "runtime/tirc_runtime.h"
#include "tuner/auto_schedule.h"
#include "tuner/measure.h"

using namespace tirc;

namespace {

std::string matmul(const std::string& body_extra = "") {
  return R"(@T.prim_func
def main(A: T.Buffer((32, 32), "float32"), B: T.Buffer((32, 32), "float32"), C: T.Buffer((32, 32), "float32")):
    for i, j, k in T.grid(32, 32, 32):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj])" +
         body_extra + "\n";
}

MeasureOptions options() {
  MeasureOptions o;
  o.target = host_target();
  o.budget = Budget{.min_reps = 2, .min_seconds = 0, .max_seconds = 0.05};
  o.timeout_seconds = 5;
  return o;
}

PrimFunc func(const std::string& text) {
  return parse_module(text).at("main");
}

}  // namespace

TEST_CASE("measurement times a compiled kernel and counts its flops", "[tuner][measure]") {
  if (available_targets().empty()) return;
  for (bool isolate : {true, false}) {
    MeasureOptions o = options();
    o.isolate = isolate;
    Measurer measurer(func(matmul()), o);
    CHECK(measurer.flops() == 2 * 32 * 32 * 32);
    Measurement m = measurer.measure(func(matmul()));
    INFO(m.message);
    REQUIRE(m.ok());
    CHECK(m.seconds > 0);
    CHECK(m.reps >= 2);
    CHECK(m.gflops == Approx(2.0 * 32 * 32 * 32 / m.seconds * 1e-9));
    CHECK(measurer.best_seconds() == m.seconds);
  }
}

TEST_CASE("a candidate that computes something else is a wrong result", "[tuner][measure]") {
  if (available_targets().empty()) return;
  Measurer measurer(func(matmul()), options());
  REQUIRE(measurer.measure(func(matmul())).ok());
  Measurement m = measurer.measure(func(matmul(" + T.float32(1)")));
  CHECK(m.status == Measurement::Status::wrong_result);
  CHECK(m.message.find("parameter 2") != std::string::npos);
}

TEST_CASE("a crash, a hang and a slow candidate are recorded; the tuner goes on",
          "[tuner][measure]") {
  if (available_targets().empty()) return;
  Measurer measurer(func(matmul()), options());
  REQUIRE(measurer.measure(func(matmul())).ok());

  // Writes far outside C: the worker dies of SIGSEGV.
  const char* wild = R"(@T.prim_func
def main(A: T.Buffer((32, 32), "float32"), B: T.Buffer((32, 32), "float32"), C: T.Buffer((32, 32), "float32")):
    for i in range(32):
        with T.block("C"):
            vi = T.axis.spatial(32, i)
            C[vi * 100000000, 0] = A[vi, 0]
)";
  Measurement crash = measurer.measure(func(wild));
  CHECK(crash.status == Measurement::Status::crashed);
  CHECK(crash.message.find("signal") != std::string::npos);

  // Far longer than the timeout: killed.
  MeasureOptions short_timeout = options();
  short_timeout.timeout_seconds = 0.5;
  short_timeout.cutoff_ratio = 1e12;
  Measurer patient(func(matmul()), short_timeout);
  const char* endless = R"(@T.prim_func
def main(A: T.Buffer((32, 32), "float32"), B: T.Buffer((32, 32), "float32"), C: T.Buffer((32, 32), "float32")):
    for r, i, j in T.grid(1000000000, 32, 32):
        with T.block("C"):
            vr, vi, vj = T.axis.remap("RSS", [r, i, j])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = T.max(C[vi, vj], A[vi, vj] * B[vi, vj])
)";
  Measurement hang = patient.measure(func(endless));
  CHECK(hang.status == Measurement::Status::timed_out);

  // The plain nest after the rule schedule (tens of times faster), with a
  // cut-off at 4 times the best.
  MeasureOptions strict = options();
  strict.cutoff_ratio = 4;
  std::string big = matmul();
  for (size_t at; (at = big.find("32,")) != std::string::npos;) big.replace(at, 3, "256,");
  for (size_t at; (at = big.find("32)")) != std::string::npos;) big.replace(at, 3, "256)");
  IRModule plain = parse_module(big);
  RuleContext cx;
  cx.cpu = host_cpu_model(host_target());
  PrimFunc fast = auto_schedule(plain, cx).schedule.mod().at("main");
  Measurer cutter(plain.at("main"), strict);
  REQUIRE(cutter.measure(fast).ok());
  Measurement slow = cutter.measure(plain.at("main"));
  INFO(to_string(slow.status) << " " << slow.seconds << " s, best " << cutter.best_seconds());
  CHECK(slow.status == Measurement::Status::cut_off);
  CHECK(slow.seconds > 4 * cutter.best_seconds());

  // After all that the measurer still measures.
  CHECK(measurer.measure(func(matmul())).ok());
}

TEST_CASE("a worker forked after the thread pool started runs parallel kernels",
          "[tuner][measure]") {
  if (available_targets().empty()) return;
  // A parallel schedule, run in process first so that the runtime's worker
  // threads exist in this process. A forked child has none of them: it must
  // neither wait for them nor hand them work (the runtime starts its own in
  // the child; its caller would otherwise run every chunk alone).
  IRModule m = parse_module(matmul());
  Schedule sch(m);
  sch.parallel(sch.get_loops(sch.get_block("C"))[0]);
  const PrimFunc parallel = sch.mod().at("main");
  tirc_set_num_threads(2);
  MeasureOptions in_process = options();
  in_process.isolate = false;
  REQUIRE(Measurer(m.at("main"), in_process).measure(parallel).ok());
  MeasureOptions forked = options();
  forked.timeout_seconds = 20;
  Measurement w = Measurer(m.at("main"), forked).measure(parallel);
  INFO(w.message);
  CHECK(w.ok());
  tirc_set_num_threads(0);
}
