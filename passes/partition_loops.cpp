// partition-loops: a loop whose body is guarded by a condition that holds on a
// prefix (or suffix, or middle) of its iterations becomes a main part, where
// the condition provably holds and its `if` is dropped, and head/tail parts
// that keep it. Iterations where a guard around everything the body does is
// provably false are dropped, which is how a tail shrinks to the iterations
// that do something and loses its `if` where that is exact.
//
// Why: a split whose factor does not divide the extent leaves `if io * 6 + ii
// < 256` (lower-blocks' T.where) inside the nest, and the x86 contraction
// emitter and vectorizer accept only straight-line bodies.
//
// The condition of a scalar if_then_else in a store counts as a guard too
// (a pad or concat block: `if_then_else(1 <= w and w < 57, X[w - 1], 0)`):
// in the main part its conjuncts on the loop hold and are dropped, in a head
// or tail one is false and the selection becomes its other arm, so the
// vectorizer sees plain loads.
//
// Loops are visited outermost first, so a guard that depends on an outer loop
// splits that loop and the inner nest of its main part is unguarded; the head
// and tail parts are then visited again with their narrower ranges, which
// partitions (or shrinks) their inner loops in turn.
//
// Loop kinds: every part keeps the loop's kind and annotations. A Parallel
// loop becomes two or three Parallel loops one after the other (its
// iterations are independent, so running them as consecutive parallel loops
// computes the same); this keeps a register-tile-sized main part of constant
// extent, which a split inside the parallel loop with a bound depending on
// its variable would not. A Vectorized head or tail that still holds an `if`
// becomes Serial, since the vectorizer refuses ifs anyway; an Unrolled loop's
// parts stay Unrolled (constant extents).
//
// Left alone: loops with non-constant bounds, bodies that allocate (a copy
// would need new storage variables), loops around a GPU block's thread-bound
// loops (each iteration is a sequence of phases the whole block runs, such as
// a convolution's copy of a shared tile, its guard testing the pad, and the
// product: parts would repeat every phase, and compact-allocations needs the
// loop whole to give each iteration its own tile), and guards that are not affine in the
// loop variable with bounded other terms (see partition_guards.h). No change
// is always correct.
#include "ir/arith/analyzer.h"
#include "ir/functor.h"
#include "passes/partition_guards.h"
#include "passes/pass_util.h"
#include "passes/passes.h"

namespace tirc {

using namespace passes;
using arith::Interval;

namespace {

Interval intersect(const Interval& a, const Interval& b) {
  return {std::max(a.lo, b.lo), std::min(a.hi, b.hi)};
}

bool empty(const Interval& i) {
  return i.lo > i.hi;
}

class IfFinder : public StmtVisitor {
 public:
  bool found = false;

 protected:
  void visit_if(const IfThenElseNode*) override { found = true; }
};

bool contains_if(const Stmt& s) {
  IfFinder f;
  f.visit(s);
  return f.found;
}

class LoopPartitioner : public StmtMutator {
 public:
  explicit LoopPartitioner(const PrimFunc& f) : names_(f) {}

 protected:
  Stmt mutate_for(const Stmt& s, const ForNode* n) override {
    auto mn = as_const_int(n->min), ext = as_const_int(n->extent);
    // A thread-bound loop's extent is its launch dimension: it stays whole.
    if (mn && ext && *ext > 0 && n->for_kind != ForKind::ThreadBinding)
      if (auto parts = partition(*n, *mn, *ext)) return *parts;
    Analyzer saved = analyzer_;
    analyzer_.bind(n->loop_var, Range::from_min_extent(n->min, n->extent));
    enclosing_.push_back(n->loop_var);
    Stmt body = mutate(n->body);
    enclosing_.pop_back();
    analyzer_ = std::move(saved);
    if (body.same_as(n->body)) return s;
    return with_body(*n, body);
  }

  // An `if` that never holds leaves no `T.evaluate(0)` behind in a sequence.
  Stmt mutate_seq(const Stmt& s, const SeqStmtNode* n) override {
    std::vector<Stmt> out;
    bool changed = false;
    for (const Stmt& c : n->seq) {
      Stmt m = mutate(c);
      changed |= !m.same_as(c);
      auto* e = m.as<EvaluateNode>();
      if (c.kind() == StmtKind::IfThenElse && e && as_const_int(e->value)) continue;
      out.push_back(std::move(m));
    }
    if (!changed) return s;
    return out.empty() ? make_evaluate(make_int(0)) : make_seq(std::move(out));
  }

  // A selection whose condition the loop ranges decide becomes that arm;
  // conjuncts that always hold are dropped.
  Expr mutate_call(const Expr& e, const CallNode* n) override {
    Expr m = ExprMutator::mutate_call(e, n);
    auto* c = m.as<CallNode>();
    if (!is_selection(c) || may_trap(c->args[0])) return m;
    std::vector<Expr> kept;
    for (const Expr& k : conjuncts(c->args[0])) {
      if (analyzer_.can_prove(k)) continue;
      if (analyzer_.can_prove(make_not(k))) return c->args[2];
      kept.push_back(k);
    }
    if (kept.empty()) return c->args[1];
    if (kept.size() == conjuncts(c->args[0]).size()) return m;
    return make_call(c->dtype, c->op, {conjunction(kept), c->args[1], c->args[2]});
  }

  // Drops the conjuncts that hold wherever the statement runs; an `if` with a
  // conjunct that never holds becomes its else case (or nothing).
  Stmt mutate_if(const Stmt& s, const IfThenElseNode* n) override {
    if (n->cond.dtype().lanes() != 1) return StmtMutator::mutate_if(s, n);
    std::vector<Expr> kept;
    for (const Expr& c : conjuncts(n->cond)) {
      if (analyzer_.can_prove(c)) continue;
      if (analyzer_.can_prove(make_not(c)))
        return n->else_case ? mutate(n->else_case) : make_evaluate(make_int(0));
      kept.push_back(c);
    }
    Stmt t = mutate(n->then_case);
    if (kept.empty()) return t;
    Stmt e = n->else_case ? mutate(n->else_case) : Stmt();
    bool same_cond = kept.size() == conjuncts(n->cond).size();
    if (same_cond && t.same_as(n->then_case) && e.same_as(n->else_case)) return s;
    auto m = std::make_shared<IfThenElseNode>(same_cond ? n->cond : conjunction(kept), t, e);
    m->loc = n->loc;
    return Stmt(std::move(m));
  }

 private:
  // The parts of n, or nullopt when no guard narrows its range.
  std::optional<Stmt> partition(const ForNode& n, int64_t mn, int64_t ext) {
    const Interval range{mn, arith::i128(mn) + ext - 1};
    Analyzer inside = analyzer_;
    inside.bind(n.loop_var, Range::from_min_extent(n.min, n.extent));
    GuardFacts facts = scan_guards(n.loop_var, n.body, inside, enclosing_);
    if (facts.allocates || facts.binds_threads) return std::nullopt;
    Interval live = intersect(range, facts.live);
    if (empty(live)) return make_evaluate(make_int(0));  // no iteration does anything
    Interval main = live;
    for (const Interval& h : facts.holds_on)
      if (Interval m = intersect(main, h); !empty(m)) main = m;
    if (main.lo == range.lo && main.hi == range.hi) return std::nullopt;
    std::vector<Stmt> parts;
    if (main.lo > live.lo) parts.push_back(part(n, {live.lo, main.lo - 1}, "_head"));
    parts.push_back(part(n, main, ""));
    if (main.hi < live.hi) parts.push_back(part(n, {main.hi + 1, live.hi}, "_tail"));
    return make_seq(std::move(parts));
  }

  // n over [r.lo, r.hi], its body visited with that range; a part other than
  // the main one (suffix "") gets new variables, as the lowered form defines
  // each variable once.
  Stmt part(const ForNode& n, const Interval& r, const std::string& suffix) {
    Var v = n.loop_var;
    Stmt body = n.body;
    if (!suffix.empty()) {
      VarMap vmap;
      v = make_var(names_.fresh(n.loop_var->name + suffix), n.loop_var->dtype);
      vmap[n.loop_var.get()] = v;
      body = with_new_variables(body, names_, vmap);
    }
    const DataType t = v->dtype;
    Expr mn = make_int(static_cast<int64_t>(r.lo), t);
    Expr ext = make_int(static_cast<int64_t>(r.hi - r.lo + 1), t);
    Analyzer saved = analyzer_;
    analyzer_.bind(v, Range::from_min_extent(mn, ext));
    enclosing_.push_back(v);
    body = mutate(body);
    enclosing_.pop_back();
    analyzer_ = std::move(saved);
    Stmt part = with_header(n, v, mn, ext, body);
    // A vectorized piece that keeps a guard runs serially.
    if (n.for_kind == ForKind::Vectorized && !suffix.empty() && contains_if(body))
      return with_kind(*part.as<ForNode>(), ForKind::Serial, n.thread_tag);
    return part;
  }

  NameSet names_;
  Analyzer analyzer_;
  std::vector<Var> enclosing_;  // loops around the statement being visited
};

}  // namespace

PrimFunc partition_loops(const PrimFunc& f) {
  LoopPartitioner p(f);
  Stmt body = p.mutate(f->body);
  return body.same_as(f->body) ? f : with_body(f, body);
}

}  // namespace tirc
