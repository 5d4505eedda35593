// The default schedules (tuner/auto_schedule.h) and random decisions inside
// the same rule space, on the example kernels: every result verifies, is
// equivalent to the plain nest in the race-checking interpreter, and compiles
// on every x86 target this CPU runs to code that equals the interpreter.
// TIRC_AUTO_RANDOM sets the random schedules per program (default 4).
#include <catch2/catch.hpp>
#include <cstdlib>

#include "codegen_test_util.h"
#include "env_int.h"
#include "ir/functor.h"
#include "ir/onnx/build_module.h"
#include "ir/onnx/op.h"
#include "ir/text/parser.h"
#include "ir/text/printer.h"
#include "ir/verify.h"
#include "rule_context_util.h"
#include "tuner/auto_schedule.h"

using namespace tirc;

namespace {

const char* kPrograms[] = {"matmul.tir",     "batch_matmul.tir", "elementwise_chain.tir",
                           "softmax.tir",    "layer_norm.tir",   "bias_add.tir",
                           "transpose.tir",  "sum_rows.tir",     "conv2d_nchw.tir",
                           "max_pool2d.tir", "gelu.tir",         "broadcast_add.tir"};

RuleContext context(Isa isa, Decisions decisions, int threads = 2) {
  return test::fixed_rules(isa, threads, decisions);
}

// The scheduled module verifies, equals the original (races checked) and
// compiles to code equal to the interpreter.
void check(const IRModule& original, const AutoScheduleResult& r, const std::string& what) {
  INFO(what << "\ntrace:\n" << r.schedule.trace().print());
  std::vector<Diagnostic> diags = verify(r.schedule.mod());
  for (const Diagnostic& d : diags) INFO(d.message);
  CHECK(diags.empty());
  for (const auto& [name, f] : original.functions()) {
    const PrimFunc& scheduled = r.schedule.mod().at(name);
    EquivResult eq = check_equivalent(f, scheduled, EquivOptions{});
    INFO(eq.message);
    CHECK(eq.equal);
    for (const Target& t : available_targets()) {
      GeneratorOptions gen;
      gen.target = t;
      // Within 1e-4: vectorized exp/erf are approximations with documented
      // bounds (codegen/x86/math.h), not the interpreter's libm.
      CodegenCheck c = compile_and_compare(f, scheduled, gen, 7, false);
      INFO(t.name() << ": " << c.message);
      CHECK(c.message.empty());
    }
  }
}

}  // namespace

TEST_CASE("default schedules of the example kernels are sound and compile", "[tuner][auto]") {
  for (const char* file : kPrograms) {
    IRModule m = parse_module(read_example(file), file);
    for (Isa isa : {Isa::avx512, Isa::avx2}) {
      AutoScheduleResult r = auto_schedule(m, context(isa, Decisions::Model));
      check(m, r, std::string(file) + " " + Target{isa}.name());
    }
  }
}

TEST_CASE("matmul gets the register-tiled contraction schedule", "[tuner][auto]") {
  IRModule m = parse_module(read_example("matmul.tir"), "matmul.tir");
  AutoScheduleResult r = auto_schedule(m, context(Isa::avx512, Decisions::Model));
  REQUIRE(r.blocks.size() == 1);
  CHECK(r.blocks[0].rule == "tile-contraction");
  const std::string trace = r.schedule.trace().print();
  CHECK(trace.find("sch.sample_perfect_tile(") != std::string::npos);
  CHECK(trace.find("sch.decompose_reduction(") != std::string::npos);
  CHECK(trace.find("sch.parallel(") != std::string::npos);
  // Deterministic: the same input and model give the same schedule.
  AutoScheduleResult again = auto_schedule(m, context(Isa::avx512, Decisions::Model));
  CHECK(again.schedule.trace().print() == trace);
  // The tiled nest goes through the contraction emitter.
  GeneratorOptions gen;
  gen.target = Target{Isa::avx512};
  GeneratorStats stats;
  generate_x86({{"k", lower(r.schedule.mod().at("main"))}}, gen, &stats);
  CHECK(stats.contraction_nests == 1);
}

TEST_CASE("pooling: max windows in registers, sum windows below the vector loop", "[tuner][auto]") {
  // Max pooling is a contraction with max(C, A) for the emitter's registers.
  const std::string max_pool = read_example("max_pool2d.tir");
  // A sum over the same window (not a product, so not a contraction): the
  // vector loop moves below the window, each lane summing its own element.
  std::string sum_pool = max_pool;
  const std::string from = "T.max(pool[vn, vc, vh, vw], A[vn, vc, vh * 2 + vrh, vw * 2 + vrw])";
  REQUIRE(sum_pool.find(from) != std::string::npos);
  sum_pool.replace(sum_pool.find(from), from.size(),
                   "pool[vn, vc, vh, vw] + A[vn, vc, vh * 2 + vrh, vw * 2 + vrw]");
  const std::string init = "T.float32(\"-inf\")";
  REQUIRE(sum_pool.find(init) != std::string::npos);
  sum_pool.replace(sum_pool.find(init), init.size(), "T.float32(0)");
  for (Isa isa : {Isa::avx512, Isa::avx2}) {
    for (const std::string* text : {&max_pool, static_cast<const std::string*>(&sum_pool)}) {
      const bool is_max = text == &max_pool;
      IRModule m = parse_module(*text, "pool.tir");
      AutoScheduleResult r = auto_schedule(m, context(isa, Decisions::Model));
      REQUIRE(r.blocks.size() == 1);
      INFO(r.blocks[0].note);
      if (is_max) {
        CHECK(r.blocks[0].rule == "tile-contraction");
      } else {
        CHECK(r.blocks[0].rule == "parallel-vectorize");
        CHECK(r.blocks[0].note.rfind("vector loop moved below the reduction loops", 0) == 0);
      }
      GeneratorOptions gen;
      gen.target = Target{isa};
      GeneratorStats stats;
      generate_x86({{"k", lower(r.schedule.mod().at("main"))}}, gen, &stats);
      CHECK(stats.contraction_nests == (is_max ? 1 : 0));
      // Max: the init (-inf) starts the accumulators; sum: the init and the update.
      CHECK(stats.vectorized_loops == (is_max ? 0 : 2));
      CHECK(stats.serial_fallbacks == 0);
      check(m, r, std::string(is_max ? "max" : "sum") + " pool " + Target{isa}.name());
    }
  }
}

TEST_CASE("global average pooling: the channel loop is vectorized past unit dimensions",
          "[tuner][auto]") {
  // [1, 40, 7, 7] -> [1, 40, 1, 1] as the ONNX frontend writes it: the
  // output's trailing unit dimensions do not move, so the sum's vector loop
  // is the channel loop (moved below the window) and the scaling's too.
  const std::string text =
      "@T.prim_func\n"
      "def main(A: T.Buffer((1, 40, 7, 7), \"float32\"), B: T.Buffer((1, 40, 1, 1), "
      "\"float32\")):\n"
      "    S = T.alloc_buffer((1, 40, 1, 1))\n"
      "    for i0, i1, i2, i3, r0, r1 in T.grid(1, 40, 1, 1, 7, 7):\n"
      "        with T.block(\"sum\"):\n"
      "            v0, v1, v2, v3, vr0, vr1 = T.axis.remap(\"SSSSRR\", [i0, i1, i2, i3, r0, r1])\n"
      "            with T.init():\n"
      "                S[v0, v1, v2, v3] = T.float32(0)\n"
      "            S[v0, v1, v2, v3] = S[v0, v1, v2, v3] + A[v0, v1, vr0, vr1]\n"
      "    for i0, i1, i2, i3 in T.grid(1, 40, 1, 1):\n"
      "        with T.block(\"mean\"):\n"
      "            v0, v1, v2, v3 = T.axis.remap(\"SSSS\", [i0, i1, i2, i3])\n"
      "            B[v0, v1, v2, v3] = S[v0, v1, v2, v3] / T.float32(49)\n";
  for (Isa isa : {Isa::avx512, Isa::avx2}) {
    IRModule m = parse_module(text, "gap.tir");
    AutoScheduleResult r = auto_schedule(m, context(isa, Decisions::Model));
    REQUIRE(r.blocks.size() == 2);
    for (const auto& b : r.blocks) {
      INFO(b.block << ": " << b.note);
      CHECK(b.rule == "parallel-vectorize");
      CHECK(b.note.find("vectorized innermost loop") != std::string::npos);
    }
    CHECK(r.blocks[0].note.rfind("vector loop moved below the reduction loops", 0) == 0);
    GeneratorOptions gen;
    gen.target = Target{isa};
    GeneratorStats stats;
    generate_x86({{"k", lower(r.schedule.mod().at("main"))}}, gen, &stats);
    CHECK(stats.vectorized_loops == 3);  // the init, the sum and the scaling
    CHECK(stats.serial_fallbacks == 0);
    check(m, r, std::string("global average pool ") + Target{isa}.name());
  }
}

TEST_CASE("a channels-last copy of few channels is vectorized along its contiguous read",
          "[tuner][auto]") {
  // [1, 3, 20, 20] -> padded [1, 22, 22, 3], as the first channels-last
  // convolution of a model pads its NCHW input: the write is contiguous
  // only along the 3 channels, the read along the 20 columns. AVX-512
  // vectorizes the columns (the store scattered); AVX2 has no scatter and
  // keeps the channel loop.
  const std::string text =
      "@T.prim_func\n"
      "def main(A: T.Buffer((1, 3, 20, 20), \"float32\"), B: T.Buffer((1, 22, 22, 3), "
      "\"float32\")):\n"
      "    for i0, i1, i2, i3 in T.grid(1, 22, 22, 3):\n"
      "        with T.block(\"pad\"):\n"
      "            v0, v1, v2, v3 = T.axis.remap(\"SSSS\", [i0, i1, i2, i3])\n"
      "            B[v0, v1, v2, v3] = T.if_then_else(1 <= v1 and v1 < 21 and 1 <= v2 and v2 < "
      "21, A[v0, v3, v1 - 1, v2 - 1], T.float32(0))\n";
  for (Isa isa : {Isa::avx512, Isa::avx2}) {
    IRModule m = parse_module(text, "pad.tir");
    AutoScheduleResult r = auto_schedule(m, context(isa, Decisions::Model));
    REQUIRE(r.blocks.size() == 1);
    INFO(r.blocks[0].note);
    CHECK(r.blocks[0].rule == "parallel-vectorize");
    const bool scattered =
        r.blocks[0].note.find("the read is contiguous along (scattered store)") !=
        std::string::npos;
    CHECK(scattered == (isa == Isa::avx512));
    // And the generator makes vector code of it (a scatter on AVX-512).
    GeneratorOptions gen;
    gen.target = Target{isa};
    GeneratorStats stats;
    generate_x86({{"k", lower(r.schedule.mod().at("main"))}}, gen, &stats);
    CHECK(stats.serial_fallbacks == 0);
    check(m, r, std::string("channels-last pad ") + Target{isa}.name());
  }
}

TEST_CASE("one thread: the epilogue still runs per outer block, on a block-sized intermediate",
          "[tuner][auto]") {
  // C = A * B then D = max(C, 0) with a batch of one, as the frontend writes
  // a 1x1 convolution over pixels: with one thread there is no parallel
  // loop, but the outer loop must still walk column blocks (not just the
  // batch), the epilogue is computed after each, and lowering allocates the
  // intermediate inside that loop.
  const std::string text =
      "@T.prim_func\n"
      "def main(A: T.Buffer((48, 32), \"float32\"), B: T.Buffer((1, 32, 256), \"float32\"), "
      "D: T.Buffer((1, 48, 256), \"float32\")):\n"
      "    C = T.alloc_buffer((1, 48, 256))\n"
      "    for n, i, j, k in T.grid(1, 48, 256, 32):\n"
      "        with T.block(\"C\"):\n"
      "            vn, vi, vj, vk = T.axis.remap(\"SSSR\", [n, i, j, k])\n"
      "            with T.init():\n"
      "                C[vn, vi, vj] = T.float32(0)\n"
      "            C[vn, vi, vj] = C[vn, vi, vj] + A[vi, vk] * B[vn, vk, vj]\n"
      "    for n, i, j in T.grid(1, 48, 256):\n"
      "        with T.block(\"D\"):\n"
      "            vn, vi, vj = T.axis.remap(\"SSS\", [n, i, j])\n"
      "            D[vn, vi, vj] = T.max(C[vn, vi, vj], T.float32(0))\n";
  for (Isa isa : {Isa::avx512, Isa::avx2}) {
    IRModule m = parse_module(text, "mm_relu.tir");
    AutoScheduleResult r = auto_schedule(m, context(isa, Decisions::Model, 1));
    REQUIRE(!r.blocks.empty());
    INFO(r.blocks[0].note);
    CHECK(r.blocks[0].rule == "tile-contraction");
    CHECK(r.blocks[0].note.find("parallel") == std::string::npos);
    CHECK(r.blocks[0].note.find("D computed after each outer iteration") != std::string::npos);
    PrimFunc lowered = lower(r.schedule.mod().at("main"));
    struct Finder : StmtVisitor {
      int in_loops = 0, loops = 0;
      void visit_for(const ForNode* n) override {
        ++loops;
        StmtVisitor::visit_for(n);
        --loops;
      }
      void visit_allocate(const AllocateNode* n) override {
        if (loops > 0) ++in_loops;
        StmtVisitor::visit_allocate(n);
      }
    } finder;
    finder.visit(lowered->body);
    CHECK(finder.in_loops == 1);
    check(m, r, std::string("matmul + relu, one thread, ") + Target{isa}.name());
  }
}

TEST_CASE("random decisions inside the rule space are sound and compile", "[tuner][auto][random]") {
  const int per_program = test::env_int("TIRC_AUTO_RANDOM", 4);
  for (const char* file : kPrograms) {
    IRModule m = parse_module(read_example(file), file);
    for (int s = 0; s < per_program; ++s) {
      RuleContext cx = context(s % 2 ? Isa::avx2 : Isa::avx512, Decisions::Random);
      // The schedule's generator draws the decisions: one seed per schedule.
      AutoScheduleResult r = auto_schedule(m, cx, {}, static_cast<uint64_t>(s + 1));
      check(m, r, std::string(file) + " seed " + std::to_string(s + 1));
    }
  }
}

namespace {

// The frontend's kernel for one Conv node (X and W parameters), as `tirc
// compile` builds it: a pad block when the windows reach outside X, then conv.
// The layout of the frontend's Conv: ONNX's NCHW, or the channels-last form
// of ir/onnx/layout.h with [kh, kw, C/g, M] or blocked [M/16, C, kh, kw, 16] weights.
enum class ConvLayout { Nchw, Nhwc, NhwcBlocked };

IRModule onnx_conv(int64_t c, int64_t m, int64_t size, int64_t kernel, int64_t stride, int64_t pad,
                   int64_t group, ConvLayout layout = ConvLayout::Nchw) {
  using namespace onnx;
  Graph g;
  g.name = "conv";
  g.opset = 17;
  const int64_t out = (size + 2 * pad - kernel) / stride + 1;
  auto tensor = [&](const std::string& name, Shape shape) {
    g.tensors[name] = TensorInfo{name, DataType::float32(), std::move(shape), true, nullptr};
  };
  const bool nhwc = layout != ConvLayout::Nchw;
  tensor("x", nhwc ? Shape{1, size, size, c} : Shape{1, c, size, size});
  tensor("w", layout == ConvLayout::Nchw   ? Shape{m, c / group, kernel, kernel}
              : layout == ConvLayout::Nhwc ? Shape{kernel, kernel, c / group, m}
                                           : Shape{m / 16, c / group, kernel, kernel, 16});
  tensor("y", nhwc ? Shape{1, out, out, m} : Shape{1, m, out, out});
  g.inputs = {"x", "w"};
  g.outputs = {"y"};
  Node n;
  n.name = "conv";
  n.op_type = "Conv";
  if (nhwc) n.domain = std::string(kChannelsLastDomain);
  n.inputs = {"x", "w"};
  n.outputs = {"y"};
  n.attrs["strides"] = std::vector<int64_t>{stride, stride};
  n.attrs["pads"] = std::vector<int64_t>{pad, pad, pad, pad};
  n.attrs["group"] = group;
  g.nodes.push_back(n);
  IRModule mod;
  mod.add("main", build_group_kernel(g, KernelGroup{{0}}, "main").func);
  return mod;
}

}  // namespace

TEST_CASE("ONNX convolutions get the register-tiled contraction schedule", "[tuner][auto][conv]") {
  struct Case {
    const char* what;
    int64_t c, m, size, kernel, stride, pad, group;
    const char* stage;  // the block before "conv" that the frontend writes, or ""
    const char* tile;   // the rule's note starts with this (avx512)
    ConvLayout layout = ConvLayout::Nchw;
  };
  // NCHW: rows of the register tile: output channels (grouped: within the
  // group); depthwise has none to share a vector load, so output rows.
  // Columns: the output row, or the flattened output pixels where rows are
  // narrow or the convolution is 1x1 (no copy for unit strides, an im2col
  // copy otherwise). Channels-last: rows along the output row, columns along
  // the channels (blocks of 16 with blocked weights), one vector load of the
  // channels per step for depthwise (both operands vectors); their pads are
  // inlined: the border tiles' guards resolve in the emitter, so no nest
  // with a guard is left to the general emitter.
  const Case cases[] = {
      {"3x3 padded", 8, 16, 18, 3, 1, 1, 1, "pad", "register tile 8x18"},
      {"3x3 stride 2", 8, 16, 34, 3, 2, 1, 1, "pad", "register tile 8x17"},
      {"3x3 narrow rows", 8, 16, 7, 3, 1, 1, 1, "im2col", "register tile 4x49"},
      {"1x1 no padding", 8, 16, 6, 1, 1, 0, 1, "", "register tile 8x36"},
      {"1x1 stride 2", 8, 16, 12, 1, 2, 0, 1, "im2col", "register tile 8x36"},
      {"grouped", 8, 16, 6, 3, 1, 1, 2, "pad", "register tile 8x6"},
      {"depthwise", 8, 8, 12, 3, 1, 1, 8, "pad", "register tile 12x12"},
      {"channels-last 3x3", 8, 16, 12, 3, 1, 1, 1, "pad", "register tile 12x16", ConvLayout::Nhwc},
      {"channels-last 3x3 blocked", 8, 32, 12, 3, 1, 1, 1, "pad", "register tile 12x32",
       ConvLayout::NhwcBlocked},
      {"channels-last 1x1 stride 2 blocked", 8, 32, 12, 1, 2, 0, 1, "", "register tile 6x32",
       ConvLayout::NhwcBlocked},
      {"channels-last depthwise", 32, 32, 12, 3, 1, 1, 32, "pad", "register tile 12x32",
       ConvLayout::Nhwc},
      {"channels-last depthwise stride 2", 48, 48, 14, 3, 2, 1, 48, "pad", "register tile 7x48",
       ConvLayout::Nhwc},
  };
  for (const Case& c : cases) {
    IRModule m = onnx_conv(c.c, c.m, c.size, c.kernel, c.stride, c.pad, c.group, c.layout);
    const std::string printed = print_module(m);
    const std::string what = std::string(c.what) + "\n" + printed;
    INFO(what);
    for (const char* stage : {"pad", "im2col"})
      CHECK((printed.find(std::string("\"") + stage + "\"") != std::string::npos) ==
            (std::string(c.stage) == stage));
    for (Isa isa : {Isa::avx512, Isa::avx2}) {
      AutoScheduleResult r = auto_schedule(m, context(isa, Decisions::Model));
      // Channels-last pads are inlined (their guards do not vary along the
      // channels, the vector loop; here every reduction is one block).
      const bool inlines_pad = c.layout != ConvLayout::Nchw && std::string(c.stage) == "pad";
      bool tiled = false;
      for (const auto& b : r.blocks) {
        INFO(b.block << ": " << b.rule << ": " << b.note);
        if (b.block == "pad") CHECK((b.rule == "inlined") == inlines_pad);
        if (b.block != "conv") continue;
        tiled = b.rule == "tile-contraction";
        if (isa == Isa::avx512) CHECK(b.note.rfind(c.tile, 0) == 0);
        CHECK((b.note.find("pad inlined") != std::string::npos) == inlines_pad);
      }
      CHECK(tiled);
      // The tiled nest goes through the contraction emitter, border parts too.
      GeneratorOptions gen;
      gen.target = Target{isa};
      GeneratorStats stats;
      generate_x86({{"k", lower(r.schedule.mod().at("main"))}}, gen, &stats);
      CHECK(stats.contraction_nests >= (inlines_pad ? 2 : 1));
      for (const std::string& why : stats.kernels.at(0).not_contraction)
        CHECK(why.find("guard") == std::string::npos);
      check(m, r, what + " " + Target{isa}.name());
    }
  }
}

TEST_CASE("random decisions on ONNX convolutions of every form are sound and compile",
          "[tuner][auto][conv][random]") {
  // Direct (padded, strided), over flattened pixels (1x1 view, strided 1x1
  // and narrow-row im2col, a 5x5 stride-2 window), grouped and depthwise;
  // each also channels-last, and channels-last with blocked weights.
  struct Conv {
    int64_t c, m, size, kernel, stride, pad, group;
  };
  const Conv convs[] = {{4, 8, 18, 3, 1, 1, 1}, {4, 8, 33, 3, 2, 1, 1}, {4, 8, 7, 3, 1, 1, 1},
                        {4, 8, 6, 1, 1, 0, 1},  {4, 8, 10, 1, 2, 0, 1}, {4, 6, 9, 5, 2, 2, 1},
                        {8, 8, 17, 3, 1, 1, 8}, {8, 8, 18, 3, 2, 1, 8}, {8, 8, 6, 3, 1, 1, 2}};
  const int per_conv = test::env_int("TIRC_AUTO_RANDOM", 4);
  std::vector<std::pair<Conv, ConvLayout>> all;
  for (const Conv& c : convs) {
    all.emplace_back(c, ConvLayout::Nchw);
    all.emplace_back(c, ConvLayout::Nhwc);
  }
  // Channels-last with blocked weights: 3x3 (strided too) and 1x1.
  for (const Conv& c :
       {Conv{4, 32, 9, 3, 1, 1, 1}, Conv{8, 16, 11, 3, 2, 1, 1}, Conv{8, 48, 6, 1, 1, 0, 1}})
    all.emplace_back(c, ConvLayout::NhwcBlocked);
  for (const auto& [c, layout] : all) {
    IRModule m = onnx_conv(c.c, c.m, c.size, c.kernel, c.stride, c.pad, c.group, layout);
    for (int s = 0; s < per_conv; ++s) {
      RuleContext cx = context(s % 2 ? Isa::avx2 : Isa::avx512, Decisions::Random);
      AutoScheduleResult r = auto_schedule(m, cx, {}, static_cast<uint64_t>(s + 1));
      check(m, r,
            "conv c=" + std::to_string(c.c) + " m=" + std::to_string(c.m) +
                " size=" + std::to_string(c.size) + " k=" + std::to_string(c.kernel) +
                " stride=" + std::to_string(c.stride) + " group=" + std::to_string(c.group) +
                " layout " + std::to_string(int(layout)) + " seed " + std::to_string(s + 1));
    }
  }
}
