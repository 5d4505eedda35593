#include "schedule/analysis.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <unordered_set>

#include "ir/arith/analyzer.h"
#include "ir/arith/expr_equal.h"
#include "ir/arith/linear_form.h"
#include "ir/functor.h"
#include "ir/structural.h"
#include "ir/substitute.h"

namespace tirc {

namespace {

bool touches(const std::vector<BufferRegion>& regions, const Buffer& b) {
  for (const BufferRegion& r : regions)
    if (r.buffer == b) return true;
  return false;
}

bool shares_buffer(const std::vector<BufferRegion>& a, const std::vector<BufferRegion>& b) {
  for (const BufferRegion& r : a)
    if (touches(b, r.buffer)) return true;
  return false;
}

// Writers of b among the scope's child blocks.
int count_writers(const Stmt& scope, const Buffer& b) {
  int n = 0;
  for (const BlockRealizeNode* r : child_blocks(scope)) n += touches(r->block->writes, b);
  return n;
}

}  // namespace

std::vector<const BlockRealizeNode*> producers_of(const Stmt& scope,
                                                  const BlockRealizeNode* block) {
  std::vector<const BlockRealizeNode*> out;
  for (const BlockRealizeNode* r : child_blocks(scope))
    if (r != block && shares_buffer(r->block->writes, block->block->reads)) out.push_back(r);
  return out;
}

std::vector<const BlockRealizeNode*> consumers_of(const Stmt& scope,
                                                  const BlockRealizeNode* block) {
  std::vector<const BlockRealizeNode*> out;
  for (const BlockRealizeNode* r : child_blocks(scope))
    if (r != block && shares_buffer(block->block->writes, r->block->reads)) out.push_back(r);
  return out;
}

bool is_complete_block(const Stmt& scope, const BlockRealizeNode* block) {
  const BlockNode& b = *block->block;
  for (const IterVar& iv : b.iter_vars)
    if (iv.kind != IterKind::DataPar) return false;
  for (const BufferRegion& w : b.writes) {
    if (touches(b.reads, w.buffer)) return false;
    if (count_writers(scope, w.buffer) != 1) return false;
  }
  return true;
}

bool is_reduction_block(const Stmt& scope, const BlockRealizeNode* block) {
  const BlockNode& b = *block->block;
  bool has_reduce = false;
  for (const IterVar& iv : b.iter_vars) {
    if (iv.kind == IterKind::Reduce)
      has_reduce = true;
    else if (iv.kind != IterKind::DataPar)
      return false;
  }
  if (!has_reduce || !b.init) return false;
  for (const BufferRegion& w : b.writes) {
    if (count_writers(scope, w.buffer) != 1) return false;
    for (const Range& r : w.region)
      for (const IterVar& iv : b.iter_vars)
        if (iv.kind == IterKind::Reduce &&
            (uses_var(r.min, iv.var.get()) || uses_var(r.extent, iv.var.get())))
          return false;
  }
  return true;
}

namespace {

// The loop variables one iteration value uses, split by how it uses them:
// `plain` as a term c * x, `split` only inside floordiv/floormod.
struct AffineUses {
  std::unordered_set<const VarNode*> plain;
  std::unordered_set<const VarNode*> split;
};

// Reads e under the affine rule (coefficients free of loop variables, loop
// variables also under floordiv/floormod by a positive constant) and records
// the loop variables it uses; false when e falls outside the rule.
bool collect_affine(const Expr& e, const arith::AffineRules& rules, bool in_split,
                    AffineUses& uses) {
  std::optional<arith::LinearForm> form = arith::decompose(e, rules);
  if (!form) return false;
  for (const arith::LinearTerm& t : form->terms) {
    if (t.kind == arith::TermKind::Var)
      (in_split ? uses.split : uses.plain).insert(t.term.as<VarNode>());
    else if (t.kind == arith::TermKind::Floor &&
             !collect_affine(t.term.as<BinaryNode>()->a, rules, true, uses))
      return false;
  }
  return true;
}

}  // namespace

bool is_affine_binding(const BlockRealizeNode* block, const std::vector<const ForNode*>& loops) {
  std::unordered_set<const VarNode*> loop_vars;
  Analyzer az;
  for (const ForNode* f : loops) {
    loop_vars.insert(f->loop_var.get());
    az.bind(f->loop_var, Range{f->min, f->extent});
  }
  // Other variables (outer block iterators, parameters) are constants here;
  // every occurrence of a loop variable is kept, cancelled or not.
  arith::AffineRules rules;
  rules.of_interest = [&](const VarNode* v) { return loop_vars.count(v) > 0; };
  rules.symbolic_factors = true;
  rules.floor_parts = true;
  rules.merge_terms = false;
  std::vector<AffineUses> per_value;
  for (const Expr& value : block->iter_values) {
    AffineUses uses;
    if (!collect_affine(az.simplify(value), rules, false, uses)) return false;
    per_value.push_back(std::move(uses));
  }
  // Disjoint groups: a variable used plainly by one value appears in no other
  // value; variables used only under floordiv/floormod (a fused loop split back
  // into several iterators) may feed several values.
  for (size_t a = 0; a < per_value.size(); ++a)
    for (const VarNode* v : per_value[a].plain)
      for (size_t b = 0; b < per_value.size(); ++b)
        if (a != b && (per_value[b].plain.count(v) || per_value[b].split.count(v))) return false;
  return true;
}

std::vector<BoundIterVar> iter_vars_bound_by(const VarNode* loop_var,
                                             const std::vector<const BlockRealizeNode*>& blocks) {
  std::vector<BoundIterVar> out;
  for (const BlockRealizeNode* r : blocks)
    for (size_t i = 0; i < r->iter_values.size() && i < r->block->iter_vars.size(); ++i)
      if (uses_var(r->iter_values[i], loop_var)) out.push_back({r, &r->block->iter_vars[i]});
  return out;
}

bool is_param_buffer(const PrimFunc& f, const Buffer& b) {
  for (const Param& p : f->params)
    if (p.buffer == b) return true;
  return false;
}

Expr keep_conjuncts(const Expr& pred, const std::vector<const VarNode*>& dropped) {
  if (auto* b = pred.as<BinaryNode>(); b && b->kind == ExprKind::And) {
    Expr a = keep_conjuncts(b->a, dropped), c = keep_conjuncts(b->b, dropped);
    if (is_const_int(a, 1)) return c;
    if (is_const_int(c, 1)) return a;
    return logical_and(a, c);
  }
  for (const VarNode* v : dropped)
    if (uses_var(pred, v)) return make_bool(true);
  return pred;
}

bool same_indices(const std::vector<Expr>& a, const std::vector<Expr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!structural_equal(a[i], b[i])) return false;
  return true;
}

Expr split_pair(const Buffer& b, const Expr& at_d, const Expr& at_next, size_t d) {
  if (d + 1 >= b->shape.size()) return Expr();
  auto* div = at_d.as<BinaryNode>();
  auto* mod = at_next.as<BinaryNode>();
  auto e = as_const_int(b->shape[d + 1]);
  if (!div || !mod || div->kind != ExprKind::FloorDiv || mod->kind != ExprKind::FloorMod || !e ||
      as_const_int(div->b) != e || as_const_int(mod->b) != e || !arith::same_expr(div->a, mod->a))
    return Expr();
  return div->a;
}

}  // namespace tirc
