// Compilation of a PrimFunc into a Program (see runtime.h): resolves every
// variable to a slot and every buffer to a view, checking scoping statically.
#pragma once

#include <memory>
#include <unordered_map>
#include <vector>

#include "ir/eval/runtime.h"
#include "ir/function.h"
#include "ir/intrinsic.h"

namespace tirc::eval {

struct SlotInfo {
  enum class Kind { Int, Float, Handle } kind = Kind::Int;
  int index = 0;  // first slot; a vector variable takes `lanes` slots
  int lanes = 1;
};

class CompileContext {
 public:
  explicit CompileContext(Program& program) : program_(program) {}

  Program& program() { return program_; }

  // Set when compiling for run_module; null for plain run(f).
  const ModuleLink* link = nullptr;
  // Compiling for checking mode (RunOptions): accesses tell the race checker,
  // parallel-like loops run through it.
  bool checking = false;

  // Brings v into scope (a slot is assigned on first use and kept).
  const SlotInfo& enter(const Var& v);
  void leave(const Var& v);
  bool in_scope(const VarNode* v) const;
  const SlotInfo& lookup(const VarNode* v) const;  // Error when not in scope

  // The view slot of a buffer declared by a scope (param, alloc, match, decl).
  int declare_view(const Buffer& b);
  // The view slot for an access; a buffer never declared gets a view bound
  // where its data variable gets storage (see take_implicit).
  int view_for_access(const Buffer& b);
  // Buffers accessed without declaration whose storage is `data`.
  std::vector<Buffer> take_implicit(const VarNode* data);
  bool has_pending_implicit() const;
  std::string pending_implicit_name() const;

  // A binder for b's view, compiled in the current scope.
  const ViewBinder* make_binder(const Buffer& b, int view);
  int new_site() { return program_.num_sites++; }

  const Where* where() const { return where_; }
  void set_where(const Where* w) { where_ = w; }
  const Where* push_where(std::string block, const SourceLoc& loc);

 private:
  Program& program_;
  std::unordered_map<const VarNode*, SlotInfo> slots_;
  std::unordered_map<const VarNode*, int> scope_depth_;
  std::unordered_map<const BufferNode*, int> views_;
  std::vector<std::pair<const VarNode*, Buffer>> implicit_;
  const Where* where_ = nullptr;
};

IExprPtr compile_int(CompileContext& cx, const Expr& e);
FExprPtr compile_float(CompileContext& cx, const Expr& e);
CStmtPtr compile_stmt(CompileContext& cx, const Stmt& s);
// A handle-typed expression: a handle variable or T.address_of(buf[i]).
HExprPtr compile_handle(CompileContext& cx, const Expr& e);
// A load or store site of `buffer` at `indices` (store: a store site).
Access compile_access(CompileContext& cx, const Buffer& buffer, const std::vector<Expr>& indices,
                      bool store);
// A warp matrix operation (ir/intrinsic.h) as a statement (warp_matrix.cpp).
CStmtPtr compile_warp_matrix(CompileContext& cx, const CallNode& c, const Intrinsic& in);
// `link` null: T.call_kernel and T.allocate_const are errors (they need their module).
// `checking`: the program for checking mode; it runs only with a Frame::checker.
std::unique_ptr<Program> compile_program(const PrimFunc& f, const ModuleLink* link = nullptr,
                                         bool checking = false);

}  // namespace tirc::eval
