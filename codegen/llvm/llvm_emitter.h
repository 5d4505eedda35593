// The LLVM IR emitter's internals: one FunctionEmitter per function body
// (an entry or an outlined parallel body), sharing a ModuleState.
#pragma once

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "codegen/llvm/generator.h"
#include "ir/function.h"
#include "ir/var_use.h"

namespace tirc::llvm_gen {

[[noreturn]] void refuse(const std::string& what, const SourceLoc& loc);
// A new global of `module` (which owns it); every global the generator makes.
llvm::GlobalVariable* add_global(llvm::Module& module, llvm::Type* type, bool constant,
                                 llvm::GlobalValue::LinkageTypes linkage, llvm::Constant* init,
                                 const std::string& name, unsigned address_space = 0);
// The product of constant, non-negative extents (refused otherwise, naming `what`).
int64_t constant_elements(const std::vector<Expr>& extents, const std::string& what,
                          const SourceLoc& loc);

// A type in memory: bool is i8, float16/bfloat16 are i16 (their bits).
llvm::Type* storage_type(llvm::LLVMContext& c, DataType t);
// A value's type: bool is i1, float16/bfloat16 are float holding a value
// already rounded to the format; vectors of those for lanes > 1.
llvm::Type* value_type(llvm::LLVMContext& c, DataType t);

struct Callee {
  llvm::Function* function;
  const PrimFunc* func;
};

struct CudaState;  // cuda_emitter.h

struct ModuleState {
  llvm::LLVMContext& context;
  llvm::Module& module;
  const LlvmOptions& options;
  LlvmStats& stats;
  std::map<std::string, Callee, std::less<>> callees;  // by module function name
  std::map<std::string, llvm::GlobalVariable*, std::less<>> constants;
  CudaState* cuda = nullptr;  // for CUDA: the device module and the kernels so far

  // tirc_parallel_for, tirc_alloc or tirc_free (runtime/tirc_runtime.h), declared once.
  llvm::FunctionCallee runtime(const std::string& name);
  // The .rodata global holding a module constant's bytes.
  llvm::GlobalVariable* constant(const std::string& name, const NDArray& value);
};

// Where the emitted code runs: a CPU function, or for CUDA the host function
// that launches kernels (cuda_host.cpp) or a kernel (cuda_kernel.cpp).
enum class Role : unsigned char { cpu, cuda_host, cuda_device };

struct KernelPlan;  // cuda_emitter.h
struct WarpTree;    // cuda_emitter.h

// What a statement of a CUDA kernel reads and writes, by buffer storage (a
// null entry: global memory that may alias any), one thread's own left out.
struct MemoryUse {
  std::set<const VarNode*> reads, writes;
  // Whether `later` touches what this wrote, or writes what this read.
  bool conflicts(const MemoryUse& later) const;
  void add(const MemoryUse& other);
};

class FunctionEmitter {
 public:
  // An entry function `fn` (already declared with the ABI's parameters).
  FunctionEmitter(ModuleState& m, llvm::Function* fn, const std::string& symbol);

  void emit_entry(const PrimFunc& f);
  // CUDA: the host function of f (parameters: device pointers as i64,
  // scalars, the stream), and a kernel's body (cuda_kernel.cpp).
  void emit_cuda_host(const PrimFunc& f);
  // params[i]: the variables the kernel's i-th parameter holds.
  void emit_kernel(const Stmt& body, const KernelPlan& plan,
                   const std::vector<std::vector<const VarNode*>>& params);

 private:
  // Statements (llvm_stmt.cpp).
  void stmt(const Stmt& s);
  void store(const BufferStoreNode& s);
  void loop(const ForNode& f);
  void parallel_loop(const ForNode& f);
  void if_then_else(const IfThenElseNode& s);
  void let(const LetStmtNode& l);
  void allocate(const AllocateNode& a);
  void allocate_const(const AllocateConstNode& a);
  void call_kernel(const CallNode& c, const SourceLoc& loc);
  // Leaves the function after a failure with `code` (an i32 value), freeing
  // the heap blocks held; in an outlined body sets the closure's flag instead.
  void fail(llvm::Value* code);

  // CUDA host (cuda_host.cpp): `s` as one kernel launch; an Allocate as
  // stream-ordered device memory; a constant's device copy.
  void launch(const Stmt& s);
  // The stream parameter, and the loader's call before the body.
  void begin_cuda_host(const PrimFunc& f);
  void device_allocate(const AllocateNode& a);
  llvm::Value* device_constant(const AllocateConstNode& a);
  // CUDA kernel (cuda_kernel.cpp).
  void thread_loop(const ForNode& f);
  void kernel_allocate(const AllocateNode& a);
  void kernel_seq(const SeqStmtNode& s);
  void kernel_loop_end(const ForNode& f);
  MemoryUse memory_use(const Stmt& s) const;
  // Outside some launched threadIdx loops: the block's threads share what is here.
  bool among_threads() const;
  // The launched threadIdx tags whose loops are not around here.
  std::vector<std::string> unbound_thread_tags() const;
  void barrier();
  void kernel_store(const BufferStoreNode& s);
  void warp_tree(const WarpTree& tree);  // cuda_warp_tree.cpp
  // A Vectorized loop that copies 4, 8 or 16 aligned bytes as one vector
  // load and store; false (nothing emitted) for any other (cuda_vector_copy.cpp).
  bool vector_copy(const ForNode& f);
  // Tensor cores (cuda_mma.cpp): an accumulator's registers, an operation.
  void fragment_allocate(const AllocateNode& a);
  void warp_matrix(const CallNode& c);
  llvm::Value* thread_index(const std::string& tag);

  // Expressions (llvm_expr.cpp).
  llvm::Value* expr(const Expr& e);
  // An element index: signed + - * in it do not wrap (nsw).
  llvm::Value* index_expr(const Expr& e);
  llvm::Value* binary(const BinaryNode& b);
  llvm::Value* int_binary(ExprKind k, DataType t, llvm::Value* x, llvm::Value* y);
  llvm::Value* float_binary(ExprKind k, DataType t, llvm::Value* x, llvm::Value* y);
  llvm::Value* compare(const BinaryNode& b);
  llvm::Value* cast(DataType to, const Expr& v);
  llvm::Value* call(const CallNode& c);
  llvm::Value* load(const BufferLoadNode& l);
  llvm::Value* ramp(const RampNode& r);
  // A float value of type t from a float or double `x`: rounded once to t's
  // format (float16/bfloat16: to the format, then held as float).
  llvm::Value* round_to(DataType t, llvm::Value* x);
  // Element address of a flat buffer (index: a scalar integer value).
  llvm::Value* element_address(const Buffer& b, llvm::Value* index);
  // float16 / bfloat16 as LLVM's half / bfloat where the target converts
  // them natively (CUDA kernels), else null: integer code (llvm_narrow_float.h).
  llvm::Type* native_narrow_type(DataType t) const;
  llvm::Value* to_storage(DataType t, llvm::Value* v);
  llvm::Value* from_storage(DataType t, llvm::Value* v);
  static int lanes_of(llvm::Value* v);  // 1 for a scalar
  // Splats whichever of x and y is a scalar meeting a vector.
  void match_lanes(llvm::Value*& x, llvm::Value*& y);
  llvm::Value* handle_argument(const Expr& arg, const std::string& which, const SourceLoc& loc);

  // An alloca in the entry block (so loops do not grow the stack).
  llvm::AllocaInst* entry_alloca(llvm::Type* t, llvm::Value* count, uint64_t align,
                                 const std::string& name);
  llvm::BasicBlock* new_block(const std::string& name);
  void bind(const Var& v, llvm::Value* value) { vars_[v.get()] = value; }
  void unbind(const Var& v) { vars_.erase(v.get()); }
  llvm::Value* lookup(const VarNode* v);

  // An outlined parallel body's emitter (its own function and builder).
  FunctionEmitter(ModuleState& m, llvm::Function* fn, const std::string& symbol,
                  llvm::Value* failed_flag);

  ModuleState& m_;
  llvm::LLVMContext& c_;
  llvm::Function* fn_;
  std::string symbol_;
  llvm::IRBuilder<> b_;
  llvm::IRBuilder<> entry_;                                // inserts allocas at the top
  std::unordered_map<const VarNode*, llvm::Value*> vars_;  // values and handles (ptr)
  std::vector<llvm::Value*> heap_blocks_;                  // pointers to free on the way out
  llvm::Value* failed_flag_ = nullptr;                     // outlined: the closure's i32 flag
  bool noalias_ = false;
  int next_outlined_ = 0;
  bool in_index_ = false;  // emitting an element index (index_expr)
  SourceLoc loc_;          // the statement being emitted, for refusals
  Role role_ = Role::cpu;
  llvm::Value* stream_ = nullptr;           // CUDA host: the CUstream argument
  const KernelPlan* plan_ = nullptr;        // CUDA kernel: its launch
  std::vector<std::string> thread_tags_;    // CUDA kernel: threadIdx tags around here
  std::vector<std::string> guarded_loops_;  // CUDA kernel: guarded threadIdx loops around here
  int64_t shared_bytes_ = 0;                // CUDA kernel: static shared memory so far
  VarSet kernel_allocations_;               // CUDA kernel: allocations around here
  VarSet private_buffers_;                  // ... of them one thread's or one warp's
  // CUDA kernel: the registers of each accumulator (scope "wmma.accumulator")
  // here, and how many tile columns it numbers per tile row (cuda_mma.cpp).
  struct Fragments {
    llvm::Value* registers;
    int64_t columns;
  };
  std::unordered_map<const VarNode*, Fragments> fragments_;
  int next_kernel_ = 0;  // CUDA host: kernels of this function so far
};

}  // namespace tirc::llvm_gen
