// TEMPORARY stand-ins for ir/arith/analyzer.h and ir/arith/region.h so the
// verifier links and its tests run before the real implementations are merged.
// Delete this file on merge. Deliberately simple: linear forms over variables
// plus interval arithmetic; simplify() is the identity.
#include <algorithm>
#include <map>
#include <set>

#include "ir/arith/analyzer.h"
#include "ir/arith/region.h"
#include "ir/functor.h"

namespace tirc {
namespace {

using Bound = ConstIntBound;

std::optional<int64_t> add(std::optional<int64_t> a, std::optional<int64_t> b) {
  if (!a || !b) return std::nullopt;
  return *a + *b;
}

// sum of coeff * atom + constant; atoms are non-linear subexpressions by node.
struct Linear {
  std::map<const ExprNode*, std::pair<Expr, int64_t>> terms;
  int64_t constant = 0;

  void add_scaled(const Linear& o, int64_t k) {
    constant += o.constant * k;
    for (auto& [key, t] : o.terms) {
      auto& slot = terms.try_emplace(key, t.first, 0).first->second;
      slot.second += t.second * k;
    }
  }
};

Linear linearize(const Expr& e) {
  Linear l;
  if (auto v = as_const_int(e); v && !e.dtype().is_bool()) {
    l.constant = *v;
    return l;
  }
  if (auto* b = e.as<BinaryNode>()) {
    if (e.kind() == ExprKind::Add || e.kind() == ExprKind::Sub) {
      l.add_scaled(linearize(b->a), 1);
      l.add_scaled(linearize(b->b), e.kind() == ExprKind::Add ? 1 : -1);
      return l;
    }
    if (e.kind() == ExprKind::Mul) {
      if (auto k = as_const_int(b->b)) return l.add_scaled(linearize(b->a), *k), l;
      if (auto k = as_const_int(b->a)) return l.add_scaled(linearize(b->b), *k), l;
    }
  }
  l.terms.emplace(e.get(), std::make_pair(e, int64_t{1}));
  return l;
}

Bound scale(Bound b, int64_t k) {
  if (k == 0) return {0, 0};
  auto mul = [k](std::optional<int64_t> x) -> std::optional<int64_t> {
    if (!x) return std::nullopt;
    return *x * k;
  };
  return k > 0 ? Bound{mul(b.min), mul(b.max)} : Bound{mul(b.max), mul(b.min)};
}

Bound hull(Bound a, Bound b) {
  Bound r;
  if (a.min && b.min) r.min = std::min(*a.min, *b.min);
  if (a.max && b.max) r.max = std::max(*a.max, *b.max);
  return r;
}

}  // namespace

void Analyzer::bind(const Var& var, const Range& range) {
  Bound mn = const_int_bound(range.min);
  Bound ext = const_int_bound(range.extent);
  Bound b{mn.min, std::nullopt};
  if (mn.max && ext.max) b.max = *mn.max + *ext.max - 1;
  bounds_[var.get()] = b;
}

void Analyzer::bind(const Var& var, ConstIntBound bound) {
  bounds_[var.get()] = bound;
}

Expr Analyzer::simplify(const Expr& e) const {
  return e;
}

ConstIntBound Analyzer::const_int_bound(const Expr& e) const {
  if (!e) return {};
  Linear l = linearize(e);
  if (l.terms.size() != 1 || l.terms.begin()->second.second != 1 || l.constant != 0) {
    Bound sum{l.constant, l.constant};
    for (auto& [key, t] : l.terms) {
      Bound tb = scale(const_int_bound(t.first), t.second);
      sum = {add(sum.min, tb.min), add(sum.max, tb.max)};
    }
    return sum;
  }
  if (auto* v = e.as<VarNode>()) {
    auto it = bounds_.find(v);
    return it == bounds_.end() ? Bound{} : it->second;
  }
  if (auto* c = e.as<CastNode>())
    return c->value.dtype().is_integer() ? const_int_bound(c->value) : Bound{};
  if (auto* s = e.as<SelectNode>())
    return hull(const_int_bound(s->true_value), const_int_bound(s->false_value));
  auto* b = e.as<BinaryNode>();
  if (!b) return {};
  Bound x = const_int_bound(b->a), y = const_int_bound(b->b);
  switch (e.kind()) {
    case ExprKind::Min:
      return {x.min && y.min ? std::optional(std::min(*x.min, *y.min)) : std::nullopt,
              x.max ? (y.max ? std::optional(std::min(*x.max, *y.max)) : x.max) : y.max};
    case ExprKind::Max:
      return {x.min ? (y.min ? std::optional(std::max(*x.min, *y.min)) : x.min) : y.min,
              x.max && y.max ? std::optional(std::max(*x.max, *y.max)) : std::nullopt};
    case ExprKind::Mul:
      if (x.min && x.max && y.min && y.max) {
        int64_t c[] = {*x.min * *y.min, *x.min * *y.max, *x.max * *y.min, *x.max * *y.max};
        return {*std::min_element(c, c + 4), *std::max_element(c, c + 4)};
      }
      return {};
    case ExprKind::FloorDiv:
      if (auto d = as_const_int(b->b); d && *d > 0) {
        auto fd = [d](std::optional<int64_t> v) -> std::optional<int64_t> {
          if (!v) return std::nullopt;
          return *v >= 0 ? *v / *d : -((-*v + *d - 1) / *d);
        };
        return {fd(x.min), fd(x.max)};
      }
      return {};
    case ExprKind::FloorMod:
      if (auto d = as_const_int(b->b); d && *d > 0) {
        if (x.min && x.max && *x.min >= 0 && *x.max < *d) return x;
        return {0, *d - 1};
      }
      return {};
    default:
      return {};
  }
}

bool Analyzer::can_prove(const Expr& cond) const {
  if (!cond) return false;
  if (auto v = as_const_int(cond)) return *v != 0;
  if (cond.kind() == ExprKind::And) {
    auto* b = cond.as<BinaryNode>();
    return can_prove(b->a) && can_prove(b->b);
  }
  if (cond.kind() == ExprKind::Or) {
    auto* b = cond.as<BinaryNode>();
    return can_prove(b->a) || can_prove(b->b);
  }
  auto* b = cond.as<BinaryNode>();
  if (!b || cond.kind() < ExprKind::EQ || cond.kind() > ExprKind::GE) return false;
  if (!b->a.dtype().is_integer()) return false;
  Linear diff = linearize(b->a);
  diff.add_scaled(linearize(b->b), -1);
  Bound d{diff.constant, diff.constant};
  for (auto& [key, t] : diff.terms) {
    if (t.second == 0) continue;
    Bound tb = scale(const_int_bound(t.first), t.second);
    d = {add(d.min, tb.min), add(d.max, tb.max)};
  }
  switch (cond.kind()) {
    case ExprKind::EQ:
      return d.is_const() && *d.min == 0;
    case ExprKind::NE:
      return (d.max && *d.max < 0) || (d.min && *d.min > 0);
    case ExprKind::LT:
      return d.max && *d.max < 0;
    case ExprKind::LE:
      return d.max && *d.max <= 0;
    case ExprKind::GT:
      return d.min && *d.min > 0;
    case ExprKind::GE:
      return d.min && *d.min >= 0;
    default:
      return false;
  }
}

bool Analyzer::can_prove_equal(const Expr& a, const Expr& b) const {
  if (a.dtype() != b.dtype()) return false;
  return can_prove(make_binary(ExprKind::EQ, a, b));
}

Expr simplify(const Expr& e) {
  return e;
}

BufferRegion relax_access(const Buffer& buffer, const std::vector<Expr>& indices,
                          const std::unordered_map<const VarNode*, Range>& dom) {
  Analyzer relax;
  for (auto& [v, r] : dom) {
    Analyzer outer;
    Bound mn = outer.const_int_bound(r.min), ext = outer.const_int_bound(r.extent);
    Bound b{mn.min, std::nullopt};
    if (mn.max && ext.max) b.max = *mn.max + *ext.max - 1;
    // relax_access only needs the bound, so a fresh VarNode key is enough
    relax.bind(std::shared_ptr<const VarNode>(std::shared_ptr<const VarNode>{}, v), b);
  }
  BufferRegion region{buffer, {}};
  for (size_t d = 0; d < indices.size(); ++d) {
    const Expr& idx = indices[d];
    bool uses_relaxed = false;
    struct Finder : ExprVisitor {
      const std::unordered_map<const VarNode*, Range>* dom;
      bool* found;
      void visit_var(const VarNode* v) override { *found |= dom->count(v) > 0; }
    } finder;
    finder.dom = &dom;
    finder.found = &uses_relaxed;
    finder.visit(idx);
    Bound b = relax.const_int_bound(idx);
    DataType t = idx.dtype().element_of();
    if (!uses_relaxed && idx.dtype().is_scalar())
      region.region.push_back({idx, make_int(1, t)});
    else if (b.min && b.max)
      region.region.push_back({make_int(*b.min, t), make_int(*b.max - *b.min + 1, t)});
    else if (d < buffer->shape.size())
      region.region.push_back({make_int(0, buffer->shape[d].dtype()), buffer->shape[d]});
  }
  return region;
}

namespace {

// Accesses of a block body, relaxed over loops and nested blocks inside it.
class AccessCollector : public StmtVisitor {
 public:
  explicit AccessCollector(const BlockNode& root) {
    for (const Buffer& b : root.alloc_buffers) excluded_.insert(b.get());
  }
  AccessRegions result;

 protected:
  void visit_load(const BufferLoadNode* n) override {
    StmtVisitor::visit_load(n);
    add(result.reads, n->buffer, n->indices);
  }
  void visit_store(const BufferStoreNode* n) override {
    StmtVisitor::visit_store(n);
    add(result.writes, n->buffer, n->indices);
  }
  void visit_for(const ForNode* n) override {
    dom_[n->loop_var.get()] = {n->min, n->extent};
    StmtVisitor::visit_for(n);
  }
  void visit_block(const BlockNode* n) override {
    for (const IterVar& iv : n->iter_vars) dom_[iv.var.get()] = iv.dom;
    for (const Buffer& b : n->alloc_buffers) excluded_.insert(b.get());
    visit(n->init);
    visit(n->body);
  }

 private:
  void add(std::vector<BufferRegion>& list, const Buffer& buffer, const std::vector<Expr>& idx) {
    if (excluded_.count(buffer.get())) return;
    BufferRegion r = relax_access(buffer, idx, dom_);
    for (BufferRegion& existing : list) {
      if (existing.buffer != buffer) continue;
      merge(existing, r);
      return;
    }
    list.push_back(std::move(r));
  }
  static void merge(BufferRegion& into, const BufferRegion& r) {
    Analyzer none;
    for (size_t d = 0; d < into.region.size() && d < r.region.size(); ++d) {
      Range& a = into.region[d];
      const Range& b = r.region[d];
      if (none.can_prove_equal(a.min, b.min) && none.can_prove_equal(a.extent, b.extent)) continue;
      auto am = as_const_int(a.min), ae = as_const_int(a.extent);
      auto bm = as_const_int(b.min), be = as_const_int(b.extent);
      DataType t = a.min.dtype();
      if (am && ae && bm && be) {
        int64_t lo = std::min(*am, *bm), hi = std::max(*am + *ae, *bm + *be);
        a = {make_int(lo, t), make_int(hi - lo, t)};
      } else {
        a = {make_int(0, t), into.buffer->shape[d]};
      }
    }
  }
  std::unordered_map<const VarNode*, Range> dom_;
  std::set<const BufferNode*> excluded_;
};

}  // namespace

AccessRegions infer_access_regions(const BlockNode& block) {
  AccessCollector c(block);
  c.visit(block.init);
  c.visit(block.body);
  return std::move(c.result);
}

}  // namespace tirc
