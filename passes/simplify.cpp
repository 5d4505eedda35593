// simplify: ir/arith on every index, condition and loop bound, with each
// loop variable bounded by its loop.
#include "ir/arith/analyzer.h"
#include "ir/functor.h"
#include "passes/passes.h"

namespace tirc {

namespace {

class LoweredSimplifier : public StmtMutator {
 protected:
  Expr simplified(const Expr& e) {
    if (!e) return e;
    if (auto* r = e.as<RampNode>()) {
      Expr base = analyzer_.simplify(r->base), stride = analyzer_.simplify(r->stride);
      if (base.same_as(r->base) && stride.same_as(r->stride)) return e;
      return make_ramp(base, stride, r->lanes);
    }
    if (auto* b = e.as<BroadcastNode>()) {
      Expr v = analyzer_.simplify(b->value);
      return v.same_as(b->value) ? e : make_broadcast(v, b->lanes);
    }
    if (e.dtype().lanes() > 1) return e;
    if (!e.dtype().is_int() && !e.dtype().is_uint() && !e.dtype().is_bool()) return e;
    return analyzer_.simplify(e);
  }

  Expr mutate_load(const Expr& e, const BufferLoadNode* n) override {
    std::vector<Expr> idx;
    bool changed = false;
    for (const Expr& i : n->indices) {
      idx.push_back(simplified(mutate(i)));
      changed |= !idx.back().same_as(i);
    }
    if (!changed) return e;
    return Expr(std::make_shared<BufferLoadNode>(n->dtype, n->buffer, std::move(idx)));
  }

  Stmt mutate_store(const Stmt& s, const BufferStoreNode* n) override {
    std::vector<Expr> idx;
    bool changed = false;
    for (const Expr& i : n->indices) {
      idx.push_back(simplified(mutate(i)));
      changed |= !idx.back().same_as(i);
    }
    Expr v = mutate(n->value);
    if (!changed && v.same_as(n->value)) return s;
    auto m = std::make_shared<BufferStoreNode>(n->buffer, v, std::move(idx));
    m->loc = n->loc;
    return Stmt(std::move(m));
  }

  Expr mutate_call(const Expr& e, const CallNode* n) override {
    // if_then_else conditions are conditions too.
    Expr out = StmtMutator::mutate_call(e, n);
    auto* c = out.as<CallNode>();
    if (c && c->op == "if_then_else" && c->args.size() == 3) {
      Expr cond = simplified(c->args[0]);
      if (!cond.same_as(c->args[0]))
        return make_call(c->dtype, c->op, {cond, c->args[1], c->args[2]});
    }
    return out;
  }

  Stmt mutate_for(const Stmt& s, const ForNode* n) override {
    Expr mn = simplified(mutate(n->min)), ext = simplified(mutate(n->extent));
    Analyzer saved = analyzer_;
    analyzer_.bind(n->loop_var, Range::from_min_extent(mn, ext));
    Stmt body = mutate(n->body);
    analyzer_ = std::move(saved);
    if (mn.same_as(n->min) && ext.same_as(n->extent) && body.same_as(n->body)) return s;
    return with_header(*n, n->loop_var, mn, ext, body);
  }

  Stmt mutate_if(const Stmt& s, const IfThenElseNode* n) override {
    Expr cond = simplified(mutate(n->cond));
    bool scalar = cond.dtype().lanes() == 1;
    if (is_const_int(cond, 1) || (scalar && analyzer_.can_prove(cond))) return mutate(n->then_case);
    if (is_const_int(cond, 0) || (scalar && analyzer_.can_prove(make_not(cond))))
      return n->else_case ? mutate(n->else_case) : make_evaluate(make_int(0));
    Stmt t = mutate(n->then_case);
    Stmt e = n->else_case ? mutate(n->else_case) : Stmt();
    if (cond.same_as(n->cond) && t.same_as(n->then_case) && e.same_as(n->else_case)) return s;
    auto m = std::make_shared<IfThenElseNode>(cond, t, e);
    m->loc = n->loc;
    return Stmt(std::move(m));
  }

  Stmt mutate_let(const Stmt& s, const LetStmtNode* n) override {
    Expr v = simplified(mutate(n->value));
    Stmt body = mutate(n->body);
    if (v.same_as(n->value) && body.same_as(n->body)) return s;
    auto m = std::make_shared<LetStmtNode>(n->var, v, body);
    m->loc = n->loc;
    return Stmt(std::move(m));
  }

 private:
  Analyzer analyzer_;
};

}  // namespace

PrimFunc simplify_lowered(const PrimFunc& f) {
  LoweredSimplifier s;
  Stmt body = s.mutate(f->body);
  return body.same_as(f->body) ? f : with_body(f, body);
}

}  // namespace tirc
