// The rules' GPU target (Isa::cuda, tuner/space/gpu_bind.cpp): every block of
// the examples and of the example ONNX models is bound to blocks of threads,
// or says why not, and the scheduled kernels compute what the plain ones do
// in the race-checking interpreter (thread-bound loops run as concurrent).
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "ir/eval/interpreter.h"
#include "ir/function.h"
#include "ir/onnx/model_pipeline.h"
#include "ir/text/parser.h"
#include "ir/text/printer.h"
#include "ir/verify.h"
#include "rule_context_util.h"
#include "tuner/auto_schedule.h"

namespace fs = std::filesystem;
using namespace tirc;

namespace {

const std::string kSource = TIRC_SOURCE_DIR;

RuleContext cuda() {
  return test::fixed_rules(Isa::cuda, 1);
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Every block reported bound, or with the reason it is not; every kernel
// (not the entry) equal to its plain form, races checked.
void check_gpu_schedule(const IRModule& m, const std::string& what, int trials = 2) {
  INFO(what);
  const AutoScheduleResult r = auto_schedule(m, cuda());
  INFO("trace:\n" << r.schedule.trace().print());
  for (const Diagnostic& d : verify(r.schedule.mod())) FAIL_CHECK(d.message);
  for (const BlockReport& b : r.blocks) {
    INFO(b.func << "/" << b.block << ": " << b.rule << ": " << b.note);
    // Bound, or the rule's reason (a refused primitive's message included).
    CHECK((b.rule == "bind-gpu-threads" || b.note.rfind("bind-gpu-threads ", 0) == 0 ||
           b.note == "already scheduled: left as written"));
    CHECK(b.note.find("fell back") == std::string::npos);
  }
  for (const auto& [name, f] : m.functions()) {
    if (is_entry(f) || needs_module(f)) continue;
    INFO(name);
    EquivOptions options;
    options.trials = trials;
    const EquivResult eq = check_equivalent(f, r.schedule.mod().at(name), options);
    INFO(eq.message);
    CHECK(eq.equal);
  }
}

const BlockReport& report_of(const AutoScheduleResult& r, const std::string& block) {
  for (const BlockReport& b : r.blocks)
    if (b.block == block) return b;
  FAIL("no report for block " << block);
  return r.blocks.front();
}

}  // namespace

TEST_CASE("gpu rules: every example kernel is bound to threads and computes the same",
          "[rules][gpu]") {
  std::vector<fs::path> files;
  for (const char* dir : {"/examples", "/examples/model"})
    for (const auto& e : fs::directory_iterator(kSource + dir))
      if (e.path().extension() == ".tir") files.push_back(e.path());
  REQUIRE(files.size() > 20);
  int bound = 0;
  for (const fs::path& file : files) {
    const IRModule m = parse_module(slurp(file), file.string());
    check_gpu_schedule(m, file.filename().string());
    for (const BlockReport& b : auto_schedule(m, cuda()).blocks)
      bound += b.rule == "bind-gpu-threads";
  }
  CHECK(bound > 20);
}

TEST_CASE("gpu rules: the example ONNX models' kernels", "[rules][gpu][onnx]") {
  for (const char* name : {"mlp", "cnn", "transformer_block"}) {
    const IRModule m = import_onnx_module(kSource + "/examples/models/" + name + "/model.onnx");
    check_gpu_schedule(m, name, 1);
  }
}

TEST_CASE("gpu rules: a 128x128x128 matmul is 64 blocks of 256 threads", "[rules][gpu]") {
  std::string text = slurp(kSource + "/examples/matmul.tir");
  for (size_t at; (at = text.find("64")) != std::string::npos;) text.replace(at, 2, "128");
  const IRModule m = parse_module(text, "matmul128.tir");
  const AutoScheduleResult r = auto_schedule(m, cuda());
  REQUIRE(r.blocks.size() == 1);
  INFO(r.blocks[0].note);
  CHECK(r.blocks[0].rule == "bind-gpu-threads");
  CHECK(r.blocks[0].note ==
        "fused 2 loops (16384 iterations) into 64 blocks x 256 threads, 1 loop serial in each "
        "thread");
  const std::string printed = print_func(r.schedule.mod().at("main"));
  INFO(printed);
  CHECK(printed.find("T.thread_binding(64, thread=\"blockIdx.x\")") != std::string::npos);
  CHECK(printed.find("T.thread_binding(256, thread=\"threadIdx.x\")") != std::string::npos);
  CHECK(printed.find("T.where(") == std::string::npos);
  // The reduction stays inside each thread, its init with it.
  CHECK(printed.find("for k in range(128)") != std::string::npos);
  CHECK(printed.find("with T.init():") != std::string::npos);
  // Not the CPU rules: nothing parallel or vectorized.
  CHECK(printed.find("T.parallel(") == std::string::npos);
  CHECK(printed.find("T.vectorized(") == std::string::npos);
  check_gpu_schedule(m, "matmul 128", 1);
}

TEST_CASE("gpu rules: 40 elements are one block of 64 threads with a predicate", "[rules][gpu]") {
  const std::string text =
      "@T.prim_func\n"
      "def main(A: T.Buffer((40,), \"float32\"), B: T.Buffer((40,), \"float32\")):\n"
      "    for i in range(40):\n"
      "        with T.block(\"B\"):\n"
      "            vi = T.axis.spatial(40, i)\n"
      "            B[vi] = A[vi] + T.float32(1)\n";
  const IRModule m = parse_module(text, "add40.tir");
  const AutoScheduleResult r = auto_schedule(m, cuda());
  const BlockReport& b = report_of(r, "B");
  INFO(b.note);
  CHECK(b.rule == "bind-gpu-threads");
  CHECK(b.note == "loop (40 iterations) into 1 block x 64 threads, predicated (24 threads idle)");
  const std::string printed = print_func(r.schedule.mod().at("main"));
  INFO(printed);
  CHECK(printed.find("T.thread_binding(1, thread=\"blockIdx.x\")") != std::string::npos);
  CHECK(printed.find("T.thread_binding(64, thread=\"threadIdx.x\")") != std::string::npos);
  CHECK(printed.find("T.where(") != std::string::npos);
  check_gpu_schedule(m, "add 40");
}

TEST_CASE("gpu rules: a full reduction to a scalar is not bound, and says why", "[rules][gpu]") {
  const std::string text =
      "@T.prim_func\n"
      "def main(A: T.Buffer((100,), \"float32\"), B: T.Buffer((), \"float32\")):\n"
      "    for k in range(100):\n"
      "        with T.block(\"B\"):\n"
      "            vk = T.axis.reduce(100, k)\n"
      "            with T.init():\n"
      "                B[()] = T.float32(0)\n"
      "            B[()] = B[()] + A[vk]\n";
  const IRModule m = parse_module(text, "sum.tir");
  const AutoScheduleResult r = auto_schedule(m, cuda());
  const BlockReport& b = report_of(r, "B");
  CHECK(b.rule.empty());
  CHECK(b.note == "bind-gpu-threads no data-parallel outer loop to bind to threads");
  CHECK(r.schedule.trace().print().find("sch.bind(") == std::string::npos);
  CHECK(r.schedule.mod().at("main").get() == m.at("main").get());
}

TEST_CASE("gpu rules: a block past the grid's limit is not bound", "[rules][gpu]") {
  const std::string text =
      "@T.prim_func\n"
      "def main(A: T.Buffer((65536, 65536, 256), \"int8\")):\n"
      "    for i, j, k in T.grid(65536, 65536, 256):\n"
      "        with T.block(\"A\"):\n"
      "            vi, vj, vk = T.axis.remap(\"SSS\", [i, j, k])\n"
      "            A[vi, vj, vk] = T.int8(0)\n";
  const IRModule m = parse_module(text, "huge.tir");
  RuleContext cx = cuda();
  Schedule sch(m);
  const RuleOutcome o = bind_gpu_threads(sch, sch.get_block("A"), cx);
  CHECK_FALSE(o.applied);
  CHECK(o.note == "more than 2147483647 blocks of 256 threads");
}

TEST_CASE("gpu rules: CPU targets keep the CPU rules", "[rules][gpu]") {
  for (const char* file :
       {"matmul.tir", "softmax.tir", "max_pool2d.tir", "elementwise_chain.tir"}) {
    const IRModule m = parse_module(slurp(kSource + "/examples/" + file), file);
    for (Isa isa : {Isa::avx512, Isa::avx2, Isa::neon}) {
      INFO(file << " " << Target{isa}.name());
      const AutoScheduleResult r = auto_schedule(m, test::fixed_rules(isa, 2));
      CHECK(r.schedule.trace().print().find("sch.bind(") == std::string::npos);
      bool cpu_rule = false;
      for (const BlockReport& b : r.blocks) {
        CHECK(b.rule != "bind-gpu-threads");
        cpu_rule |= b.rule == "tile-contraction" || b.rule == "parallel-vectorize";
      }
      CHECK(cpu_rule);
    }
  }
}
