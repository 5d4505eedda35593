// What a model's entry function needs beyond a kernel: calls to the other
// functions of the module (T.call_kernel), weights in read-only data
// (AllocateConst), and heap storage for allocations too big for the stack.
#include "codegen/x86/emitter.h"

namespace tirc {

using namespace Xbyak::util;
using Xbyak::Reg64;
using Xbyak::Xmm;

namespace {

const Reg64 kArgRegs[6] = {rdi, rsi, rdx, rcx, r8, r9};

int64_t element_count(const std::vector<Expr>& extents, const std::string& what,
                      const SourceLoc& loc) {
  int64_t n = 1;
  for (const Expr& e : extents) {
    auto v = as_const_int(e);
    if (!v || *v < 0) throw Error("x86 codegen: " + what + " has a non-constant extent", loc);
    n *= *v;
  }
  return n;
}

}  // namespace

void FunctionEmitter::storage_address(const StorageLoc& loc, const Reg64& dst) {
  switch (loc.kind) {
    case StorageLoc::Kind::FrameOffset:
      code_.lea(dst, ptr[rsp + loc.offset]);
      break;
    case StorageLoc::Kind::PointerSlot:
      code_.mov(dst, qword[rsp + loc.offset]);
      break;
    case StorageLoc::Kind::Rodata:
      // lea's disp32 is its last field; the JIT / the ELF relocation fill it in.
      code_.lea(dst, ptr[rip]);
      m_.data_references.push_back({code_.getSize() - 4, loc.rodata_offset});
      break;
  }
}

void FunctionEmitter::call_external(const char* symbol) {
  code_.vzeroupper();
  code_.db(0xE8);
  m_.external_calls.push_back({code_.getSize(), symbol});
  code_.dd(0);
}

std::vector<std::pair<int, int>> FunctionEmitter::save_loop_registers() {
  // Between statements only loop variables live in registers; rbx and
  // r12..r15 are callee-saved.
  std::vector<std::pair<int, int>> saved;
  for (const auto& [var, loc] : vars_) {
    if (loc.kind != VarLoc::Kind::Gpr || loc.reg == 3 || loc.reg >= 12) continue;
    int slot = frame_.alloc(8, 8);
    code_.mov(qword[rsp + slot], Reg64(loc.reg));
    saved.emplace_back(loc.reg, slot);
  }
  return saved;
}

void FunctionEmitter::restore_loop_registers(const std::vector<std::pair<int, int>>& saved) {
  for (auto [reg, slot] : saved) code_.mov(Reg64(reg), qword[rsp + slot]);
}

void FunctionEmitter::free_heap(int slot) {
  code_.mov(rdi, qword[rsp + slot]);
  call_external("tirc_free");
}

void FunctionEmitter::return_error_code() {
  if (heap_slots_.empty()) {
    code_.jmp(return_label_, Xbyak::CodeGenerator::T_NEAR);
    return;
  }
  int code_slot = frame_.alloc(8, 8);
  code_.mov(dword[rsp + code_slot], eax);
  for (auto it = heap_slots_.rbegin(); it != heap_slots_.rend(); ++it) free_heap(*it);
  code_.mov(eax, dword[rsp + code_slot]);
  code_.jmp(return_label_, Xbyak::CodeGenerator::T_NEAR);
}

void FunctionEmitter::emit_heap_allocate(const AllocateNode& a, int64_t bytes) {
  const int slot = frame_.alloc(8, 8);
  auto saved = save_loop_registers();
  code_.mov(rdi, bytes);
  call_external("tirc_alloc");
  code_.mov(qword[rsp + slot], rax);
  restore_loop_registers(saved);
  Xbyak::Label ok;
  code_.test(rax, rax);
  code_.jnz(ok, Xbyak::CodeGenerator::T_NEAR);
  code_.mov(eax, -1);
  return_error_code();
  code_.L(ok);

  storage_[a.buffer_var.get()] = {StorageLoc::Kind::PointerSlot, slot};
  heap_slots_.push_back(slot);
  Xbyak::Label scope_fail, after;
  Xbyak::Label* outer = fail_target_;
  fail_target_ = &scope_fail;
  emit(a.body);
  fail_target_ = outer;
  heap_slots_.pop_back();
  storage_.erase(a.buffer_var.get());

  saved = save_loop_registers();
  free_heap(slot);
  restore_loop_registers(saved);
  code_.jmp(after, Xbyak::CodeGenerator::T_NEAR);
  // A division by zero inside the scope frees this storage on its way out.
  code_.L(scope_fail);
  free_heap(slot);
  code_.jmp(*outer, Xbyak::CodeGenerator::T_NEAR);
  code_.L(after);
}

void FunctionEmitter::emit_allocate_const(const AllocateConstNode& a) {
  const std::string what = "AllocateConst " + a.buffer_var->name;
  const IRModule* module = m_.options.module;
  if (!module)
    fail(what + " binds constant '" + a.constant +
         "' but no module was given (GeneratorOptions::module)");
  const NDArray* c = module->find_constant(a.constant);
  if (!c) fail(what + ": the module has no constant '" + a.constant + "'");
  if (c->dtype() != a.dtype)
    fail(what + " is " + a.dtype.str() + " but constant '" + a.constant + "' is " +
         c->dtype().str());
  const int64_t n = element_count(a.extents, what, loc_);
  if (n != c->num_elements())
    fail(what + " has " + std::to_string(n) + " elements but constant '" + a.constant + "' has " +
         std::to_string(c->num_elements()));
  auto [it, inserted] = m_.rodata_offsets.try_emplace(a.constant, 0);
  if (inserted) {
    std::vector<uint8_t>& ro = m_.rodata;
    ro.resize((ro.size() + 63) / 64 * 64, 0);
    it->second = ro.size();
    ro.insert(ro.end(), c->data(), c->data() + c->num_bytes());
  }
  StorageLoc loc{StorageLoc::Kind::Rodata};
  loc.rodata_offset = it->second;
  storage_[a.buffer_var.get()] = loc;
  emit(a.body);
  storage_.erase(a.buffer_var.get());
}

// One argument's 8-byte ABI value into frame slot `slot`.
void FunctionEmitter::store_call_argument(const Expr& arg, DataType want, int slot, int index) {
  const std::string which = "call_kernel argument " + std::to_string(index);
  if (want.is_handle()) {
    if (auto* v = arg.as<VarNode>()) {
      auto it = storage_.find(v);
      if (it == storage_.end())
        fail(which + ": " + v->name +
             " is not a buffer, an Allocate or an AllocateConst visible here");
      storage_address(it->second, rax);
      code_.mov(qword[rsp + slot], rax);
      return;
    }
    auto* c = arg.as<CallNode>();
    if (c && c->op == kAddressOf && c->args.size() == 1) {
      auto* l = c->args[0].as<BufferLoadNode>();
      if (!l) fail(which + ": address_of needs a buffer element");
      if (l->indices.size() != 1)
        fail(which + ": address_of with " + std::to_string(l->indices.size()) +
             " indices (the lowered form has flat buffers)");
      int idx = -1;
      Xbyak::RegExp addr = element_address(l->buffer, l->indices[0], &idx);
      code_.lea(rax, ptr[addr]);
      code_.mov(qword[rsp + slot], rax);
      if (idx >= 0) regs_.release(idx);
      regs_.unpin_all();
      return;
    }
    fail(which + " is not a buffer handle (a data var, an allocation or address_of)");
  }
  if (arg.dtype() != want)
    fail(which + " is " + arg.dtype().str() + " but the parameter is " + want.str());
  int t = eval(arg);
  int r = regs_.reg(t);
  if (want.is_float()) {
    if (want.bits() == 64)
      code_.vmovsd(qword[rsp + slot], Xmm(r));
    else
      code_.vmovss(dword[rsp + slot], Xmm(r));
  } else {
    code_.mov(qword[rsp + slot], Reg64(r));
  }
  regs_.release(t);
  regs_.unpin_all();
}

void FunctionEmitter::emit_call_kernel(const CallNode& c) {
  const std::string& name = c.args[0].as<StringImmNode>()->value;
  if (outlined_) fail("call_kernel('" + name + "') inside a parallel loop is not supported");
  auto found = m_.callees.find(name);
  if (found == m_.callees.end())
    fail("call_kernel: no function named '" + name + "' is being compiled with this one");
  const PrimFunc& f = *found->second.func;
  const size_t n = c.args.size() - 1;
  if (n != f->params.size())
    fail("call_kernel('" + name + "') passes " + std::to_string(n) +
         " arguments, the function takes " + std::to_string(f->params.size()));
  std::vector<ArgPlace> places = place_args(f, loc_);
  std::vector<int> slots;
  for (size_t i = 0; i < n; ++i) {
    const Param& p = f->params[i];
    slots.push_back(frame_.alloc(8, 8));
    store_call_argument(c.args[i + 1], p.buffer ? DataType::handle() : p.var->dtype, slots.back(),
                        static_cast<int>(i));
  }
  auto saved = save_loop_registers();
  int stack_args = 0;
  for (const ArgPlace& a : places) stack_args += a.stack >= 0;
  // rsp is 64-byte aligned in a function body; the outgoing area keeps it 16-aligned.
  const int stack_bytes = (stack_args * 8 + 15) / 16 * 16;
  if (stack_bytes) code_.sub(rsp, stack_bytes);
  for (size_t i = 0; i < n; ++i) {
    const ArgPlace& a = places[i];
    auto slot = qword[rsp + stack_bytes + slots[i]];
    if (a.stack >= 0) {
      code_.mov(rax, slot);
      code_.mov(qword[rsp + 8 * a.stack], rax);
    }
  }
  code_.vzeroupper();
  for (size_t i = 0; i < n; ++i) {
    const ArgPlace& a = places[i];
    if (a.stack >= 0) continue;
    if (a.cls == ArgClass::Int)
      code_.mov(kArgRegs[a.reg], qword[rsp + stack_bytes + slots[i]]);
    else
      code_.vmovsd(Xmm(a.reg), qword[rsp + stack_bytes + slots[i]]);
  }
  code_.call(*found->second.entry);
  if (stack_bytes) code_.add(rsp, stack_bytes);
  restore_loop_registers(saved);
  // A nonzero result is the caller's result too.
  Xbyak::Label ok;
  code_.test(eax, eax);
  code_.jz(ok, Xbyak::CodeGenerator::T_NEAR);
  return_error_code();
  code_.L(ok);
}

}  // namespace tirc
