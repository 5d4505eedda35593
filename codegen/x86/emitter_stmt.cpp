// Statements: loops, stores, lets, conditionals, allocations.
#include <algorithm>

#include "codegen/x86/contraction_emit.h"
#include "codegen/x86/emitter.h"

namespace tirc {

using namespace Xbyak::util;

namespace {

std::vector<int> gpr_pool() {
  // Caller-saved first: loop variables take callee-saved ones (RegisterPool::take_gpr).
  return {1, 6, 7, 8, 9, 10, 3, 12, 13, 14, 15};
}

std::vector<int> vec_pool(Isa isa) {
  // 14 and 15 are fixed scratch registers; on AVX2 13 holds the tail mask.
  std::vector<int> v;
  int low = isa == Isa::avx512 ? 14 : 13;
  for (int i = 0; i < low; ++i) v.push_back(i);
  if (isa == Isa::avx512)
    for (int i = 16; i < 32; ++i) v.push_back(i);
  return v;
}

// Loops nested in s, counting s when it is a loop.
int loop_height(const Stmt& s) {
  if (!s) return 0;
  switch (s.kind()) {
    case StmtKind::For:
      return 1 + loop_height(s.as<ForNode>()->body);
    case StmtKind::Seq: {
      int h = 0;
      for (const Stmt& c : s.as<SeqStmtNode>()->seq) h = std::max(h, loop_height(c));
      return h;
    }
    case StmtKind::IfThenElse: {
      auto* n = s.as<IfThenElseNode>();
      return std::max(loop_height(n->then_case), loop_height(n->else_case));
    }
    case StmtKind::LetStmt:
      return loop_height(s.as<LetStmtNode>()->body);
    case StmtKind::Allocate:
      return loop_height(s.as<AllocateNode>()->body);
    case StmtKind::AllocateConst:
      return loop_height(s.as<AllocateConstNode>()->body);
    case StmtKind::DeclBuffer:
      return loop_height(s.as<DeclBufferNode>()->body);
    default:
      return 0;
  }
}

int stmt_size(const Stmt& s) {
  if (!s) return 0;
  switch (s.kind()) {
    case StmtKind::For: {
      auto* f = s.as<ForNode>();
      auto e = as_const_int(f->extent);
      return 1 + stmt_size(f->body) *
                     (f->for_kind == ForKind::Unrolled && e ? static_cast<int>(*e) : 1);
    }
    case StmtKind::Seq: {
      int n = 0;
      for (const Stmt& c : s.as<SeqStmtNode>()->seq) n += stmt_size(c);
      return n;
    }
    case StmtKind::IfThenElse: {
      auto* n = s.as<IfThenElseNode>();
      return 1 + stmt_size(n->then_case) + stmt_size(n->else_case);
    }
    case StmtKind::LetStmt:
      return 1 + stmt_size(s.as<LetStmtNode>()->body);
    case StmtKind::Allocate:
      return 1 + stmt_size(s.as<AllocateNode>()->body);
    case StmtKind::AllocateConst:
      return 1 + stmt_size(s.as<AllocateConstNode>()->body);
    case StmtKind::DeclBuffer:
      return stmt_size(s.as<DeclBufferNode>()->body);
    default:
      return 1;
  }
}

constexpr int kMaxUnrollExtent = 64;
constexpr int kMaxUnrolledStatements = 512;

// What the contraction emitter sees of this emitter.
class ContextImpl final : public EmitContext {
 public:
  ContextImpl(FunctionEmitter& e, std::vector<Xbyak::Reg64> gprs, std::vector<int> vecs)
      : e_(e), gprs_(std::move(gprs)), vecs_(std::move(vecs)) {}
  Xbyak::CodeGenerator& code() override { return e_.code(); }
  const Target& target() const override { return e_.module().options.target; }
  ConstantPool& constants() override { return e_.module().pool; }
  std::vector<Xbyak::Reg64> scratch_gprs() override { return gprs_; }
  std::vector<int> scratch_vector_registers() override { return vecs_; }
  void eval_int(const Expr& e, const Xbyak::Reg64& dst) override { e_.eval_int_into(e, dst); }
  void load_address(const Var& data, const Xbyak::Reg64& dst) override {
    e_.load_storage_address(data, dst);
  }
  VarMap known_constants() const override { return e_.known_constants(); }

 private:
  FunctionEmitter& e_;
  std::vector<Xbyak::Reg64> gprs_;
  std::vector<int> vecs_;
};

}  // namespace

FunctionEmitter::FunctionEmitter(ModuleState& m, const PrimFunc* func, std::string symbol)
    : m_(m),
      code_(m.code),
      target_(m.options.target),
      func_(func),
      symbol_(std::move(symbol)),
      regs_(m.code, frame_, gpr_pool(), vec_pool(m.options.target.isa)) {}

void FunctionEmitter::fail(const std::string& what) const {
  throw Error("x86 codegen: " + what, loc_);
}

void FunctionEmitter::emit(const Stmt& s) {
  if (!s) return;
  SourceLoc saved = loc_;
  if (s->loc.known()) loc_ = s->loc;
  switch (s.kind()) {
    case StmtKind::Seq:
      for (const Stmt& c : s.as<SeqStmtNode>()->seq) emit(c);
      break;
    case StmtKind::For:
      emit_for(*s.as<ForNode>());
      break;
    case StmtKind::BufferStore:
      emit_store(*s.as<BufferStoreNode>());
      break;
    case StmtKind::IfThenElse: {
      auto* n = s.as<IfThenElseNode>();
      if (!n->cond.dtype().is_scalar()) fail("vector condition of an if statement");
      int c = eval(n->cond);
      code_.test(Xbyak::Reg64(regs_.reg(c)), Xbyak::Reg64(regs_.reg(c)));
      regs_.release(c);
      regs_.unpin_all();
      Xbyak::Label other, done;
      code_.jz(other, Xbyak::CodeGenerator::T_NEAR);
      emit(n->then_case);
      if (n->else_case) code_.jmp(done, Xbyak::CodeGenerator::T_NEAR);
      code_.L(other);
      if (n->else_case) {
        emit(n->else_case);
        code_.L(done);
      }
      break;
    }
    case StmtKind::LetStmt: {
      auto* n = s.as<LetStmtNode>();
      DataType t = n->var->dtype;
      if (t.is_vector() || t.is_handle()) fail("let of type " + t.str() + " is not supported");
      int v = eval(n->value);
      bind_var(n->var, v, t);
      emit(n->body);
      unbind_var(n->var);
      break;
    }
    case StmtKind::Evaluate: {
      const Expr& v = s.as<EvaluateNode>()->value;
      if (v.kind() == ExprKind::IntImm || v.kind() == ExprKind::FloatImm) break;
      if (call_kernel_callee(v)) {
        emit_call_kernel(*v.as<CallNode>());
        break;
      }
      if (v.dtype().is_vector()) fail("vector expression statement");
      int t = eval(v);
      regs_.release(t);
      regs_.unpin_all();
      break;
    }
    case StmtKind::Allocate:
      emit_allocate(*s.as<AllocateNode>());
      break;
    case StmtKind::AllocateConst:
      emit_allocate_const(*s.as<AllocateConstNode>());
      break;
    case StmtKind::DeclBuffer: {
      // Hand-written lowered code may declare a 1-D alias of existing storage.
      auto* n = s.as<DeclBufferNode>();
      if (n->buffer->shape.size() != 1)
        fail("DeclBuffer of " + std::to_string(n->buffer->shape.size()) + "-D buffer " +
             n->buffer->name + " (not in the lowered form)");
      if (!storage_.count(n->buffer->data.get()))
        fail("DeclBuffer " + n->buffer->name + " over unknown storage " + n->buffer->data->name);
      emit(n->body);
      break;
    }
    case StmtKind::Block:
    case StmtKind::BlockRealize:
      fail(std::string(to_string(s.kind())) + " is not in the lowered form (run lower() first)");
  }
  loc_ = saved;
}

void FunctionEmitter::bind_var(const Var& v, int temp, DataType t) {
  int slot = frame_.alloc(8, 8);
  int r = regs_.reg(temp);
  if (t.is_float()) {
    if (t.bits() == 64)
      code_.vmovsd(qword[rsp + slot], Xbyak::Xmm(r));
    else
      code_.vmovss(dword[rsp + slot], Xbyak::Xmm(r));
  } else {
    code_.mov(qword[rsp + slot], Xbyak::Reg64(r));
  }
  regs_.release(temp);
  regs_.unpin_all();
  vars_[v.get()] = {VarLoc::Kind::Slot, t, -1, slot, 0};
}

void FunctionEmitter::unbind_var(const Var& v) {
  auto it = vars_.find(v.get());
  if (it == vars_.end()) return;
  if (it->second.kind == VarLoc::Kind::Gpr) regs_.give_back_gpr(it->second.reg);
  vars_.erase(it);
}

void FunctionEmitter::emit_for(const ForNode& f) {
  if (f.for_kind == ForKind::ThreadBinding)
    fail("thread-bound loop " + f.loop_var->name + " has no CPU meaning");
  DataType vt = f.loop_var->dtype;
  if (!vt.is_int() || vt.is_vector())
    fail("loop variable " + f.loop_var->name + " of type " + vt.str());
  if (offer_contraction(f)) return;
  // One iteration (a border part of a partitioned loop): its variable is a
  // constant in the body, which guards inside can then be resolved with (see
  // known_constants). A vectorized one stays a (one-lane) vector loop.
  if (auto mn = as_const_int(f.min), ext = as_const_int(f.extent);
      mn && ext && *ext == 1 && f.for_kind != ForKind::Vectorized) {
    emit_unrolled(f, *mn, 1);
    return;
  }
  switch (f.for_kind) {
    case ForKind::Parallel:
      if (!outlined_) {
        emit_parallel(f);
        return;
      }
      break;  // nested parallel loops run serially
    case ForKind::Vectorized: {
      std::string why;
      if (can_vectorize(f, target_.isa, &why)) {
        emit_vectorized(f);
        ++m_.stats.vectorized_loops;
        return;
      }
      ++m_.stats.serial_fallbacks;
      break;
    }
    case ForKind::Unrolled: {
      auto mn = as_const_int(f.min), ext = as_const_int(f.extent);
      if (mn && ext && *ext >= 0 && *ext <= kMaxUnrollExtent &&
          stmt_size(f.body) * *ext <= kMaxUnrolledStatements) {
        emit_unrolled(f, *mn, *ext);
        return;
      }
      break;
    }
    default:
      break;
  }
  int start = eval(f.min);
  int extent = eval(f.extent);
  int rs = regs_.reg(start), re = regs_.reg(extent);
  code_.add(Xbyak::Reg64(re), Xbyak::Reg64(rs));
  regs_.unpin_all();
  emit_serial_loop(f, start, extent);
}

void FunctionEmitter::emit_serial_loop(const ForNode& f, int start, int end) {
  int end_slot = frame_.alloc(8, 8);
  code_.mov(qword[rsp + end_slot], Xbyak::Reg64(regs_.reg(end)));
  regs_.release(end);
  int r = loop_height(f.body) <= 1 ? regs_.take_gpr(8) : -1;
  VarLoc loc{VarLoc::Kind::Slot, f.loop_var->dtype};
  if (r >= 0) {
    loc.kind = VarLoc::Kind::Gpr;
    loc.reg = r;
    code_.mov(Xbyak::Reg64(r), Xbyak::Reg64(regs_.reg(start)));
  } else {
    loc.offset = frame_.alloc(8, 8);
    code_.mov(qword[rsp + loc.offset], Xbyak::Reg64(regs_.reg(start)));
  }
  regs_.release(start);
  regs_.unpin_all();
  vars_[f.loop_var.get()] = loc;
  Xbyak::Label top, done;
  code_.L(top);
  if (r >= 0) {
    code_.cmp(Xbyak::Reg64(r), qword[rsp + end_slot]);
  } else {
    code_.mov(rax, qword[rsp + loc.offset]);
    code_.cmp(rax, qword[rsp + end_slot]);
  }
  code_.jge(done, Xbyak::CodeGenerator::T_NEAR);
  emit(f.body);
  if (r >= 0)
    code_.inc(Xbyak::Reg64(r));
  else
    code_.inc(qword[rsp + loc.offset]);
  code_.jmp(top, Xbyak::CodeGenerator::T_NEAR);
  code_.L(done);
  unbind_var(f.loop_var);
}

VarMap FunctionEmitter::known_constants() const {
  VarMap out;
  for (const auto& [v, loc] : vars_)
    if (loc.kind == VarLoc::Kind::Const) out[v] = make_int(loc.value, loc.type);
  return out;
}

void FunctionEmitter::emit_unrolled(const ForNode& f, int64_t min, int64_t extent) {
  for (int64_t i = 0; i < extent; ++i) {
    vars_[f.loop_var.get()] = {VarLoc::Kind::Const, f.loop_var->dtype, -1, 0, min + i};
    emit(f.body);
  }
  vars_.erase(f.loop_var.get());
}

bool FunctionEmitter::offer_contraction(const ForNode& f) {
  if (!m_.options.contraction_kernels) return false;
  std::vector<int> taken;
  while (taken.size() < 8) {
    int r = regs_.take_gpr(2);
    if (r < 0) break;
    taken.push_back(r);
  }
  bool done = false;
  std::string why_not = "too few free general-purpose registers here";
  if (taken.size() == 8) {
    std::vector<Xbyak::Reg64> gprs;
    for (int r : taken) gprs.emplace_back(r);
    std::vector<int> vecs = vec_pool(target_.isa);
    ContextImpl cx(*this, gprs, vecs);
    try {
      done = try_emit_contraction(cx, f, &why_not);
    } catch (...) {
      for (int r : taken) regs_.give_back_gpr(r);
      throw;
    }
  }
  for (int r : taken) regs_.give_back_gpr(r);
  if (done) ++m_.stats.contraction_nests;
  if (!m_.stats.kernels.empty()) {
    KernelStats& k = m_.stats.kernels.back();
    if (done)
      ++k.contraction_nests;
    else if (std::find(k.not_contraction.begin(), k.not_contraction.end(), why_not) ==
             k.not_contraction.end())
      k.not_contraction.push_back(why_not);
  }
  return done;
}

void FunctionEmitter::emit_store(const BufferStoreNode& s) {
  auto storage = storage_.find(s.buffer->data.get());
  if (storage != storage_.end() && storage->second.kind == StorageLoc::Kind::Rodata)
    fail("store to " + s.buffer->name + ", a view of a module constant (read-only)");
  if (s.indices.size() != 1)
    fail("store to " + s.buffer->name + " with " + std::to_string(s.indices.size()) +
         " indices (the lowered form has flat buffers)");
  if (s.value.dtype().is_vector()) {
    VecCtx cx;
    cx.lanes = s.value.dtype().lanes();
    emit_vec_store(s, cx);
    return;
  }
  if (s.value.dtype() != s.buffer->dtype)
    fail("store of " + s.value.dtype().str() + " into " + s.buffer->dtype.str() + " buffer " +
         s.buffer->name);
  int v = eval(s.value);
  int idx = -1;
  Xbyak::RegExp addr = element_address(s.buffer, s.indices[0], &idx);
  store_scalar(addr, v, s.buffer->dtype);
  regs_.release(v);
  if (idx >= 0) regs_.release(idx);
  regs_.unpin_all();
}

void FunctionEmitter::emit_allocate(const AllocateNode& a) {
  if (a.extents.size() != 1) fail("Allocate " + a.buffer_var->name + " with several extents");
  auto n = as_const_int(a.extents[0]);
  if (!n || *n < 0) fail("Allocate " + a.buffer_var->name + " of non-constant size");
  int64_t bytes = *n * a.dtype.bytes() * a.dtype.lanes();
  bytes = (bytes + 63) / 64 * 64;
  if (!outlined_ && allocated_bytes_ + bytes > kMaxStackAllocationBytes) {
    emit_heap_allocate(a, bytes);
    return;
  }
  if (allocated_bytes_ + bytes > kMaxParallelStackBytes)
    fail("Allocate " + a.buffer_var->name + " of " + std::to_string(bytes) +
         " bytes inside a parallel loop exceeds the stack allocation limit of " +
         std::to_string(kMaxParallelStackBytes) + " bytes per parallel body");
  allocated_bytes_ += static_cast<int>(bytes);
  int offset = frame_.alloc(static_cast<int>(bytes), 64);
  storage_[a.buffer_var.get()] = {StorageLoc::Kind::FrameOffset, offset};
  emit(a.body);
  storage_.erase(a.buffer_var.get());
}

void FunctionEmitter::storage_base(const Var& data, const Xbyak::Reg64& dst) {
  auto it = storage_.find(data.get());
  if (it == storage_.end())
    fail("buffer storage " + data->name + " is not a parameter, an Allocate or an AllocateConst");
  storage_address(it->second, dst);
}

void FunctionEmitter::load_storage_address(const Var& data, const Xbyak::Reg64& dst) {
  storage_base(data, dst);
}

void FunctionEmitter::eval_int_into(const Expr& e, const Xbyak::Reg64& dst) {
  if (!(e.dtype().is_integer() || e.dtype().is_bool()) || e.dtype().is_vector())
    fail("eval_int of a " + e.dtype().str() + " expression");
  int t = eval(e);
  code_.mov(dst, Xbyak::Reg64(regs_.reg(t)));
  regs_.release(t);
  regs_.unpin_all();
}

}  // namespace tirc
