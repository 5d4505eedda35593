// Functions and statements of lowered TIR as LLVM IR. Every scalar variable
// is an SSA value; loop counters live in entry-block allocas that LLVM's
// pipeline promotes to registers.
#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Metadata.h>

#include <algorithm>

#include "codegen/llvm/cuda_emitter.h"
#include "codegen/llvm/llvm_emitter.h"
#include "ir/functor.h"
#include "ir/var_use.h"

namespace tirc::llvm_gen {

namespace {

// Allocations up to this size live on the stack, larger ones come from
// tirc_alloc: the x86 generator's limit (kMaxStackAllocationBytes,
// codegen/x86/emitter.h), per allocation here.
constexpr int64_t kMaxStackAllocationBytes = 256 * 1024;
// Inside an outlined parallel body the limit is lower: worker threads have
// smaller stacks than the main one (the C generator's limit).
constexpr int64_t kMaxParallelStackAllocationBytes = 32 * 1024;

// Serial loops up to this extent around straight-line code are unrolled.
constexpr int64_t kMaxImplicitUnroll = 16;

bool has_loop(const Stmt& s) {
  struct Find : StmtVisitor {
    bool found = false;
    void visit_for(const ForNode*) override { found = true; }
  } find;
  find.visit(s);
  return find.found;
}

}  // namespace

llvm::GlobalVariable* add_global(llvm::Module& module, llvm::Type* type, bool constant,
                                 llvm::GlobalValue::LinkageTypes linkage, llvm::Constant* init,
                                 const std::string& name, unsigned address_space) {
  // GCC (with -O1 and the sanitizers) takes llvm::User's operator new with
  // its operand count and the operator delete that runs only if the
  // constructor throws for a mismatched pair; they are LLVM's own pair.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
  return new llvm::GlobalVariable(module, type, constant, linkage, init, name, nullptr,
                                  llvm::GlobalValue::NotThreadLocal, address_space);
#pragma GCC diagnostic pop
}

void refuse(const std::string& what, const SourceLoc& loc) {
  throw Error("LLVM codegen: " + what, loc);
}

int64_t constant_elements(const std::vector<Expr>& extents, const std::string& what,
                          const SourceLoc& loc) {
  int64_t n = 1;
  for (const Expr& e : extents) {
    auto v = as_const_int(e);
    if (!v || *v < 0) refuse(what + " has a non-constant or negative extent", loc);
    n *= *v;
  }
  return n;
}

llvm::FunctionCallee ModuleState::runtime(const std::string& name) {
  llvm::Type* i64 = llvm::Type::getInt64Ty(context);
  llvm::Type* i32 = llvm::Type::getInt32Ty(context);
  llvm::Type* ptr = llvm::PointerType::getUnqual(context);
  llvm::Type* void_type = llvm::Type::getVoidTy(context);
  if (name == "tirc_parallel_for")
    return module.getOrInsertFunction(name, llvm::FunctionType::get(i32, {i64, ptr, ptr}, false));
  if (name == "tirc_alloc")
    return module.getOrInsertFunction(name, llvm::FunctionType::get(ptr, {i64}, false));
  if (name == "tirc_free")
    return module.getOrInsertFunction(name, llvm::FunctionType::get(void_type, {ptr}, false));
  throw Error("LLVM codegen: no runtime function " + name);
}

llvm::GlobalVariable* ModuleState::constant(const std::string& name, const NDArray& value) {
  auto [it, inserted] = constants.try_emplace(name, nullptr);
  if (!inserted) return it->second;
  llvm::Constant* bytes = llvm::ConstantDataArray::get(
      context, llvm::ArrayRef<uint8_t>(value.data(), std::max<size_t>(value.num_bytes(), 1)));
  if (value.num_bytes() == 0)
    bytes =
        llvm::ConstantAggregateZero::get(llvm::ArrayType::get(llvm::Type::getInt8Ty(context), 1));
  auto* g = add_global(module, bytes->getType(), true, llvm::GlobalValue::PrivateLinkage, bytes,
                       "tirc_const." + name);
  g->setAlignment(llvm::Align(64));
  g->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
  it->second = g;
  return g;
}

FunctionEmitter::FunctionEmitter(ModuleState& m, llvm::Function* fn, const std::string& symbol)
    : FunctionEmitter(m, fn, symbol, nullptr) {}

FunctionEmitter::FunctionEmitter(ModuleState& m, llvm::Function* fn, const std::string& symbol,
                                 llvm::Value* failed_flag)
    : m_(m),
      c_(m.context),
      fn_(fn),
      symbol_(symbol),
      b_(m.context),
      entry_(m.context),
      failed_flag_(failed_flag) {}

llvm::BasicBlock* FunctionEmitter::new_block(const std::string& name) {
  return llvm::BasicBlock::Create(c_, name, fn_);
}

llvm::AllocaInst* FunctionEmitter::entry_alloca(llvm::Type* t, llvm::Value* count, uint64_t align,
                                                const std::string& name) {
  llvm::AllocaInst* a = entry_.CreateAlloca(t, count, name);
  a->setAlignment(llvm::Align(align));
  return a;
}

llvm::Value* FunctionEmitter::lookup(const VarNode* v) {
  auto it = vars_.find(v);
  if (it == vars_.end())
    refuse("variable " + v->name +
               " is not defined here (symbolic buffer shapes need a scalar parameter)",
           loc_);
  return it->second;
}

void FunctionEmitter::emit_entry(const PrimFunc& f) {
  noalias_ = has_noalias_params(f);
  llvm::BasicBlock* allocas = new_block("entry");
  llvm::BasicBlock* body = new_block("body");
  entry_.SetInsertPoint(allocas);
  b_.SetInsertPoint(body);
  const bool cuda_host = role_ == Role::cuda_host;
  for (size_t i = 0; i < f->params.size(); ++i) {
    const Param& p = f->params[i];
    llvm::Argument* arg = fn_->getArg(static_cast<unsigned>(i));
    if (p.buffer) {
      arg->setName(p.buffer->name);
      // A CUDA host function gets a CUdeviceptr (an integer): the kernels it
      // launches take it as a pointer.
      llvm::Value* pointer =
          cuda_host ? b_.CreateIntToPtr(arg, b_.getPtrTy(), p.buffer->name + ".device") : arg;
      if (noalias_ && !cuda_host) arg->addAttr(llvm::Attribute::NoAlias);
      for (const Var& v : {p.var, p.buffer->data})
        if (v && !vars_.count(v.get())) bind(v, pointer);
      continue;
    }
    arg->setName(p.var->name);
    bind(p.var, from_storage(p.var->dtype, arg));
  }
  if (cuda_host) begin_cuda_host(f);
  stmt(f->body);
  if (!b_.GetInsertBlock()->getTerminator()) b_.CreateRet(b_.getInt32(0));
  entry_.CreateBr(body);
}

void FunctionEmitter::fail(llvm::Value* code) {
  for (auto it = heap_blocks_.rbegin(); it != heap_blocks_.rend(); ++it)
    if (role_ == Role::cuda_host)
      b_.CreateCall(driver_function(m_, "cuMemFreeAsync"),
                    {b_.CreatePtrToInt(*it, b_.getInt64Ty()), stream_});
    else
      b_.CreateCall(m_.runtime("tirc_free"), {*it});
  if (failed_flag_) {
    b_.CreateStore(b_.getInt32(1), failed_flag_);
    b_.CreateRetVoid();
  } else {
    b_.CreateRet(code);
  }
}

void FunctionEmitter::stmt(const Stmt& s) {
  if (!s) return;
  const SourceLoc saved = loc_;
  if (s->loc.line > 0) loc_ = s->loc;
  switch (s.kind()) {
    case StmtKind::BufferStore:
      if (role_ == Role::cuda_host)
        launch(s);
      else if (role_ == Role::cuda_device)
        kernel_store(*s.as<BufferStoreNode>());
      else
        store(*s.as<BufferStoreNode>());
      break;
    case StmtKind::For:
      if (role_ == Role::cuda_host)
        launch(s);
      else
        loop(*s.as<ForNode>());
      break;
    case StmtKind::Seq:
      if (role_ == Role::cuda_device)
        kernel_seq(*s.as<SeqStmtNode>());
      else
        for (const Stmt& c : s.as<SeqStmtNode>()->seq) stmt(c);
      break;
    case StmtKind::IfThenElse:
      if (role_ == Role::cuda_host)
        launch(s);
      else
        if_then_else(*s.as<IfThenElseNode>());
      break;
    case StmtKind::LetStmt:
      let(*s.as<LetStmtNode>());
      break;
    case StmtKind::Evaluate: {
      const Expr& v = s.as<EvaluateNode>()->value;
      if (v.as<StringImmNode>() || v.as<IntImmNode>() || v.as<FloatImmNode>()) break;
      if (call_kernel_callee(v))
        call_kernel(*v.as<CallNode>(), loc_);
      else if (role_ == Role::cuda_device && is_warp_matrix(s))
        warp_matrix(*v.as<CallNode>());
      else if (role_ == Role::cuda_host)
        launch(s);
      else
        expr(v);
      break;
    }
    case StmtKind::Allocate:
      if (role_ == Role::cuda_host)
        device_allocate(*s.as<AllocateNode>());
      else if (role_ == Role::cuda_device)
        kernel_allocate(*s.as<AllocateNode>());
      else
        allocate(*s.as<AllocateNode>());
      break;
    case StmtKind::AllocateConst:
      allocate_const(*s.as<AllocateConstNode>());
      break;
    case StmtKind::DeclBuffer: {
      // Not part of the lowered form, but a view over storage in scope is harmless.
      auto* d = s.as<DeclBufferNode>();
      if (!vars_.count(d->buffer->data.get()))
        refuse("DeclBuffer " + d->buffer->name + " with storage of its own (run lower() first)",
               loc_);
      stmt(d->body);
      break;
    }
    case StmtKind::Block:
    case StmtKind::BlockRealize:
      refuse("blocks are not part of the lowered form (run lower() first)", loc_);
  }
  loc_ = saved;
}

void FunctionEmitter::store(const BufferStoreNode& s) {
  if (s.indices.size() != 1)
    refuse("buffer " + s.buffer->name + " is stored with " + std::to_string(s.indices.size()) +
               " indices; the lowered form has flat (1-D) buffers (run lower() first)",
           loc_);
  const DataType elem = s.buffer->dtype;
  if (s.value.dtype().element_of() != elem)
    refuse("store of " + s.value.dtype().str() + " into buffer " + s.buffer->name + " of " +
               elem.str(),
           loc_);
  const Expr& index = s.indices[0];
  const int lanes = std::max(s.value.dtype().lanes(), index.dtype().lanes());
  llvm::Value* value = expr(s.value);
  auto* ramp = index.as<RampNode>();
  if (lanes > 1 && ramp && is_const_int(ramp->stride, 1) && s.value.dtype().lanes() == lanes) {
    // Consecutive elements: one vector store.
    llvm::Value* address = element_address(s.buffer, index_expr(ramp->base));
    llvm::StoreInst* st = b_.CreateStore(to_storage(elem, value), address);
    st->setAlignment(llvm::Align(static_cast<uint64_t>(elem.bytes())));
    return;
  }
  llvm::Value* idx = index_expr(index);
  // Lane by lane, in lane order: the interpreter's order when lanes collide.
  for (int l = 0; l < lanes; ++l) {
    llvm::Value* i = idx->getType()->isVectorTy() ? b_.CreateExtractElement(idx, l) : idx;
    llvm::Value* v = value->getType()->isVectorTy() ? b_.CreateExtractElement(value, l) : value;
    b_.CreateStore(to_storage(elem, v), element_address(s.buffer, i));
  }
}

void FunctionEmitter::loop(const ForNode& f) {
  const DataType t = f.loop_var->dtype;
  if (!t.is_integer() || !t.is_scalar())
    refuse("loop variable " + f.loop_var->name + " is not a scalar integer", loc_);
  if (f.for_kind == ForKind::ThreadBinding) {
    if (role_ == Role::cuda_device) return thread_loop(f);
    refuse("thread-bound loop " + f.loop_var->name + " has no CPU meaning", loc_);
  }
  // Inside a kernel a Parallel loop runs serially in its thread.
  if (f.for_kind == ForKind::Parallel && !failed_flag_ && role_ == Role::cpu)
    return parallel_loop(f);
  if (f.min.dtype().is_vector() || f.extent.dtype().is_vector())
    refuse("loop " + f.loop_var->name + " has a vector bound", loc_);
  if (f.for_kind == ForKind::Vectorized && role_ == Role::cuda_device && vector_copy(f)) return;

  llvm::Type* vt = value_type(c_, t);
  llvm::Value* lo = b_.CreateSExtOrTrunc(expr(f.min), vt);
  llvm::Value* end = b_.CreateAdd(lo, b_.CreateSExtOrTrunc(expr(f.extent), vt));
  llvm::AllocaInst* counter = entry_alloca(vt, nullptr, t.bytes(), f.loop_var->name + ".addr");
  b_.CreateStore(lo, counter);
  llvm::BasicBlock* cond = new_block(f.loop_var->name + ".cond");
  llvm::BasicBlock* body = new_block(f.loop_var->name + ".body");
  llvm::BasicBlock* exit = new_block(f.loop_var->name + ".exit");
  b_.CreateBr(cond);
  b_.SetInsertPoint(cond);
  llvm::Value* i = b_.CreateLoad(vt, counter, f.loop_var->name);
  b_.CreateCondBr(t.is_int() ? b_.CreateICmpSLT(i, end) : b_.CreateICmpULT(i, end), body, exit);
  b_.SetInsertPoint(body);
  bind(f.loop_var, i);
  stmt(f.body);
  if (role_ == Role::cuda_device) kernel_loop_end(f);
  unbind(f.loop_var);
  b_.CreateStore(b_.CreateAdd(i, llvm::ConstantInt::get(vt, 1)), counter);
  llvm::BranchInst* latch = b_.CreateBr(cond);
  auto extent = as_const_int(f.extent);
  // Unrolled loops, and short loops around straight-line code (the rows of a
  // register tile around its vector statements): once unrolled, LLVM keeps
  // what they accumulate in registers across the loops outside.
  const bool short_straight_line =
      f.for_kind == ForKind::Serial && extent && *extent <= kMaxImplicitUnroll && !has_loop(f.body);
  if ((f.for_kind == ForKind::Unrolled || short_straight_line) && extent && *extent > 1 &&
      *extent <= 64) {
    // The loop's own metadata node first (self-reference), then the hint.
    llvm::Metadata* hint = llvm::MDNode::get(c_, llvm::MDString::get(c_, "llvm.loop.unroll.full"));
    llvm::TempMDTuple temp = llvm::MDNode::getTemporary(c_, {});
    llvm::MDNode* id = llvm::MDNode::getDistinct(c_, {temp.get(), hint});
    id->replaceOperandWith(0, id);
    latch->setMetadata(llvm::LLVMContext::MD_loop, id);
  }
  b_.SetInsertPoint(exit);
}

void FunctionEmitter::parallel_loop(const ForNode& f) {
  ++m_.stats.parallel_loops;
  // Every visible variable the body reads travels in a closure struct:
  // { i32 failed, i64 lo, captured values... }.
  const VarSet used = vars_and_storage_of(f.body);
  std::vector<std::pair<const VarNode*, llvm::Value*>> captured;
  for (const auto& [v, value] : vars_)
    if (used.count(v) && v != f.loop_var.get()) captured.emplace_back(v, value);
  // Map iteration order is by address; sort by name then address for a stable layout.
  std::sort(captured.begin(), captured.end(), [](const auto& a, const auto& b) {
    return a.first->name != b.first->name ? a.first->name < b.first->name : a.first < b.first;
  });
  std::vector<llvm::Type*> fields = {b_.getInt32Ty(), b_.getInt64Ty()};
  for (const auto& [v, value] : captured) fields.push_back(value->getType());
  llvm::StructType* closure_type = llvm::StructType::get(c_, fields);

  llvm::Type* ptr = b_.getPtrTy();
  auto* body_type =
      llvm::FunctionType::get(b_.getVoidTy(), {b_.getInt64Ty(), b_.getInt64Ty(), ptr}, false);
  const std::string name = symbol_ + "_parallel_" + std::to_string(next_outlined_++);
  llvm::Function* outlined =
      llvm::Function::Create(body_type, llvm::GlobalValue::InternalLinkage, name, m_.module);

  // The caller fills the closure and runs the body on the thread pool.
  llvm::Type* vt = value_type(c_, f.loop_var->dtype);
  llvm::Value* lo = b_.CreateSExtOrTrunc(expr(f.min), vt);
  llvm::Value* extent = b_.CreateSExtOrTrunc(expr(f.extent), vt);
  llvm::AllocaInst* closure = entry_alloca(closure_type, nullptr, 16, name + ".closure");
  b_.CreateStore(b_.getInt32(0), b_.CreateStructGEP(closure_type, closure, 0));
  b_.CreateStore(f.loop_var->dtype.is_int() ? b_.CreateSExt(lo, b_.getInt64Ty())
                                            : b_.CreateZExt(lo, b_.getInt64Ty()),
                 b_.CreateStructGEP(closure_type, closure, 1));
  for (size_t k = 0; k < captured.size(); ++k)
    b_.CreateStore(captured[k].second,
                   b_.CreateStructGEP(closure_type, closure, static_cast<unsigned>(k + 2)));
  llvm::Value* n = f.loop_var->dtype.is_int() ? b_.CreateSExt(extent, b_.getInt64Ty())
                                              : b_.CreateZExt(extent, b_.getInt64Ty());
  llvm::BasicBlock* run = new_block(name + ".run");
  llvm::BasicBlock* check = new_block(name + ".check");
  b_.CreateCondBr(b_.CreateICmpSGT(n, b_.getInt64(0)), run, check);
  b_.SetInsertPoint(run);
  b_.CreateCall(m_.runtime("tirc_parallel_for"), {n, outlined, closure});
  b_.CreateBr(check);
  b_.SetInsertPoint(check);
  llvm::Value* failed =
      b_.CreateLoad(b_.getInt32Ty(), b_.CreateStructGEP(closure_type, closure, 0));
  llvm::BasicBlock* bad = new_block(name + ".failed");
  llvm::BasicBlock* ok = new_block(name + ".done");
  b_.CreateCondBr(b_.CreateICmpNE(failed, b_.getInt32(0)), bad, ok);
  b_.SetInsertPoint(bad);
  fail(b_.getInt32(-1));
  b_.SetInsertPoint(ok);

  // The outlined function only unpacks the closure and calls the body, whose
  // parameters are the captured values: pointer parameters of a tir.noalias
  // function stay noalias there (distinct storages; one parameter per
  // storage), and once LLVM inlines the body it keeps that as alias scopes,
  // so what a loop accumulates can stay in registers.
  std::vector<llvm::Value*> distinct;  // captured values, each once
  std::vector<size_t> slot_of(captured.size());
  for (size_t k = 0; k < captured.size(); ++k) {
    auto it = std::find(distinct.begin(), distinct.end(), captured[k].second);
    slot_of[k] = static_cast<size_t>(it - distinct.begin());
    if (it == distinct.end()) distinct.push_back(captured[k].second);
  }
  std::vector<llvm::Type*> body_params = {b_.getInt64Ty(), b_.getInt64Ty(), b_.getInt64Ty(), ptr};
  for (llvm::Value* v : distinct) body_params.push_back(v->getType());
  llvm::Function* body_fn =
      llvm::Function::Create(llvm::FunctionType::get(b_.getVoidTy(), body_params, false),
                             llvm::GlobalValue::InternalLinkage, name + ".body", m_.module);
  body_fn->addFnAttr(llvm::Attribute::AlwaysInline);
  {
    llvm::IRBuilder<> tb(llvm::BasicBlock::Create(c_, "entry", outlined));
    llvm::Value* cl = outlined->getArg(2);
    std::vector<llvm::Value*> args = {
        outlined->getArg(0), outlined->getArg(1),
        tb.CreateLoad(tb.getInt64Ty(), tb.CreateStructGEP(closure_type, cl, 1)),
        tb.CreateStructGEP(closure_type, cl, 0)};
    // The closure holds every captured variable; the body takes each value once.
    for (size_t k = 0; k < distinct.size(); ++k) {
      const size_t field =
          static_cast<size_t>(std::find(slot_of.begin(), slot_of.end(), k) - slot_of.begin());
      args.push_back(
          tb.CreateLoad(fields[field + 2],
                        tb.CreateStructGEP(closure_type, cl, static_cast<unsigned>(field + 2))));
    }
    tb.CreateCall(body_fn, args);
    tb.CreateRetVoid();
  }

  // The body: for it in [begin, end): loop_var = lo + it.
  FunctionEmitter inner(m_, body_fn, name, nullptr);
  inner.noalias_ = noalias_;
  llvm::BasicBlock* allocas = inner.new_block("entry");
  llvm::BasicBlock* start = inner.new_block("body");
  inner.entry_.SetInsertPoint(allocas);
  llvm::IRBuilder<>& ib = inner.b_;
  ib.SetInsertPoint(start);
  llvm::Value* begin = body_fn->getArg(0);
  llvm::Value* end = body_fn->getArg(1);
  llvm::Value* base = body_fn->getArg(2);
  inner.failed_flag_ = body_fn->getArg(3);
  for (size_t k = 0; k < distinct.size(); ++k) {
    llvm::Argument* arg = body_fn->getArg(static_cast<unsigned>(k + 4));
    if (noalias_ && arg->getType()->isPointerTy()) arg->addAttr(llvm::Attribute::NoAlias);
  }
  for (size_t k = 0; k < captured.size(); ++k) {
    llvm::Argument* arg = body_fn->getArg(static_cast<unsigned>(slot_of[k] + 4));
    arg->setName(captured[k].first->name);
    inner.vars_[captured[k].first] = arg;
  }
  llvm::AllocaInst* counter = inner.entry_alloca(ib.getInt64Ty(), nullptr, 8, "it.addr");
  ib.CreateStore(begin, counter);
  llvm::BasicBlock* cond = inner.new_block("it.cond");
  llvm::BasicBlock* body = inner.new_block("it.body");
  llvm::BasicBlock* exit = inner.new_block("it.exit");
  ib.CreateBr(cond);
  ib.SetInsertPoint(cond);
  llvm::Value* it = ib.CreateLoad(ib.getInt64Ty(), counter, "it");
  ib.CreateCondBr(ib.CreateICmpSLT(it, end), body, exit);
  ib.SetInsertPoint(body);
  inner.bind(f.loop_var, ib.CreateTrunc(ib.CreateAdd(base, it), vt, f.loop_var->name));
  inner.loc_ = loc_;
  inner.stmt(f.body);
  ib.CreateStore(ib.CreateAdd(it, ib.getInt64(1)), counter);
  ib.CreateBr(cond);
  ib.SetInsertPoint(exit);
  ib.CreateRetVoid();
  inner.entry_.CreateBr(start);
}

void FunctionEmitter::if_then_else(const IfThenElseNode& s) {
  if (s.cond.dtype().is_vector()) refuse("an if condition must be a scalar", loc_);
  llvm::Value* cond = expr(s.cond);
  llvm::BasicBlock* then_block = new_block("then");
  llvm::BasicBlock* else_block = s.else_case ? new_block("else") : nullptr;
  llvm::BasicBlock* merge = new_block("endif");
  b_.CreateCondBr(cond, then_block, else_block ? else_block : merge);
  b_.SetInsertPoint(then_block);
  stmt(s.then_case);
  b_.CreateBr(merge);
  if (else_block) {
    b_.SetInsertPoint(else_block);
    stmt(s.else_case);
    b_.CreateBr(merge);
  }
  b_.SetInsertPoint(merge);
}

void FunctionEmitter::let(const LetStmtNode& l) {
  llvm::Value* value;
  if (l.var->dtype.is_handle()) {
    auto* from = l.value.as<VarNode>();
    if (!from || !lookup(from)->getType()->isPointerTy())
      refuse("handle let of " + l.var->name + " must bind another handle variable", loc_);
    value = lookup(from);
  } else {
    value = expr(l.value);
  }
  bind(l.var, value);
  stmt(l.body);
  unbind(l.var);
}

void FunctionEmitter::allocate(const AllocateNode& a) {
  const int64_t elems =
      constant_elements(a.extents, "allocation " + a.buffer_var->name, loc_) * a.dtype.lanes();
  const int64_t bytes = std::max<int64_t>(elems * a.dtype.element_of().bytes(), 1);
  const int64_t limit = failed_flag_ ? kMaxParallelStackAllocationBytes : kMaxStackAllocationBytes;
  if (bytes <= limit) {
    bind(a.buffer_var, entry_alloca(b_.getInt8Ty(), b_.getInt64(bytes), 64, a.buffer_var->name));
    stmt(a.body);
    unbind(a.buffer_var);
    return;
  }
  // The runtime's allocator aligns to 64 bytes.
  llvm::Value* block =
      b_.CreateCall(m_.runtime("tirc_alloc"), {b_.getInt64(bytes)}, a.buffer_var->name);
  llvm::BasicBlock* bad = new_block(a.buffer_var->name + ".nomem");
  llvm::BasicBlock* ok = new_block(a.buffer_var->name + ".ok");
  b_.CreateCondBr(b_.CreateIsNull(block), bad, ok);
  b_.SetInsertPoint(bad);
  fail(b_.getInt32(-1));
  b_.SetInsertPoint(ok);
  heap_blocks_.push_back(block);
  bind(a.buffer_var, block);
  stmt(a.body);
  unbind(a.buffer_var);
  heap_blocks_.pop_back();
  b_.CreateCall(m_.runtime("tirc_free"), {block});
}

void FunctionEmitter::allocate_const(const AllocateConstNode& a) {
  const std::string what = "allocate_const " + a.buffer_var->name;
  if (!m_.options.module)
    refuse(what + " binds constant '" + a.constant + "' but no module was given", loc_);
  const NDArray* c = m_.options.module->find_constant(a.constant);
  if (!c) refuse(what + ": the module has no constant '" + a.constant + "'", loc_);
  if (c->dtype() != a.dtype)
    refuse(what + " is " + a.dtype.str() + " but the constant is " + c->dtype().str(), loc_);
  const int64_t elems = constant_elements(a.extents, what, loc_);
  if (elems != c->num_elements())
    refuse(what + " has " + std::to_string(elems) + " elements, the constant " +
               std::to_string(c->num_elements()),
           loc_);
  bind(a.buffer_var, role_ == Role::cuda_host ? device_constant(a) : m_.constant(a.constant, *c));
  stmt(a.body);
  unbind(a.buffer_var);
}

llvm::Value* FunctionEmitter::handle_argument(const Expr& arg, const std::string& which,
                                              const SourceLoc& loc) {
  if (auto* v = arg.as<VarNode>()) {
    auto it = vars_.find(v);
    if (it == vars_.end() || !it->second->getType()->isPointerTy())
      refuse(which + ": " + v->name + " is not a buffer or an allocation visible here", loc);
    return it->second;
  }
  auto* c = arg.as<CallNode>();
  if (c && c->op == kAddressOf && c->args.size() == 1) {
    auto* l = c->args[0].as<BufferLoadNode>();
    if (!l || l->indices.size() != 1 || l->indices[0].dtype().is_vector())
      refuse(which + ": address_of needs an element of a flat buffer", loc);
    return element_address(l->buffer, index_expr(l->indices[0]));
  }
  refuse(which + " is not a buffer handle (a data var, an allocation or address_of)", loc);
}

void FunctionEmitter::call_kernel(const CallNode& c, const SourceLoc& loc) {
  const std::string& name = c.args[0].as<StringImmNode>()->value;
  if (failed_flag_) refuse("call_kernel('" + name + "') inside a parallel loop", loc);
  auto found = m_.callees.find(name);
  if (found == m_.callees.end())
    refuse("call_kernel: no function named '" + name + "' is being compiled with this one", loc);
  const PrimFunc& f = *found->second.func;
  if (c.args.size() - 1 != f->params.size())
    refuse("call_kernel('" + name + "') passes " + std::to_string(c.args.size() - 1) +
               " arguments, the function takes " + std::to_string(f->params.size()),
           loc);
  std::vector<llvm::Value*> args;
  for (size_t i = 0; i < f->params.size(); ++i) {
    const Param& p = f->params[i];
    const Expr& arg = c.args[i + 1];
    const std::string which = "call_kernel argument " + std::to_string(i);
    if (p.buffer) {
      args.push_back(handle_argument(arg, which, loc));
      continue;
    }
    if (arg.dtype() != p.var->dtype)
      refuse(which + " is " + arg.dtype().str() + " but the parameter is " + p.var->dtype.str(),
             loc);
    args.push_back(to_storage(p.var->dtype, expr(arg)));
  }
  if (role_ == Role::cuda_host) {  // device pointers as CUdeviceptr, then the stream
    for (llvm::Value*& a : args)
      if (a->getType()->isPointerTy()) a = b_.CreatePtrToInt(a, b_.getInt64Ty());
    args.push_back(stream_);
  }
  llvm::Value* status = b_.CreateCall(found->second.function, args, name + ".status");
  llvm::BasicBlock* bad = new_block(name + ".failed");
  llvm::BasicBlock* ok = new_block(name + ".ok");
  b_.CreateCondBr(b_.CreateICmpNE(status, b_.getInt32(0)), bad, ok);
  b_.SetInsertPoint(bad);
  fail(status);
  b_.SetInsertPoint(ok);
}

}  // namespace tirc::llvm_gen
