// The contraction emitter (codegen/x86/contraction_emit.h), run through a
// test-only EmitContext: a function f(A, B, C) whose body is one nest, run
// from xbyak's own executable memory and compared bit for bit with the
// interpreter on small-integer inputs.
#include <catch2/catch.hpp>

#include <cstring>

#include "codegen/x86/contraction_emit.h"
#include "codegen/x86/contraction_plan.h"
#include "contraction_test_util.h"
#include "ir/eval/interpreter.h"

namespace tirc::test {
namespace {

using namespace Xbyak::util;

// Parameters A, B, C arrive in rdi, rsi, rdx; every other GPR but rsp is
// scratch (the callee-saved ones are saved by the prologue).
class TestEmitContext : public EmitContext {
 public:
  TestEmitContext(Target target, const PrimFunc& f, int gprs, int vregs)
      : code_(1 << 20), target_(target), gpr_count_(gprs), vreg_count_(vregs) {
    for (int i = 0; i < 3; ++i) data_.push_back(f->params[i].buffer->data);
  }
  Xbyak::CodeGenerator& code() override { return code_; }
  const Target& target() const override { return target_; }
  ConstantPool& constants() override { return pool_; }
  std::vector<Xbyak::Reg64> scratch_gprs() override {
    std::vector<Xbyak::Reg64> all = {rax, rcx, r8, r9, r10, r11, rbx, rbp, r12, r13, r14, r15};
    all.resize(gpr_count_);
    return all;
  }
  std::vector<int> scratch_vector_registers() override {
    std::vector<int> v;
    for (int i = 0; i < vreg_count_; ++i) v.push_back(i);
    return v;
  }
  void eval_int(const Expr& e, const Xbyak::Reg64& dst) override {
    auto c = as_const_int(e);
    if (!c) throw Error("test context evaluates constants only");
    code_.mov(dst, *c);
  }
  void load_address(const Var& data, const Xbyak::Reg64& dst) override {
    if (data == data_[0])
      code_.mov(dst, rdi);
    else if (data == data_[1])
      code_.mov(dst, rsi);
    else if (data == data_[2])
      code_.mov(dst, rdx);
    else
      throw Error("test context: unknown storage");
  }

 private:
  Xbyak::CodeGenerator code_;
  Target target_;
  ConstantPool pool_;
  int gpr_count_, vreg_count_;
  std::vector<Var> data_;
};

using KernelFn = void (*)(float*, float*, float*);

struct Options {
  int gprs = 12;
  int vregs = 0;  // 0: all of the target's
};

// Emits f's nest; false when the emitter refused it.
bool emit_function(TestEmitContext& ctx, const PrimFunc& f) {
  auto& c = ctx.code();
  const Xbyak::Reg64 saved[] = {rbx, rbp, r12, r13, r14, r15};
  for (const auto& r : saved) c.push(r);
  bool ok = try_emit_contraction(ctx, root_for(f));
  c.vzeroupper();
  for (int i = 5; i >= 0; --i) c.pop(saved[i]);
  c.ret();
  ctx.constants().emit(c);
  c.ready();
  return ok;
}

// Runs the emitted kernel and the interpreter on the same inputs.
void check_against_interpreter(const std::string& text, const Target& target, Options opt = {}) {
  INFO(text);
  INFO(target.name());
  PrimFunc f = parse_single(text);
  TestEmitContext ctx(target, f, opt.gprs, opt.vregs ? opt.vregs : target.vector_registers());
  REQUIRE(emit_function(ctx, f));
  auto fn = ctx.code().getCode<KernelFn>();
  for (uint64_t seed = 1; seed <= 2; ++seed) {
    std::vector<NDArray> expected = random_inputs(f, seed, true);
    std::vector<NDArray> actual = expected;
    std::vector<Argument> args;
    for (auto& a : expected) args.push_back(Argument{&a});
    // Checking mode: the reference run also proves the program race-free.
    run(f, args, RunOptions::checked(seed));
    fn(reinterpret_cast<float*>(actual[0].data()), reinterpret_cast<float*>(actual[1].data()),
       reinterpret_cast<float*>(actual[2].data()));
    for (int i = 0; i < 3; ++i) {
      INFO("buffer " << i << " seed " << seed);
      if (!expected[i].bitwise_equal(actual[i])) {
        int64_t n = expected[i].num_elements();
        for (int64_t e = 0; e < n; ++e)
          if (expected[i].get_float(e) != actual[i].get_float(e)) {
            FAIL("element " << e << ": expected " << expected[i].get_float(e) << ", got "
                            << actual[i].get_float(e));
          }
      }
    }
  }
}

void check_both_isas(const std::string& text, Options opt = {}) {
  for (Isa isa : {Isa::avx512, Isa::avx2}) {
    Target t{isa};
    if (!host_supports(t)) continue;
    check_against_interpreter(text, t, opt);
  }
}

}  // namespace

TEST_CASE("contraction emit: plain and tiled matmuls", "[contraction]") {
  std::vector<MatmulSpec> specs = {
      {.m = 64, .n = 64, .k = 64, .ti = 0, .order = {"i1", "j1", "k1"}},
      {.m = 16, .n = 16, .k = 16, .ti = 0, .order = {"i1", "j1", "k1"}},
      {.m = 96, .n = 64, .k = 128, .ti = 6, .tj = 32, .order = {"i0", "j0", "k1", "i1", "j1"}},
      {.m = 96, .n = 256, .k = 64, .ti = 6, .tj = 32, .order = {"i0", "j0", "k1", "i1", "j1"}},
      {.m = 32, .n = 96, .k = 40, .ti = 4, .tj = 48, .order = {"j0", "i0", "k1", "i1", "j1"}},
      {.m = 24,
       .n = 64,
       .k = 64,
       .ti = 8,
       .tj = 16,
       .tk = 8,
       .order = {"i0", "j0", "k0", "i1", "k1", "j1"}},
      {.m = 16,
       .n = 32,
       .k = 48,
       .ti = 4,
       .tj = 16,
       .tk = 16,
       .order = {"k0", "i0", "j0", "k1", "i1", "j1"}},
      {.m = 32, .n = 32, .k = 32, .ti = 0, .order = {"k1", "i1", "j1"}},
      {.m = 16, .n = 16, .k = 16, .ti = 0, .order = {"k1", "i1", "j1"}},
      {.m = 8, .n = 64, .k = 300, .ti = 0, .order = {"i1", "j1", "k1"}},
  };
  for (const auto& s : specs) check_both_isas(matmul_text(s));
}

TEST_CASE("contraction emit: odd sizes and masked tails", "[contraction]") {
  std::vector<MatmulSpec> specs = {
      {.m = 17, .n = 33, .k = 65, .ti = 0, .order = {"i1", "j1", "k1"}},
      {.m = 5, .n = 7, .k = 3, .ti = 0, .order = {"i1", "j1", "k1"}},
      {.m = 9, .n = 21, .k = 11, .ti = 0, .order = {"i1", "k1", "j1"}},
      {.m = 18, .n = 20, .k = 13, .ti = 6, .tj = 20, .order = {"i0", "k1", "i1", "j1"}},
      {.m = 3, .n = 2, .k = 5, .ti = 0, .order = {"i1", "j1", "k1"}},
  };
  for (const auto& s : specs) check_both_isas(matmul_text(s));
}

TEST_CASE("contraction emit: transposed A, swapped operands, batch matmul", "[contraction]") {
  check_both_isas(matmul_text(
      {.m = 16, .n = 16, .k = 16, .ti = 0, .order = {"i1", "k1", "j1"}, .a_transposed = true}));
  check_both_isas(matmul_text(
      {.m = 24, .n = 40, .k = 8, .ti = 0, .order = {"i1", "j1", "k1"}, .a_transposed = true}));
  check_both_isas(nest_text(16 * 16, 16 * 16, 16 * 16, {{"i", 16}, {"j", 16}, {"k", 16}},
                            "C[i * 16 + j] = A[k * 16 + j] * B[i * 16 + k] + C[i * 16 + j]"));
  check_both_isas(
      nest_text(4 * 8 * 8, 4 * 8 * 32, 4 * 8 * 32, {{"b", 4}, {"i", 8}, {"j", 32}, {"k", 8}},
                update_stmt("b * 256 + i * 32 + j", "b * 64 + i * 8 + k", "b * 256 + k * 32 + j")));
}

TEST_CASE("contraction emit: conv2d as a contraction", "[contraction]") {
  // NCHW: out[oc, oh, ow] += in[ic, oh + kh, ow + kw] * w[oc, ic, kh, kw]
  check_both_isas(
      nest_text(3 * 10 * 10, 4 * 3 * 3 * 3, 4 * 8 * 8,
                {{"oc", 4}, {"oh", 8}, {"ic", 3}, {"kh", 3}, {"kw", 3}, {"ow", 8, "T.vectorized"}},
                update_stmt("oc * 64 + oh * 8 + ow", "ic * 100 + (oh + kh) * 10 + ow + kw",
                            "oc * 27 + ic * 9 + kh * 3 + kw")));
  // NHWC: out[oh, ow, oc] += in[oh + kh, ow + kw, ic] * w[kh, kw, ic, oc]
  check_both_isas(
      nest_text(6 * 6 * 5, 3 * 3 * 5 * 24, 4 * 4 * 24,
                {{"oh", 4}, {"ow", 4}, {"kh", 3}, {"kw", 3}, {"ic", 5}, {"oc", 24}},
                update_stmt("oh * 96 + ow * 24 + oc", "(oh + kh) * 30 + (ow + kw) * 5 + ic",
                            "kh * 360 + kw * 120 + ic * 24 + oc")));
}

TEST_CASE("contraction emit: stride-2 conv2d (permuted vector operand)", "[contraction]") {
  // out[oc, oh, ow] += in[ic, 2 oh + kh, 2 ow + kw] * w[oc, ic, kh, kw]; the
  // input rows are exactly as wide as the last window needs, so a load past
  // the nest's elements would show in the results of the next row. ow covers
  // full vectors, masked last vectors that need only the low load (<= 8
  // lanes) and both loads, on each ISA.
  for (int64_t ow : {3, 7, 8, 13, 16, 20, 35}) {
    const int64_t oh = 3, kh = 3, kw = 3, ic = 2, oc = 4;
    const int64_t h = 2 * oh + kh - 2, w = 2 * ow + kw - 2;
    const std::string in = "ic * " + std::to_string(h * w) + " + (oh * 2 + kh) * " +
                           std::to_string(w) + " + ow * 2 + kw";
    const std::string out =
        "oc * " + std::to_string(oh * ow) + " + oh * " + std::to_string(ow) + " + ow";
    check_both_isas(
        nest_text(ic * h * w, oc * ic * kh * kw, oc * oh * ow,
                  {{"oc", oc}, {"oh", oh}, {"ic", ic}, {"kh", kh}, {"kw", kw}, {"ow", ow}},
                  update_stmt(out, in, "oc * 18 + ic * 9 + kh * 3 + kw")));
    // Fewer registers: the operand schemes that load vectors into rotating
    // registers (35 columns need more accumulators than AVX2 has left then).
    if (ow < 35)
      check_both_isas(
          nest_text(ic * h * w, oc * ic * kh * kw, oc * oh * ow,
                    {{"oh", oh}, {"ic", ic}, {"kh", kh}, {"kw", kw}, {"oc", oc}, {"ow", ow}},
                    update_stmt(out, in, "oc * 18 + ic * 9 + kh * 3 + kw")),
          Options{.vregs = 12});
  }
}

TEST_CASE("contraction emit: depthwise windows share row loads across steps", "[contraction]") {
  // out[oh, ow] += in[oh + kh, ow + kw] * w[kh, kw] for one channel, output
  // rows in the tile: the steps' vector operands overlap (row oh + kh serves
  // rows oh..oh+k-1), so they are grouped by operand. 3x3 keeps the weights
  // in registers; 5x5 has more weights than free registers (broadcast from
  // memory or through a temporary).
  for (int64_t k : {3, 5})
    for (int64_t ow : {13, 32}) {
      const int64_t oh = 6, w = ow + k - 1;
      const std::string ks = std::to_string(k), ws = std::to_string(w);
      check_both_isas(nest_text(
          (oh + k - 1) * w, k * k, oh * ow, {{"oh", oh}, {"kh", k}, {"kw", k}, {"ow", ow}},
          update_stmt("oh * " + std::to_string(ow) + " + ow", "(oh + kh) * " + ws + " + ow + kw",
                      "kh * " + ks + " + kw")));
      check_both_isas(
          nest_text((oh + k - 1) * w, k * k, oh * ow,
                    {{"oh", oh}, {"kh", k}, {"kw", k}, {"ow", ow}},
                    update_stmt("oh * " + std::to_string(ow) + " + ow",
                                "(oh + kh) * " + ws + " + ow + kw", "kh * " + ks + " + kw")),
          Options{.vregs = 16});
    }
}

TEST_CASE("contraction emit: channels-last depthwise (both operands vectors)", "[contraction]") {
  // out[ow, c] += in[s * ow + kw, c] * w[kh, kw, c] for one output row of a
  // channels-last (NHWC) depthwise convolution: both operands follow the
  // channel, the product is lane by lane. Strides 1 and 2, channel counts
  // with full and masked vectors, a tile of one and of several vectors per
  // row, and fewer registers (operands evicted while still needed later, or
  // read by the FMA from memory).
  for (int64_t stride : {1, 2})
    for (int64_t ow : {5, 8})
      for (int64_t ch : {16, 24, 40, 7, 48})
        for (int vregs : {0, 12, 8}) {
          if (vregs == 8 && ch > 24) continue;  // AVX2 has no room for a row of 40 channels
          const int64_t k = 3, h = k, w = stride * (ow - 1) + k;
          const std::string cs = std::to_string(ch);
          INFO("stride " << stride << ", ow " << ow << ", channels " << ch << ", vregs " << vregs);
          check_both_isas(
              nest_text(h * w * ch, k * k * ch, ow * ch,
                        {{"kh", k}, {"kw", k}, {"ow", ow}, {"c", ch}},
                        update_stmt("ow * " + cs + " + c",
                                    "kh * " + std::to_string(w * ch) + " + (ow * " +
                                        std::to_string(stride) + " + kw) * " + cs + " + c",
                                    "(kh * 3 + kw) * " + cs + " + c")),
              Options{.vregs = vregs});
        }
}

TEST_CASE("contraction emit: the accumulators start from the init nest's value", "[contraction]") {
  // The init nest before each tile's reduction is not emitted: zero, another
  // constant, a load contiguous along the vector loop (a bias per column) or
  // invariant along it (one per row, moving with the outer loop), with full
  // and masked vectors. C is written by the tile's store alone.
  for (int64_t n : {16, 12})
    for (const char* init : {"T.float32(0)", "T.float32(-1.5)", "B[j]", "A[io * 4 + i]"}) {
      InitNestSpec spec{.n = n, .init = init};
      INFO(init << ", n " << n);
      const std::string text = init_nest_text(spec);
      auto p = plan_contraction(root_for(parse_single(text)), Target{Isa::avx512});
      REQUIRE(p);
      CHECK(p->init.present);
      check_both_isas(text);
      check_both_isas(text, Options{.gprs = 5});  // every counter on the stack
    }
}

TEST_CASE("contraction emit: guarded operands (a pad inlined into a convolution)",
          "[contraction]") {
  // out[ow, c] += if_then_else(0 <= ow + kw - 1 < W, in[ow + kw - 1, c], 0) * w[kw, c]:
  // channels-last, one row of W outputs with a zero column on either side;
  // the products whose guard fails take a zero vector and load nothing (the
  // input has no element there). Depthwise (both operands vectors) and a
  // full convolution (input broadcast over the output channels, and a guard
  // on the weights too), with full and masked vectors and few registers.
  struct Case {
    int64_t ch, w;
    int vregs;
  };
  // (Every tile fits AVX2's registers: a guard on a counted loop is refused.)
  for (const Case& k : {Case{16, 5, 0}, Case{16, 6, 0}, Case{24, 4, 0}, Case{32, 3, 0},
                        Case{8, 5, 10}}) {
    const std::string cs = std::to_string(k.ch), ws = std::to_string(k.w);
    const std::string in_row = "0 <= ow + kw - 1 and ow + kw - 1 < " + ws;
    INFO("channels " << k.ch << ", width " << k.w << ", vregs " << k.vregs);
    check_both_isas(nest_text(k.w * k.ch, 3 * k.ch, k.w * k.ch,
                              {{"kw", 3}, {"ow", k.w}, {"c", k.ch}},
                              "C[ow * " + cs + " + c] = C[ow * " + cs + " + c] + T.if_then_else(" +
                                  in_row + ", A[(ow + kw - 1) * " + cs +
                                  " + c], T.float32(0)) * B[kw * " + cs + " + c]"),
                    Options{.vregs = k.vregs});
    check_both_isas(
        nest_text(k.w * 3, 3 * 3 * k.ch, k.w * k.ch, {{"ci", 3}, {"kw", 3}, {"ow", k.w}, {"m", k.ch}},
                  "C[ow * " + cs + " + m] = C[ow * " + cs + " + m] + T.if_then_else(" + in_row +
                      ", A[(ow + kw - 1) * 3 + ci], T.float32(0)) * T.if_then_else(kw * 3 + ci "
                      "!= 4 and ci < 2, B[(kw * 3 + ci) * " +
                      cs + " + m], T.float32(0))"),
        Options{.vregs = k.vregs});
  }
  // A guard on a loop the emitter keeps counted is refused.
  std::string why;
  auto counted = nest_text(64, 16, 16, {{"k", 64}, {"j", 16}},
                           "C[j] = C[j] + T.if_then_else(k < 60, A[k], T.float32(0)) * B[j]");
  CHECK_FALSE(plan_contraction(root_for(parse_single(counted)), Target{Isa::avx512},
                               PlanLimits{.max_unrolled_fmas = 8}, &why));
  CHECK(why.find("not unrolled") != std::string::npos);
}

TEST_CASE("contraction emit: max pooling windows in registers", "[contraction]") {
  // out[oh, ow] = max(out[oh, ow], in[s * oh + kh, s * ow + kw]): stride 1
  // and 2, widths with full and masked vectors; the accumulator comes first,
  // as x86 max and the interpreter's max(C, A) agree on it.
  for (int64_t stride : {1, 2})
    for (int64_t ow : {7, 16, 21}) {
      const int64_t oh = 4, k = 3, h = stride * (oh - 1) + k, w = stride * (ow - 1) + k;
      const std::string c = "oh * " + std::to_string(ow) + " + ow";
      const std::string a = "(oh * " + std::to_string(stride) + " + kh) * " + std::to_string(w) +
                            " + ow * " + std::to_string(stride) + " + kw";
      const std::string stmt = "C[" + c + "] = T.max(C[" + c + "], A[" + a + "])";
      for (const char* order : {"rows outside", "rows inside"}) {
        std::vector<NestLoop> loops =
            std::string(order) == "rows outside"
                ? std::vector<NestLoop>{{"oh", oh}, {"kh", k}, {"kw", k}, {"ow", ow}}
                : std::vector<NestLoop>{{"kh", k}, {"kw", k}, {"oh", oh}, {"ow", ow}};
        std::string text = nest_text(h * w, 1, oh * ow, loops, stmt);
        INFO(order);
        auto p = plan_contraction(root_for(parse_single(text)), Target{Isa::avx512});
        REQUIRE(p);
        CHECK(p->combine == ContractionPlan::Combine::Max);
        CHECK(p->vector_stride == stride);
        check_both_isas(text);
        check_both_isas(text, Options{.vregs = 12});
      }
    }
  // The accumulator second is refused (x86 max would pick the other operand on NaN).
  std::string swapped =
      nest_text(64, 1, 16, {{"k", 4}, {"j", 16}}, "C[j] = T.max(A[k * 16 + j], C[j])");
  std::string why;
  CHECK_FALSE(plan_contraction(root_for(parse_single(swapped)), Target{Isa::avx512}, {}, &why));
}

TEST_CASE("contraction emit: overlapping C, constant starts, offsets", "[contraction]") {
  check_both_isas(nest_text(64, 64, 64, {{"i", 4}, {"j", 16}, {"k", 3}},
                            update_stmt("i + j", "i * 3 + k", "k * 16 + j")));
  check_both_isas(
      "@T.prim_func\n"
      "def main(A: T.Buffer((256,), \"float32\"), B: T.Buffer((256,), \"float32\"), C: "
      "T.Buffer((256,), \"float32\")):\n"
      "    for i in range(2, 6):\n"
      "        for j in range(13):\n"
      "            for k in range(1, 9):\n"
      "                C[i * 16 + j + 3] = C[i * 16 + j + 3] + A[i * 16 + k] * B[k * 16 + j]\n");
}

TEST_CASE("contraction emit: few registers: stack counters and operand schemes", "[contraction]") {
  MatmulSpec tiled{.m = 24,
                   .n = 64,
                   .k = 64,
                   .ti = 8,
                   .tj = 16,
                   .tk = 8,
                   .order = {"i0", "j0", "k0", "i1", "k1", "j1"}};
  check_both_isas(matmul_text(tiled), Options{.gprs = 5});
  check_both_isas(matmul_text(tiled), Options{.gprs = 6, .vregs = 12});
  // Every FMA of a step has its own vector and broadcast operand.
  std::string outer = nest_text(8 * 8, 8 * 8 * 16, 8 * 16, {{"i", 8}, {"k", 8}, {"j", 16}},
                                update_stmt("i * 16 + j", "i * 8 + k", "i * 128 + k * 16 + j"));
  check_both_isas(outer, Options{.vregs = 12});
  check_both_isas(outer);
}

TEST_CASE("contraction emit: refuses what the plan refuses, emitting nothing", "[contraction]") {
  std::string text = matmul_text(
      {.m = 16, .n = 16, .k = 16, .ti = 0, .order = {"i1", "j1", "k1"}, .b_transposed = true});
  PrimFunc f = parse_single(text);
  TestEmitContext ctx(Target{Isa::avx512}, f, 12, 32);
  size_t before = ctx.code().getSize();
  CHECK_FALSE(try_emit_contraction(ctx, root_for(f)));
  CHECK(ctx.code().getSize() == before);
  // Too few scratch registers to plan at all.
  PrimFunc g =
      parse_single(matmul_text({.m = 16, .n = 16, .k = 16, .ti = 0, .order = {"i1", "j1", "k1"}}));
  TestEmitContext small(Target{Isa::avx512}, g, 4, 32);
  CHECK_FALSE(try_emit_contraction(small, root_for(g)));
  CHECK(small.code().getSize() == 0);
}

}  // namespace tirc::test
