// The general x86 emitter of one function (an entry point or an outlined
// parallel-loop body). Its parts live in emitter_*.cpp: statements, scalar
// expressions, vector expressions, parallel loops; abi.cpp has prologues,
// epilogues and the packed entry.
#pragma once

#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <xbyak/xbyak.h>

#include "codegen/x86/constant_pool.h"
#include "codegen/x86/generator.h"
#include "codegen/x86/insertion_ordered_map.h"
#include "codegen/x86/machine_code.h"
#include "codegen/x86/registers.h"
#include "ir/function.h"
#include "ir/intrinsic.h"
#include "ir/substitute.h"

namespace tirc {

// Allocations on the stack of one function (all Allocate statements, live at
// once or not) stay below this many bytes; a larger Allocate in an entry point
// is heap-allocated through the runtime (tirc_alloc/tirc_free), which keeps
// thread stacks safe. Outlined parallel bodies (run on worker threads with
// default 8 MiB stacks, and unable to report a failed allocation) keep every
// Allocate on the stack and refuse more than kMaxParallelStackBytes.
inline constexpr int kMaxStackAllocationBytes = 256 << 10;
inline constexpr int kMaxParallelStackBytes = 4 << 20;

// Where a variable's value lives. Integers and bools are kept as int64 values
// wrapped to their type; float16 values as the exact float32 of the half.
struct VarLoc {
  enum class Kind : unsigned char { Gpr, Slot, Const } kind = Kind::Slot;
  DataType type;
  int reg = -1;
  int offset = 0;  // Slot: frame offset
  int64_t value = 0;
};

// Where a buffer's storage (its data variable) starts.
struct StorageLoc {
  // PointerSlot: a frame slot holds the address; FrameOffset: the storage is
  // in the frame; Rodata: a module constant at `rodata_offset` in read-only data.
  enum class Kind : unsigned char { PointerSlot, FrameOffset, Rodata } kind = Kind::PointerSlot;
  int offset = 0;
  uint64_t rodata_offset = 0;
};

// A function another one may call by name (T.call_kernel).
struct Callee {
  Xbyak::Label* entry;
  const PrimFunc* func;
};

// A value an outlined parallel body receives from its caller, 8 bytes each.
struct Capture {
  const VarNode* var;
  bool is_storage;
  DataType type;
};

struct ParallelJob {
  const ForNode* loop;
  std::vector<Capture> captures;
  Xbyak::Label* entry;
  std::string symbol;
};

// State shared by the functions of one generate_x86 call.
struct ModuleState {
  Xbyak::CodeGenerator& code;
  ConstantPool& pool;
  GeneratorOptions options;
  std::vector<MachineCode::ExternalCall> external_calls;
  std::deque<Xbyak::Label> labels;  // stable addresses for outlined bodies
  std::vector<ParallelJob> jobs;
  GeneratorStats stats;
  std::map<std::string, Callee, std::less<>> callees;
  // Read-only data: each module constant placed once (name -> offset).
  std::vector<uint8_t> rodata;
  std::map<std::string, uint64_t, std::less<>> rodata_offsets;
  std::vector<MachineCode::DataReference> data_references;
};

// The shape of one vector evaluation: lanes of 32 bits; inside a vectorized
// loop, loop_var's scalar binding is the first lane's value.
struct VecCtx {
  int lanes = 0;
  const VarNode* loop_var = nullptr;
  bool masked = false;  // the tail mask (k1 / the AVX2 mask register) is active
  // A straight-line vectorized loop: the lane-0 address of some accesses
  // (keyed by storage and index expression) computed once, in a register,
  // for the first vector; this vector's lanes start `chunk` elements further.
  const std::map<std::pair<const VarNode*, const ExprNode*>, int>* addresses = nullptr;
  int64_t chunk = 0;
  int bytes() const { return lanes * 4; }
};

class FunctionEmitter {
 public:
  FunctionEmitter(ModuleState& m, const PrimFunc* func, std::string symbol);

  // The C-ABI entry `symbol` of func.
  void emit_entry(Xbyak::Label& entry);
  // `symbol_packed`, calling the entry.
  static void emit_packed(ModuleState& m, const PrimFunc& func, Xbyak::Label& entry);
  // An outlined parallel body.
  void emit_parallel_body(const ParallelJob& job);

  // Used by the contraction emitter's context.
  Xbyak::CodeGenerator& code() { return code_; }
  ModuleState& module() { return m_; }
  RegisterPool& regs() { return regs_; }
  void eval_int_into(const Expr& e, const Xbyak::Reg64& dst);
  void load_storage_address(const Var& data, const Xbyak::Reg64& dst);
  // Variables whose value is a constant where code is being emitted (loops
  // of one iteration, unrolled loops).
  VarMap known_constants() const;

 private:
  // ---- abi.cpp
  void prologue();
  void epilogue(bool returns_int);
  void patch_frame();
  // ---- emitter_stmt.cpp
  void emit(const Stmt& s);
  void emit_for(const ForNode& f);
  void emit_serial_loop(const ForNode& f, int start_temp, int end_temp);
  void emit_unrolled(const ForNode& f, int64_t min, int64_t extent);
  bool offer_contraction(const ForNode& f);
  void emit_store(const BufferStoreNode& s);
  void emit_allocate(const AllocateNode& a);
  // ---- emitter_module.cpp
  void emit_heap_allocate(const AllocateNode& a, int64_t bytes);
  void emit_allocate_const(const AllocateConstNode& a);
  void emit_call_kernel(const CallNode& c);
  void store_call_argument(const Expr& arg, DataType want, int slot, int index);
  void call_external(const char* symbol);
  std::vector<std::pair<int, int>> save_loop_registers();
  void restore_loop_registers(const std::vector<std::pair<int, int>>& saved);
  void free_heap(int slot);
  void return_error_code();  // eax holds it: frees live heap storage, returns
  void storage_address(const StorageLoc& loc, const Xbyak::Reg64& dst);
  void bind_var(const Var& v, int temp, DataType t);
  void unbind_var(const Var& v);
  [[noreturn]] void fail(const std::string& what) const;
  // ---- emitter_scalar.cpp
  int eval(const Expr& e);  // a temporary holding e (GPR for ints/bools, xmm for floats)
  int eval_binary(const BinaryNode& b);
  int eval_int_binary(const BinaryNode& b);
  int eval_float_binary(const BinaryNode& b);
  int eval_compare(const BinaryNode& b);
  int eval_cast(const CastNode& c);
  int eval_select(const SelectNode& s);
  int eval_call(const CallNode& c);
  int eval_lazy_choice(const CallNode& c);
  int eval_load(const BufferLoadNode& l);
  int eval_var(const VarNode* v);
  int eval_float_const(DataType t, double v);
  int need(const Expr& e);
  Xbyak::RegExp element_address(const Buffer& b, const Expr& index, int* index_temp);
  void storage_base(const Var& data, const Xbyak::Reg64& dst);
  void wrap(const Xbyak::Reg64& r, DataType t);
  void round_float(int xmm, DataType t);
  void to_double(int xmm, DataType from);
  void from_double(int xmm, DataType to);
  void store_scalar(const Xbyak::RegExp& addr, int temp, DataType t);
  // ---- emitter_vector.cpp
  int eval_vec(const Expr& e, const VecCtx& cx);
  // guard >= 0: a vector temp of all-ones/zero lanes; only lanes where it
  // is set (clear, when negate) are read, so a load that an if_then_else
  // guards touches no element its serial loop would not.
  int eval_vec_load(const Expr& index, const Buffer& b, const VecCtx& cx, int guard = -1,
                    bool negate = false);
  // The address of lane 0 of a vector access at `index` (its lane-0 index
  // `base`): from cx.addresses when the loop computed it, else computed here.
  Xbyak::RegExp vector_address(const Buffer& b, const Expr& index, const Expr& base, int64_t stride,
                               const VecCtx& cx, int* index_temp);
  void emit_vec_store(const BufferStoreNode& s, const VecCtx& cx);
  void emit_vectorized(const ForNode& f);
  void emit_tail_mask(const Xbyak::Reg64& remaining, int lanes);
  bool vector_stride(const Expr& index, const VecCtx& cx, int64_t* stride, Expr* base) const;
  // ---- emitter_parallel.cpp
  void emit_parallel(const ForNode& f);

  ModuleState& m_;
  Xbyak::CodeGenerator& code_;
  const Target target_;
  const PrimFunc* func_;
  std::string symbol_;
  Frame frame_;
  RegisterPool regs_;
  InsertionOrderedMap<const VarNode*, VarLoc> vars_;
  // Loop-invariant index and condition expressions of the vectorized loop
  // being emitted, each computed once before it into a frame slot: eval()
  // reads the slot instead of recomputing them for every vector.
  std::map<const ExprNode*, int> hoisted_;
  InsertionOrderedMap<const VarNode*, StorageLoc> storage_;
  // need() per expression; each entry holds its expression so that its
  // address is not reused by a later one (which would read a stale count).
  std::map<const ExprNode*, std::pair<Expr, int>> need_cache_;
  Xbyak::Label fail_label_;
  Xbyak::Label* fail_target_ = &fail_label_;  // integer division by zero jumps here
  Xbyak::Label return_label_;                 // returns eax as it is
  std::vector<int> heap_slots_;               // live heap allocations, outermost first
  size_t frame_patch_at_ = 0;
  bool outlined_ = false;
  SourceLoc loc_;  // of the statement being emitted
  int allocated_bytes_ = 0;
};

// How the SysV C ABI passes a parameter of a generated function (abi.cpp).
enum class ArgClass { Int, Float };
struct ArgPlace {
  ArgClass cls;
  int reg = -1;    // index into rdi, rsi, rdx, rcx, r8, r9, or an xmm number
  int stack = -1;  // 8-byte slot number above the return address
};
ArgClass arg_class(const Param& p, const SourceLoc& loc);
std::vector<ArgPlace> place_args(const PrimFunc& f, const SourceLoc& loc);

// The vectorization rule (emitter_vector.cpp documents it); false with *why set otherwise.
bool can_vectorize(const ForNode& f, Isa isa, std::string* why);

// The rounding-control immediate of vroundss / vroundps / vrndscaleps for the
// rounding intrinsics (floor, ceil, round, trunc); nullopt for any other.
std::optional<uint8_t> rounding_immediate(IntrinsicId id);

}  // namespace tirc
