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

void StmtVisitor::visit_stmt(const Stmt& s) {
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
  visit_expr(n->value);
  for (const Expr& i : n->indices) visit_expr(i);
}
void StmtVisitor::visit_for(const ForNode* n) {
  visit_expr(n->min);
  visit_expr(n->extent);
  visit(n->body);
}
void StmtVisitor::visit_block(const BlockNode* n) {
  if (exprs_) {
    for (const IterVar& iv : n->iter_vars) visit_range(iv.dom);
    for (const BufferRegion& r : n->reads) visit_region(r);
    for (const BufferRegion& r : n->writes) visit_region(r);
    for (const MatchBufferRegion& m : n->match_buffers) visit_region(m.source);
  }
  visit(n->init);
  visit(n->body);
}
void StmtVisitor::visit_block_realize(const BlockRealizeNode* n) {
  for (const Expr& v : n->iter_values) visit_expr(v);
  visit_expr(n->predicate);
  visit_block(n->block.get());
}
void StmtVisitor::visit_seq(const SeqStmtNode* n) {
  for (const Stmt& s : n->seq) visit(s);
}
void StmtVisitor::visit_if(const IfThenElseNode* n) {
  visit_expr(n->cond);
  visit(n->then_case);
  visit(n->else_case);
}
void StmtVisitor::visit_let(const LetStmtNode* n) {
  visit_expr(n->value);
  visit(n->body);
}
void StmtVisitor::visit_evaluate(const EvaluateNode* n) { visit_expr(n->value); }
void StmtVisitor::visit_allocate(const AllocateNode* n) {
  for (const Expr& e : n->extents) visit_expr(e);
  visit(n->body);
}
void StmtVisitor::visit_decl_buffer(const DeclBufferNode* n) { visit(n->body); }
void StmtVisitor::visit_allocate_const(const AllocateConstNode* n) {
  for (const Expr& e : n->extents) visit_expr(e);
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

namespace {

// Rebuilt statements keep the source location of the statement they replace.
template <class T, class... Args>
Stmt rebuild(const StmtNode* old, Args&&... args) {
  auto n = std::make_shared<T>(std::forward<Args>(args)...);
  n->loc = old->loc;
  return n;
}

// The body a parent keeps for a child that was `old` and came back as `now`:
// `T.evaluate(0)` where a hook removed it.
Stmt body_or_nop(Stmt now, const Stmt& old) {
  return now || !old ? std::move(now) : make_evaluate(make_int(0));
}

bool same(const Expr& a, const Expr& b) {
  return a.same_as(b);
}
bool same(const Stmt& a, const Stmt& b) {
  return a.same_as(b);
}
bool same(const Range& a, const Range& b) {
  return a.min.same_as(b.min) && a.extent.same_as(b.extent);
}

// f over each element of `in`. When some result differs from its element,
// `out` gets every result and the answer is true; otherwise `out` stays empty,
// so that nothing is allocated when nothing changes.
template <class T, class F>
bool mutate_each(const std::vector<T>& in, std::vector<T>& out, F&& f) {
  bool changed = false;
  for (size_t i = 0; i < in.size(); ++i) {
    T m = f(in[i]);
    if (!changed) {
      if (same(m, in[i])) continue;
      changed = true;
      out.reserve(in.size());
      out.assign(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(i));
    }
    out.push_back(std::move(m));
  }
  return changed;
}

}  // namespace

Stmt StmtMutator::mutate_stmt(const Stmt& s) {
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

bool StmtMutator::mutate_exprs(const std::vector<Expr>& in, std::vector<Expr>& out) {
  if (!exprs_) return false;
  return mutate_each(in, out, [&](const Expr& e) { return mutate_expr(e); });
}

Stmt StmtMutator::mutate_store(const Stmt& s, const BufferStoreNode* n) {
  if (!exprs_) return s;
  Expr v = mutate_expr(n->value);
  std::vector<Expr> idx;
  bool changed = mutate_exprs(n->indices, idx);
  Buffer b = mutate_buffer(n->buffer);
  if (!changed && v.same_as(n->value) && b == n->buffer) return s;
  if (!changed) idx = n->indices;
  return rebuild<BufferStoreNode>(n, std::move(b), std::move(v), std::move(idx));
}

Stmt StmtMutator::mutate_for(const Stmt& s, const ForNode* n) {
  Expr mn = mutate_expr(n->min), ext = mutate_expr(n->extent);
  Stmt body = mutate(n->body);
  if (mn.same_as(n->min) && ext.same_as(n->extent) && body.same_as(n->body)) return s;
  if (!body && n->body) throw Error("a loop body cannot be removed", n->loc);
  return with_header(*n, n->loop_var, std::move(mn), std::move(ext), std::move(body));
}

Range StmtMutator::mutate_range(const Range& r) { return {mutate(r.min), mutate(r.extent)}; }

bool StmtMutator::mutate_region(const BufferRegion& r, BufferRegion& out) {
  Buffer b = mutate_buffer(r.buffer);
  std::vector<Range> ranges;
  bool changed = mutate_each(r.region, ranges, [&](const Range& x) { return mutate_range(x); });
  if (!changed && b == r.buffer) return false;
  if (!changed) ranges = r.region;
  out = {std::move(b), std::move(ranges)};
  return true;
}

Block StmtMutator::mutate_block(const Block& b) {
  std::shared_ptr<BlockNode> n;  // the copy, made at the first change
  auto copy = [&]() -> BlockNode& {
    if (!n) n = std::make_shared<BlockNode>(*b);
    return *n;
  };
  if (exprs_) {
    for (size_t i = 0; i < b->iter_vars.size(); ++i)
      if (Range r = mutate_range(b->iter_vars[i].dom); !same(r, b->iter_vars[i].dom))
        copy().iter_vars[i].dom = std::move(r);
    for (size_t i = 0; i < b->reads.size(); ++i)
      if (BufferRegion r; mutate_region(b->reads[i], r)) copy().reads[i] = std::move(r);
    for (size_t i = 0; i < b->writes.size(); ++i)
      if (BufferRegion r; mutate_region(b->writes[i], r)) copy().writes[i] = std::move(r);
    for (size_t i = 0; i < b->alloc_buffers.size(); ++i)
      if (Buffer a = mutate_buffer(b->alloc_buffers[i]); a != b->alloc_buffers[i])
        copy().alloc_buffers[i] = std::move(a);
    for (size_t i = 0; i < b->match_buffers.size(); ++i) {
      const MatchBufferRegion& m = b->match_buffers[i];
      if (BufferRegion src; mutate_region(m.source, src))
        copy().match_buffers[i].source = std::move(src);
      if (Buffer mb = mutate_buffer(m.buffer); mb != m.buffer)
        copy().match_buffers[i].buffer = std::move(mb);
    }
  }
  Stmt init = mutate(b->init), body = mutate(b->body);
  if (!init.same_as(b->init)) copy().init = std::move(init);
  if (!body.same_as(b->body)) copy().body = body_or_nop(std::move(body), b->body);
  return n ? Block(std::move(n)) : b;
}

Stmt StmtMutator::mutate_block_realize(const Stmt& s, const BlockRealizeNode* n) {
  std::vector<Expr> values;
  bool changed = mutate_exprs(n->iter_values, values);
  Expr pred = mutate_expr(n->predicate);
  Block b = mutate_block(n->block);
  if (!changed && pred.same_as(n->predicate) && b == n->block) return s;
  if (!changed) values = n->iter_values;
  return rebuild<BlockRealizeNode>(n, std::move(values), std::move(pred), std::move(b));
}

Stmt StmtMutator::mutate_seq(const Stmt& s, const SeqStmtNode* n) {
  std::vector<Stmt> out;
  if (!mutate_each(n->seq, out, [&](const Stmt& x) { return mutate(x); })) return s;
  std::erase_if(out, [](const Stmt& x) { return !x; });
  if (out.empty()) return make_evaluate(make_int(0));
  return make_seq(std::move(out));
}

Stmt StmtMutator::mutate_if(const Stmt& s, const IfThenElseNode* n) {
  Expr c = mutate_expr(n->cond);
  Stmt t = mutate(n->then_case), e = mutate(n->else_case);
  if (c.same_as(n->cond) && t.same_as(n->then_case) && e.same_as(n->else_case)) return s;
  return rebuild<IfThenElseNode>(n, std::move(c), body_or_nop(std::move(t), n->then_case),
                                 std::move(e));
}

Stmt StmtMutator::mutate_let(const Stmt& s, const LetStmtNode* n) {
  Expr v = mutate_expr(n->value);
  Stmt body = mutate(n->body);
  if (v.same_as(n->value) && body.same_as(n->body)) return s;
  return rebuild<LetStmtNode>(n, n->var, std::move(v), body_or_nop(std::move(body), n->body));
}

Stmt StmtMutator::mutate_evaluate(const Stmt& s, const EvaluateNode* n) {
  Expr v = mutate_expr(n->value);
  return v.same_as(n->value) ? s : rebuild<EvaluateNode>(n, std::move(v));
}

bool StmtMutator::mutate_allocation(const std::vector<Expr>& extents, const Stmt& body,
                                    std::vector<Expr>& extents_out, Stmt& body_out) {
  bool changed = mutate_exprs(extents, extents_out);
  body_out = mutate(body);
  if (!changed && body_out.same_as(body)) return false;
  if (!changed) extents_out = extents;
  body_out = body_or_nop(std::move(body_out), body);
  return true;
}

Stmt StmtMutator::mutate_allocate(const Stmt& s, const AllocateNode* n) {
  std::vector<Expr> ext;
  Stmt body;
  if (!mutate_allocation(n->extents, n->body, ext, body)) return s;
  return rebuild<AllocateNode>(n, n->buffer_var, n->dtype, std::move(ext), n->scope,
                               std::move(body));
}

Stmt StmtMutator::mutate_allocate_const(const Stmt& s, const AllocateConstNode* n) {
  std::vector<Expr> ext;
  Stmt body;
  if (!mutate_allocation(n->extents, n->body, ext, body)) return s;
  return rebuild<AllocateConstNode>(n, n->buffer_var, n->dtype, std::move(ext), n->constant,
                                    std::move(body));
}

Stmt StmtMutator::mutate_decl_buffer(const Stmt& s, const DeclBufferNode* n) {
  Buffer b = exprs_ ? mutate_buffer(n->buffer) : n->buffer;
  Stmt body = mutate(n->body);
  if (b == n->buffer && body.same_as(n->body)) return s;
  return rebuild<DeclBufferNode>(n, std::move(b), body_or_nop(std::move(body), n->body));
}

}  // namespace tirc
