// Quick single-thread timing of the contraction emitter on the lowered nest
// that bench/matmul_schedules.h's schedule produces (j0, k0, i0, k1, i1, j1),
// emitted through a minimal EmitContext (no general emitter needed).
// Usage: tirc_contraction_quick [avx512|avx2] [sizes...]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <vector>

#include "bench/matmul_schedules.h"
#include "codegen/x86/contraction_emit.h"
#include "ir/text/parser.h"

using namespace tirc;
using namespace Xbyak::util;

namespace {

class QuickContext : public EmitContext {
 public:
  QuickContext(Target t, std::vector<Var> data)
      : code_(1 << 20), target_(t), data_(std::move(data)) {}
  Xbyak::CodeGenerator& code() override { return code_; }
  const Target& target() const override { return target_; }
  ConstantPool& constants() override { return pool_; }
  std::vector<Xbyak::Reg64> scratch_gprs() override {
    return {rax, rcx, r8, r9, r10, r11, rbx, rbp, r12, r13, r14, r15};
  }
  std::vector<int> scratch_vector_registers() override {
    std::vector<int> v;
    for (int i = 0; i < target_.vector_registers(); ++i) v.push_back(i);
    return v;
  }
  void eval_int(const Expr& e, const Xbyak::Reg64& dst) override {
    code_.mov(dst, as_const_int(e).value());
  }
  void load_address(const Var& data, const Xbyak::Reg64& dst) override {
    if (data == data_[0])
      code_.mov(dst, rdi);
    else if (data == data_[1])
      code_.mov(dst, rsi);
    else
      code_.mov(dst, rdx);
  }

 private:
  Xbyak::CodeGenerator code_;
  Target target_;
  ConstantPool pool_;
  std::vector<Var> data_;
};

// The update nest lowering gives for matmul_schedule(n, n, n).
std::string lowered_update(int64_t n, const MatmulTiling& t) {
  std::ostringstream os;
  os << "@T.prim_func\ndef main(A: T.Buffer((" << n * n << ",), \"float32\"), B: T.Buffer(("
     << n * n << ",), \"float32\"), C: T.Buffer((" << n * n << ",), \"float32\")):\n"
     << "    for j0 in range(" << n / t.columns << "):\n"
     << "        for k0 in range(" << n / t.kc << "):\n"
     << "            for i0 in range(" << n / t.rows << "):\n"
     << "                for k1 in range(" << t.kc << "):\n"
     << "                    for i1 in range(" << t.rows << "):\n"
     << "                        for j1 in T.vectorized(" << t.columns << "):\n";
  std::string i = "(i0 * " + std::to_string(t.rows) + " + i1)";
  std::string j = "(j0 * " + std::to_string(t.columns) + " + j1)";
  std::string k = "(k0 * " + std::to_string(t.kc) + " + k1)";
  std::string c = i + " * " + std::to_string(n) + " + " + j;
  os << "                            C[" << c << "] = C[" << c << "] + A[" << i << " * " << n
     << " + " << k << "] * B[" << k << " * " << n << " + " << j << "]\n";
  return os.str();
}

}  // namespace

int main(int argc, char** argv) {
  Target target{argc > 1 && std::strcmp(argv[1], "avx2") == 0 ? Isa::avx2 : Isa::avx512};
  std::vector<int64_t> sizes;
  for (int a = 2; a < argc; ++a) sizes.push_back(std::atoll(argv[a]));
  if (sizes.empty()) sizes = {256, 1024};
  for (int64_t n : sizes) {
    MatmulTiling t = choose_matmul_tiling(n, n, n, target);
    // Experiments: override the tile from the environment.
    if (const char* e = std::getenv("TIRC_KC")) t.kc = std::atoll(e);
    if (const char* e = std::getenv("TIRC_ROWS")) t.rows = std::atoll(e);
    if (const char* e = std::getenv("TIRC_COLUMNS")) t.columns = std::atoll(e);
    PrimFunc f = parse_module(lowered_update(n, t)).functions().front().second;
    QuickContext ctx(target, {f->params[0].var, f->params[1].var, f->params[2].var});
    auto& c = ctx.code();
    for (auto r : {rbx, rbp, r12, r13, r14, r15}) c.push(r);
    if (!try_emit_contraction(ctx, *f->body.as<ForNode>())) {
      std::printf("n=%lld: refused\n", static_cast<long long>(n));
      return 1;
    }
    c.vzeroupper();
    for (auto r : {r15, r14, r13, r12, rbp, rbx}) c.pop(r);
    c.ret();
    ctx.constants().emit(c);
    c.ready();
    auto fn = c.getCode<void (*)(float*, float*, float*)>();
    std::vector<float> a(n * n, 1.0f), b(n * n, 0.5f), cm(n * n, 0.0f);
    fn(a.data(), b.data(), cm.data());  // warm up
    double best = 1e30;
    int reps = n <= 256 ? 50 : 5;
    for (int r = 0; r < reps; ++r) {
      auto t0 = std::chrono::steady_clock::now();
      fn(a.data(), b.data(), cm.data());
      double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      best = std::min(best, s);
    }
    std::printf("%s n=%lld tile %lldx%lld kc=%lld code=%zuB: %.1f GFLOPS\n", target.name().c_str(),
                static_cast<long long>(n), static_cast<long long>(t.rows),
                static_cast<long long>(t.columns), static_cast<long long>(t.kc), c.getSize(),
                2.0 * n * n * n / best * 1e-9);
  }
}
