#include "ir/functor.h"

namespace tirc {

// ---- ExprVisitor --------------------------------------------------------------

void ExprVisitor::visit(const Expr& e) {
  if (!e) return;
  switch (e.kind()) {
    case ExprKind::IntImm: case ExprKind::FloatImm: case ExprKind::StringImm:
      return visit_imm(e);
    case ExprKind::Var: return visit_var(e.as<VarNode>());
    case ExprKind::BufferLoad: return visit_load(e.as<BufferLoadNode>());
    case ExprKind::Not: return visit_not(e.as<NotNode>());
    case ExprKind::Cast: return visit_cast(e.as<CastNode>());
    case ExprKind::Select: return visit_select(e.as<SelectNode>());
    case ExprKind::Call: return visit_call(e.as<CallNode>());
    case ExprKind::Ramp: return visit_ramp(e.as<RampNode>());
    case ExprKind::Broadcast: return visit_broadcast(e.as<BroadcastNode>());
    default: return visit_binary(e.as<BinaryNode>());
  }
}

void ExprVisitor::visit_load(const BufferLoadNode* n) {
  for (const Expr& i : n->indices) visit(i);
}
void ExprVisitor::visit_binary(const BinaryNode* n) {
  visit(n->a);
  visit(n->b);
}
void ExprVisitor::visit_not(const NotNode* n) { visit(n->a); }
void ExprVisitor::visit_cast(const CastNode* n) { visit(n->value); }
void ExprVisitor::visit_select(const SelectNode* n) {
  visit(n->cond);
  visit(n->true_value);
  visit(n->false_value);
}
void ExprVisitor::visit_call(const CallNode* n) {
  for (const Expr& a : n->args) visit(a);
}
void ExprVisitor::visit_ramp(const RampNode* n) {
  visit(n->base);
  visit(n->stride);
}
void ExprVisitor::visit_broadcast(const BroadcastNode* n) { visit(n->value); }

// ---- StmtVisitor --------------------------------------------------------------

void StmtVisitor::visit(const Stmt& s) {
  if (!s) return;
  switch (s.kind()) {
    case StmtKind::BufferStore: return visit_store(s.as<BufferStoreNode>());
    case StmtKind::For: return visit_for(s.as<ForNode>());
    case StmtKind::Block: return visit_block(s.as<BlockNode>());
    case StmtKind::BlockRealize: return visit_block_realize(s.as<BlockRealizeNode>());
    case StmtKind::Seq: return visit_seq(s.as<SeqStmtNode>());
    case StmtKind::IfThenElse: return visit_if(s.as<IfThenElseNode>());
    case StmtKind::LetStmt: return visit_let(s.as<LetStmtNode>());
    case StmtKind::Evaluate: return visit_evaluate(s.as<EvaluateNode>());
    case StmtKind::Allocate: return visit_allocate(s.as<AllocateNode>());
    case StmtKind::DeclBuffer: return visit_decl_buffer(s.as<DeclBufferNode>());
    case StmtKind::AllocateConst: return visit_allocate_const(s.as<AllocateConstNode>());
  }
}

void StmtVisitor::visit_store(const BufferStoreNode* n) {
  visit(n->value);
  for (const Expr& i : n->indices) visit(i);
}
void StmtVisitor::visit_for(const ForNode* n) {
  visit(n->min);
  visit(n->extent);
  visit(n->body);
}
void StmtVisitor::visit_block(const BlockNode* n) {
  for (const IterVar& iv : n->iter_vars) visit_range(iv.dom);
  for (const BufferRegion& r : n->reads) visit_region(r);
  for (const BufferRegion& r : n->writes) visit_region(r);
  for (const MatchBufferRegion& m : n->match_buffers) visit_region(m.source);
  visit(n->init);
  visit(n->body);
}
void StmtVisitor::visit_block_realize(const BlockRealizeNode* n) {
  for (const Expr& v : n->iter_values) visit(v);
  visit(n->predicate);
  visit_block(n->block.get());
}
void StmtVisitor::visit_seq(const SeqStmtNode* n) {
  for (const Stmt& s : n->seq) visit(s);
}
void StmtVisitor::visit_if(const IfThenElseNode* n) {
  visit(n->cond);
  visit(n->then_case);
  visit(n->else_case);
}
void StmtVisitor::visit_let(const LetStmtNode* n) {
  visit(n->value);
  visit(n->body);
}
void StmtVisitor::visit_evaluate(const EvaluateNode* n) { visit(n->value); }
void StmtVisitor::visit_allocate(const AllocateNode* n) {
  for (const Expr& e : n->extents) visit(e);
  visit(n->body);
}
void StmtVisitor::visit_decl_buffer(const DeclBufferNode* n) { visit(n->body); }
void StmtVisitor::visit_allocate_const(const AllocateConstNode* n) {
  for (const Expr& e : n->extents) visit(e);
  visit(n->body);
}
void StmtVisitor::visit_range(const Range& r) {
  visit(r.min);
  visit(r.extent);
}
void StmtVisitor::visit_region(const BufferRegion& r) {
  for (const Range& x : r.region) visit_range(x);
}

// ---- ExprMutator --------------------------------------------------------------

Expr ExprMutator::mutate(const Expr& e) {
  if (!e) return e;
  switch (e.kind()) {
    case ExprKind::IntImm: case ExprKind::FloatImm: case ExprKind::StringImm:
      return mutate_imm(e);
    case ExprKind::Var: return mutate_var(e);
    case ExprKind::BufferLoad: return mutate_load(e, e.as<BufferLoadNode>());
    case ExprKind::Not: return mutate_not(e, e.as<NotNode>());
    case ExprKind::Cast: return mutate_cast(e, e.as<CastNode>());
    case ExprKind::Select: return mutate_select(e, e.as<SelectNode>());
    case ExprKind::Call: return mutate_call(e, e.as<CallNode>());
    case ExprKind::Ramp: return mutate_ramp(e, e.as<RampNode>());
    case ExprKind::Broadcast: return mutate_broadcast(e, e.as<BroadcastNode>());
    default: return mutate_binary(e, e.as<BinaryNode>());
  }
}

bool ExprMutator::mutate_all(const std::vector<Expr>& in, std::vector<Expr>& out) {
  bool changed = false;
  out.clear();
  out.reserve(in.size());
  for (const Expr& x : in) {
    out.push_back(mutate(x));
    changed |= !out.back().same_as(x);
  }
  return changed;
}

Expr ExprMutator::mutate_load(const Expr& e, const BufferLoadNode* n) {
  std::vector<Expr> idx;
  bool changed = mutate_all(n->indices, idx);
  Buffer b = mutate_buffer(n->buffer);
  if (!changed && b == n->buffer) return e;
  return make_load(std::move(b), std::move(idx));
}

Expr ExprMutator::mutate_binary(const Expr& e, const BinaryNode* n) {
  Expr a = mutate(n->a), b = mutate(n->b);
  if (a.same_as(n->a) && b.same_as(n->b)) return e;
  return make_binary(n->kind, std::move(a), std::move(b));
}

Expr ExprMutator::mutate_not(const Expr& e, const NotNode* n) {
  Expr a = mutate(n->a);
  return a.same_as(n->a) ? e : make_not(std::move(a));
}

Expr ExprMutator::mutate_cast(const Expr& e, const CastNode* n) {
  Expr v = mutate(n->value);
  return v.same_as(n->value) ? e : make_cast(n->dtype, std::move(v));
}

Expr ExprMutator::mutate_select(const Expr& e, const SelectNode* n) {
  Expr c = mutate(n->cond), t = mutate(n->true_value), f = mutate(n->false_value);
  if (c.same_as(n->cond) && t.same_as(n->true_value) && f.same_as(n->false_value)) return e;
  return make_select(std::move(c), std::move(t), std::move(f));
}

Expr ExprMutator::mutate_call(const Expr& e, const CallNode* n) {
  std::vector<Expr> args;
  if (!mutate_all(n->args, args)) return e;
  return make_call(n->dtype, n->op, std::move(args));
}

Expr ExprMutator::mutate_ramp(const Expr& e, const RampNode* n) {
  Expr b = mutate(n->base), s = mutate(n->stride);
  if (b.same_as(n->base) && s.same_as(n->stride)) return e;
  return make_ramp(std::move(b), std::move(s), n->lanes);
}

Expr ExprMutator::mutate_broadcast(const Expr& e, const BroadcastNode* n) {
  Expr v = mutate(n->value);
  return v.same_as(n->value) ? e : make_broadcast(std::move(v), n->lanes);
}

// ---- StmtMutator --------------------------------------------------------------

// Rebuilt statements keep the source location of the statement they replace.
template <class T, class... Args>
static Stmt rebuild(const StmtNode* old, Args&&... args) {
  auto n = std::make_shared<T>(std::forward<Args>(args)...);
  n->loc = old->loc;
  return n;
}

Stmt StmtMutator::mutate(const Stmt& s) {
  if (!s) return s;
  switch (s.kind()) {
    case StmtKind::BufferStore: return mutate_store(s, s.as<BufferStoreNode>());
    case StmtKind::For: return mutate_for(s, s.as<ForNode>());
    case StmtKind::Block: {
      auto b = std::static_pointer_cast<const BlockNode>(s.ptr());
      return mutate_block(b);
    }
    case StmtKind::BlockRealize: return mutate_block_realize(s, s.as<BlockRealizeNode>());
    case StmtKind::Seq: return mutate_seq(s, s.as<SeqStmtNode>());
    case StmtKind::IfThenElse: return mutate_if(s, s.as<IfThenElseNode>());
    case StmtKind::LetStmt: return mutate_let(s, s.as<LetStmtNode>());
    case StmtKind::Evaluate: return mutate_evaluate(s, s.as<EvaluateNode>());
    case StmtKind::Allocate: return mutate_allocate(s, s.as<AllocateNode>());
    case StmtKind::DeclBuffer: return mutate_decl_buffer(s, s.as<DeclBufferNode>());
    case StmtKind::AllocateConst: return mutate_allocate_const(s, s.as<AllocateConstNode>());
  }
  return s;
}

Stmt StmtMutator::mutate_store(const Stmt& s, const BufferStoreNode* n) {
  Expr v = mutate(n->value);
  std::vector<Expr> idx;
  bool changed = mutate_all(n->indices, idx);
  Buffer b = mutate_buffer(n->buffer);
  if (!changed && v.same_as(n->value) && b == n->buffer) return s;
  return rebuild<BufferStoreNode>(n, std::move(b), std::move(v), std::move(idx));
}

Stmt StmtMutator::mutate_for(const Stmt& s, const ForNode* n) {
  Expr mn = mutate(n->min), ext = mutate(n->extent);
  Stmt body = mutate(n->body);
  if (mn.same_as(n->min) && ext.same_as(n->extent) && body.same_as(n->body)) return s;
  return rebuild<ForNode>(n, n->loop_var, std::move(mn), std::move(ext), n->for_kind, std::move(body),
                          n->thread_tag, n->annotations);
}

Range StmtMutator::mutate_range(const Range& r) { return {mutate(r.min), mutate(r.extent)}; }

BufferRegion StmtMutator::mutate_region(const BufferRegion& r) {
  BufferRegion out{mutate_buffer(r.buffer), {}};
  for (const Range& x : r.region) out.region.push_back(mutate_range(x));
  return out;
}

static bool same_range(const Range& a, const Range& b) {
  return a.min.same_as(b.min) && a.extent.same_as(b.extent);
}

static bool same_region(const BufferRegion& a, const BufferRegion& b) {
  if (a.buffer != b.buffer || a.region.size() != b.region.size()) return false;
  for (size_t i = 0; i < a.region.size(); ++i)
    if (!same_range(a.region[i], b.region[i])) return false;
  return true;
}

Block StmtMutator::mutate_block(const Block& b) {
  auto n = std::make_shared<BlockNode>(*b);
  bool changed = false;
  for (IterVar& iv : n->iter_vars) {
    Range r = mutate_range(iv.dom);
    changed |= !same_range(r, iv.dom);
    iv.dom = std::move(r);
  }
  auto regions = [&](std::vector<BufferRegion>& rs) {
    for (BufferRegion& r : rs) {
      BufferRegion m = mutate_region(r);
      changed |= !same_region(m, r);
      r = std::move(m);
    }
  };
  regions(n->reads);
  regions(n->writes);
  for (Buffer& a : n->alloc_buffers) {
    Buffer m = mutate_buffer(a);
    changed |= m != a;
    a = std::move(m);
  }
  for (MatchBufferRegion& m : n->match_buffers) {
    BufferRegion src = mutate_region(m.source);
    changed |= !same_region(src, m.source);
    m.source = std::move(src);
    Buffer mb = mutate_buffer(m.buffer);
    changed |= mb != m.buffer;
    m.buffer = std::move(mb);
  }
  Stmt init = mutate(b->init), body = mutate(b->body);
  changed |= !init.same_as(b->init) || !body.same_as(b->body);
  if (!changed) return b;
  n->init = std::move(init);
  n->body = std::move(body);
  return n;
}

Stmt StmtMutator::mutate_block_realize(const Stmt& s, const BlockRealizeNode* n) {
  std::vector<Expr> values;
  bool changed = mutate_all(n->iter_values, values);
  Expr pred = mutate(n->predicate);
  Block b = mutate_block(n->block);
  if (!changed && pred.same_as(n->predicate) && b == n->block) return s;
  return rebuild<BlockRealizeNode>(n, std::move(values), std::move(pred), std::move(b));
}

Stmt StmtMutator::mutate_seq(const Stmt& s, const SeqStmtNode* n) {
  std::vector<Stmt> out;
  bool changed = false;
  for (const Stmt& x : n->seq) {
    out.push_back(mutate(x));
    changed |= !out.back().same_as(x);
  }
  if (!changed) return s;
  return make_seq(std::move(out));
}

Stmt StmtMutator::mutate_if(const Stmt& s, const IfThenElseNode* n) {
  Expr c = mutate(n->cond);
  Stmt t = mutate(n->then_case), e = mutate(n->else_case);
  if (c.same_as(n->cond) && t.same_as(n->then_case) && e.same_as(n->else_case)) return s;
  return rebuild<IfThenElseNode>(n, std::move(c), std::move(t), std::move(e));
}

Stmt StmtMutator::mutate_let(const Stmt& s, const LetStmtNode* n) {
  Expr v = mutate(n->value);
  Stmt body = mutate(n->body);
  if (v.same_as(n->value) && body.same_as(n->body)) return s;
  return rebuild<LetStmtNode>(n, n->var, std::move(v), std::move(body));
}

Stmt StmtMutator::mutate_evaluate(const Stmt& s, const EvaluateNode* n) {
  Expr v = mutate(n->value);
  return v.same_as(n->value) ? s : rebuild<EvaluateNode>(n, std::move(v));
}

Stmt StmtMutator::mutate_allocate(const Stmt& s, const AllocateNode* n) {
  std::vector<Expr> ext;
  bool changed = mutate_all(n->extents, ext);
  Stmt body = mutate(n->body);
  if (!changed && body.same_as(n->body)) return s;
  return rebuild<AllocateNode>(n, n->buffer_var, n->dtype, std::move(ext), n->scope, std::move(body));
}

Stmt StmtMutator::mutate_allocate_const(const Stmt& s, const AllocateConstNode* n) {
  std::vector<Expr> ext;
  bool changed = mutate_all(n->extents, ext);
  Stmt body = mutate(n->body);
  if (!changed && body.same_as(n->body)) return s;
  return rebuild<AllocateConstNode>(n, n->buffer_var, n->dtype, std::move(ext), n->constant,
                                    std::move(body));
}

Stmt StmtMutator::mutate_decl_buffer(const Stmt& s, const DeclBufferNode* n) {
  Buffer b = mutate_buffer(n->buffer);
  Stmt body = mutate(n->body);
  if (b == n->buffer && body.same_as(n->body)) return s;
  return rebuild<DeclBufferNode>(n, std::move(b), std::move(body));
}

}  // namespace tirc
