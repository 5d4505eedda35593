// Calling conventions: the SysV entry point, its packed twin, and the
// frame every emitted function sets up.
#include "codegen/x86/emitter.h"

namespace tirc {

using namespace Xbyak::util;

namespace {

const Xbyak::Reg64 kIntArgs[6] = {rdi, rsi, rdx, rcx, r8, r9};
constexpr int kSavedBytes = 40;  // rbx, r12..r15 below the saved rbp

}  // namespace

ArgClass arg_class(const Param& p, const SourceLoc& loc) {
  if (p.buffer) return ArgClass::Int;
  DataType t = p.var->dtype;
  if (t.is_vector()) throw Error("x86 codegen: vector scalar parameter " + p.var->name, loc);
  if (t.is_integer() || t.is_bool() || t.is_handle()) return ArgClass::Int;
  if (t.code() == DataType::Code::Float && (t.bits() == 32 || t.bits() == 64))
    return ArgClass::Float;
  throw Error("x86 codegen: scalar parameter " + p.var->name + " of type " + t.str() +
                  " is not supported (int, bool, float32, float64 are)",
              loc);
}

std::vector<ArgPlace> place_args(const PrimFunc& f, const SourceLoc& loc) {
  std::vector<ArgPlace> out;
  int ints = 0, floats = 0, stack = 0;
  for (const Param& p : f->params) {
    ArgPlace a{arg_class(p, loc)};
    if (a.cls == ArgClass::Int && ints < 6)
      a.reg = ints++;
    else if (a.cls == ArgClass::Float && floats < 8)
      a.reg = floats++;
    else
      a.stack = stack++;
    out.push_back(a);
  }
  return out;
}

void FunctionEmitter::prologue() {
  code_.push(rbp);
  code_.mov(rbp, rsp);
  code_.push(rbx);
  code_.push(r12);
  code_.push(r13);
  code_.push(r14);
  code_.push(r15);
  // Pages are touched one by one so a large frame cannot jump over the guard
  // page of a thread's stack. The page count is patched in at the end.
  code_.mov(eax, 0x7fffffff);
  frame_patch_at_ = code_.getSize() - 4;
  Xbyak::Label probe;
  code_.L(probe);
  code_.sub(rsp, 4096);
  code_.mov(dword[rsp], 0);
  code_.dec(eax);
  code_.jnz(probe, Xbyak::CodeGenerator::T_NEAR);
  code_.and_(rsp, -64);
}

void FunctionEmitter::patch_frame() {
  int64_t pages = (static_cast<int64_t>(frame_.size()) + 64 + 4095) / 4096;
  if (pages < 1) pages = 1;
  code_.rewrite(frame_patch_at_, static_cast<uint64_t>(pages), 4);
}

void FunctionEmitter::epilogue(bool returns_int) {
  Xbyak::Label done;
  if (returns_int) code_.xor_(eax, eax);
  code_.jmp(done, Xbyak::CodeGenerator::T_NEAR);
  code_.L(fail_label_);
  // Only integer division by zero gets here; the interpreter reports it as an error.
  if (returns_int) code_.mov(eax, 1);
  code_.L(done);
  code_.L(return_label_);
  code_.vzeroupper();
  code_.lea(rsp, ptr[rbp - kSavedBytes]);
  code_.pop(r15);
  code_.pop(r14);
  code_.pop(r13);
  code_.pop(r12);
  code_.pop(rbx);
  code_.pop(rbp);
  code_.ret();
  patch_frame();
}

void FunctionEmitter::emit_entry(Xbyak::Label& entry) {
  const PrimFunc& f = *func_;
  std::vector<ArgPlace> places = place_args(f, f->body ? f->body->loc : SourceLoc{});
  code_.L(entry);
  prologue();
  for (size_t i = 0; i < f->params.size(); ++i) {
    const Param& p = f->params[i];
    const ArgPlace& a = places[i];
    int slot = frame_.alloc(8, 8);
    if (a.stack >= 0) {
      code_.mov(rax, qword[rbp + 16 + 8 * a.stack]);
    } else if (a.cls == ArgClass::Int) {
      code_.mov(rax, kIntArgs[a.reg]);
    } else if (p.var->dtype.bits() == 32) {
      code_.vmovss(dword[rsp + slot], Xbyak::Xmm(a.reg));
    } else {
      code_.vmovsd(qword[rsp + slot], Xbyak::Xmm(a.reg));
    }
    if (a.cls == ArgClass::Int || a.stack >= 0) {
      if (!p.buffer && a.cls == ArgClass::Int) wrap(rax, p.var->dtype);
      code_.mov(qword[rsp + slot], rax);
    }
    if (p.buffer) {
      storage_[p.buffer->data.get()] = {StorageLoc::Kind::PointerSlot, slot};
      if (p.var.get() != p.buffer->data.get())
        storage_[p.var.get()] = {StorageLoc::Kind::PointerSlot, slot};
    } else {
      vars_[p.var.get()] = {VarLoc::Kind::Slot, p.var->dtype, -1, slot, 0};
    }
  }
  emit(f->body);
  epilogue(true);
}

void FunctionEmitter::emit_packed(ModuleState& m, const PrimFunc& f, Xbyak::Label& entry) {
  auto& code = m.code;
  std::vector<ArgPlace> places = place_args(f, {});
  int stack_args = 0;
  for (const ArgPlace& a : places) stack_args += a.stack >= 0;
  const int stack_bytes = (stack_args * 8 + 15) / 16 * 16;
  code.push(rbx);  // rsp is now 16-aligned
  code.mov(rbx, rdi);
  if (stack_bytes) code.sub(rsp, stack_bytes);
  // Loads the value of parameter i into rax (its 8-byte ABI form).
  auto load_value = [&](size_t i) {
    const Param& p = f->params[i];
    code.mov(rax, qword[rbx + static_cast<int>(8 * i)]);
    if (p.buffer) return;
    DataType t = p.var->dtype;
    if (t.is_bool() || t.bits() == 8)
      code.movzx(eax, byte[rax]);
    else if (t.bits() == 16)
      code.movzx(eax, word[rax]);
    else if (t.bits() == 32)
      code.mov(eax, dword[rax]);
    else
      code.mov(rax, qword[rax]);
  };
  for (size_t i = 0; i < places.size(); ++i) {
    if (places[i].stack < 0) continue;
    load_value(i);
    code.mov(qword[rsp + 8 * places[i].stack], rax);
  }
  for (size_t i = 0; i < places.size(); ++i) {
    const ArgPlace& a = places[i];
    if (a.stack >= 0) continue;
    load_value(i);
    if (a.cls == ArgClass::Int)
      code.mov(kIntArgs[a.reg], rax);
    else
      code.vmovq(Xbyak::Xmm(a.reg), rax);
  }
  code.call(entry);
  if (stack_bytes) code.add(rsp, stack_bytes);
  code.pop(rbx);
  code.ret();
}

void FunctionEmitter::emit_parallel_body(const ParallelJob& job) {
  outlined_ = true;
  code_.L(*job.entry);
  prologue();
  // rdi = begin, rsi = end, rdx = closure.
  int begin_slot = frame_.alloc(8, 8), end_slot = frame_.alloc(8, 8);
  code_.mov(qword[rsp + begin_slot], rdi);
  code_.mov(qword[rsp + end_slot], rsi);
  for (size_t k = 0; k < job.captures.size(); ++k) {
    const Capture& c = job.captures[k];
    int slot = frame_.alloc(8, 8);
    code_.mov(rax, qword[rdx + static_cast<int>(8 * k)]);
    code_.mov(qword[rsp + slot], rax);
    if (c.is_storage)
      storage_[c.var] = {StorageLoc::Kind::PointerSlot, slot};
    else
      vars_[c.var] = {VarLoc::Kind::Slot, c.type, -1, slot, 0};
  }
  const ForNode& f = *job.loop;
  loc_ = f.loc;
  // The loop runs over min + [begin, end).
  int lo = eval(f.min);
  int lo_reg = regs_.reg(lo);
  code_.mov(rax, Xbyak::Reg64(lo_reg));
  code_.add(Xbyak::Reg64(lo_reg), qword[rsp + begin_slot]);
  code_.add(rax, qword[rsp + end_slot]);
  int hi = regs_.alloc(RegClass::Gpr);
  code_.mov(Xbyak::Reg64(regs_.reg(hi)), rax);
  regs_.unpin_all();
  emit_serial_loop(f, lo, hi);
  epilogue(false);
}

}  // namespace tirc
