// The x86-64 code generator: lowered PrimFuncs (passes/LOWERED.md) -> machine code.
#pragma once

#include <string>
#include <vector>

#include "codegen/x86/machine_code.h"
#include "codegen/x86/target.h"
#include "ir/function.h"

namespace tirc {

struct FunctionToCompile {
  std::string symbol;  // C symbol of the entry point
  PrimFunc lowered;    // must be in the lowered form
  // The module function name `T.call_kernel("name", ...)` refers to; empty:
  // not callable from the other functions.
  std::string name = {};
};

struct GeneratorOptions {
  Target target;
  // Use the LoopNest-style register-tiled emitter for contraction nests
  // (codegen/x86/contraction_*.h). Off: every loop goes through the general path.
  bool contraction_kernels = true;
  // The module the functions come from: its constants are what AllocateConst
  // binds (placed in read-only data). Null: AllocateConst is refused.
  const IRModule* module = nullptr;
};

// For every function, two global symbols:
//   `symbol`:         int symbol(T0* p0, T1* p1, ...)  C calling convention (SysV
//                     x86-64), one pointer per buffer parameter in parameter
//                     order; a scalar parameter is passed by value as its C type
//                     (int32_t, int64_t, float, double, ...). Returns 0.
//   `symbol_packed`:  int symbol_packed(void* const* args): args[i] is the
//                     buffer's data pointer, or a pointer to the scalar's value.
// Parallel loops call tirc_parallel_for (runtime/tirc_runtime.h) as an external
// call; loops of no other kind need the runtime.
// Model modules (ir/function.h): `T.call_kernel("f", ...)` is a direct call to
// the entry `symbol` of the function whose `name` is "f" (SysV ABI as above;
// handles are a buffer's data var, an Allocate / AllocateConst var or
// `T.address_of(buf[i])` = base + i * element size); a nonzero result returns
// at once from the caller, which frees its heap storage first. AllocateConst
// binds the bytes of options.module's constant, placed once in
// MachineCode::rodata and reached rip-relative. An Allocate that would take a
// function's stack allocations past kMaxStackAllocationBytes (256 KiB,
// codegen/x86/emitter.h) comes from tirc_alloc and is released by tirc_free on
// every way out; when tirc_alloc fails the function returns -1. Inside a
// parallel loop Allocate stays on the stack (at most 4 MiB) and call_kernel is
// refused. A function returns 1 after an integer division by zero.
// Throws tirc::Error (with the statement's location when known) for anything
// it cannot emit or the target does not support, as it meets it. It accepts a
// little more than the lowered form (DeclBuffer, multi-extent AllocateConst),
// so it does not call check_lowered_form.
MachineCode generate_x86(const std::vector<FunctionToCompile>& functions,
                         const GeneratorOptions& options);

// How one function's loop nests went through the contraction emitter.
struct KernelStats {
  std::string symbol;
  int contraction_nests = 0;  // nests taken by the contraction emitter
  // Why loops offered to it were refused, distinct reasons in the order met
  // (every loop is offered, outermost first, until a nest is taken).
  std::vector<std::string> not_contraction;
};

// What the generator did, for tests and `tirc compile -v` logging.
struct GeneratorStats {
  int spills = 0;             // register -> stack stores forced by register pressure
  int reloads = 0;            // loads of spilled temporaries
  int branch_saves = 0;       // stores so both arms of a lazy if_then_else agree
  int vectorized_loops = 0;   // Vectorized loops emitted as vector code
  int serial_fallbacks = 0;   // Vectorized loops emitted serially (the rule refused them)
  int contraction_nests = 0;  // nests taken by the contraction emitter
  int parallel_loops = 0;     // loops outlined for tirc_parallel_for
  std::vector<KernelStats> kernels;  // one per function, in the order given
};
MachineCode generate_x86(const std::vector<FunctionToCompile>& functions,
                         const GeneratorOptions& options, GeneratorStats* stats);

}  // namespace tirc
