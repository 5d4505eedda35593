// A kernel's shape and launch (plan_kernel) and its body as NVPTX IR: thread
// indices for thread-bound loops, shared and local allocations, barriers
// between what the threads of a block do together, and stores made once.
#include <llvm/IR/IntrinsicsNVPTX.h>

#include <algorithm>

#include "codegen/llvm/cuda.h"
#include "codegen/llvm/cuda_emitter.h"
#include "ir/functor.h"
#include "ir/intrinsic.h"
#include "ir/structural.h"
#include "ir/text/printer.h"
#include "ir/var_use.h"

namespace tirc::llvm_gen {

namespace {

bool is_block_tag(const std::string& tag) {
  return tag.rfind("blockIdx.", 0) == 0;
}

bool has_thread_loop(const Stmt& s) {
  struct Find : StmtVisitor {
    bool found = false;
    void visit_for(const ForNode* n) override {
      found |= n->for_kind == ForKind::ThreadBinding && !is_block_tag(n->thread_tag);
      StmtVisitor::visit_for(n);
    }
  } find;
  find.visit(s);
  return find.found;
}

// Walks a kernel's statement and checks where thread-bound loops stand.
class KernelShape {
 public:
  void visit(const Stmt& s, bool block_prefix) {
    if (!s) return;
    switch (s.kind()) {
      case StmtKind::For: {
        auto* f = s.as<ForNode>();
        if (f->for_kind != ForKind::ThreadBinding) {
          uniform_control(s, {f->min, f->extent}, "the range of loop " + f->loop_var->name);
          bind(f->loop_var.get());
          return visit(f->body, false);
        }
        const std::string& tag = f->thread_tag;
        if (std::find(KernelPlan::tags().begin(), KernelPlan::tags().end(), tag) ==
            KernelPlan::tags().end())
          refuse("loop " + f->loop_var->name + " is bound to \"" + tag +
                     "\", which CUDA kernels do not have (blockIdx.x/y/z, threadIdx.x/y/z)",
                 f->loc);
        if (is_block_tag(tag) && !block_prefix)
          refuse("loop " + f->loop_var->name + " (" + tag +
                     ") is not at the top of its kernel: only blockIdx loops and lets may "
                     "enclose a blockIdx loop",
                 f->loc);
        if (std::find(active_.begin(), active_.end(), tag) != active_.end())
          refuse("loop " + f->loop_var->name + " (" + tag + ") is inside another loop bound to " +
                     tag + ": a thread has one index along each axis",
                 f->loc);
        for (const Expr& e : {f->min, f->extent})
          if (uses_any(e, [&](const VarNode* v) { return bound_.count(v) > 0; }))
            refuse("the range of loop " + f->loop_var->name + " (" + tag +
                       ") depends on a variable bound inside its kernel",
                   f->loc);
        extents_[tag].push_back({f->extent, f->loc});
        const bool thread = !is_block_tag(tag);
        if (thread) active_.push_back(tag);
        bind(f->loop_var.get());
        visit(f->body, block_prefix && !thread);
        if (thread) active_.pop_back();
        return;
      }
      case StmtKind::LetStmt: {
        auto* l = s.as<LetStmtNode>();
        bind(l->var.get());
        return visit(l->body, block_prefix);
      }
      case StmtKind::Seq:
        for (const Stmt& c : s.as<SeqStmtNode>()->seq) visit(c, false);
        return;
      case StmtKind::Allocate: {
        auto* a = s.as<AllocateNode>();
        bind(a->buffer_var.get());
        return visit(a->body, false);
      }
      case StmtKind::IfThenElse: {
        auto* i = s.as<IfThenElseNode>();
        uniform_control(s, {i->cond}, "the condition of an if");
        visit(i->then_case, false);
        visit(i->else_case, false);
        return;
      }
      case StmtKind::AllocateConst:
        refuse("a constant is bound inside a kernel; bind it outside the thread-bound loops",
               s->loc);
      case StmtKind::Evaluate:
        if (call_kernel_callee(s.as<EvaluateNode>()->value))
          refuse("T.call_kernel inside a kernel (a GPU thread cannot launch a host function)",
                 s->loc);
        if (is_warp_matrix(s)) {
          if (std::find(active_.begin(), active_.end(), "threadIdx.x") != active_.end())
            refuse(
                "a warp matrix operation is inside a threadIdx.x loop: the 32 threads of a "
                "warp, all of threadIdx.x, perform it together",
                s->loc);
          warp_matrix_ = s->loc;
        }
        return;
      default:
        return;
    }
  }

  KernelPlan plan() const {
    KernelPlan out;
    int64_t threads = 1;
    for (const std::string& tag : KernelPlan::tags()) {
      auto it = extents_.find(tag);
      if (it == extents_.end()) continue;
      const auto& list = it->second;
      bool uniform = true;
      for (const auto& [e, loc] : list) uniform &= structural_equal(e, list.front().first);
      Expr extent = list.front().first;
      if (!uniform) {
        int64_t most = 0;
        for (const auto& [e, loc] : list) {
          auto c = as_const_int(e);
          if (!c)
            refuse("loops bound to " + tag + " have different extents, one of them (" +
                       print_expr(e) + ") not constant",
                   loc);
          most = std::max(most, *c);
        }
        extent = make_int(most, extent.dtype());
      }
      if (auto c = as_const_int(extent)) {
        const SourceLoc& loc = list.front().second;
        const int64_t limit = is_block_tag(tag)      ? (tag == "blockIdx.x" ? CudaLimits::max_grid_x
                                                                            : CudaLimits::max_grid_yz)
                              : tag == "threadIdx.z" ? CudaLimits::max_block_z
                                                     : CudaLimits::max_threads_per_block;
        if (*c > limit)
          refuse(tag + " extent " + std::to_string(*c) + " is over the device limit of " +
                     std::to_string(limit),
                 loc);
        if (!is_block_tag(tag)) threads *= *c;
        if (threads > CudaLimits::max_threads_per_block)
          refuse("the kernel's threads per block (" + std::to_string(threads) +
                     ") are over the device limit of " +
                     std::to_string(CudaLimits::max_threads_per_block),
                 loc);
      }
      out.axes.push_back({tag, extent});
    }
    if (warp_matrix_) add_warp(out);
    return out;
  }

  std::optional<SourceLoc> warp_matrix_;  // where the first warp matrix operation is

 private:
  void bind(const VarNode* v) {
    bound_.insert(v);
    if (!active_.empty()) per_thread_.insert(v);
  }
  // A loop or if around threadIdx loops decides where the block's threads
  // wait at barriers, so all of them must take the same path: it may not
  // read a thread's index or a value one thread computed.
  void uniform_control(const Stmt& s, std::initializer_list<Expr> exprs, const std::string& what) {
    for (const Expr& e : exprs)
      if (uses_any(e, per_thread_) && has_thread_loop(s))
        refuse(what +
                   " depends on a thread's index or on a value one thread computed, and it "
                   "encloses threadIdx loops: the threads of a block must all take it "
                   "alike, since they wait for each other at barriers inside",
               s->loc);
  }

  // A kernel with warp matrix operations runs warps: exactly 32 threads along x.
  void add_warp(KernelPlan& plan) const {
    auto x = std::find_if(plan.axes.begin(), plan.axes.end(),
                          [](const KernelPlan::Axis& a) { return a.tag == "threadIdx.x"; });
    if (x == plan.axes.end()) {
      int64_t threads = 32;
      for (const KernelPlan::Axis& a : plan.axes)
        if (!is_block_tag(a.tag)) threads *= as_const_int(a.extent).value_or(1);
      if (threads > CudaLimits::max_threads_per_block)
        refuse("the kernel's warps need " + std::to_string(threads) +
                   " threads per block, over the device limit of " +
                   std::to_string(CudaLimits::max_threads_per_block),
               *warp_matrix_);
      auto first_thread =
          std::find_if(plan.axes.begin(), plan.axes.end(),
                       [](const KernelPlan::Axis& a) { return !is_block_tag(a.tag); });
      plan.axes.insert(first_thread, {"threadIdx.x", make_int(32)});
    } else if (!is_const_int(x->extent, 32)) {
      refuse(
          "the kernel has warp matrix operations, which need exactly 32 threads along "
          "threadIdx.x (one warp), but its threadIdx.x loops launch " +
              print_expr(x->extent),
          *warp_matrix_);
    }
  }

  std::map<std::string, std::vector<std::pair<Expr, SourceLoc>>> extents_;
  VarSet bound_;                     // variables bound inside the kernel
  VarSet per_thread_;                // ... at or inside a threadIdx loop
  std::vector<std::string> active_;  // the threadIdx tags around here
};

}  // namespace

const std::vector<std::string>& KernelPlan::tags() {
  static const std::vector<std::string> tags = {"blockIdx.x",  "blockIdx.y",  "blockIdx.z",
                                                "threadIdx.x", "threadIdx.y", "threadIdx.z"};
  return tags;
}

const KernelPlan::Axis* KernelPlan::axis(const std::string& tag) const {
  for (const Axis& a : axes)
    if (a.tag == tag) return &a;
  return nullptr;
}

bool KernelPlan::Axis::covers(const Expr& loop_extent) const {
  auto a = as_const_int(extent), b = as_const_int(loop_extent);
  return a && b ? *a == *b : structural_equal(extent, loop_extent);
}

std::vector<std::string> KernelPlan::thread_tags() const {
  std::vector<std::string> out;
  for (const Axis& a : axes)
    if (!is_block_tag(a.tag)) out.push_back(a.tag);
  return out;
}

KernelPlan plan_kernel(const Stmt& s) {
  KernelShape shape;
  shape.visit(s, true);
  KernelPlan plan = shape.plan();
  if (shape.warp_matrix_) check_warp_matrix(s);
  return plan;
}

void FunctionEmitter::emit_kernel(const Stmt& body, const KernelPlan& plan,
                                  const std::vector<std::vector<const VarNode*>>& params) {
  role_ = Role::cuda_device;
  plan_ = &plan;
  llvm::BasicBlock* allocas = new_block("entry");
  llvm::BasicBlock* start = new_block("body");
  entry_.SetInsertPoint(allocas);
  b_.SetInsertPoint(start);
  for (size_t i = 0; i < params.size(); ++i) {
    llvm::Argument* arg = fn_->getArg(static_cast<unsigned>(i));
    arg->setName(params[i].front()->name);
    if (noalias_ && arg->getType()->isPointerTy()) arg->addAttr(llvm::Attribute::NoAlias);
    // A bool travels as a byte.
    llvm::Value* v = arg->getType()->isIntegerTy(8) && params[i].front()->dtype.is_bool()
                         ? b_.CreateTrunc(arg, b_.getInt1Ty())
                         : static_cast<llvm::Value*>(arg);
    for (const VarNode* var : params[i]) vars_[var] = v;
  }
  stmt(body);
  b_.CreateRetVoid();
  entry_.CreateBr(start);
}

llvm::Value* FunctionEmitter::thread_index(const std::string& tag) {
  using namespace llvm;
  static const std::map<std::string, llvm::Intrinsic::ID> ids = {
      {"blockIdx.x", llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x},
      {"blockIdx.y", llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_y},
      {"blockIdx.z", llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_z},
      {"threadIdx.x", llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x},
      {"threadIdx.y", llvm::Intrinsic::nvvm_read_ptx_sreg_tid_y},
      {"threadIdx.z", llvm::Intrinsic::nvvm_read_ptx_sreg_tid_z}};
  return b_.CreateIntrinsic(ids.at(tag), {}, {}, nullptr, tag);
}

void FunctionEmitter::thread_loop(const ForNode& f) {
  const KernelPlan::Axis* axis = plan_->axis(f.thread_tag);
  llvm::Type* vt = value_type(c_, f.loop_var->dtype);
  llvm::Value* index = b_.CreateZExtOrTrunc(thread_index(f.thread_tag), vt);
  llvm::BasicBlock* exit = nullptr;
  if (!axis->covers(f.extent)) {  // a shorter loop than its tag's launch size
    guarded_loops_.push_back(f.loop_var->name + " (" + f.thread_tag + ")");
    llvm::BasicBlock* body = new_block(f.loop_var->name + ".body");
    exit = new_block(f.loop_var->name + ".exit");
    b_.CreateCondBr(b_.CreateICmpSLT(index, b_.CreateSExtOrTrunc(expr(f.extent), vt)), body, exit);
    b_.SetInsertPoint(body);
  }
  bind(f.loop_var, b_.CreateAdd(b_.CreateSExtOrTrunc(expr(f.min), vt), index, f.loop_var->name));
  const bool thread = !is_block_tag(f.thread_tag);
  if (thread) thread_tags_.push_back(f.thread_tag);
  stmt(f.body);
  if (thread) thread_tags_.pop_back();
  unbind(f.loop_var);
  if (exit) {
    guarded_loops_.pop_back();
    b_.CreateBr(exit);
    b_.SetInsertPoint(exit);
  }
}

void FunctionEmitter::kernel_allocate(const AllocateNode& a) {
  if (a.scope == "wmma.accumulator") return fragment_allocate(a);
  kernel_allocations_.insert(a.buffer_var.get());
  if (a.scope == "local") private_buffers_.insert(a.buffer_var.get());
  const int64_t lanes = a.dtype.lanes();
  const int64_t element_bytes = a.dtype.element_of().bytes();
  const int64_t elems = constant_elements(a.extents, "allocation " + a.buffer_var->name, loc_);
  const std::vector<std::string> launched = plan_->thread_tags();
  auto own = [&](int64_t elements, const Stmt& body) {
    int64_t bytes = 0;
    const bool huge = __builtin_mul_overflow(elements, lanes * element_bytes, &bytes);
    bytes = std::max<int64_t>(bytes, 1);
    if (huge || bytes > CudaLimits::max_local_bytes)
      refuse(
          "allocation " + a.buffer_var->name + " of " +
              (huge ? std::to_string(elements) + " elements" : std::to_string(bytes) + " bytes") +
              " per thread is over the limit of " + std::to_string(CudaLimits::max_local_bytes) +
              " (local memory)",
          loc_);
    bind(a.buffer_var, entry_alloca(b_.getInt8Ty(), b_.getInt64(bytes), 16, a.buffer_var->name));
    stmt(body);
  };
  if (thread_tags_.size() == launched.size()) {
    own(elems, a.body);  // inside every threadIdx loop: the thread's own
  } else if (a.scope == "local") {
    // Outside some threadIdx loops that index it: each thread's part, its own.
    const ThreadSlice slice = slice_by_thread(a, *plan_, thread_tags_);
    own(slice.elements, slice.body);
  } else if (thread_tags_.empty()) {
    // Outside every threadIdx loop: the block's threads share it.
    const int64_t bytes = std::max<int64_t>(elems * lanes * element_bytes, 1);
    shared_bytes_ += (bytes + 15) / 16 * 16;
    if (shared_bytes_ > CudaLimits::max_static_shared_bytes)
      refuse("shared memory over the limit: allocation " + a.buffer_var->name +
                 " brings the kernel to " + std::to_string(shared_bytes_) + " bytes (at most " +
                 std::to_string(CudaLimits::max_static_shared_bytes) + ")",
             loc_);
    auto* type = llvm::ArrayType::get(b_.getInt8Ty(), static_cast<uint64_t>(bytes));
    llvm::GlobalVariable* g =
        add_global(m_.module, type, false, llvm::GlobalValue::InternalLinkage,
                   llvm::UndefValue::get(type), a.buffer_var->name + ".shared", 3);
    // 128: tensor-core loads need 32-byte aligned tiles (cuda_mma.cpp).
    g->setAlignment(llvm::Align(128));
    bind(a.buffer_var, g);
    stmt(a.body);
  } else {
    refuse("allocation " + a.buffer_var->name + " (scope \"" + a.scope +
               "\") is inside some threadIdx loops of its kernel but not all: it is neither one "
               "thread's nor the whole block's (scope \"local\" gives each thread its part)",
           loc_);
  }
  unbind(a.buffer_var);
  kernel_allocations_.erase(a.buffer_var.get());
  private_buffers_.erase(a.buffer_var.get());
}

namespace {

// The memory a statement touches, by buffer storage (kernel_seq's barriers).
class MemoryUser : public StmtVisitor {
 public:
  MemoryUser(MemoryUse& out, const VarSet& kernel_allocations, bool noalias)
      : out_(out), kernel_allocations_(kernel_allocations), noalias_(noalias) {}

 private:
  // The storage a buffer variable stands for: nullptr, all of global memory,
  // for a parameter (or host allocation) that may alias another.
  const VarNode* key(const VarNode* v) const {
    return noalias_ || inside_.count(v) || kernel_allocations_.count(v) ? v : nullptr;
  }
  void note(const VarNode* v, bool write) {
    if (private_.count(v)) return;
    (write ? out_.writes : out_.reads).insert(key(v));
  }
  void visit_allocate(const AllocateNode* n) override {
    inside_.insert(n->buffer_var.get());
    // One thread's own (inside its threadIdx loops, or its part of a local
    // tile): no other thread sees it.
    // A warp's accumulator tiles are its threads' registers.
    if (n->scope == "local" || n->scope == "wmma.accumulator") private_.insert(n->buffer_var.get());
    StmtVisitor::visit_allocate(n);
  }
  void visit_load(const BufferLoadNode* n) override {
    note(n->buffer->data.get(), false);
    StmtVisitor::visit_load(n);
  }
  void visit_store(const BufferStoreNode* n) override {
    note(n->buffer->data.get(), true);
    StmtVisitor::visit_store(n);
  }
  void visit_call(const CallNode* n) override {
    // A warp matrix operation writes its first tile and reads the others.
    if (find_warp_matrix(*n)) {
      for (size_t i = 0; i < n->args.size(); ++i) {
        const BufferLoadNode* load = address_of_element(n->args[i]);
        if (!load) {
          visit(n->args[i]);
          continue;
        }
        note(load->buffer->data.get(), i == 0);
        for (const Expr& e : load->indices) visit(e);
      }
      return;
    }
    // An address handed on: read and written, for all this walk knows.
    if (n->op == kAddressOf && !n->args.empty())
      if (auto* load = n->args[0].as<BufferLoadNode>()) note(load->buffer->data.get(), true);
    StmtVisitor::visit_call(n);
  }
  void visit_var(const VarNode* v) override {
    if (v->dtype.is_handle()) {
      note(v, true);
      note(v, false);
    }
  }

  MemoryUse& out_;
  const VarSet& kernel_allocations_;
  bool noalias_;
  VarSet inside_, private_;
};

}  // namespace

bool MemoryUse::conflicts(const MemoryUse& later) const {
  auto meets = [](const std::set<const VarNode*>& a, const std::set<const VarNode*>& b) {
    for (const VarNode* v : a)
      if (b.count(v) || (v == nullptr && !b.empty()) || b.count(nullptr)) return true;
    return false;
  };
  return meets(writes, later.reads) || meets(writes, later.writes) || meets(reads, later.writes);
}

void MemoryUse::add(const MemoryUse& other) {
  reads.insert(other.reads.begin(), other.reads.end());
  writes.insert(other.writes.begin(), other.writes.end());
}

MemoryUse FunctionEmitter::memory_use(const Stmt& s) const {
  MemoryUse out;
  MemoryUser user(out, kernel_allocations_, noalias_);
  user.visit(s);
  for (const VarNode* v : private_buffers_) {
    out.reads.erase(v);
    out.writes.erase(v);
  }
  return out;
}

bool FunctionEmitter::among_threads() const {
  return thread_tags_.size() < plan_->thread_tags().size();
}

std::vector<std::string> FunctionEmitter::unbound_thread_tags() const {
  std::vector<std::string> missing;
  for (const std::string& tag : plan_->thread_tags())
    if (std::find(thread_tags_.begin(), thread_tags_.end(), tag) == thread_tags_.end())
      missing.push_back(tag);
  return missing;
}

void FunctionEmitter::barrier() {
  // Every thread of the block must reach it: not inside a guarded loop.
  if (!guarded_loops_.empty())
    refuse("threads of loop " + guarded_loops_.back() +
               " share data through memory with a barrier, but the loop is shorter than the "
               "launch along its axis (guarded), so not every thread would reach the barrier",
           loc_);
  // The threads that must meet are those along the threadIdx axes not bound
  // here: along the bound ones they are the program's own concurrent threads,
  // which the schedule keeps apart (the interpreter's race checker proves it).
  // Where only threadIdx.x is unbound and it has 32 threads, they are one
  // warp (a block numbers its threads x fastest): the warp waits, not the
  // block (a tensor-core kernel's warps storing their tiles, each on its own).
  if (unbound_thread_tags() == std::vector<std::string>{"threadIdx.x"}) {
    const KernelPlan::Axis* x = plan_->axis("threadIdx.x");
    if (x && is_const_int(x->extent, 32)) {
      b_.CreateIntrinsic(llvm::Intrinsic::nvvm_bar_warp_sync, {}, {b_.getInt32(-1)});
      return;
    }
  }
  b_.CreateIntrinsic(llvm::Intrinsic::nvvm_barrier0, {}, {});
}

void FunctionEmitter::kernel_seq(const SeqStmtNode& s) {
  // Outside some threadIdx loops, a statement may read or write what another
  // thread wrote or read since the last barrier: all wait first.
  if (!among_threads()) {
    for (const Stmt& c : s.seq) stmt(c);
    return;
  }
  MemoryUse pending;
  for (size_t i = 0; i < s.seq.size();) {
    // The last steps of a tree reduction, one warp's: shuffles, no barriers.
    const std::optional<WarpTree> tree =
        thread_tags_.empty() ? match_warp_tree(s.seq, i, *plan_) : std::nullopt;
    const size_t members = tree ? tree->steps : 1;
    MemoryUse use;
    for (size_t k = i; k < i + members; ++k) use.add(memory_use(s.seq[k]));
    if (pending.conflicts(use)) {
      barrier();
      pending = {};
    }
    pending.add(use);
    if (tree)
      warp_tree(*tree);
    else
      stmt(s.seq[i]);
    i += members;
  }
}

void FunctionEmitter::kernel_loop_end(const ForNode& f) {
  // The next iteration may overwrite what this one read or wrote (a tile in
  // shared memory, loaded again): all wait first.
  if (!among_threads() || as_const_int(f.extent).value_or(2) <= 1) return;
  const MemoryUse use = memory_use(f.body);
  if (use.conflicts(use)) barrier();
}

void FunctionEmitter::kernel_store(const BufferStoreNode& s) {
  // Outside some threadIdx loops every thread along them would store:
  // thread 0 along each does it for all.
  const std::vector<std::string> missing = unbound_thread_tags();
  if (missing.empty()) return store(s);
  llvm::Value* first = b_.getTrue();
  for (const std::string& tag : missing)
    first = b_.CreateAnd(first, b_.CreateICmpEQ(thread_index(tag), b_.getInt32(0)));
  llvm::BasicBlock* once = new_block("store.once");
  llvm::BasicBlock* done = new_block("store.done");
  b_.CreateCondBr(first, once, done);
  b_.SetInsertPoint(once);
  store(s);
  b_.CreateBr(done);
  b_.SetInsertPoint(done);
}

}  // namespace tirc::llvm_gen
