// scan_guards: guards of a loop body read as intervals of the loop variable.
#include "passes/partition_guards.h"

#include <algorithm>

#include "ir/arith/linear_form.h"
#include "ir/functor.h"
#include "passes/pass_util.h"

namespace tirc::passes {

using arith::i128;
using arith::Interval;

namespace {

Interval intersect(const Interval& a, const Interval& b) {
  return {std::max(a.lo, b.lo), std::min(a.hi, b.hi)};
}

Interval hull(const Interval& a, const Interval& b) {
  if (a.lo > a.hi) return b;
  if (b.lo > b.hi) return a;
  return {std::min(a.lo, b.lo), std::max(a.hi, b.hi)};
}

class TrapFinder : public ExprVisitor {
 public:
  bool found = false;

 protected:
  void visit_binary(const BinaryNode* n) override {
    switch (n->kind) {
      case ExprKind::Div:
      case ExprKind::Mod:
      case ExprKind::FloorDiv:
      case ExprKind::FloorMod:
        if (n->dtype.is_integer()) {
          auto d = as_const_int(n->b);
          if (!d || *d == 0) found = true;
        }
        break;
      default:
        break;
    }
    ExprVisitor::visit_binary(n);
  }
};

// A conjunct read as `coef * v + rest < 0` with rest's bounds over the inner
// loops: where it holds at every inner iteration and where it may hold at all.
struct ConjunctIntervals {
  Interval holds;  // true for every inner iteration
  Interval maybe;  // outside it, false for every inner iteration
};

// Bound of e strictly inside its type, so evaluating e never wraps.
std::optional<ConstIntBound> exact_bound(const Expr& e, const Analyzer& a) {
  ConstIntBound b = a.const_int_bound(e);
  if (!b.min || !b.max) return std::nullopt;
  DataType t = e.dtype();
  if (*b.min <= arith::type_min(t) || *b.max >= arith::type_max(t)) return std::nullopt;
  return b;
}

std::optional<ConjunctIntervals> read_conjunct(const Expr& c, const Var& v, const Analyzer& a) {
  const ExprKind k = c.kind();
  if (k != ExprKind::LT && k != ExprKind::LE && k != ExprKind::GT && k != ExprKind::GE)
    return std::nullopt;
  auto* cmp = c.as<BinaryNode>();
  DataType t = cmp->a.dtype();
  if (!t.is_int() || t.lanes() != 1 || cmp->b.dtype() != t) return std::nullopt;
  Expr diff = a.simplify(make_binary(ExprKind::Sub, cmp->a, cmp->b));
  // The original operands and their difference must not wrap anywhere in the
  // loop's range (v is bound there by the caller), so exact integer reasoning
  // on the difference is the comparison's meaning.
  if (!exact_bound(cmp->a, a) || !exact_bound(cmp->b, a) || !exact_bound(diff, a))
    return std::nullopt;
  arith::LinearForm f = arith::decompose(diff);
  int64_t coef = 0;
  arith::LinearForm rest(f.dtype);
  rest.add_constant(f.constant);
  for (const arith::LinearTerm& term : f.terms) {
    if (auto* tv = term.term.as<VarNode>(); tv == v.get()) {
      coef += term.coef;
      continue;
    }
    if (vars_of(term.term).count(v.get())) return std::nullopt;  // v not linear
    rest.add_term(term.term, term.coef);
  }
  if (coef == 0) return std::nullopt;
  ConstIntBound rb = a.const_int_bound(arith::emit(rest));
  // Everything as coef * v + r < 0 with r in [rmin, rmax].
  i128 rmin = rb.min ? i128(*rb.min) : -Interval::kInf,
       rmax = rb.max ? i128(*rb.max) : Interval::kInf;
  i128 c2 = coef;
  if (k == ExprKind::GT || k == ExprKind::GE) {  // diff > 0  <=>  -diff < 0
    c2 = -c2;
    std::swap(rmin, rmax);
    rmin = rmin == Interval::kInf ? -Interval::kInf : -rmin;
    rmax = rmax == -Interval::kInf ? Interval::kInf : -rmax;
  }
  if (k == ExprKind::LE || k == ExprKind::GE) {  // x <= 0  <=>  x - 1 < 0
    if (rmin > -Interval::kInf) rmin -= 1;
    if (rmax < Interval::kInf) rmax -= 1;
  }
  ConjunctIntervals out;
  out.holds = {1, 0};  // empty unless rest is bounded above
  // holds for all r: c2 * v + rmax < 0; may hold: c2 * v + rmin < 0.
  if (c2 > 0) {
    if (rmax < Interval::kInf) out.holds = {-Interval::kInf, arith::floor_div(-rmax - 1, c2)};
    if (rmin > -Interval::kInf) out.maybe.hi = arith::floor_div(-rmin - 1, c2);
  } else {
    i128 m = -c2;  // m * v > r
    if (rmax < Interval::kInf) out.holds = {arith::floor_div(rmax, m) + 1, Interval::kInf};
    if (rmin > -Interval::kInf) out.maybe.lo = arith::floor_div(rmin, m) + 1;
  }
  return out;
}

// A scalar if_then_else in an expression; `operand`: it is an operand of
// arithmetic (or of a condition), not the expression itself or an arm of
// such selections (a pad's or a concat's choice of value).
struct Selection {
  const CallNode* call;
  bool operand;
};

// Every selection below e counts as an operand.
struct OperandSelections : ExprVisitor {
  std::vector<Selection>* out = nullptr;
  void visit_call(const CallNode* n) override {
    if (is_selection(n)) out->push_back({n, true});
    ExprVisitor::visit_call(n);
  }
};

// The selections of e, outermost first: through the arms of a selection that
// is the expression itself, then every one below anything else.
void collect_selections(const Expr& e, std::vector<Selection>& out) {
  OperandSelections below;
  below.out = &out;
  auto* n = e.as<CallNode>();
  if (!is_selection(n)) {
    below.visit(e);
    return;
  }
  out.push_back({n, false});
  below.visit(n->args[0]);
  collect_selections(n->args[1], out);
  collect_selections(n->args[2], out);
}

std::vector<Selection> selections(const Expr& e) {
  std::vector<Selection> out;
  if (e) collect_selections(e, out);
  return out;
}

class GuardScanner {
 public:
  GuardScanner(const Var& v, const Analyzer& outer, const std::vector<Var>& enclosing)
      : v_(v), analyzer_(outer), enclosing_(enclosing) {}

  GuardFacts facts;

  // The interval outside which s does nothing; records usable conjuncts.
  Interval scan(const Stmt& s) {
    if (!s) return {};
    switch (s->kind) {
      case StmtKind::Seq: {
        Interval live{1, 0};
        for (const Stmt& x : s.as<SeqStmtNode>()->seq) live = hull(live, scan(x));
        return live;
      }
      case StmtKind::For: {
        auto* n = s.as<ForNode>();
        facts.binds_threads |= n->for_kind == ForKind::ThreadBinding;
        Analyzer saved = analyzer_;
        analyzer_.bind(n->loop_var, Range::from_min_extent(n->min, n->extent));
        Interval live = scan(n->body);
        analyzer_ = std::move(saved);
        return may_trap(n->min) || may_trap(n->extent) ? Interval::everything() : live;
      }
      case StmtKind::IfThenElse: {
        auto* n = s.as<IfThenElseNode>();
        Interval live = scan(n->then_case);
        if (n->else_case) {
          scan(n->else_case);
          live = Interval::everything();
        }
        if (n->cond.dtype().lanes() != 1) return Interval::everything();
        bool traps = may_trap(n->cond);
        for (const Expr& c : conjuncts(n->cond)) {
          if (!vars_of(c).count(v_.get())) continue;
          auto ci = read_conjunct(c, v_, analyzer_);
          if (!ci) continue;
          facts.holds_on.push_back(ci->holds);
          live = intersect(live, ci->maybe);
        }
        return traps ? Interval::everything() : live;
      }
      case StmtKind::BufferStore: {
        // A selection's condition picks one arm on each side of where it
        // holds: the store is live everywhere, but the values of v where its
        // conjuncts hold are worth a part of their own.
        auto* n = s.as<BufferStoreNode>();
        std::vector<Expr> exprs = n->indices;
        exprs.push_back(n->value);
        const bool spatial = spatial_for(*n);
        for (const Expr& e : exprs)
          for (const Selection& sel : selections(e)) {
            if (sel.operand && !spatial) continue;
            for (const Expr& c : conjuncts(sel.call->args[0]))
              if (vars_of(c).count(v_.get()))
                if (auto ci = read_conjunct(c, v_, analyzer_)) facts.holds_on.push_back(ci->holds);
          }
        return Interval::everything();
      }
      case StmtKind::LetStmt:
        scan(s.as<LetStmtNode>()->body);  // its variable stays unbounded
        return Interval::everything();
      case StmtKind::Allocate:
        facts.allocates = true;
        scan(s.as<AllocateNode>()->body);
        return Interval::everything();
      case StmtKind::AllocateConst:
        facts.allocates = true;
        scan(s.as<AllocateConstNode>()->body);
        return Interval::everything();
      case StmtKind::DeclBuffer:
        facts.allocates = true;
        return Interval::everything();
      default:
        return Interval::everything();
    }
  }

 private:
  // Whether the store's index varies over v and over every enclosing loop
  // (none of them is a reduction loop of the store).
  bool spatial_for(const BufferStoreNode& n) const {
    std::unordered_set<const VarNode*> used;
    for (const Expr& i : n.indices)
      for (const VarNode* x : vars_of(i)) used.insert(x);
    if (!used.count(v_.get())) return false;
    for (const Var& e : enclosing_)
      if (!used.count(e.get())) return false;
    return true;
  }

  const Var& v_;
  Analyzer analyzer_;
  const std::vector<Var>& enclosing_;
};

}  // namespace

bool is_selection(const CallNode* n) {
  return n && n->op == "if_then_else" && n->args.size() == 3 && n->args[0].dtype().lanes() == 1;
}

bool may_trap(const Expr& e) {
  TrapFinder f;
  if (e) f.visit(e);
  return f.found;
}

GuardFacts scan_guards(const Var& v, const Stmt& body, const Analyzer& outer,
                       const std::vector<Var>& enclosing) {
  GuardScanner s(v, outer, enclosing);
  Interval live = s.scan(body);
  s.facts.live = live;
  return std::move(s.facts);
}

}  // namespace tirc::passes
