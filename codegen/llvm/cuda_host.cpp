// The host side of a CUDA object: each function's statements on the host
// (kernel launches, stream-ordered device memory, calls of other functions)
// and the loader that brings the PTX and the constants to the device once.
#include <llvm/IR/Constants.h>
#include <llvm/IR/Metadata.h>

#include <algorithm>

#include "codegen/llvm/cuda_emitter.h"
#include "ir/text/printer.h"
#include "ir/var_use.h"

namespace tirc::llvm_gen {

llvm::FunctionCallee driver_function(ModuleState& host, const std::string& name) {
  llvm::LLVMContext& c = host.context;
  llvm::Type* i32 = llvm::Type::getInt32Ty(c);
  llvm::Type* i64 = llvm::Type::getInt64Ty(c);
  llvm::Type* ptr = llvm::PointerType::getUnqual(c);
  // CUresult is an int; CUdeviceptr an unsigned 64-bit integer; handles are pointers.
  static const std::map<std::string, std::vector<int>> shapes = {
      // 0: ptr, 1: i32, 2: i64
      {"cuModuleLoadData", {0, 0}},
      {"cuModuleGetFunction", {0, 0, 0}},
      {"cuLaunchKernel", {0, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0}},
      {"cuMemAllocAsync", {0, 2, 0}},
      {"cuMemFreeAsync", {2, 0}},
      {"cuMemAlloc_v2", {0, 2}},
      {"cuMemcpyHtoD_v2", {2, 0, 2}},
  };
  auto it = shapes.find(name);
  if (it == shapes.end()) throw Error("LLVM codegen: no CUDA driver function " + name);
  std::vector<llvm::Type*> params;
  for (int k : it->second) params.push_back(k == 0 ? ptr : k == 1 ? i32 : i64);
  return host.module.getOrInsertFunction(name, llvm::FunctionType::get(i32, params, false));
}

void FunctionEmitter::emit_cuda_host(const PrimFunc& f) {
  role_ = Role::cuda_host;
  emit_entry(f);
}

void FunctionEmitter::begin_cuda_host(const PrimFunc& f) {
  stream_ = fn_->getArg(static_cast<unsigned>(f->params.size()));
  stream_->setName("stream");
  llvm::Value* loaded = b_.CreateCall(m_.cuda->loader, {}, "loaded");
  llvm::BasicBlock* bad = new_block("load.failed");
  llvm::BasicBlock* ok = new_block("load.ok");
  b_.CreateCondBr(b_.CreateICmpNE(loaded, b_.getInt32(0)), bad, ok);
  b_.SetInsertPoint(bad);
  b_.CreateRet(loaded);
  b_.SetInsertPoint(ok);
}

void FunctionEmitter::launch(const Stmt& s) {
  const KernelPlan plan = plan_kernel(s);
  CudaState& cuda = *m_.cuda;
  ModuleState& device = *cuda.device;

  // The host values the kernel reads, each once (a buffer's parameter and
  // data variables are one pointer), in a stable order.
  const VarSet used = vars_and_storage_of(s);
  std::vector<const VarNode*> captured;
  for (const auto& [v, value] : vars_)
    if (used.count(v)) captured.push_back(v);
  std::sort(captured.begin(), captured.end(), [](const VarNode* a, const VarNode* b) {
    return a->name != b->name ? a->name < b->name : a < b;
  });
  std::vector<llvm::Value*> values;
  std::vector<std::vector<const VarNode*>> holders;
  for (const VarNode* v : captured) {
    llvm::Value* value = vars_.at(v);
    auto it = std::find(values.begin(), values.end(), value);
    if (it == values.end()) {
      values.push_back(value);
      holders.push_back({v});
    } else {
      holders[static_cast<size_t>(it - values.begin())].push_back(v);
    }
  }
  std::vector<llvm::Type*> types;
  for (llvm::Value*& v : values) {
    if (v->getType()->isIntegerTy(1)) v = b_.CreateZExt(v, b_.getInt8Ty());
    types.push_back(v->getType());
  }

  const std::string name = symbol_ + "_kernel" + std::to_string(next_kernel_++);
  llvm::Function* kernel =
      llvm::Function::Create(llvm::FunctionType::get(b_.getVoidTy(), types, false),
                             llvm::GlobalValue::ExternalLinkage, name, device.module);
  kernel->setCallingConv(llvm::CallingConv::PTX_Kernel);
  llvm::NamedMDNode* annotations = device.module.getOrInsertNamedMetadata("nvvm.annotations");
  llvm::Type* i32 = b_.getInt32Ty();
  annotations->addOperand(
      llvm::MDNode::get(c_, {llvm::ValueAsMetadata::get(kernel), llvm::MDString::get(c_, "kernel"),
                             llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(i32, 1))}));
  {
    FunctionEmitter body(device, kernel, name);
    body.noalias_ = noalias_;
    body.loc_ = loc_;
    body.emit_kernel(s, plan, holders);
  }

  // Launch sizes from the plan (host expressions), 1 where a tag is unused.
  std::vector<llvm::Value*> dims;
  std::string shape;
  llvm::Value* nonempty = b_.getTrue();
  for (const std::string& tag : KernelPlan::tags()) {
    const KernelPlan::Axis* a = plan.axis(tag);
    llvm::Value* d = a ? b_.CreateSExtOrTrunc(expr(a->extent), b_.getInt64Ty()) : b_.getInt64(1);
    nonempty = b_.CreateAnd(nonempty, b_.CreateICmpSGT(d, b_.getInt64(0)));
    dims.push_back(b_.CreateTrunc(d, i32));
    shape += std::string(shape.empty()      ? "grid ("
                         : dims.size() == 4 ? "), block ("
                                            : ", ") +
             (a ? print_expr(a->extent) : "1");
  }
  m_.stats.kernels.push_back(name + ": " + shape + ")");

  auto* slot = add_global(m_.module, b_.getPtrTy(), false, llvm::GlobalValue::InternalLinkage,
                          llvm::ConstantPointerNull::get(b_.getPtrTy()), name);
  cuda.kernels.push_back({name, slot});

  llvm::AllocaInst* args =
      entry_alloca(llvm::ArrayType::get(b_.getPtrTy(), std::max<size_t>(values.size(), 1)), nullptr,
                   8, name + ".args");
  for (size_t k = 0; k < values.size(); ++k) {
    llvm::AllocaInst* cell = entry_alloca(types[k], nullptr, 8, name + ".arg");
    b_.CreateStore(values[k], cell);
    b_.CreateStore(
        cell, b_.CreateConstGEP2_32(args->getAllocatedType(), args, 0, static_cast<unsigned>(k)));
  }
  llvm::BasicBlock* run = new_block(name + ".launch");
  llvm::BasicBlock* done = new_block(name + ".done");
  b_.CreateCondBr(nonempty, run, done);
  b_.SetInsertPoint(run);
  llvm::Value* function = b_.CreateLoad(b_.getPtrTy(), slot);
  std::vector<llvm::Value*> call = {function};
  call.insert(call.end(), dims.begin(), dims.end());
  call.insert(call.end(),
              {b_.getInt32(0), stream_, args, llvm::ConstantPointerNull::get(b_.getPtrTy())});
  llvm::Value* status =
      b_.CreateCall(driver_function(m_, "cuLaunchKernel"), call, name + ".status");
  llvm::BasicBlock* bad = new_block(name + ".failed");
  b_.CreateCondBr(b_.CreateICmpNE(status, b_.getInt32(0)), bad, done);
  b_.SetInsertPoint(bad);
  fail(status);
  b_.SetInsertPoint(done);
}

void FunctionEmitter::device_allocate(const AllocateNode& a) {
  // Tensor-core accumulators are a warp's registers, inside its kernel.
  if (a.scope == "wmma.accumulator") {
    std::optional<Stmt> placed = place_accumulator(a);
    if (!placed)
      refuse("accumulator " + a.buffer_var->name +
                 " (scope \"wmma.accumulator\") is outside every kernel and cannot be moved into "
                 "one warp's iteration: allocate it inside the threadIdx.y/z loops, or use it "
                 "only in warp matrix operations of one kernel at offsets of those loops' "
                 "variables plus a non-negative part",
             loc_);
    return stmt(*placed);
  }
  // The schedule's race proofs take a "shared" buffer to be each GPU block's
  // own (schedule/iteration_conflict.h): in device memory the blocks would share it.
  if (a.scope == "shared")
    refuse("allocation " + a.buffer_var->name +
               " in scope \"shared\" is outside every kernel: shared memory is a GPU block's "
               "own, so it must be allocated inside the blockIdx loops (the lowering moves it "
               "there only when each block writes what it reads)",
           loc_);
  const int64_t elems =
      constant_elements(a.extents, "allocation " + a.buffer_var->name, loc_) * a.dtype.lanes();
  const int64_t bytes = std::max<int64_t>(elems * a.dtype.element_of().bytes(), 1);
  llvm::AllocaInst* cell = entry_alloca(b_.getInt64Ty(), nullptr, 8, a.buffer_var->name + ".cell");
  llvm::Value* status =
      b_.CreateCall(driver_function(m_, "cuMemAllocAsync"), {cell, b_.getInt64(bytes), stream_});
  llvm::BasicBlock* bad = new_block(a.buffer_var->name + ".nomem");
  llvm::BasicBlock* ok = new_block(a.buffer_var->name + ".ok");
  b_.CreateCondBr(b_.CreateICmpNE(status, b_.getInt32(0)), bad, ok);
  b_.SetInsertPoint(bad);
  fail(status);
  b_.SetInsertPoint(ok);
  llvm::Value* block =
      b_.CreateIntToPtr(b_.CreateLoad(b_.getInt64Ty(), cell), b_.getPtrTy(), a.buffer_var->name);
  heap_blocks_.push_back(block);
  bind(a.buffer_var, block);
  stmt(a.body);
  unbind(a.buffer_var);
  heap_blocks_.pop_back();
  // Freed in stream order: after the kernels enqueued before it.
  b_.CreateCall(driver_function(m_, "cuMemFreeAsync"),
                {b_.CreatePtrToInt(block, b_.getInt64Ty()), stream_});
}

llvm::Value* FunctionEmitter::device_constant(const AllocateConstNode& a) {
  const NDArray& value = *m_.options.module->find_constant(a.constant);
  CudaState& cuda = *m_.cuda;
  auto [it, inserted] = cuda.constants.try_emplace(a.constant, CudaState::Constant{});
  if (inserted) {
    it->second.value = &value;
    it->second.host = m_.constant(a.constant, value);
    it->second.device =
        add_global(m_.module, b_.getInt64Ty(), false, llvm::GlobalValue::InternalLinkage,
                   b_.getInt64(0), "tirc_cuda_const." + a.constant);
  }
  return b_.CreateIntToPtr(b_.CreateLoad(b_.getInt64Ty(), it->second.device), b_.getPtrTy(),
                           a.buffer_var->name);
}

void emit_cuda_loader(ModuleState& host, const std::string& ptx, const std::string& fatbin) {
  llvm::LLVMContext& c = host.context;
  CudaState& cuda = *host.cuda;
  llvm::Function* fn = cuda.loader;
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(c, "entry", fn));
  llvm::Type* i32 = b.getInt32Ty();
  auto global_i32 = [&](const std::string& name) {
    return add_global(host.module, i32, false, llvm::GlobalValue::InternalLinkage, b.getInt32(0),
                      name);
  };
  llvm::GlobalVariable* loaded = global_i32("tirc_cuda_loaded");
  llvm::GlobalVariable* lock = global_i32("tirc_cuda_lock");
  llvm::Constant* text = llvm::ConstantDataArray::getString(c, ptx, true);
  auto* image = add_global(host.module, text->getType(), true, llvm::GlobalValue::PrivateLinkage,
                           text, "tirc_cuda_ptx");
  auto* module_cell =
      add_global(host.module, b.getPtrTy(), false, llvm::GlobalValue::InternalLinkage,
                 llvm::ConstantPointerNull::get(b.getPtrTy()), "tirc_cuda_module");

  auto block = [&](const std::string& name) { return llvm::BasicBlock::Create(c, name, fn); };
  auto atomic_load = [&](llvm::GlobalVariable* flag, llvm::AtomicOrdering order) {
    llvm::LoadInst* value = b.CreateLoad(i32, flag);
    value->setAtomic(order);
    value->setAlignment(llvm::Align(4));
    return value;
  };
  auto atomic_store = [&](int value, llvm::GlobalVariable* flag) {
    llvm::StoreInst* st = b.CreateStore(b.getInt32(value), flag);
    st->setAtomic(llvm::AtomicOrdering::Release);
    st->setAlignment(llvm::Align(4));
  };
  // Fast path: loaded already (acquire pairs with the release below).
  llvm::Value* done = atomic_load(loaded, llvm::AtomicOrdering::Acquire);
  llvm::BasicBlock* spin = block("lock");
  llvm::BasicBlock* fast = block("ready");
  b.CreateCondBr(b.CreateICmpNE(done, b.getInt32(0)), fast, spin);
  b.SetInsertPoint(fast);
  b.CreateRet(b.getInt32(0));
  // A spin lock: the first caller loads while the others wait.
  b.SetInsertPoint(spin);
  llvm::Value* got = b.CreateExtractValue(
      b.CreateAtomicCmpXchg(lock, b.getInt32(0), b.getInt32(1), llvm::MaybeAlign(4),
                            llvm::AtomicOrdering::Acquire, llvm::AtomicOrdering::Monotonic),
      1);
  llvm::BasicBlock* locked = block("locked");
  b.CreateCondBr(got, locked, spin);
  b.SetInsertPoint(locked);
  auto unlock_and_return = [&](llvm::Value* status) {
    atomic_store(0, lock);
    b.CreateRet(status);
  };
  llvm::Value* again = atomic_load(loaded, llvm::AtomicOrdering::Monotonic);
  llvm::BasicBlock* work = block("load");
  llvm::BasicBlock* raced = block("raced");
  b.CreateCondBr(b.CreateICmpNE(again, b.getInt32(0)), raced, work);
  b.SetInsertPoint(raced);
  unlock_and_return(b.getInt32(0));
  b.SetInsertPoint(work);
  // Each driver call: on failure, unlock and return its status.
  auto checked = [&](const std::string& f, std::vector<llvm::Value*> args) {
    llvm::Value* status = b.CreateCall(driver_function(host, f), args);
    llvm::BasicBlock* bad = block(f + ".failed");
    llvm::BasicBlock* ok = block(f + ".ok");
    b.CreateCondBr(b.CreateICmpNE(status, b.getInt32(0)), bad, ok);
    b.SetInsertPoint(bad);
    unlock_and_return(status);
    b.SetInsertPoint(ok);
  };
  if (!fatbin.empty()) {
    // The driver takes the fat binary's machine code on the GPU it was made
    // for and compiles its PTX on any other; where it refuses the fat binary
    // itself (a driver older than the toolkit's format), the plain PTX.
    llvm::Constant* bytes = llvm::ConstantDataArray::getString(c, fatbin, false);
    auto* binary = add_global(host.module, bytes->getType(), true,
                              llvm::GlobalValue::PrivateLinkage, bytes, "tirc_cuda_fatbin");
    binary->setAlignment(llvm::Align(16));
    llvm::Value* status =
        b.CreateCall(driver_function(host, "cuModuleLoadData"), {module_cell, binary});
    llvm::BasicBlock* from_ptx = block("ptx");
    llvm::BasicBlock* loaded_fat = block("fatbin.ok");
    b.CreateCondBr(b.CreateICmpNE(status, b.getInt32(0)), from_ptx, loaded_fat);
    b.SetInsertPoint(from_ptx);
    checked("cuModuleLoadData", {module_cell, image});
    b.CreateBr(loaded_fat);
    b.SetInsertPoint(loaded_fat);
  } else {
    checked("cuModuleLoadData", {module_cell, image});
  }
  llvm::Value* module = b.CreateLoad(b.getPtrTy(), module_cell);
  for (const CudaState::Kernel& k : cuda.kernels)
    checked("cuModuleGetFunction", {k.slot, module, b.CreateGlobalStringPtr(k.name)});
  for (const auto& [name, constant] : cuda.constants) {
    const int64_t bytes = std::max<int64_t>(static_cast<int64_t>(constant.value->num_bytes()), 1);
    checked("cuMemAlloc_v2", {constant.device, b.getInt64(bytes)});
    checked("cuMemcpyHtoD_v2",
            {b.CreateLoad(b.getInt64Ty(), constant.device), constant.host, b.getInt64(bytes)});
  }
  atomic_store(1, loaded);
  unlock_and_return(b.getInt32(0));
}

}  // namespace tirc::llvm_gen
