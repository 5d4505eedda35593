// Parallel loops: the body is outlined into a local function
// `void body(int64_t begin, int64_t end, void* closure)` emitted after this
// one; the closure (8 bytes per visible variable and storage pointer) lives
// in this function's frame, and tirc_parallel_for runs the chunks.
#include "codegen/x86/emitter.h"

namespace tirc {

using namespace Xbyak::util;
using Xbyak::Reg64;

void FunctionEmitter::emit_parallel(const ForNode& f) {
  ParallelJob job;
  job.loop = &f;
  m_.labels.emplace_back();
  job.entry = &m_.labels.back();
  job.symbol = symbol_ + "_parallel_" + std::to_string(m_.jobs.size());

  const int count = static_cast<int>(vars_.size() + storage_.size());
  const int closure = frame_.alloc(8 * std::max(count, 1), 8);
  int k = 0;
  for (const auto& [var, loc] : vars_) {
    job.captures.push_back({var, false, loc.type});
    switch (loc.kind) {
      case VarLoc::Kind::Gpr:
        code_.mov(qword[rsp + closure + 8 * k], Reg64(loc.reg));
        break;
      case VarLoc::Kind::Slot:
        code_.mov(rax, qword[rsp + loc.offset]);
        code_.mov(qword[rsp + closure + 8 * k], rax);
        break;
      case VarLoc::Kind::Const:
        code_.mov(rax, loc.value);
        code_.mov(qword[rsp + closure + 8 * k], rax);
        break;
    }
    ++k;
  }
  for (const auto& [data, loc] : storage_) {
    job.captures.push_back({data, true, DataType::handle()});
    storage_address(loc, rax);
    code_.mov(qword[rsp + closure + 8 * k], rax);
    ++k;
  }

  int n = eval(f.extent);
  code_.mov(rax, Reg64(regs_.reg(n)));
  regs_.release(n);
  regs_.unpin_all();
  Xbyak::Label skip;
  code_.test(rax, rax);
  code_.jle(skip, Xbyak::CodeGenerator::T_NEAR);

  // Loop variables held in caller-saved registers do not survive the call.
  std::vector<std::pair<int, int>> saved;  // register, slot
  for (const auto& [var, loc] : vars_) {
    if (loc.kind != VarLoc::Kind::Gpr) continue;
    if (loc.reg == 3 || loc.reg >= 12) continue;
    int slot = frame_.alloc(8, 8);
    code_.mov(qword[rsp + slot], Reg64(loc.reg));
    saved.emplace_back(loc.reg, slot);
  }
  code_.mov(rdi, rax);
  code_.lea(rsi, ptr[rip + *job.entry]);
  code_.lea(rdx, ptr[rsp + closure]);
  code_.vzeroupper();
  // call rel32 to an external symbol: the JIT and the ELF writer fill in the displacement.
  code_.db(0xE8);
  m_.external_calls.push_back({code_.getSize(), "tirc_parallel_for"});
  code_.dd(0);
  for (auto [reg, slot] : saved) code_.mov(Reg64(reg), qword[rsp + slot]);
  code_.L(skip);
  m_.jobs.push_back(std::move(job));
  ++m_.stats.parallel_loops;
}

}  // namespace tirc
