// libFuzzer target for schedule traces: the bytes are read as a schedule
// script (`sch.split(...)` lines, as `tirc schedule --trace` reads them) and as
// trace JSON, and whatever loads is replayed on a fixed small module. Loading
// or replaying may fail only with tirc::Error; a crash, a sanitizer report,
// another exception, a replayed program that does not verify, or a trace that
// does not reload as itself is a bug.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "ir/text/parser.h"
#include "ir/text/printer.h"
#include "ir/verify.h"
#include "schedule/schedule.h"

namespace {

// A matmul (main: block "C") and a row reduction feeding an elementwise
// division (norm: blocks "S" and "D"), small so one replay is quick.
const char* kProgram = R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
        for i, j, k in T.grid(16, 16, 16):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.float32(0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

    @T.prim_func
    def norm(X: T.Buffer((8, 32), "float32"), Y: T.Buffer((8, 32), "float32")):
        S = T.alloc_buffer((8,), "float32")
        for i, k in T.grid(8, 32):
            with T.block("S"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    S[vi] = T.float32(0)
                S[vi] = S[vi] + X[vi, vk]
        for i, j in T.grid(8, 32):
            with T.block("D"):
                vi, vj = T.axis.remap("SS", [i, j])
                Y[vi, vj] = X[vi, vj] / S[vi]
)";

const tirc::IRModule& program() {
  static const tirc::IRModule mod = tirc::parse_module(kProgram, "trace_fuzzer.tir");
  return mod;
}

// Runs `f`, which must not fail: a tirc::Error here is a finding too.
template <class F>
void must(F f) {
  try {
    f();
  } catch (const tirc::Error&) {
    __builtin_trap();
  }
}

// A loaded trace prints, serializes and reloads as itself.
void check_reload(const tirc::Trace& t) {
  std::string script = t.print();
  must([&] {
    if (tirc::Trace::parse(script).print() != script) __builtin_trap();
  });
  std::string json;
  try {
    json = t.to_json();
  } catch (const tirc::Error&) {
    return;  // a string that is not UTF-8 has no JSON form
  }
  must([&] {
    if (tirc::Trace::from_json(json).print() != script) __builtin_trap();
  });
}

void replay(const tirc::Trace& t) {
  tirc::Schedule sch(program(), 7);
  try {
    t.apply_to(sch);
  } catch (const tirc::Error& e) {
    (void)e.render();
  }
  // After a failed primitive the schedule is left as it was before it, so in
  // every case the program must be well formed and the recorded trace must
  // replay to the same program.
  if (!tirc::verify(sch.mod()).empty()) __builtin_trap();
  std::string printed = tirc::print(sch.mod());
  must([&] {
    tirc::Schedule again(program(), 7);
    sch.trace().apply_to(again);
    if (tirc::print(again.mod()) != printed) __builtin_trap();
  });
  check_reload(sch.trace());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    tirc::Trace t = tirc::Trace::parse(text, "fuzz.py");
    check_reload(t);
    replay(t);
  } catch (const tirc::Error& e) {
    (void)e.render();
  }
  try {
    tirc::Trace t = tirc::Trace::from_json(text);
    check_reload(t);
    replay(t);
  } catch (const tirc::Error& e) {
    (void)e.render();
  }
  return 0;
}
