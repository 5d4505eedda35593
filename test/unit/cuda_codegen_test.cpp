// The CUDA path of the LLVM generator (codegen/llvm/cuda.h): every example
// and example model scheduled by the rules' GPU target, and hand-written
// kernels with shared memory, barriers, 2-D launches and guards, compiled to
// PTX that ptxas accepts for sm_80 and sm_90, linked with a harness against
// the driver API, and run on a GPU where there is one, against the
// interpreter. Without a GPU the test says that the runs did not happen.
#include <catch2/catch.hpp>

#include <filesystem>
#include <tuple>

#include "codegen/llvm/cuda_cubin.h"
#include "codegen/llvm/cuda_run.h"
#include "codegen_test_util.h"
#include "cuda_test_util.h"
#include "eval_test_util.h"
#include "ir/eval/interpreter.h"
#include "ir/onnx/import.h"
#include "ir/onnx/model_pipeline.h"
#include "ir/text/parser.h"
#include "ir/text/printer.h"
#include "model_test_util.h"
#include "narrow_matmul_util.h"
#include "onnx_node_kernels.h"
#include "passes/pipeline.h"
#include "rule_context_util.h"
#include "skip.h"
#include "tuner/auto_schedule.h"

namespace tirc {
namespace {

namespace fs = std::filesystem;

const LowerOptions kGpu{true};

// Adds every kernel of `m` (after the GPU rules unless `scheduled`) as a case
// on random inputs, its expected outputs the interpreter's on the plain kernel.
void add_module_kernels(test::CudaBundle& bundle, const std::string& label, const IRModule& m,
                        bool scheduled = false) {
  IRModule s = m;
  bool reassociated = false;  // a reduction summed in another order (rfactor)
  if (!scheduled) {
    const AutoScheduleResult r = auto_schedule(m, test::fixed_rules(Isa::cuda, 1));
    s = r.schedule.mod();
    reassociated = r.schedule.trace().print().find("rfactor") != std::string::npos;
  }
  for (const auto& [name, f] : m.functions()) {
    if (is_entry(f) || needs_module(f)) continue;
    INFO(label << " / " << name);
    const PrimFunc lowered = lower(s.at(name), kGpu);
    std::vector<NDArray> inputs = random_inputs(f, 7);
    // Thread-bound loops run as concurrent in the checking interpreter.
    REQUIRE(test::race_on(lowered, inputs, RunOptions::checked(7)) == "");
    std::vector<NDArray> expected = inputs;
    std::vector<Argument> args;
    for (NDArray& a : expected) args.push_back({&a});
    run(f, args);
    const bool exact = !reassociated && !uses_approximate_math(print_func(f, name));
    CHECK(bundle.add(label + "/" + name, {{"main", lowered, name}}, &s, name, inputs, expected,
                     exact ? 0 : 1e-4) == "");
  }
}

// Links and runs the bundle: every case equal to the interpreter on a GPU,
// or a note that no GPU ran them.
void link_and_run(test::CudaBundle& bundle) {
  REQUIRE(bundle.link() == "");
  const test::CudaBundle::RunResult r = bundle.run();
  if (!r.not_run.empty()) {
    WARN("CUDA runs did not run (" << bundle.cases().size()
                                   << " cases compiled, checked by ptxas "
                                      "and linked): "
                                   << r.not_run);
    return;
  }
  WARN("CUDA runs on " << r.device << ": " << bundle.cases().size() << " cases");
  for (const auto& [name, why] : r.result) {
    INFO(name);
    CHECK(why == "");
  }
}

// test/unit/cuda/<name>.tir, parsed.
IRModule cuda_test_module(const std::string& name) {
  const fs::path p = fs::path(TIRC_SOURCE_DIR) / "test/unit/cuda" / (name + ".tir");
  std::ifstream in(p);
  std::stringstream text;
  text << in.rdbuf();
  return parse_module(text.str(), p.string());
}

#define REQUIRE_CUDA_TOOLKIT()                                      \
  if (std::string why = test::cuda_toolkit_missing(); !why.empty()) \
  TIRC_SKIP("CUDA checks did not run: " << why)

TEST_CASE("cuda: every example under the GPU rules", "[cuda]") {
  REQUIRE_CUDA_TOOLKIT();
  test::CudaBundle bundle("examples");
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(std::string(TIRC_SOURCE_DIR) + "/examples"))
    if (e.path().extension() == ".tir") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() > 20);
  for (const fs::path& p : files)
    add_module_kernels(bundle, p.stem().string(), parse_module(read_example(p.filename())));
  link_and_run(bundle);
}

TEST_CASE("cuda: hand-written kernels with shared memory, barriers and guards", "[cuda]") {
  REQUIRE_CUDA_TOOLKIT();
  test::CudaBundle bundle("kernels");
  for (const char* name : {"shared_matmul", "block_store", "tiled_matmul", "block_branch",
                           "warp_tree", "warp_tree_max", "tensor_core_f16", "tensor_core_bf16"}) {
    add_module_kernels(bundle, name, cuda_test_module(name), true);
  }
  link_and_run(bundle);
}

TEST_CASE("cuda: tensor-core matmuls under the GPU rules", "[cuda]") {
  REQUIRE_CUDA_TOOLKIT();
  test::CudaBundle bundle("tensor_cores");
  // Shared-memory tiles with 2x2 warps per block (any number of blocks
  // fills this model's GPU), then one warp per block, then the direct form
  // (k of 48).
  RuleContext few = test::fixed_rules(Isa::cuda, 1);
  few.gpu.fill_blocks = 1;
  for (const auto& [label, type, m, n, k, fill] :
       {std::tuple{"f16_shared_warps", "float16", 128, 64, 96, 1},
        std::tuple{"bf16_shared_warps", "bfloat16", 64, 128, 64, 1},
        std::tuple{"f16_shared", "float16", 64, 64, 64, 128},
        std::tuple{"bf16_direct", "bfloat16", 64, 32, 48, 128}}) {
    few.gpu.fill_blocks = fill;
    const AutoScheduleResult r = auto_schedule(test::narrow_matmul(m, n, k, type), few);
    REQUIRE(r.blocks.front().note.rfind("tensor cores", 0) == 0);
    add_module_kernels(bundle, label, r.schedule.mod(), true);
  }
  // Batch matmuls: a batch loop on blockIdx.z, another serial in each block.
  for (const auto& [label, batch, k, b_batched] :
       {std::tuple{"f16_batch_shared", std::vector<int64_t>{3, 2}, 64, false},
        std::tuple{"f16_batch_direct", std::vector<int64_t>{4}, 32, true}}) {
    few.gpu.fill_blocks = 1;
    const AutoScheduleResult r =
        auto_schedule(test::narrow_batch_matmul(batch, 64, 64, k, "float16", b_batched), few);
    REQUIRE(r.blocks.front().note.rfind("tensor cores", 0) == 0);
    add_module_kernels(bundle, label, r.schedule.mod(), true);
  }
  link_and_run(bundle);
}

TEST_CASE("cuda: reductions shared by a block's threads under the GPU rules", "[cuda]") {
  REQUIRE_CUDA_TOOLKIT();
  test::CudaBundle bundle("reductions");
  add_module_kernels(bundle, "row_reductions", cuda_test_module("row_reductions"));
  link_and_run(bundle);
}

TEST_CASE("cuda: reductions split in parts under the GPU rules", "[cuda]") {
  REQUIRE_CUDA_TOOLKIT();
  const IRModule m = cuda_test_module("split_reduction");
  const AutoScheduleResult r = auto_schedule(m, test::fixed_rules(Isa::cuda, 1));
  for (const char* block : {"C", "conv"}) {
    const auto b = std::find_if(r.blocks.begin(), r.blocks.end(),
                                [&](const BlockReport& x) { return x.block == block; });
    REQUIRE(b != r.blocks.end());
    INFO(b->note);
    CHECK(b->note.rfind("reduction split in", 0) == 0);
  }
  test::CudaBundle bundle("split_reduction");
  add_module_kernels(bundle, "split_reduction", m);
  link_and_run(bundle);
}

TEST_CASE("cuda: example models under the GPU rules against their references", "[cuda]") {
  REQUIRE_CUDA_TOOLKIT();
  test::CudaBundle bundle("models");
  for (const char* name : {"cnn", "mlp", "transformer_block", "mlp_external"}) {
    INFO(name);
    const std::string dir = std::string(TIRC_SOURCE_DIR) + "/examples/models/" + name;
    const IRModule m = import_onnx_module(dir + "/model.onnx");
    const IRModule scheduled = auto_schedule(m, test::fixed_rules(Isa::cuda, 1)).schedule.mod();
    const IRModule lowered = lower(scheduled, kGpu);
    const std::string entry = test::entry_name(m);
    std::vector<FunctionToCompile> functions;
    for (const auto& [fname, f] : lowered.functions())
      functions.push_back({fname == entry ? "main" : "k_" + fname, f, fname});
    std::vector<NDArray> args, expected;
    const std::string data = dir + "/test_data_set_0/";
    for (int i = 0; fs::exists(data + "input_" + std::to_string(i) + ".pb"); ++i) {
      args.push_back(onnx::read_tensor_proto_file(data + "input_" + std::to_string(i) + ".pb"));
      expected.push_back(NDArray());  // inputs are not compared
    }
    const size_t inputs = args.size();
    for (NDArray& out : entry_output_arrays(m.at(entry), inputs, entry))
      args.push_back(std::move(out));
    for (int i = 0; fs::exists(data + "output_" + std::to_string(i) + ".pb"); ++i)
      expected.push_back(
          onnx::read_tensor_proto_file(data + "output_" + std::to_string(i) + ".pb"));
    REQUIRE(expected.size() == args.size());
    CHECK(bundle.add(name, functions, &lowered, entry, args, expected, 1e-3) == "");
  }
  link_and_run(bundle);
}

}  // namespace
}  // namespace tirc

namespace tirc {
namespace {

TEST_CASE("cuda: the ONNX node-test kernels under the GPU rules", "[cuda][onnx-node]") {
  REQUIRE_CUDA_TOOLKIT();
  if (!fs::is_directory("/usr/include/onnx/backend/test/data/node"))
    TIRC_SKIP("ONNX backend test data is not installed");
  test::CudaBundle bundle("onnx_node");
  std::vector<test::NodeKernel> kernels = test::node_test_kernels();
  CHECK(kernels.size() > 500 / test::node_kernel_stride());
  // Many kernels to an object: ptxas and the generator run once per batch.
  constexpr size_t kBatch = 100;
  std::vector<std::string> problems;
  for (size_t first = 0; first < kernels.size(); first += kBatch) {
    const size_t last = std::min(kernels.size(), first + kBatch);
    std::vector<FunctionToCompile> functions;
    for (size_t i = first; i < last; ++i) {
      IRModule one;
      one.add("main", kernels[i].func);
      const IRModule s = auto_schedule(one, test::fixed_rules(Isa::cuda, 1)).schedule.mod();
      const PrimFunc lowered = lower(s.at("main"), kGpu);
      if (std::string race = test::race_on(lowered, kernels[i].inputs, RunOptions::checked(3));
          !race.empty())
        problems.push_back(kernels[i].what + ": race checker: " + race);
      functions.push_back({"kernel_" + std::to_string(i), lowered, ""});
    }
    size_t object = 0;
    if (std::string why = bundle.add_object(functions, nullptr, &object); !why.empty()) {
      problems.push_back("kernels " + kernels[first].what + " .. " + kernels[last - 1].what + ": " +
                         why);
      continue;
    }
    for (size_t i = first; i < last; ++i) {
      std::string name = kernels[i].what;
      std::replace(name.begin(), name.end(), ' ', '_');
      if (std::string why = bundle.add_case(name, object, "kernel_" + std::to_string(i),
                                            kernels[i].inputs, kernels[i].expected, 1e-4);
          !why.empty())
        problems.push_back(kernels[i].what + ": " + why);
    }
  }
  std::string all;
  for (const std::string& p : problems) all += "\n  " + p;
  INFO(problems.size() << " problems in " << kernels.size() << " kernels:" << all);
  CHECK(problems.empty());
  link_and_run(bundle);
}

TEST_CASE("cuda: a model run in process on the GPU, or a plain no-GPU error", "[cuda]") {
  // What `tirc run --target cuda` does: JIT-compiled host code, the driver
  // loaded at run time. No toolkit needed, so no skip.
  const std::string dir = std::string(TIRC_SOURCE_DIR) + "/examples/models/cnn";
  const IRModule m = import_onnx_module(dir + "/model.onnx");
  const IRModule lowered =
      lower(auto_schedule(m, test::fixed_rules(Isa::cuda, 1)).schedule.mod(), kGpu);
  const std::string entry = test::entry_name(m);
  std::vector<FunctionToCompile> functions;
  for (const auto& [name, f] : lowered.functions()) functions.push_back({"run_" + name, f, name});
  LlvmOptions options;
  options.target = parse_llvm_target("cuda");
  options.module = &lowered;
  std::vector<NDArray> args = {onnx::read_tensor_proto_file(dir + "/test_data_set_0/input_0.pb")};
  for (NDArray& out : entry_output_arrays(m.at(entry), 1, entry)) args.push_back(std::move(out));
  std::vector<NDArray*> arrays;
  for (NDArray& a : args) arrays.push_back(&a);
  if (const std::string why = cuda_unavailable(); !why.empty()) {
    WARN("no GPU here (" << why << "): checking the error only");
    CHECK_THROWS_WITH(CudaRun(functions, options, "run_" + entry, arrays),
                      Catch::Matchers::Contains("cannot run CUDA code: " + why));
    return;
  }
  CudaRun run(functions, options, "run_" + entry, arrays);
  WARN("running on " << run.device_name());
  run.call();
  run.call();  // the module and weights are loaded once
  run.copy_back();
  const NDArray want = onnx::read_tensor_proto_file(dir + "/test_data_set_0/output_0.pb");
  CHECK(test::compare_tensors(args[1], want) == "");
}

// The CUDA generator's error for a function (lowered with thread bindings), or "".
// The generator's error for a module (every function compiled), with its line.
std::string cuda_module_error(const std::string& text) {
  try {
    const IRModule m = parse_module(text, "bad.tir");
    LlvmOptions options;
    options.target = parse_llvm_target("cuda", "sm_90");
    options.module = &m;
    std::vector<FunctionToCompile> functions;
    for (const auto& [name, f] : m.functions()) functions.push_back({name, lower(f, kGpu), name});
    generate_llvm(functions, options, LlvmOutput::assembly);
  } catch (const Error& e) {
    return std::string(e.loc().line > 0 ? "line " + std::to_string(e.loc().line) + ": " : "") +
           e.what();
  }
  return "";
}

// The error for `def main(A, B, <params>):` with `body`.
std::string cuda_error(const std::string& body, const std::string& params = "") {
  return cuda_module_error(
      "@T.prim_func\ndef main(A: T.Buffer((64,), \"float32\"), B: T.Buffer((64,), "
      "\"float32\")" +
      params + "):\n" + body);
}

// A warp's 16x16 tensor-core step in a one-block kernel, with `prefix`
// lines before its body's operations and `ops` replacing them when given.
std::string tensor_core_error(const std::string& alloc = "256", const std::string& acc = "0",
                              const std::string& a_at = "0", const std::string& extra = "",
                              const std::string& wrap = "") {
  const std::string in = wrap.empty() ? "        " : "            ";
  return cuda_module_error(
      "@T.prim_func\ndef main(A: T.Buffer((512,), \"float16\"), B: T.Buffer((256,), "
      "\"float16\"), C: T.Buffer((256,), \"float32\")):\n"
      "    for b in T.thread_binding(1, thread=\"blockIdx.x\"):\n"
      "        Acc_data = T.allocate([" +
      alloc +
      "], \"float32\", \"wmma.accumulator\")\n"
      "        Acc = T.Buffer((" +
      alloc + ",), data=Acc_data, scope=\"wmma.accumulator\")\n" +
      (wrap.empty() ? "" : "        " + wrap + "\n") + in +
      "T.evaluate(T.mma_fill(T.address_of(Acc[" + acc + "]), 16, T.float32(0)))\n" + in +
      "T.evaluate(T.mma_sync(T.address_of(Acc[" + acc + "]), 16, T.address_of(A[" + a_at +
      "]), 16, T.address_of(B[0]), 16))\n" + in +
      "T.evaluate(T.mma_store(T.address_of(C[0]), 16, T.address_of(Acc[" + acc + "]), 16))\n" +
      extra);
}

TEST_CASE("cuda: tensor-core kernels the generator refuses, and why", "[cuda]") {
  using Catch::Matchers::Contains;
  CHECK(tensor_core_error() == "");
  CHECK_THAT(tensor_core_error("256", "0", "0", "",
                               "for x in T.thread_binding(32, thread=\"threadIdx.x\"):"),
             Contains("a warp matrix operation is inside a threadIdx.x loop"));
  CHECK_THAT(tensor_core_error("256", "0", "0",
                               "        for x in T.thread_binding(64, thread=\"threadIdx.x\"):\n"
                               "            C[x] = T.float32(0)\n"),
             Contains("need exactly 32 threads along threadIdx.x (one warp), but its threadIdx.x "
                      "loops launch 64"));
  CHECK_THAT(tensor_core_error("256", "0", "0", "        C[0] = Acc[3]\n"),
             Contains("(scope \"wmma.accumulator\") is read or written element by element"));
  CHECK_THAT(tensor_core_error("512", "8"),
             Contains("T.mma_fill: tile Acc_data[8] is not on the 16x16 grid of Acc_data (not "
                      "provable: 8 % 16 == 0)"));
  CHECK_THAT(tensor_core_error("512", "16"),
             Contains("T.mma_fill: tile Acc_data[16] is not on the 16x16 grid of Acc_data (not "
                      "provable: 16 // 16 % 16 == 0)"));
  CHECK(tensor_core_error("512", "256") == "");
  CHECK_THAT(tensor_core_error("256", "0", "8"),
             Contains("T.mma_sync: tile A[8] does not start at a multiple of 32 bytes"));
  CHECK_THAT(tensor_core_error("200"),
             Contains("accumulator Acc_data of 200 elements is not whole rows of 16x16 tiles of "
                      "row stride 16"));
  // An accumulator outside the warps' loops (threadIdx.y) is sliced by warp
  // (a shared-memory matmul's, alive across sibling nests): each warp's
  // tiles must be its own.
  auto sliced = [](const std::string& fill, const std::string& store, const std::string& ld) {
    return cuda_module_error(R"(@T.prim_func
def main(A: T.Buffer((256,), "float16"), C: T.Buffer((1024,), "float32")):
    for b in T.thread_binding(1, thread="blockIdx.x"):
        Acc_data = T.allocate([1024], "float32", "wmma.accumulator")
        Acc = T.Buffer((1024,), data=Acc_data, scope="wmma.accumulator")
        for y in T.thread_binding(2, thread="threadIdx.y"):
            T.evaluate(T.mma_fill(T.address_of(Acc[)" +
                             fill + R"(]), )" + ld + R"(, T.float32(0)))
        for y in T.thread_binding(2, thread="threadIdx.y"):
            T.evaluate(T.mma_store(T.address_of(C[y * 256]), 16, T.address_of(Acc[)" +
                             store + R"(]), )" + ld + R"())
)");
  };
  CHECK(sliced("y * 256", "y * 256", "16") == "");
  CHECK(sliced("y * 512", "y * 512 + 256", "16") == "");
  CHECK(sliced("y * 16", "y * 16", "32") == "");  // side by side in rows of 32
  const std::string apart =
      "accumulator Acc_data (scope \"wmma.accumulator\") is outside threadIdx.y/z loops that "
      "index it, and the generator cannot give each warp its own part: ";
  CHECK_THAT(sliced("y * 256", "(1 - y) * 256", "16"),
             Contains(apart + "index 256 - y * 256 has a negative coefficient"));
  CHECK_THAT(sliced("y * 256", "0", "16"),
             Contains(apart + "index 0 is the same for every thread along threadIdx.y"));
  // Two tiles per warp, the second warp's first the first warp's second.
  CHECK_THAT(cuda_module_error(R"(@T.prim_func
def main(A: T.Buffer((256,), "float16"), C: T.Buffer((1024,), "float32")):
    for b in T.thread_binding(1, thread="blockIdx.x"):
        Acc_data = T.allocate([1024], "float32", "wmma.accumulator")
        Acc = T.Buffer((1024,), data=Acc_data, scope="wmma.accumulator")
        for y in T.thread_binding(2, thread="threadIdx.y"):
            for t in range(2):
                T.evaluate(T.mma_fill(T.address_of(Acc[y * 256 + t * 256]), 16, T.float32(0)))
        for y in T.thread_binding(2, thread="threadIdx.y"):
            T.evaluate(T.mma_store(T.address_of(C[y * 256]), 16, T.address_of(Acc[y * 256]), 16))
)"),
             Contains(apart + "index y * 256 + t * 256 does not keep the threads along "
                              "threadIdx.y apart"));
  // An accumulator outside its kernels, used by two of them, is no warp's.
  CHECK_THAT(cuda_module_error(R"(@T.prim_func
def main(A: T.Buffer((256,), "float16"), C: T.Buffer((256,), "float32")):
    Acc_data = T.allocate([256], "float32", "wmma.accumulator")
    Acc = T.Buffer((256,), data=Acc_data, scope="wmma.accumulator")
    for b in T.thread_binding(1, thread="blockIdx.x"):
        T.evaluate(T.mma_fill(T.address_of(Acc[0]), 16, T.float32(0)))
    for b in T.thread_binding(1, thread="blockIdx.x"):
        T.evaluate(T.mma_store(T.address_of(C[0]), 16, T.address_of(Acc[0]), 16))
)"),
             Contains("accumulator Acc_data (scope \"wmma.accumulator\") is outside every kernel "
                      "and cannot be moved into one warp's iteration"));
}

TEST_CASE("cuda: kernels the generator refuses, and why", "[cuda]") {
  using Catch::Matchers::Contains;
  CHECK_THAT(cuda_error("    for t in T.thread_binding(2048, thread=\"threadIdx.x\"):\n"
                        "        B[t % 64] = A[t % 64]\n"),
             Contains("line 3: ") && Contains("threadIdx.x extent 2048 is over the device "
                                              "limit of 1024"));
  CHECK_THAT(cuda_error("    for y in T.thread_binding(64, thread=\"threadIdx.y\"):\n"
                        "        for x in T.thread_binding(32, thread=\"threadIdx.x\"):\n"
                        "            B[y] = A[x]\n"),
             Contains("threads per block (2048) are over the device limit of 1024"));
  CHECK_THAT(cuda_error("    for b in T.thread_binding(2, thread=\"blockIdx.x\"):\n"
                        "        S_data = T.allocate([16384], \"float32\", \"shared\")\n"
                        "        S = T.Buffer((16384,), data=S_data, scope=\"shared\")\n"
                        "        for t in T.thread_binding(32, thread=\"threadIdx.x\"):\n"
                        "            S[t] = A[t]\n"
                        "            B[t] = S[t]\n"),
             Contains("shared memory over the limit: allocation S_data brings the kernel to "
                      "65536 bytes (at most 49152)"));
  CHECK_THAT(cuda_error("    for y in T.thread_binding(4, thread=\"threadIdx.y\"):\n"
                        "        for k in range(y):\n"
                        "            for x in T.thread_binding(16, thread=\"threadIdx.x\"):\n"
                        "                B[y * 16 + x] = A[k * 16 + x]\n"),
             Contains("line 4: ") &&
                 Contains("the range of loop k depends on a thread's index or on a value one "
                          "thread computed, and it encloses threadIdx loops"));
  CHECK_THAT(cuda_error("    for x in T.thread_binding(16, thread=\"threadIdx.x\"):\n"
                        "        if A[x] > T.float32(0):\n"
                        "            for y in T.thread_binding(4, thread=\"threadIdx.y\"):\n"
                        "                B[y * 16 + x] = A[x]\n"),
             Contains("the condition of an if depends on a thread's index"));
  CHECK_THAT(cuda_error("    for x in T.thread_binding(8, thread=\"threadIdx.x\"):\n"
                        "        for x2 in T.thread_binding(8, thread=\"threadIdx.x\"):\n"
                        "            B[x * 8 + x2] = A[x * 8 + x2]\n"),
             Contains("loop x2 (threadIdx.x) is inside another loop bound to threadIdx.x"));
  // Threads that share data need a barrier every thread reaches: not inside
  // a loop shorter than the launch.
  CHECK_THAT(cuda_error("    for b in T.thread_binding(1, thread=\"blockIdx.x\"):\n"
                        "        for y in T.thread_binding(2, thread=\"threadIdx.y\"):\n"
                        "            for x in T.thread_binding(16, thread=\"threadIdx.x\"):\n"
                        "                B[y * 16 + x] = A[y * 16 + x]\n"
                        "            for x in T.thread_binding(16, thread=\"threadIdx.x\"):\n"
                        "                A[y * 16 + x] = B[y * 16 + (x + 1) % 16]\n"
                        "        for y in T.thread_binding(4, thread=\"threadIdx.y\"):\n"
                        "            for x in T.thread_binding(16, thread=\"threadIdx.x\"):\n"
                        "                B[y * 16 + x] = T.float32(0)\n"),
             Contains("threads of loop y (threadIdx.y) share data through memory with a "
                      "barrier, but the loop is shorter than the launch"));
  CHECK_THAT(cuda_error("    for t in T.thread_binding(8, thread=\"threadIdx.x\"):\n"
                        "        for b in T.thread_binding(8, thread=\"blockIdx.x\"):\n"
                        "            B[b * 8 + t] = A[b * 8 + t]\n"),
             Contains("loop b (blockIdx.x) is not at the top of its kernel"));
  CHECK_THAT(cuda_error("    for v in T.thread_binding(4, thread=\"vthread.x\"):\n"
                        "        B[v] = A[v]\n"),
             Contains("is bound to \"vthread.x\", which CUDA kernels do not have"));
  const std::string partly_inside =
      "    for y in T.thread_binding(4, thread=\"threadIdx.y\"):\n"
      "        P_data = T.allocate([4], \"float32\", \"shared\")\n"
      "        P = T.Buffer((4,), data=P_data, scope=\"shared\")\n"
      "        for x in T.thread_binding(4, thread=\"threadIdx.x\"):\n"
      "            P[x] = A[y * 4 + x]\n"
      "            B[y * 4 + x] = P[x]\n";
  CHECK_THAT(cuda_error(partly_inside),
             Contains("allocation P_data (scope \"shared\") is inside some threadIdx loops of "
                      "its kernel but not all"));
  // In scope "local" each thread has its part (here one element).
  std::string local_scope = partly_inside;
  for (size_t at = 0; (at = local_scope.find("shared", at)) != std::string::npos; at += 5)
    local_scope.replace(at, 6, "local");
  CHECK(cuda_error(local_scope) == "");
  // A local buffer outside threadIdx loops: refused where threads would share
  // an element.
  auto local = [&](const std::string& index, const std::string& read = "x * 4 + j") {
    return cuda_error(
        "    for b in T.thread_binding(1, thread=\"blockIdx.x\"):\n"
        "        P_data = T.allocate([64], \"float32\", \"local\")\n"
        "        P = T.Buffer((64,), data=P_data, scope=\"local\")\n"
        "        for x in T.thread_binding(16, thread=\"threadIdx.x\"):\n"
        "            for j in range(4):\n"
        "                P[" +
        index +
        "] = A[x * 4 + j]\n"
        "        for x in T.thread_binding(16, thread=\"threadIdx.x\"):\n"
        "            for j in range(4):\n"
        "                B[x * 4 + j] = P[" +
        read + "]\n");
  };
  CHECK(local("x * 4 + j") == "");
  CHECK(local("j * 16 + x", "j * 16 + x") == "");
  CHECK_THAT(local("j"), Contains("line 7: ") &&
                             Contains("local allocation P_data is outside threadIdx loops that "
                                      "index it, and the generator cannot give each thread its "
                                      "own part: index j is the same for every thread along "
                                      "threadIdx.x"));
  CHECK_THAT(local("x * 2 + j"),
             Contains("index x * 2 + j does not keep the threads along threadIdx.x apart"));
  CHECK_THAT(local("x * 8 + j"), Contains("two accesses step by 8 and 4 along threadIdx.x"));
  CHECK_THAT(local("x * x + j"), Contains("is not affine in its loops"));
  CHECK_THAT(cuda_error("    n: T.int32 = T.Cast(\"int32\", A[0])\n"
                        "    for t in T.thread_binding(64, thread=\"threadIdx.x\"):\n"
                        "        B[t] = A[t] + T.Cast(\"float32\", n)\n"),
             Contains("is read on the host"));
  CHECK_THAT(cuda_error("    for b in T.thread_binding(70000, thread=\"blockIdx.y\"):\n"
                        "        B[b % 64] = A[b % 64]\n"),
             Contains("line 3: ") &&
                 Contains("blockIdx.y extent 70000 is over the device limit of 65535"));
  CHECK_THAT(cuda_error("    for z in T.thread_binding(128, thread=\"threadIdx.z\"):\n"
                        "        B[z % 64] = A[z % 64]\n"),
             Contains("threadIdx.z extent 128 is over the device limit of 64"));
  CHECK_THAT(cuda_error("    for b in T.thread_binding(1, thread=\"blockIdx.x\"):\n"
                        "        for t in T.thread_binding(n, thread=\"threadIdx.x\"):\n"
                        "            B[t] = A[t]\n"
                        "        for t in T.thread_binding(32, thread=\"threadIdx.x\"):\n"
                        "            B[t] = A[t] + T.float32(1)\n",
                        ", n: T.int32"),
             Contains("loops bound to threadIdx.x have different extents, one of them (n) not "
                      "constant"));
  CHECK_THAT(cuda_error("    for b in T.thread_binding(4, thread=\"blockIdx.x\"):\n"
                        "        for t in T.thread_binding(b + 1, thread=\"threadIdx.x\"):\n"
                        "            B[b * 16 + t] = A[b * 16 + t]\n"),
             Contains("line 4: ") && Contains("the range of loop t (threadIdx.x) depends on a "
                                              "variable bound inside its kernel"));
  CHECK_THAT(cuda_error("    for t in T.thread_binding(32, thread=\"threadIdx.x\"):\n"
                        "        P_data = T.allocate([8192], \"float32\", \"local\")\n"
                        "        P = T.Buffer((8192,), data=P_data, scope=\"local\")\n"
                        "        P[t] = A[t]\n"
                        "        B[t] = P[t]\n"),
             Contains("allocation P_data of 32768 bytes per thread is over the limit of 16384 "
                      "(local memory)"));
  CHECK_THAT(cuda_module_error("@I.ir_module\nclass Module:\n"
                               "    @T.prim_func\n"
                               "    def copy(A: T.Buffer((4,), \"float32\"), B: T.Buffer((4,), "
                               "\"float32\")):\n"
                               "        for i in range(4):\n"
                               "            B[i] = A[i]\n"
                               "    @T.prim_func\n"
                               "    def main(A: T.Buffer((4,), \"float32\"), B: T.Buffer((4,), "
                               "\"float32\")):\n"
                               "        for t in T.thread_binding(1, thread=\"threadIdx.x\"):\n"
                               "            T.call_kernel(\"copy\", A.data, B.data)\n"),
             Contains("line 10: ") && Contains("T.call_kernel inside a kernel"));
  {
    // The model's weights reach the device once, through the host: a kernel
    // cannot bind one.
    IRModule m;
    Buffer out = make_buffer("B", DataType::float32(), {make_int(4)});
    Buffer w = make_buffer("W", DataType::float32(), {make_int(4)});
    Var t = make_var("t");
    Stmt body = make_for(t, make_int(0), make_int(4), ForKind::ThreadBinding,
                         Stmt(std::make_shared<AllocateConstNode>(
                             w->data, DataType::float32(), std::vector<Expr>{make_int(4)}, "w",
                             make_store(out, make_load(w, {t}), {t}))),
                         "threadIdx.x");
    LlvmOptions options;
    options.target = parse_llvm_target("cuda", "sm_90");
    options.module = &m;
    CHECK_THROWS_WITH(generate_llvm({{"f", make_prim_func({{out->data, out}}, body), "main"}},
                                    options, LlvmOutput::assembly),
                      Contains("a constant is bound inside a kernel"));
  }
  CHECK_THAT(cuda_error("    S_data = T.allocate([64], \"float32\", \"shared\")\n"
                        "    S = T.Buffer((64,), data=S_data, scope=\"shared\")\n"
                        "    for t in T.thread_binding(64, thread=\"threadIdx.x\"):\n"
                        "        S[t] = A[t]\n"
                        "    for t in T.thread_binding(64, thread=\"threadIdx.x\"):\n"
                        "        B[t] = S[63 - t]\n"),
             Contains("line 3: ") &&
                 Contains("allocation S_data in scope \"shared\" is outside every kernel"));
  // A statement with no thread-bound loop runs on one thread: slow, but right.
  CHECK(cuda_error("    for i in range(64):\n        B[i] = A[i]\n") == "");
}

}  // namespace
}  // namespace tirc

namespace tirc {
namespace {

TEST_CASE("cuda: objects carry a cubin beside the PTX where tirc was built with ptxas", "[cuda]") {
  std::ifstream in(std::string(TIRC_SOURCE_DIR) + "/examples/relu.tir");
  std::stringstream text;
  text << in.rdbuf();
  const IRModule m = parse_module(text.str(), "relu.tir");
  const IRModule s = auto_schedule(m, test::fixed_rules(Isa::cuda, 1)).schedule.mod();
  LlvmOptions options;
  options.target = parse_llvm_target("cuda", "sm_90");
  LlvmStats stats;
  const std::string object = generate_llvm({{"relu_main", lower(s.at("main"), kGpu), "main"}},
                                           options, LlvmOutput::object, &stats);
  size_t elf_images = 0;
  for (size_t at = 0; (at = object.find("\x7f"
                                        "ELF",
                                        at)) != std::string::npos;
       ++at)
    ++elf_images;
  if (ptxas_path().empty() || fatbinary_path().empty()) {
    CHECK(stats.cuda_binary.rfind("PTX only (tirc was built without the CUDA toolkit's ", 0) == 0);
    CHECK(elf_images == 1);
    return;
  }
  INFO(stats.cuda_binary);
  CHECK(stats.cuda_binary.rfind("PTX and a cubin for sm_90 in a fat binary (", 0) == 0);
  CHECK(elf_images == 2);  // the object, and the cubin inside the fat binary
  // The fat binary's magic (0xba55ed50, little-endian) and its PTX.
  CHECK(object.find("\x50\xed\x55\xba") != std::string::npos);
  CHECK(object.find(".visible .entry") != std::string::npos);  // the PTX beside it
  // Without: the PTX alone.
  options.cuda_cubin = false;
  generate_llvm({{"relu_main", lower(s.at("main"), kGpu), "main"}}, options, LlvmOutput::object,
                &stats);
  CHECK(stats.cuda_binary == "PTX only (not asked for)");
  // ptxas's complaint comes back as the reason.
  std::string why;
  CHECK(!assemble_cubin("this is not PTX\n", "sm_90", &why));
  CHECK(why.rfind("ptxas failed: ", 0) == 0);
}

}  // namespace
}  // namespace tirc
