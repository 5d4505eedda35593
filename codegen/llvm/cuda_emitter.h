// The CUDA path's internals (codegen/llvm/cuda.h says what it emits): the
// launch of one kernel, and the state shared by a module's host functions.
#pragma once

#include <string>
#include <vector>

#include "codegen/llvm/llvm_emitter.h"

namespace tirc::llvm_gen {

// How a statement runs as a kernel: one axis per thread tag it binds.
struct KernelPlan {
  struct Axis {
    std::string tag;  // "blockIdx.x", ..., "threadIdx.z"
    Expr extent;      // the launch size along it (host variables only)
    // Whether a loop of this extent runs on every thread along the axis
    // (else the generator guards it: the launch is its tag's longest loop).
    bool covers(const Expr& loop_extent) const;
  };
  std::vector<Axis> axes;

  // Every thread tag a kernel may bind, in launch order (grid x, y, z, block x, y, z).
  static const std::vector<std::string>& tags();
  const Axis* axis(const std::string& tag) const;
  // The threadIdx tags launched, in x, y, z order.
  std::vector<std::string> thread_tags() const;
};

// Checks that `s` has the shape a kernel needs (cuda.h) and finds its launch.
// Throws tirc::Error naming the loop and the rule it breaks.
KernelPlan plan_kernel(const Stmt& s);

// A "local" allocation outside some launched threadIdx loops (not in
// `enclosing`): its body with every index of it made relative to the
// thread's part, and that part's size in elements (cuda_thread_local.cpp).
// Throws tirc::Error where threads could share an element. `by_warp`: a
// "wmma.accumulator" outside some threadIdx.y/z loops, sliced by warp.
struct ThreadSlice {
  Stmt body;
  int64_t elements = 1;
};
ThreadSlice slice_by_thread(const AllocateNode& a, const KernelPlan& plan,
                            const std::vector<std::string>& enclosing, bool by_warp = false);

// A run of tree-reduction steps within a warp's width at block level,
// members [first, first + steps) of a sequence, which the generator emits
// as warp shuffles (cuda_warp_tree.cpp says when and how).
struct WarpTree {
  size_t steps = 0;
  Buffer parts;  // P
  Expr base;     // b
  int64_t first_half = 0;
  ExprKind op = ExprKind::Add;
};
std::optional<WarpTree> match_warp_tree(const std::vector<Stmt>& seq, size_t first,
                                        const KernelPlan& plan);

// Whether `s` is a warp matrix operation (ir/intrinsic.h), and the proofs
// that a kernel's operations address their tiles as tensor cores need
// (cuda_mma.cpp; throws tirc::Error naming the tile).
bool is_warp_matrix(const Stmt& s);
void check_warp_matrix(const Stmt& kernel);
// An accumulator (scope "wmma.accumulator") allocated outside its kernel,
// moved into the kernel's thread-bound loops down to one warp's iteration
// (each warp's registers), its tiles at their offsets minus the part the
// warp's indices give; nullopt where its uses do not allow that (other uses
// than warp matrix operations, offsets not of that form).
std::optional<Stmt> place_accumulator(const AllocateNode& a);

struct CudaState {
  ModuleState* device = nullptr;  // the device module's state
  // Host globals the loader fills: a CUfunction per kernel, a CUdeviceptr per constant.
  struct Kernel {
    std::string name;
    llvm::GlobalVariable* slot;
  };
  struct Constant {
    const NDArray* value;
    llvm::GlobalVariable* host;    // the bytes in the host object's .rodata
    llvm::GlobalVariable* device;  // i64: its device copy
  };
  std::vector<Kernel> kernels;
  std::map<std::string, Constant, std::less<>> constants;
  llvm::Function* loader = nullptr;  // i32 (): loads the module once (cuda_host.cpp)
};

// A CUDA driver API function, declared once in the host module.
llvm::FunctionCallee driver_function(ModuleState& host, const std::string& name);
// The loader's body: the PTX text (and the fat binary, tried first, when
// not empty), every kernel and constant (after the last host function was
// emitted).
void emit_cuda_loader(ModuleState& host, const std::string& ptx, const std::string& fatbin);

}  // namespace tirc::llvm_gen
