// The rules' GPU target (Isa::cuda, tuner/space/gpu_bind.cpp and
// gpu_tile_contraction.cpp): every block of the examples and of the example
// ONNX models is bound to blocks of threads (a contraction with a register
// tile per thread), or says why not, and the scheduled kernels compute what
// the plain ones do in the race-checking interpreter (thread-bound loops run
// as concurrent).
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "ir/eval/interpreter.h"
#include "ir/function.h"
#include "ir/functor.h"
#include "ir/onnx/model_pipeline.h"
#include "ir/text/parser.h"
#include "ir/text/printer.h"
#include "ir/verify.h"
#include "narrow_matmul_util.h"
#include "passes/pipeline.h"
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

bool bound_by_gpu_rule(const BlockReport& b) {
  return b.rule == "gpu-tile-contraction" || b.rule == "gpu-thread-reduction" ||
         b.rule == "gpu-inline-epilogue" || b.rule == "bind-gpu-threads" || b.rule == "inlined";
}

// Every block reported bound, or with the reason it is not; every kernel
// (not the entry) equal to its plain form, races checked (within `rtol` where
// a schedule sums in another order).
void check_gpu_schedule(const IRModule& m, const std::string& what, int trials = 2, double rtol = 0,
                        const RuleContext& cx = cuda()) {
  INFO(what);
  const AutoScheduleResult r = auto_schedule(m, cx);
  INFO("trace:\n" << r.schedule.trace().print());
  for (const Diagnostic& d : verify(r.schedule.mod())) FAIL_CHECK(d.message);
  for (const BlockReport& b : r.blocks) {
    INFO(b.func << "/" << b.block << ": " << b.rule << ": " << b.note);
    // Bound, or the rules' reasons (a refused primitive's message included).
    CHECK((bound_by_gpu_rule(b) || b.note.find("bind-gpu-threads ") != std::string::npos ||
           b.note == "already scheduled: left as written"));
    CHECK(b.note.find("fell back") == std::string::npos);
  }
  for (const auto& [name, f] : m.functions()) {
    if (is_entry(f) || needs_module(f)) continue;
    INFO(name);
    EquivOptions options;
    options.trials = trials;
    options.rtol = rtol;
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
  int bound = 0, tiled = 0;
  for (const fs::path& file : files) {
    const IRModule m = parse_module(slurp(file), file.string());
    check_gpu_schedule(m, file.filename().string());
    for (const BlockReport& b : auto_schedule(m, cuda()).blocks) {
      bound += bound_by_gpu_rule(b);
      tiled += b.rule == "gpu-tile-contraction";
    }
  }
  CHECK(bound > 20);
  // matmul, batch_matmul, conv2d_nchw, int8_matmul_int32_acc at least.
  CHECK(tiled >= 4);
}

TEST_CASE("gpu rules: the example ONNX models' kernels", "[rules][gpu][onnx]") {
  for (const char* name : {"mlp", "cnn", "transformer_block"}) {
    const IRModule m = import_onnx_module(kSource + "/examples/models/" + name + "/model.onnx");
    check_gpu_schedule(m, name, 1);
  }
}

IRModule matmul(int n) {
  std::string text = slurp(kSource + "/examples/matmul.tir");
  const std::string size = std::to_string(n);
  for (size_t at = 0; (at = text.find("64", at)) != std::string::npos; at += size.size())
    text.replace(at, 2, size);
  return parse_module(text, "matmul" + size + ".tir");
}

// An NHWC activation (a ResNet layer's ReLU): four loops fused and split by
// 256 threads, a divisor of the inner extents 56 x 64 but not of 64 alone;
// the bind's proof needs the simplifier to divide the split index through.
TEST_CASE("gpu rules: a 1x56x56x64 elementwise block is 784 blocks of 256 threads",
          "[rules][gpu]") {
  const IRModule m = parse_module(R"(@T.prim_func
def main(A: T.Buffer((1, 56, 56, 64), "float32"), B: T.Buffer((1, 56, 56, 64), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    for i0, i1, i2, i3 in T.grid(1, 56, 56, 64):
        with T.block("relu"):
            v0, v1, v2, v3 = T.axis.remap("SSSS", [i0, i1, i2, i3])
            B[v0, v1, v2, v3] = T.max(A[v0, v1, v2, v3], T.float32(0))
)",
                                  "relu_nhwc.tir");
  Schedule sch(m);
  const RuleOutcome o = bind_gpu_threads(sch, sch.get_block("relu"), cuda());
  CHECK(o.note == "fused 4 loops (200704 iterations) into 784 blocks x 256 threads");
  check_gpu_schedule(m, "relu 1x56x56x64", 1);
}

// A contraction goes to gpu-tile-contraction first; bind-gpu-threads alone
// still makes one thread per output element of it.
TEST_CASE("gpu rules: bind-gpu-threads makes a 128x128x128 matmul 64 blocks of 256 threads",
          "[rules][gpu]") {
  const IRModule m = matmul(128);
  Schedule sch(m);
  const RuleOutcome o = bind_gpu_threads(sch, sch.get_block("C"), cuda());
  INFO(o.note);
  CHECK(o.applied);
  CHECK(o.note ==
        "fused 2 loops (16384 iterations) into 64 blocks x 256 threads, 1 loop serial in each "
        "thread");
  const std::string printed = print_func(sch.mod().at("main"));
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
  EquivOptions options;
  options.trials = 1;
  const EquivResult eq = check_equivalent(m.at("main"), sch.mod().at("main"), options);
  INFO(eq.message);
  CHECK(eq.equal);
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
  CHECK(b.note ==
        "loop (40 iterations) into 1 block x 64 threads, predicated (24 threads idle) "
        "[gpu-tile-contraction not a C[.., i, j] += A * B contraction (or max(C, A)); "
        "gpu-thread-reduction not a reduction with an init; gpu-inline-epilogue no producer bound "
        "to GPU threads]");
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
  CHECK(b.note ==
        "gpu-tile-contraction not a C[.., i, j] += A * B contraction (or max(C, A)); "
        "gpu-thread-reduction no warp of threads divides the rows of 100; "
        "gpu-inline-epilogue not elementwise; "
        "bind-gpu-threads no data-parallel outer loop to bind to threads");
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

// Batch loops fuse on blockIdx.z while their product fits its 65535 blocks;
// one loop past that alone would be 65536 serial steps in each thread.
TEST_CASE("gpu rules: batch loops past blockIdx.z's limit", "[rules][gpu]") {
  Schedule fits(test::narrow_batch_matmul({300, 300}, 32, 32, 16, "float32", false));
  RuleOutcome o = gpu_tile_contraction(fits, fits.get_block("C"), cuda());
  INFO(o.note);
  CHECK(o.applied);
  CHECK(o.note.find("x 300 on blockIdx.z over a 32x32 output, 1 batch loop serial in each "
                    "thread") != std::string::npos);
  Schedule past(test::narrow_batch_matmul({65536}, 32, 32, 16, "float32", false));
  o = gpu_tile_contraction(past, past.get_block("C"), cuda());
  CHECK_FALSE(o.applied);
  CHECK(o.note == "a batch loop of more than 65535 blocks");
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
        CHECK(b.rule != "gpu-tile-contraction");
        cpu_rule |= b.rule == "tile-contraction" || b.rule == "parallel-vectorize";
      }
      CHECK(cpu_rule);
    }
  }
}

TEST_CASE("gpu rules: a 256x256x256 matmul gets shared-memory tiles and register tiles",
          "[rules][gpu]") {
  const IRModule m = matmul(256);
  // The classic form, 16x16 threads of 4x4 tiles, where 16 blocks are
  // enough for the model's GPU.
  RuleContext few = cuda();
  few.gpu.fill_blocks = 16;
  const AutoScheduleResult classic = auto_schedule(m, few);
  CHECK(report_of(classic, "C").note ==
        "shared-memory tiles of 64x16 and 16x64, register tile 4x4 per thread, 16x16 threads per "
        "block, 4x4 blocks over a 256x256 output");
  // By default 128 blocks: fewer threads per block (8x8), then a smaller
  // tile along the columns (4x2).
  const AutoScheduleResult r = auto_schedule(m, cuda());
  const BlockReport& b = report_of(r, "C");
  INFO(b.note);
  CHECK(b.rule == "gpu-tile-contraction");
  CHECK(b.note ==
        "shared-memory tiles of 32x8 and 8x16, register tile 4x2 per thread, 8x8 threads per "
        "block, 8x16 blocks over a 256x256 output");
  const std::string printed = print_func(r.schedule.mod().at("main"));
  INFO(printed);
  for (const char* bound :
       {"T.thread_binding(8, thread=\"blockIdx.y\")", "T.thread_binding(16, thread=\"blockIdx.x\")",
        "T.thread_binding(8, thread=\"threadIdx.y\")",
        "T.thread_binding(8, thread=\"threadIdx.x\")"})
    CHECK(printed.find(bound) != std::string::npos);
  // The accumulators a cache in local scope around the k loop of 32 steps,
  // the operands' tiles caches in shared scope inside it.
  for (const char* part :
       {"scope=\"local\"", "scope=\"shared\"", "with T.block(\"C_init\")",
        "with T.block(\"C_local\")", "with T.block(\"A_shared\")", "with T.block(\"B_shared\")",
        "for k_0 in range(32)", "T.unroll(4)", "T.unroll(2)"})
    CHECK(printed.find(part) != std::string::npos);
  CHECK(printed.find("T.where(") == std::string::npos);
  // Lowered for the GPU: the block's 32x16 accumulators and its 32x8 and
  // 8x16 tiles inside the kernel.
  const std::string lowered = print_func(lower(r.schedule.mod().at("main"), LowerOptions{true}));
  INFO(lowered);
  CHECK(lowered.find("T.allocate([512], \"float32\", \"local\")") != std::string::npos);
  CHECK(lowered.find("T.allocate([256], \"float32\", \"shared\")") != std::string::npos);
  CHECK(lowered.find("T.allocate([128], \"float32\", \"shared\")") != std::string::npos);
  // The same form (tiles, threads, register tiles) at 128^3, where 32 blocks
  // fill the model's GPU, computes what the matmul does (an eighth of the
  // interpreter's work at 256^3).
  RuleContext quarter = cuda();
  quarter.gpu.fill_blocks = 32;
  const IRModule small = matmul(128);
  const AutoScheduleResult same = auto_schedule(small, quarter);
  CHECK(report_of(same, "C").note ==
        "shared-memory tiles of 32x8 and 8x16, register tile 4x2 per thread, 8x8 threads per "
        "block, 4x8 blocks over a 128x128 output");
  check_gpu_schedule(small, "matmul 128", 1, 0, quarter);
}

TEST_CASE("gpu rules: matmuls too small to fill the GPU take smaller blocks, then tiles",
          "[rules][gpu]") {
  const std::vector<std::pair<int, const char*>> cases = {
      // 256 blocks of 64x64 already: as it is.
      {1024,
       "shared-memory tiles of 64x16 and 16x64, register tile 4x4 per thread, 16x16 threads per "
       "block, 16x16 blocks over a 1024x1024 output"},
      // 64 blocks: half the threads (from threadIdx.y) give 128.
      {512,
       "shared-memory tiles of 32x16 and 16x64, register tile 4x4 per thread, 8x16 threads per "
       "block, 16x8 blocks over a 512x512 output"},
      // One block: two warps of 2x2 tiles, then one warp; 32 blocks is all
      // a 64x64 output gives with tiles of at least 2x2.
      {64,
       "shared-memory tiles of 8x8 and 8x16, register tile 2x2 per thread, 4x8 threads per block, "
       "8x4 blocks over a 64x64 output"},
  };
  for (const auto& [n, note] : cases) {
    INFO(n);
    Schedule sch(matmul(n));
    const RuleOutcome o = gpu_tile_contraction(sch, sch.get_block("C"), cuda());
    CHECK(o.applied);
    CHECK(o.note == note);
  }
}

TEST_CASE("gpu rules: a reduction of no whole steps keeps a register tile per thread",
          "[rules][gpu]") {
  // C[256, 256] = A[256, 36] * B[36, 256]: 36 is no multiple of 8.
  std::string text = slurp(kSource + "/examples/matmul.tir");
  for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"A: T.Buffer((64, 64)", "A: T.Buffer((256, 36)"},
           {"B: T.Buffer((64, 64)", "B: T.Buffer((36, 256)"},
           {"C: T.Buffer((64, 64)", "C: T.Buffer((256, 256)"},
           {"T.grid(64, 64, 64)", "T.grid(256, 256, 36)"}}) {
    const size_t at = text.find(from);
    REQUIRE(at != std::string::npos);
    text.replace(at, from.size(), to);
  }
  const IRModule m = parse_module(text, "matmul_256x256x36.tir");
  const AutoScheduleResult r = auto_schedule(m, cuda());
  const BlockReport& b = report_of(r, "C");
  INFO(b.note);
  CHECK(b.rule == "gpu-tile-contraction");
  CHECK(b.note ==
        "register tile 4x2 per thread, 8x8 threads per block, 8x16 blocks over a 256x256 output "
        "(no shared-memory tiles: the reduction's 36 iterations are not several steps of 8)");
  const std::string printed = print_func(r.schedule.mod().at("main"));
  INFO(printed);
  // The accumulators: a cache in local scope, its init and write-back with
  // the update in each thread, the tile loops unrolled.
  CHECK(printed.find("scope=\"local\"") != std::string::npos);
  CHECK(printed.find("scope=\"shared\"") == std::string::npos);
  CHECK(printed.find("for k in range(36)") != std::string::npos);
  CHECK(printed.find("T.unroll(4)") != std::string::npos);
  // Lowered for the GPU: 8 accumulators of each thread's own.
  const std::string lowered = print_func(lower(r.schedule.mod().at("main"), LowerOptions{true}));
  INFO(lowered);
  CHECK(lowered.find("T.allocate([8], \"float32\", \"local\")") != std::string::npos);
  check_gpu_schedule(m, "matmul 256x256x36", 1);
}

TEST_CASE("gpu rules: batch matmul, convolution and int8 matmul get register tiles",
          "[rules][gpu]") {
  const std::vector<std::pair<const char*, const char*>> cases = {
      {"batch_matmul.tir",
       "shared-memory tiles of 8x8 and 8x16, register tile 2x2 per thread, 4x8 threads per "
       "block, 4x2 blocks x 2 on blockIdx.z over a 32x32 output"},
      // Rows: the output channels (the weights vary along them, the data
      // does not); the tiles shrink to give a warp of threads.
      {"conv2d_nchw.tir",
       "register tile 2x1 per thread, 4x8 threads per block, 1x1 blocks x 8 on blockIdx.z over "
       "a 8x8 output (no shared-memory tiles: the reduction's 4 x 3 x 3 iterations are not "
       "several steps of 8) (inlined its zero pad, block data_pad)"},
      {"int8_matmul_int32_acc.tir",
       "shared-memory tiles of 8x8 and 8x16, register tile 2x2 per thread, 4x8 threads per "
       "block, 4x2 blocks over a 32x32 output"},
  };
  for (const auto& [file, note] : cases) {
    INFO(file);
    const IRModule m = parse_module(slurp(kSource + "/examples/" + file), file);
    const AutoScheduleResult r = auto_schedule(m, cuda());
    const BlockReport& b = report_of(r, file == std::string("conv2d_nchw.tir") ? "conv" : "C");
    CHECK(b.rule == "gpu-tile-contraction");
    CHECK(b.note == note);
  }
}

// The kernels of f lowered for the GPU: one blockIdx.x loop each.
size_t kernel_count(const PrimFunc& f) {
  const std::string lowered = print_func(lower(f, LowerOptions{true}));
  size_t kernels = 0;
  for (size_t at = 0; (at = lowered.find("thread=\"blockIdx.x\"", at)) != std::string::npos; ++at)
    ++kernels;
  return kernels;
}

TEST_CASE("gpu rules: a convolution's pad and ReLU run in its kernel", "[rules][gpu]") {
  // The example cnn's first group: pad, conv, relu.
  const IRModule m = import_onnx_module(kSource + "/examples/models/cnn/model.onnx");
  const AutoScheduleResult r = auto_schedule(m, cuda());
  std::map<std::string, std::string> rule_of;
  for (const BlockReport& b : r.blocks)
    if (b.func == "conv_relu") rule_of[b.block] = b.rule;
  CHECK(rule_of["pad"] == "inlined");
  CHECK(rule_of["conv"] == "gpu-tile-contraction");
  CHECK(rule_of["relu"] == "gpu-inline-epilogue");
  CHECK(kernel_count(r.schedule.mod().at("conv_relu")) == 1);
  check_gpu_schedule(m, "cnn", 1);
}

// Text with each `from` replaced by its `to`, in order.
std::string replaced(std::string text, const std::vector<std::pair<std::string, std::string>>& r) {
  for (const auto& [from, to] : r)
    for (size_t at = 0; (at = text.find(from, at)) != std::string::npos; at += to.size())
      text.replace(at, from.size(), to);
  return text;
}

TEST_CASE("gpu rules: larger convolutions get register tiles and compute the same",
          "[rules][gpu]") {
  // NCHW, 2x16x16x16 with 32 3x3 filters: rows are the output channels, the
  // two batch loops (the images and the output rows) fused on blockIdx.z.
  const IRModule conv =
      parse_module(replaced(slurp(kSource + "/examples/conv2d_nchw.tir"),
                            {{"(1, 4, 8, 8)", "(2, 16, 16, 16)"},
                             {"(8, 4, 3, 3)", "(32, 16, 3, 3)"},
                             {"(1, 8, 8, 8)", "(2, 32, 16, 16)"},
                             {"(1, 4, 10, 10)", "(2, 16, 18, 18)"},
                             {"T.grid(1, 4, 10, 10)", "T.grid(2, 16, 18, 18)"},
                             {"T.grid(1, 8, 8, 8, 4, 3, 3)", "T.grid(2, 32, 16, 16, 16, 3, 3)"},
                             {"< 9", "< 17"}}),
                   "conv2d_2x16x16x16.tir");
  // Depthwise over 8 channels of 32x32: the weight is shared by the whole
  // tile, rows are the output rows.
  const IRModule depthwise =
      parse_module(replaced(slurp(kSource + "/examples/depthwise_conv2d.tir"),
                            {{"T.grid(1, 4, 6, 6, 3, 3)", "T.grid(1, 8, 32, 32, 3, 3)"},
                             {"(1, 4, 8, 8)", "(1, 8, 34, 34)"},
                             {"(4, 3, 3)", "(8, 3, 3)"},
                             {"(1, 4, 6, 6)", "(1, 8, 32, 32)"}}),
                   "depthwise_8x32x32.tir");
  const std::vector<std::tuple<const IRModule*, const char*, const char*>> cases = {
      // Steps of 8 channels at each of the 3x3 window positions.
      {&conv, "conv",
       "shared-memory tiles of 16x8 and 8x8, register tile 2x2 per thread, 8x4 threads per "
       "block, 2x2 blocks x 32 on blockIdx.z (2 batch loops fused) over a 32x16 output (its zero "
       "pad, block data_pad, computed in the copy)"},
      {&depthwise, "depthwise_conv2d",
       "register tile 2x2 per thread, 4x8 threads per block, 4x2 blocks x 8 on blockIdx.z over a "
       "32x32 output (no shared-memory tiles: the reduction's 3 x 3 iterations are not several "
       "steps of 8)"},
  };
  for (const auto& [m, block, note] : cases) {
    const AutoScheduleResult r = auto_schedule(*m, cuda());
    const BlockReport& b = report_of(r, block);
    INFO(b.note);
    CHECK(b.rule == "gpu-tile-contraction");
    CHECK(b.note == note);
    check_gpu_schedule(*m, block, 1);
  }
}

// A 3x3 convolution with padding 1 in NHWC, as the ONNX frontend writes a
// ResNet layer: X (1, hw, hw, c), weights (3, 3, c, m) into Y; with
// `bias_relu`, its init the bias B (m) and a ReLU after it into Z, Y then an
// intermediate.
IRModule nhwc_conv(int64_t hw, int64_t c, int64_t m, bool bias_relu = false) {
  const std::string HW = std::to_string(hw), P = std::to_string(hw + 2), C = std::to_string(c),
                    M = std::to_string(m);
  const std::string out_shape = "(1, " + HW + ", " + HW + ", " + M + ")";
  const std::string params = bias_relu ? "B: T.Buffer((" + M + ",), \"float32\"), Z: T.Buffer(" +
                                             out_shape + ", \"float32\")"
                                       : "Y: T.Buffer(" + out_shape + ", \"float32\")";
  std::string text = "@T.prim_func\ndef main(X: T.Buffer((1, " + HW + ", " + HW + ", " + C +
                     "), \"float32\"), W: T.Buffer((3, 3, " + C + ", " + M + "), \"float32\"), " +
                     params +
                     "):\n"
                     "    Xp = T.alloc_buffer((1, " +
                     P + ", " + P + ", " + C + "), \"float32\")\n";
  if (bias_relu) text += "    Y = T.alloc_buffer(" + out_shape + ", \"float32\")\n";
  text +=
      "    for i0, i1, i2, i3 in T.grid(1, " + P + ", " + P + ", " + C +
      "):\n"
      "        with T.block(\"pad\"):\n"
      "            v0, v1, v2, v3 = T.axis.remap(\"SSSS\", [i0, i1, i2, i3])\n"
      "            Xp[v0, v1, v2, v3] = T.if_then_else(v1 >= 1 and v1 < " +
      HW + " + 1 and v2 >= 1 and v2 < " + HW +
      " + 1, X[v0, v1 - 1, v2 - 1, v3], T.float32(0))\n"
      "    for n, h, w, o, k, r, s in T.grid(1, " +
      HW + ", " + HW + ", " + M + ", " + C +
      ", 3, 3):\n"
      "        with T.block(\"conv\"):\n"
      "            vn, vh, vw, vo, vk, vr, vs = T.axis.remap(\"SSSSRRR\", [n, h, w, o, k, r, "
      "s])\n"
      "            with T.init():\n"
      "                Y[vn, vh, vw, vo] = " +
      (bias_relu ? "B[vo]" : "T.float32(0)") +
      "\n"
      "            Y[vn, vh, vw, vo] = Y[vn, vh, vw, vo] + Xp[vn, vh + vr, vw + vs, vk] * W[vr, "
      "vs, vk, vo]\n";
  if (bias_relu)
    text += "    for n, h, w, o in T.grid(1, " + HW + ", " + HW + ", " + M +
            "):\n"
            "        with T.block(\"relu\"):\n"
            "            vn, vh, vw, vo = T.axis.remap(\"SSSS\", [n, h, w, o])\n"
            "            Z[vn, vh, vw, vo] = T.max(Y[vn, vh, vw, vo], T.float32(0))\n";
  return parse_module(
      text, "nhwc_conv_" + HW + "x" + C + "x" + M + (bias_relu ? "_bias_relu" : "") + ".tir");
}

// The allocations of `scope` in f lowered for the GPU, with the loops around
// each (thread-bound ones by their tag).
std::vector<std::pair<std::vector<std::string>, int64_t>> allocations(const PrimFunc& f,
                                                                      const std::string& scope) {
  struct Find : StmtVisitor {
    std::string scope;
    std::vector<std::string> loops;
    std::vector<std::pair<std::vector<std::string>, int64_t>> found;
    void visit_for(const ForNode* n) override {
      loops.push_back(n->for_kind == ForKind::ThreadBinding ? n->thread_tag : n->loop_var->name);
      StmtVisitor::visit_for(n);
      loops.pop_back();
    }
    void visit_allocate(const AllocateNode* n) override {
      if (n->scope == scope)
        found.push_back(
            {loops, n->extents.size() == 1 ? as_const_int(n->extents[0]).value_or(-1) : -1});
      StmtVisitor::visit_allocate(n);
    }
  } find;
  find.scope = scope;
  find.visit(lower(f, LowerOptions{true})->body);
  return find.found;
}

TEST_CASE("gpu rules: convolutions step through window positions and channels in shared memory",
          "[rules][gpu]") {
  // 12-wide rows: the first choice of threads (4x8) steps 8 channels.
  // 14-wide rows (ResNet's 56, 28, 14 are 7 times a power of two): that
  // choice would be 7x8 threads and steps of 56; power-of-two threads
  // instead, 7-row register tiles.
  const std::vector<std::tuple<int64_t, int64_t, int64_t, const char*, int64_t, int64_t>> cases = {
      {12, 16, 16,
       "shared-memory tiles of 12x8 and 8x16, register tile 3x2 per thread, 4x8 threads per "
       "block, 1x1 blocks x 12 on blockIdx.z over a 12x16 output (its zero pad, block pad, "
       "computed in the copy)",
       12 * 8, 8 * 16},
      {14, 16, 32,
       "shared-memory tiles of 14x16 and 16x16, register tile 7x1 per thread, 2x16 threads per "
       "block, 1x2 blocks x 14 on blockIdx.z over a 14x32 output (its zero pad, block pad, "
       "computed in the copy)",
       14 * 16, 16 * 16}};
  for (const auto& [hw, c, m, note, x_tile, w_tile] : cases) {
    const IRModule mod = nhwc_conv(hw, c, m);
    const AutoScheduleResult r = auto_schedule(mod, cuda());
    const BlockReport& b = report_of(r, "conv");
    INFO(b.note);
    CHECK(b.rule == "gpu-tile-contraction");
    CHECK(b.note == note);
    CHECK(report_of(r, "pad").rule == "inlined");
    // Each step's tiles live inside the window and channel loops (the rows
    // of a block, then r, s and the channel steps), one tile each.
    const auto shared = allocations(r.schedule.mod().at("main"), "shared");
    REQUIRE(shared.size() == 2);
    for (const auto& [loops, elements] : shared) {
      INFO(elements);
      CHECK((elements == x_tile || elements == w_tile));
      REQUIRE(loops.size() >= 3);
      CHECK(loops[0] == "blockIdx.z");
      CHECK(loops.back() == "k_0");
      CHECK(loops[loops.size() - 2] == "s");
      CHECK(loops[loops.size() - 3] == "r");
    }
    check_gpu_schedule(mod, "nhwc conv", 1);
  }
}

// Split-K: the partial sums over parts of the channels as a contraction of
// their own, the parts on blockIdx.z beside the output rows, into that many
// times the blocks; then their sum from the bias, one thread an output, with
// the ReLU after it in the same threads.
TEST_CASE("gpu rules: a long reduction with few outputs is summed in parts", "[rules][gpu]") {
  SECTION("a convolution with a bias and a ReLU") {
    // 576 products an output: 2 parts of 288 (4 would be shorter than 256).
    const IRModule mod = nhwc_conv(7, 64, 16, true);
    const AutoScheduleResult r = auto_schedule(mod, cuda());
    const BlockReport& b = report_of(r, "conv");
    INFO(b.note);
    CHECK(b.rule == "gpu-tile-contraction");
    CHECK(b.note ==
          "reduction split in 2 parts along k (784 threads, 392 whole); partial sums (block "
          "conv_rf): register tile 1x2 per thread, 7x8 threads per block, 1x1 blocks x 14 on "
          "blockIdx.z (2 batch loops fused) over a 7x16 output (no shared-memory tiles: 1x16 "
          "threads, fewer than a warp) (inlined its zero pad, block pad); their sum: fused 4 "
          "loops (784 iterations) into 1 block x 784 threads, 1 loop serial in each thread");
    CHECK(report_of(r, "pad").rule == "inlined");
    const BlockReport& relu = report_of(r, "relu");
    CHECK(relu.rule == "bind-gpu-threads");
    CHECK(relu.note.rfind("computed in block conv's threads, after its loops", 0) == 0);
    check_gpu_schedule(mod, "conv with bias and relu", 1, 1e-5);
  }
  SECTION("a matmul") {
    // 32x16 outputs of 2048 products: 8 parts of 256.
    const IRModule mod = test::narrow_matmul(32, 16, 2048, "float32");
    const AutoScheduleResult r = auto_schedule(mod, cuda());
    const BlockReport& b = report_of(r, "C");
    INFO(b.note);
    CHECK(b.note.rfind("reduction split in 8 parts along k (", 0) == 0);
    check_gpu_schedule(mod, "matmul 32x16x2048", 1, 1e-5);
  }
  SECTION("not where the reduction is short or the threads many") {
    const auto never = [](Schedule&, BlockRV, const RuleContext&) -> RuleOutcome {
      FAIL("tiled the parts of a reduction that is not split");
      return {};
    };
    // 144 products an output: no two parts of 256.
    const IRModule conv = nhwc_conv(7, 16, 32, true);
    Schedule sch(conv);
    RuleOutcome o = gpu_split_reduction(sch, sch.get_block("conv"), Launch{1, 32}, cuda(), never);
    CHECK_FALSE(o.applied);
    CHECK(o.note.empty());
    const IRModule mm = matmul(1024);
    Schedule mm_sch(mm);
    o = gpu_split_reduction(mm_sch, mm_sch.get_block("C"), Launch{64, 256}, cuda(), never);
    CHECK_FALSE(o.applied);
    CHECK(o.note == "16384 threads fill the GPU");
  }
}

TEST_CASE("gpu rules: max pooling keeps one output element per thread", "[rules][gpu]") {
  const IRModule m = parse_module(slurp(kSource + "/examples/max_pool2d.tir"), "max_pool2d.tir");
  Schedule sch(m);
  const RuleOutcome o = gpu_tile_contraction(sch, sch.get_block("pool_max"), cuda());
  CHECK_FALSE(o.applied);
  CHECK(o.note == "no operand is shared along the rows or the columns of a tile");
}

TEST_CASE("gpu rules: a max pool's -inf pad is computed in the pool's loads", "[rules][gpu]") {
  // ResNet's stem pool: 3x3, stride 2, padding 1 (here on 8x8x16).
  const IRModule m = parse_module(R"(@T.prim_func
def main(X: T.Buffer((1, 8, 8, 16), "float32"), Y: T.Buffer((1, 4, 4, 16), "float32")):
    Xp = T.alloc_buffer((1, 9, 9, 16), "float32")
    for i0, i1, i2, i3 in T.grid(1, 9, 9, 16):
        with T.block("pad"):
            v0, v1, v2, v3 = T.axis.remap("SSSS", [i0, i1, i2, i3])
            Xp[v0, v1, v2, v3] = T.if_then_else(v1 >= 1 and v1 < 9 and v2 >= 1 and v2 < 9, X[v0, v1 - 1, v2 - 1, v3], T.float32("-inf"))
    for n, h, w, c, r, s in T.grid(1, 4, 4, 16, 3, 3):
        with T.block("pool"):
            vn, vh, vw, vc, vr, vs = T.axis.remap("SSSSRR", [n, h, w, c, r, s])
            with T.init():
                Y[vn, vh, vw, vc] = T.float32("-inf")
            Y[vn, vh, vw, vc] = T.max(Y[vn, vh, vw, vc], Xp[vn, vh * 2 + vr, vw * 2 + vs, vc])
)",
                                  "max_pool_pad.tir");
  const AutoScheduleResult r = auto_schedule(m, cuda());
  CHECK(report_of(r, "pad").note.rfind(
            "a pad, computed in the loads of pool (no kernel of its own) [", 0) == 0);
  CHECK(report_of(r, "pool").rule == "bind-gpu-threads");
  CHECK(kernel_count(r.schedule.mod().at("main")) == 1);
  check_gpu_schedule(m, "max pool with a -inf pad");
}

TEST_CASE("gpu rules: a global average pool with its division and flatten is one kernel",
          "[rules][gpu]") {
  const IRModule m = import_onnx_module(kSource + "/examples/models/cnn/model.onnx");
  const AutoScheduleResult r = auto_schedule(m, cuda());
  std::map<std::string, std::string> note_of;
  for (const BlockReport& b : r.blocks)
    if (b.func == "global_average_pool_flatten") note_of[b.block] = b.rule + ": " + b.note;
  CHECK(note_of["global_avg_pool_sum"].rfind("gpu-thread-reduction: rows of 256", 0) == 0);
  // (Each note goes on with why the rules before did not apply.)
  CHECK(note_of["global_avg_pool"].rfind("bind-gpu-threads: computed in block "
                                         "global_avg_pool_sum's kernel, after each output's sum [",
                                         0) == 0);
  CHECK(note_of["flatten"].rfind(
            "bind-gpu-threads: computed in block global_avg_pool's kernel, after each output's "
            "sum [",
            0) == 0);
  CHECK(kernel_count(r.schedule.mod().at("global_average_pool_flatten")) == 1);
  // Equal to the plain model: "the example ONNX models' kernels" above.
}

TEST_CASE("gpu rules: a 7x13 matmul has no register tile and is bound one element per thread",
          "[rules][gpu]") {
  // 7 and 13 are prime: a tile of 7 or 13 rows would leave a block of fewer
  // than a warp of threads, and a tile of 1x1 is what bind-gpu-threads does.
  const std::string text =
      "@T.prim_func\n"
      "def main(A: T.Buffer((7, 8), \"float32\"), B: T.Buffer((8, 13), \"float32\"),\n"
      "         C: T.Buffer((7, 13), \"float32\")):\n"
      "    for i, j, k in T.grid(7, 13, 8):\n"
      "        with T.block(\"C\"):\n"
      "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
      "            with T.init():\n"
      "                C[vi, vj] = T.float32(0)\n"
      "            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]\n";
  const IRModule m = parse_module(text, "matmul7x13.tir");
  Schedule sch(m);
  const RuleOutcome o = gpu_tile_contraction(sch, sch.get_block("C"), cuda());
  CHECK_FALSE(o.applied);
  CHECK(o.note == "no register tile for a 7x13 output in blocks of at least 32 threads");
  const AutoScheduleResult r = auto_schedule(m, cuda());
  const BlockReport& b = report_of(r, "C");
  INFO(b.note);
  CHECK(b.rule == "bind-gpu-threads");
  CHECK(b.note.find("[gpu-tile-contraction no register tile") != std::string::npos);
  check_gpu_schedule(m, "matmul 7x13");
  // A 1x1000 GEMV (a classifier's last layer): tiles of 4 columns would
  // leave blocks of 10 threads (1000 / 4 = 250 = 10 x 25); the rules after
  // take it (a block per output sharing its row, here).
  const IRModule gemv = parse_module(
      "@T.prim_func\n"
      "def main(A: T.Buffer((1, 512), \"float32\"), B: T.Buffer((512, 1000), \"float32\"),\n"
      "         C: T.Buffer((1, 1000), \"float32\")):\n"
      "    for i, j, k in T.grid(1, 1000, 512):\n"
      "        with T.block(\"C\"):\n"
      "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
      "            with T.init():\n"
      "                C[vi, vj] = T.float32(0)\n"
      "            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]\n",
      "gemv1000.tir");
  Schedule gs(gemv);
  const RuleOutcome go = gpu_tile_contraction(gs, gs.get_block("C"), cuda());
  CHECK_FALSE(go.applied);
  CHECK(go.note == "no register tile for a 1x1000 output in blocks of at least 32 threads");
}

TEST_CASE("gpu rules: random register tiles of a matmul compute the same", "[rules][gpu]") {
  const IRModule m = matmul(64);
  RuleContext cx = cuda();
  cx.decisions = Decisions::Random;
  int applied = 0;
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    Schedule sch(m, seed);
    const RuleOutcome o = gpu_tile_contraction(sch, sch.get_block("C"), cx);
    INFO("seed " << seed << ": " << o.note);
    if (!o.applied) {
      CHECK(o.note.rfind("drew ", 0) == 0);
      continue;
    }
    ++applied;
    EquivOptions options;
    options.trials = 1;
    const EquivResult eq = check_equivalent(m.at("main"), sch.mod().at("main"), options);
    INFO(eq.message);
    CHECK(eq.equal);
  }
  CHECK(applied > 0);
}

namespace tirc {
namespace {

// S[..] = sum of X[..] over its trailing dimensions past the first `kept`.
IRModule row_sums(const std::vector<int64_t>& shape, size_t kept) {
  std::string dims, out, loops, vars, kinds, out_index;
  for (size_t d = 0; d < shape.size(); ++d) {
    const std::string n = std::to_string(shape[d]), sep = d == 0 ? "" : ", ";
    dims += sep + n;
    loops += sep + "i" + std::to_string(d);
    vars += sep + "v" + std::to_string(d);
    kinds += d < kept ? "S" : "R";
    if (d < kept) {
      out += sep + n;
      out_index += sep + "v" + std::to_string(d);
    }
  }
  return parse_module(
      "@T.prim_func\ndef main(X: T.Buffer((" + dims + "), \"float32\"), S: T.Buffer((" + out +
          (kept == 1 ? "," : "") + "), \"float32\")):\n    for " + loops + " in T.grid(" + dims +
          "):\n        with T.block(\"S\"):\n            " + vars + " = T.axis.remap(\"" + kinds +
          "\", [" + loops + "])\n            with T.init():\n                S[" + out_index +
          "] = T.float32(0)\n            S[" + out_index + "] = S[" + out_index + "] + X[" + vars +
          "]\n",
      "row_sums.tir");
}

}  // namespace
}  // namespace tirc

TEST_CASE("gpu rules: reductions with few outputs share each row among a block's threads",
          "[rules][gpu]") {
  using namespace tirc;
  // A softmax over 128 rows of 768: the row max and the row sum each one
  // block per row; the elementwise blocks one thread per element.
  std::string softmax = slurp(kSource + "/examples/softmax.tir");
  for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"(16, 32)", "(128, 768)"}, {"T.grid(16, 32)", "T.grid(128, 768)"}, {"(16,)", "(128,)"}})
    for (size_t at = 0; (at = softmax.find(from, at)) != std::string::npos; at += to.size())
      softmax.replace(at, from.size(), to);
  const IRModule sm = parse_module(softmax, "softmax_128x768.tir");
  const AutoScheduleResult r = auto_schedule(sm, cuda());
  for (const char* block : {"T_max", "T_sum"}) {
    const BlockReport& b = report_of(r, block);
    INFO(b.note);
    CHECK(b.rule == "gpu-thread-reduction");
    CHECK(b.note.rfind("rows of 768 shared by 256 threads (3 each), 128 blocks, partial results in "
                       "shared memory",
                       0) == 0);
  }
  CHECK(report_of(r, "T_exp").rule == "bind-gpu-threads");
  const std::string lowered = print_func(lower(r.schedule.mod().at("main"), LowerOptions{true}));
  INFO(lowered);
  CHECK(lowered.find("T.allocate([256], \"float32\", \"shared\")") != std::string::npos);
  // The row's sums in another order: equal within rounding.
  check_gpu_schedule(sm, "softmax 128x768", 1, 1e-5);

  // A global average pool's sum: two reduction loops fused into rows of 256.
  const IRModule pool = row_sums({1, 64, 16, 16}, 2);
  const AutoScheduleResult p = auto_schedule(pool, cuda());
  CHECK(report_of(p, "S").note.rfind("rows of 256 shared by 256 threads (1 each), 64 blocks", 0) ==
        0);
  check_gpu_schedule(pool, "global pool", 1);

  // Declined: short rows, and outputs enough to fill the GPU one thread each.
  const IRModule short_rows = row_sums({64, 32}, 1);
  Schedule s1(short_rows);
  CHECK(gpu_thread_reduction(s1, s1.get_block("S"), cuda()).note ==
        "rows of 32 are too short to share");
  const IRModule many = row_sums({32768, 128}, 1);
  Schedule s2(many);
  CHECK(gpu_thread_reduction(s2, s2.get_block("S"), cuda()).note ==
        "32768 outputs are enough threads of their own");
}

namespace tirc {
namespace {

using test::narrow_matmul;

TEST_CASE("gpu rules: float16 and bfloat16 matmuls get tensor cores", "[rules][gpu]") {
  const IRModule big = narrow_matmul(512, 256, 64, "float16");
  const AutoScheduleResult r = auto_schedule(big, cuda());
  const BlockReport& b = report_of(r, "C");
  CHECK(b.rule == "gpu-tile-contraction");
  CHECK(b.note ==
        "tensor cores (f16 mma 16x16x16, float32 accumulators, shared-memory tiles of 32x32 and "
        "32x32): 2x2 tiles per warp, 1x1 warps per block, 16x8 blocks over a 512x256 output");
  const std::string printed = print_func(r.schedule.mod().at("main"));
  CHECK(printed.find("T.mma_sync(") != std::string::npos);
  CHECK(printed.find("scope=\"wmma.accumulator\"") != std::string::npos);
  CHECK(printed.find("scope=\"shared\"") != std::string::npos);
  // Race-checked and equal to the plain program bit for bit (the
  // interpreter's mma_sync adds in k order, as the loops do).
  check_gpu_schedule(big, "f16 512x256x64");
  // Few blocks: one tile per warp and one warp per block; k of 48 is no
  // multiple of 32, so the warps read A and B from global memory.
  const IRModule small = narrow_matmul(64, 32, 48, "bfloat16");
  CHECK(report_of(auto_schedule(small, cuda()), "C").note ==
        "tensor cores (bf16 mma 16x16x16, float32 accumulators): 1x1 tiles per warp, 1x1 warps "
        "per block, 4x2 blocks over a 64x32 output (no shared-memory tiles: the reduction's 48 "
        "iterations are not several steps of 32)");
  check_gpu_schedule(small, "bf16 64x32x48");
  // One step of 32: the same.
  CHECK_THAT(report_of(auto_schedule(narrow_matmul(64, 64, 32, "float16"), cuda()), "C").note,
             Catch::Contains("(no shared-memory tiles: the reduction's 32 iterations are not "
                             "several steps of 32)"));
}

TEST_CASE("gpu rules: batch matmuls get tensor cores with one batch loop on blockIdx.z",
          "[rules][gpu]") {
  // Attention's scores x values: both operands batched; the shared form.
  const IRModule both = test::narrow_batch_matmul({4}, 32, 32, 64, "float16", true);
  CHECK(report_of(auto_schedule(both, cuda()), "C").note ==
        "tensor cores (f16 mma 16x16x16, float32 accumulators, shared-memory tiles of 16x32 and "
        "32x16): 1x1 tiles per warp, 1x1 warps per block, 2x2 blocks x 4 on blockIdx.z over a "
        "32x32 output");
  check_gpu_schedule(both, "f16 4x32x32x64", 1);
  // Activations (2, 3, M, K) by weights (K, N): the longer batch loop on
  // blockIdx.z, the other serial in each block; the direct form (k of 32).
  const IRModule weights = test::narrow_batch_matmul({2, 3}, 32, 48, 32, "bfloat16", false);
  CHECK(report_of(auto_schedule(weights, cuda()), "C").note ==
        "tensor cores (bf16 mma 16x16x16, float32 accumulators): 1x1 tiles per warp, 1x1 warps "
        "per block, 2x3 blocks x 3 on blockIdx.z, 2 batches serial in each block over a 32x48 "
        "output (no shared-memory tiles: the reduction's 32 iterations are not several steps of "
        "32)");
  check_gpu_schedule(weights, "bf16 2x3x32x48x32", 1);
  // The same with k of 64: shared tiles of weights read by every batch.
  RuleContext few = cuda();
  few.gpu.fill_blocks = 1;
  const IRModule shared = test::narrow_batch_matmul({3, 2}, 64, 64, 64, "float16", false);
  CHECK_THAT(report_of(auto_schedule(shared, few), "C").note,
             Catch::Contains("shared-memory tiles of 64x32 and 32x64): 2x2 tiles per warp, 2x2 "
                             "warps per block, 1x1 blocks x 3 on blockIdx.z, 2 batches serial"));
  check_gpu_schedule(shared, "f16 3x2x64x64x64", 1, 0, few);
}

TEST_CASE("gpu rules: tensor cores with shared-memory tiles, several warps per block",
          "[rules][gpu]") {
  // Any number of blocks fills this model's GPU: 2x2 warps of 2x2 tiles
  // each, the block's accumulators one buffer that the warps share out.
  RuleContext few = cuda();
  few.gpu.fill_blocks = 1;
  for (const auto& [type, m, n, k] :
       {std::tuple{"float16", 128, 64, 96}, std::tuple{"bfloat16", 64, 128, 64}}) {
    const IRModule mm = narrow_matmul(m, n, k, type);
    const AutoScheduleResult r = auto_schedule(mm, few);
    INFO(r.schedule.trace().print());
    CHECK(report_of(r, "C").note.find("shared-memory tiles of 64x32 and 32x64): 2x2 tiles per "
                                      "warp, 2x2 warps per block") != std::string::npos);
    const std::string lowered = print_func(lower(r.schedule.mod().at("main"), LowerOptions{true}));
    INFO(lowered);
    // The block's tiles of A and B in shared memory (64x32 and 32x64, their
    // rows spaced by 8 more elements: 64x40 and 32x72; where B is 64 wide,
    // its copy's thread loop runs across its rows, which then stay dense);
    // the accumulators are left to the generator, which gives each warp its
    // 2x2 tiles (no fallback, below).
    for (const char* elements : {"2560", n == 64 ? "2048" : "2304"}) {
      INFO(elements);
      const std::string tile =
          std::string("T.allocate([") + elements + "], \"" + type + "\", \"shared\")";
      CHECK(lowered.find(tile) != std::string::npos);
    }
    check_gpu_schedule(mm, type, 2, 0, few);
  }
}

TEST_CASE("gpu rules: where tensor cores do not apply, CUDA-core tiles say why", "[rules][gpu]") {
  // Extents that are no multiple of 16.
  const BlockReport odd =
      report_of(auto_schedule(narrow_matmul(40, 40, 40, "float16"), cuda()), "C");
  CHECK(odd.rule == "gpu-tile-contraction");
  CHECK_THAT(odd.note, Catch::Contains("(no tensor cores: the extents are not multiples of 16)"));
  // B transposed (B[j, k]): the tensor intrinsic does not match.
  const IRModule bt = narrow_matmul(64, 64, 64, "float16", "64, 64", "vj, vk");
  const BlockReport t = report_of(auto_schedule(bt, cuda()), "C");
  CHECK(t.rule == "gpu-tile-contraction");
  CHECK_THAT(t.note, Catch::Contains("(no tensor cores: tensorize: block C_update_o does not "
                                     "match intrinsic mma_sync_16x16x16_f16_f32"));
  check_gpu_schedule(bt, "f16 B transposed");
  // An sm_70 GPU has float16 tensor cores but no bfloat16 ones.
  RuleContext volta = cuda();
  volta.cpu.target.gpu_sm = 70;
  CHECK(report_of(auto_schedule(narrow_matmul(64, 64, 64, "float16"), volta), "C")
            .note.rfind("tensor cores (f16", 0) == 0);
  CHECK_THAT(report_of(auto_schedule(narrow_matmul(64, 64, 64, "bfloat16"), volta), "C").note,
             Catch::Contains("(no tensor cores: sm_70 has no bfloat16 tensor cores (sm_80 and "
                             "later))"));
  // float32 operands: nothing said about tensor cores.
  std::string text = slurp(kSource + "/examples/matmul.tir");
  CHECK(report_of(auto_schedule(parse_module(text), cuda()), "C").note.find("tensor") ==
        std::string::npos);
}

}  // namespace
}  // namespace tirc

namespace tirc {
namespace {

TEST_CASE("gpu rules: an ONNX float16 MatMul sums in float32 on tensor cores", "[rules][gpu]") {
  // test/unit/cuda/matmul_f16.onnx: c[128, 64] = a[128, 96] @ b[96, 64], all float16.
  const IRModule m = import_onnx_module(kSource + "/test/unit/cuda/matmul_f16.onnx");
  const AutoScheduleResult r = auto_schedule(m, cuda());
  const BlockReport& mm = report_of(r, "matmul");
  CHECK(mm.rule == "gpu-tile-contraction");
  CHECK(mm.note ==
        "tensor cores (f16 mma 16x16x16, float32 accumulators, shared-memory tiles of 16x32 and "
        "32x16): 1x1 tiles per warp, 1x1 warps per block, 8x4 blocks over a 128x64 output");
  // The rounding to float16 is a kernel of its own.
  CHECK(report_of(r, "matmul_round").rule == "bind-gpu-threads");
  check_gpu_schedule(m, "onnx f16 matmul");
}

}  // namespace
}  // namespace tirc
