// Visitor and mutator bases over expressions and statements. Override the
// per-kind hooks you care about; the defaults walk (or rebuild) children.
// Mutators return the original node when nothing below it changed, so a
// rewrite shares every untouched subtree with its input.
#pragma once

#include "ir/function.h"

namespace tirc {

class ExprVisitor {
 public:
  virtual ~ExprVisitor() = default;
  void visit(const Expr& e);

 protected:
  virtual void visit_var(const VarNode*) {}
  virtual void visit_imm(const Expr&) {}
  virtual void visit_load(const BufferLoadNode* n);
  virtual void visit_binary(const BinaryNode* n);
  virtual void visit_not(const NotNode* n);
  virtual void visit_cast(const CastNode* n);
  virtual void visit_select(const SelectNode* n);
  virtual void visit_call(const CallNode* n);
  virtual void visit_ramp(const RampNode* n);
  virtual void visit_broadcast(const BroadcastNode* n);
};

// What the default statement hooks walk: everything, or the statements alone
// (each statement's expressions, regions and buffers neither visited nor
// changed), for a walk that only finds or moves statements.
enum class Walk : uint8_t { Everything, StatementsOnly };

class StmtVisitor : public ExprVisitor {
 public:
  explicit StmtVisitor(Walk walk = Walk::Everything) : exprs_(walk == Walk::Everything) {}
  using ExprVisitor::visit;
  void visit(const Stmt& s) { visit_stmt(s); }

 protected:
  // Every statement, the root and each child, passes here; the default
  // dispatches on its kind to the hooks below. Override it to see them all
  // (to skip a subtree, or to keep the path to the current statement).
  virtual void visit_stmt(const Stmt& s);
  virtual void visit_store(const BufferStoreNode* n);
  virtual void visit_for(const ForNode* n);
  virtual void visit_block(const BlockNode* n);
  virtual void visit_block_realize(const BlockRealizeNode* n);
  virtual void visit_seq(const SeqStmtNode* n);
  virtual void visit_if(const IfThenElseNode* n);
  virtual void visit_let(const LetStmtNode* n);
  virtual void visit_evaluate(const EvaluateNode* n);
  virtual void visit_allocate(const AllocateNode* n);
  virtual void visit_decl_buffer(const DeclBufferNode* n);
  virtual void visit_allocate_const(const AllocateConstNode* n);
  // Regions, iteration domains and buffer shapes are expressions too.
  virtual void visit_range(const Range& r);
  virtual void visit_region(const BufferRegion& r);

 private:
  // An expression a statement holds (not for Walk::StatementsOnly).
  void visit_expr(const Expr& e) {
    if (exprs_) visit(e);
  }
  bool exprs_;
};

class ExprMutator {
 public:
  virtual ~ExprMutator() = default;
  Expr mutate(const Expr& e);

 protected:
  virtual Expr mutate_var(const Expr& e) { return e; }
  virtual Expr mutate_imm(const Expr& e) { return e; }
  virtual Expr mutate_load(const Expr& e, const BufferLoadNode* n);
  virtual Expr mutate_binary(const Expr& e, const BinaryNode* n);
  virtual Expr mutate_not(const Expr& e, const NotNode* n);
  virtual Expr mutate_cast(const Expr& e, const CastNode* n);
  virtual Expr mutate_select(const Expr& e, const SelectNode* n);
  virtual Expr mutate_call(const Expr& e, const CallNode* n);
  virtual Expr mutate_ramp(const Expr& e, const RampNode* n);
  virtual Expr mutate_broadcast(const Expr& e, const BroadcastNode* n);
  // Every buffer reference (loads, stores, regions, allocations) passes here,
  // so a mutator can replace one buffer by another throughout.
  virtual Buffer mutate_buffer(const Buffer& b) { return b; }

  // Mutates each element; returns true when any changed.
  bool mutate_all(const std::vector<Expr>& in, std::vector<Expr>& out);
};

// A hook may remove a child statement by returning a null Stmt. Its parent
// then drops it from a sequence (an emptied sequence becomes `T.evaluate(0)`),
// leaves out a removed else branch or block init, and puts `T.evaluate(0)` in
// place of any other removed body; removing a loop's body is an Error, since
// a rewrite that empties a loop means to remove the loop.
class StmtMutator : public ExprMutator {
 public:
  explicit StmtMutator(Walk walk = Walk::Everything) : exprs_(walk == Walk::Everything) {}
  using ExprMutator::mutate;
  Stmt mutate(const Stmt& s) { return mutate_stmt(s); }

 protected:
  // Every statement, the root and each child, passes here; the default
  // dispatches on its kind to the hooks below. Override it to intercept them
  // all (to replace one statement wherever it is, say).
  virtual Stmt mutate_stmt(const Stmt& s);
  virtual Stmt mutate_store(const Stmt& s, const BufferStoreNode* n);
  virtual Stmt mutate_for(const Stmt& s, const ForNode* n);
  virtual Block mutate_block(const Block& b);
  virtual Stmt mutate_block_realize(const Stmt& s, const BlockRealizeNode* n);
  virtual Stmt mutate_seq(const Stmt& s, const SeqStmtNode* n);
  virtual Stmt mutate_if(const Stmt& s, const IfThenElseNode* n);
  virtual Stmt mutate_let(const Stmt& s, const LetStmtNode* n);
  virtual Stmt mutate_evaluate(const Stmt& s, const EvaluateNode* n);
  virtual Stmt mutate_allocate(const Stmt& s, const AllocateNode* n);
  virtual Stmt mutate_decl_buffer(const Stmt& s, const DeclBufferNode* n);
  virtual Stmt mutate_allocate_const(const Stmt& s, const AllocateConstNode* n);
  Range mutate_range(const Range& r);
  // The region with its buffer and bounds mutated into `out`; false (and
  // nothing built) when none of them changed.
  bool mutate_region(const BufferRegion& r, BufferRegion& out);

 private:
  // An expression a statement holds, mutated (as it is for
  // Walk::StatementsOnly).
  Expr mutate_expr(const Expr& e) { return exprs_ ? mutate(e) : e; }
  // mutate_expr over each element into `out`; false (and nothing built) when
  // none changed.
  bool mutate_exprs(const std::vector<Expr>& in, std::vector<Expr>& out);
  // An allocation's extents and body into the outs; false (and nothing
  // built) when neither changed.
  bool mutate_allocation(const std::vector<Expr>& extents, const Stmt& body,
                         std::vector<Expr>& extents_out, Stmt& body_out);
  bool exprs_;
};

}  // namespace tirc
