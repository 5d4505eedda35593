// blockize: wraps a loop subtree (or a run of sibling blocks) into a new outer
// block whose iteration variables are the outer parts of the inner bindings.
#include <algorithm>
#include <unordered_set>

#include "ir/arith/analyzer.h"
#include "ir/arith/linear_form.h"
#include "ir/arith/region.h"
#include "ir/substitute.h"
#include "ir/text/printer.h"
#include "schedule/analysis.h"
#include "schedule/blockize_impl.h"
#include "schedule/schedule.h"
#include "schedule/state.h"

namespace tirc {

namespace {

Block with_regions(std::shared_ptr<BlockNode> b) {
  AccessRegions regions = infer_access_regions(*b);
  b->reads = regions.reads;
  b->writes = regions.writes;
  return b;
}

const ForNode* loop_of(const std::vector<const ForNode*>& loops, const Expr& term) {
  auto* v = term.as<VarNode>();
  if (!v) return nullptr;
  for (const ForNode* l : loops)
    if (l->loop_var.get() == v) return l;
  return nullptr;
}

// One iteration variable's binding split at the blockized loop:
// value = outer * inner_extent + inner.
struct SplitBinding {
  Expr outer;  // over the loops outside
  Expr inner;  // over the loops inside; null when none are used
  int64_t inner_extent = 1;
  int64_t outer_extent = 1;
};

SplitBinding split_binding(const IterVar& iv, const Expr& value,
                           const std::vector<const ForNode*>& outer_loops,
                           const std::vector<const ForNode*>& inner_loops, const std::string& block,
                           const std::string& primitive) {
  Analyzer az;
  for (const ForNode* l : outer_loops) az.bind(l->loop_var, Range{l->min, l->extent});
  for (const ForNode* l : inner_loops) az.bind(l->loop_var, Range{l->min, l->extent});
  arith::LinearForm lf = arith::decompose(az.simplify(value));
  auto fail = [&](const std::string& why) {
    return ScheduleError(primitive, "the binding " + iv.var->name + " = " + print_expr(value) +
                                        " of block " + block + " " + why);
  };
  arith::LinearForm outer(lf.dtype), inner(lf.dtype);
  std::vector<std::pair<int64_t, int64_t>> radix;  // (coefficient, extent) of inner loops
  for (const arith::LinearTerm& t : lf.terms) {
    if (const ForNode* l = loop_of(inner_loops, t.term)) {
      auto ext = as_const_int(l->extent);
      if (!ext || !is_const_int(l->min, 0))
        throw fail("uses a loop inside without constant extent from 0");
      inner.add_term(t.term, t.coef);
      radix.push_back({t.coef, *ext});
    } else if (loop_of(outer_loops, t.term)) {
      outer.add_term(t.term, t.coef);
    } else {
      throw fail("is not affine in the enclosing loops");
    }
  }
  // The inner loops must enumerate [0, inner_extent) exactly once each.
  std::sort(radix.begin(), radix.end());
  SplitBinding out;
  for (auto [coef, ext] : radix) {
    if (coef != out.inner_extent) throw fail("cannot be split into outer and inner parts");
    out.inner_extent *= ext;
  }
  for (const arith::LinearTerm& t : outer.terms)
    if (t.coef % out.inner_extent != 0) throw fail("cannot be split into outer and inner parts");
  if (lf.constant % out.inner_extent != 0) throw fail("cannot be split into outer and inner parts");
  auto dom_extent = as_const_int(iv.dom.extent);
  if (!dom_extent || !is_const_int(iv.dom.min, 0) || *dom_extent % out.inner_extent != 0)
    throw fail("has a domain that the inner loops do not divide");
  out.outer_extent = *dom_extent / out.inner_extent;
  arith::LinearForm scaled(lf.dtype);
  for (const arith::LinearTerm& t : outer.terms) scaled.add_term(t.term, t.coef / out.inner_extent);
  scaled.add_constant(lf.constant / out.inner_extent);
  out.outer = arith::emit(scaled);
  if (!inner.terms.empty()) out.inner = arith::emit(inner);
  return out;
}

// The outer block's init: the inner block's init under copies of the inner
// loops that its spatial variables need (TVM's blockized init).
Stmt blockized_init(const BlockRealizeNode& inner, const std::vector<const ForNode*>& inner_loops,
                    const std::string& name) {
  const BlockNode& b = *inner.block;
  auto init = std::make_shared<BlockNode>();
  init->name = name;
  VarMap subst;
  std::vector<Expr> values;
  for (size_t i = 0; i < b.iter_vars.size(); ++i) {
    const IterVar& iv = b.iter_vars[i];
    if (iv.kind != IterKind::DataPar || !uses_var(b.init, iv.var.get())) continue;
    Var nv = make_var(iv.var->name + "_init", iv.var->dtype);
    subst[iv.var.get()] = nv;
    init->iter_vars.push_back(IterVar{nv, iv.dom, iv.kind, iv.thread_tag});
    values.push_back(inner.iter_values[i]);
  }
  init->body = substitute(b.init, subst);
  VarMap loop_subst;
  std::vector<std::pair<const ForNode*, Var>> kept;
  std::vector<const VarNode*> dropped;
  for (const ForNode* l : inner_loops) {
    bool used = std::any_of(values.begin(), values.end(),
                            [&](const Expr& v) { return uses_var(v, l->loop_var.get()); });
    if (!used) {
      dropped.push_back(l->loop_var.get());
      continue;
    }
    Var nv = make_var(l->loop_var->name + "_init", l->loop_var->dtype);
    loop_subst[l->loop_var.get()] = nv;
    kept.push_back({l, nv});
  }
  for (Expr& v : values) v = substitute(v, loop_subst);
  // Conjuncts over loops the init does not copy would refer to no loop.
  Expr predicate = keep_conjuncts(inner.predicate, dropped);
  Stmt s = make_block_realize(values, substitute(predicate, loop_subst), with_regions(init));
  // New loops (own variables, no source location) of the same ranges, kinds
  // and thread tags; the annotations stay on the originals.
  for (size_t i = kept.size(); i-- > 0;) {
    const ForNode* l = kept[i].first;
    s = make_for(kept[i].second, l->min, l->extent, l->for_kind, s, l->thread_tag);
  }
  return s;
}

}  // namespace

std::string unused_block_name(const Stmt& body, const std::string& base) {
  if (!find_block(body, base)) return base;
  for (int i = 1;; ++i) {
    std::string name = base + "_" + std::to_string(i);
    if (!find_block(body, name)) return name;
  }
}

BlockizeOutcome blockize_loop(const Stmt& body, const VarNode* loop_var, bool preserve_unit_iters,
                              const std::string& primitive) {
  StmtPath lpath = *find_loop(body, loop_var);
  const Stmt loop_stmt = lpath.node();
  std::vector<const BlockRealizeNode*> blocks = child_blocks(loop_stmt);
  if (blocks.size() != 1)
    throw ScheduleError(primitive, "loop " + loop_var->name +
                                       " must contain exactly one block, found " +
                                       std::to_string(blocks.size()));
  const BlockRealizeNode* realize = blocks[0];
  const BlockNode& blk = *realize->block;
  StmtPath bpath = *find_block(body, blk.name);
  std::vector<const ForNode*> loops = enclosing_loops(bpath);
  auto pos = std::find_if(loops.begin(), loops.end(),
                          [&](const ForNode* l) { return l->loop_var.get() == loop_var; });
  std::vector<const ForNode*> outer_loops(loops.begin(), pos), inner_loops(pos, loops.end());

  // ---- split every binding, then the predicate ----
  std::vector<SplitBinding> splits;
  for (size_t i = 0; i < blk.iter_vars.size(); ++i)
    splits.push_back(split_binding(blk.iter_vars[i], realize->iter_values[i], outer_loops,
                                   inner_loops, blk.name, primitive));
  Expr inner_pred = make_bool(true), outer_pred = make_bool(true);
  if (!is_const_int(realize->predicate, 1)) {
    auto uses_any = [&](const std::vector<const ForNode*>& ls) {
      return std::any_of(ls.begin(), ls.end(), [&](const ForNode* l) {
        return uses_var(realize->predicate, l->loop_var.get());
      });
    };
    if (uses_any(outer_loops) && uses_any(inner_loops))
      throw ScheduleError(primitive, "the predicate of block " + blk.name +
                                         " uses loops both inside and outside loop " +
                                         loop_var->name);
    (uses_any(inner_loops) ? inner_pred : outer_pred) = realize->predicate;
  }

  // ---- outer and inner iteration variables ----
  std::vector<IterVar> outer_ivs, inner_ivs;
  std::vector<Expr> outer_values, inner_values;
  VarMap subst;
  Analyzer az;
  for (size_t i = 0; i < blk.iter_vars.size(); ++i) {
    const IterVar& iv = blk.iter_vars[i];
    const SplitBinding& sb = splits[i];
    Expr value = make_int(0, iv.var->dtype);
    if (sb.outer_extent != 1 || preserve_unit_iters || !sb.inner) {
      Var ov = make_var(iv.var->name + "_o", iv.var->dtype);
      outer_ivs.push_back(
          IterVar{ov, Range{make_int(0, iv.var->dtype), make_int(sb.outer_extent, iv.var->dtype)},
                  iv.kind, iv.thread_tag});
      outer_values.push_back(sb.outer);
      az.bind(ov, Range{make_int(0), make_int(sb.outer_extent)});
      value = Expr(ov) * make_int(sb.inner_extent, iv.var->dtype);
    }
    if (sb.inner) {
      Var nv = make_var(iv.var->name + "_i", iv.var->dtype);
      inner_ivs.push_back(
          IterVar{nv, Range{make_int(0, iv.var->dtype), make_int(sb.inner_extent, iv.var->dtype)},
                  iv.kind, iv.thread_tag});
      inner_values.push_back(sb.inner);
      az.bind(nv, Range{make_int(0), make_int(sb.inner_extent)});
      value = value + Expr(nv);
    }
    subst[iv.var.get()] = az.simplify(value);
  }
  const bool outer_reduces = std::any_of(outer_ivs.begin(), outer_ivs.end(), [](const IterVar& iv) {
    return iv.kind == IterKind::Reduce;
  });

  auto inner = std::make_shared<BlockNode>(blk);
  inner->iter_vars = inner_ivs;
  inner->body = substitute(blk.body, subst);
  inner->init = blk.init ? substitute(blk.init, subst) : Stmt();
  auto inner_realize_node =
      std::make_shared<BlockRealizeNode>(inner_values, inner_pred, with_regions(inner));
  Stmt inner_realize = inner_realize_node;
  Stmt outer_init;
  if (inner->init && outer_reduces) {
    // The whole tile is initialized once, on the outer block's first step.
    outer_init = blockized_init(*inner_realize_node, inner_loops,
                                unused_block_name(body, blk.name + "_init"));
    auto no_init = std::make_shared<BlockNode>(*inner_realize_node->block);
    no_init->init = Stmt();
    inner_realize = with_block(*inner_realize_node, with_regions(no_init));
  }
  Stmt subtree = replace_stmt(loop_stmt, realize, inner_realize);

  auto outer = std::make_shared<BlockNode>();
  outer->name = unused_block_name(body, blk.name + "_o");
  outer->iter_vars = outer_ivs;
  outer->init = outer_init;
  outer->body = subtree;
  Stmt outer_realize = make_block_realize(outer_values, outer_pred, with_regions(outer));
  return {replace_stmt(body, loop_stmt.get(), outer_realize), outer->name};
}

BlockRV Schedule::blockize(LoopRV loop, bool preserve_unit_iters) {
  const LoopEntry le = resolve(loop, "blockize");
  const PrimFunc f = mod_.at(le.func);
  BlockizeOutcome out = blockize_loop(f->body, le.var.get(), preserve_unit_iters, "blockize");
  update_func(le.func, with_body(f, out.body), "blockize");
  BlockRV rv = new_block_rv(le.func, out.outer_name);
  record(Instruction{"blockize",
                     {},
                     {{"target", trace_rv(loop)}, {"preserve_unit_iters", preserve_unit_iters}},
                     {trace_rv(rv)}});
  return rv;
}

}  // namespace tirc

namespace tirc {

namespace {

// The run of statements [first, last] of `parent` (a SeqStmt, or the single
// statement `parent` itself when first == last == 0).
struct SiblingRange {
  Stmt parent;
  size_t first = 0, last = 0;
};

std::vector<Stmt> elements(const Stmt& s) {
  if (auto* seq = s.as<SeqStmtNode>()) return seq->seq;
  return {s};
}

}  // namespace

BlockRV Schedule::blockize(const std::vector<BlockRV>& blocks, bool preserve_unit_iters) {
  const char* P = "blockize";
  if (blocks.empty()) throw ScheduleError(P, "no blocks given");
  std::string func;
  std::vector<StmtPath> paths;
  std::unordered_set<const BlockRealizeNode*> listed;
  std::string names;
  for (BlockRV b : blocks) {
    const BlockEntry& e = resolve(b, P);
    if (!func.empty() && e.func != func)
      throw ScheduleError(P, "blocks " + names + " and " + e.name + " are in different functions");
    func = e.func;
    paths.push_back(*find_block(mod_.at(func)->body, e.name));
    listed.insert(paths.back().node().as<BlockRealizeNode>());
    names += (names.empty() ? "" : ", ") + e.name;
  }
  const PrimFunc f = mod_.at(func);
  // The deepest statement on every path, then the run of its children the
  // blocks lie in.
  size_t common = paths[0].stmts.size();
  for (const StmtPath& p : paths) {
    size_t k = 0;
    while (k < common && k < p.stmts.size() && p.stmts[k].same_as(paths[0].stmts[k])) ++k;
    common = k;
  }
  for (const StmtPath& p : paths)
    if (common >= p.stmts.size() && listed.size() > 1)
      throw ScheduleError(P, "blocks " + names + " are nested in one another");
  SiblingRange range;
  if (paths.size() == 1 || common == paths[0].stmts.size()) {
    if (listed.size() != 1)
      throw ScheduleError(P, "blocks " + names + " are nested in one another");
    const StmtPath& p = paths[0];
    range.parent = p.node();
  } else {
    range.parent = paths[0].stmts[common - 1];
    if (!range.parent.as<SeqStmtNode>())
      throw ScheduleError(P, "blocks " + names + " are not siblings in one statement sequence");
    std::vector<Stmt> elems = elements(range.parent);
    range.first = elems.size();
    for (const StmtPath& p : paths) {
      size_t idx = 0;
      while (!elems[idx].same_as(p.stmts[common])) ++idx;
      range.first = std::min(range.first, idx);
      range.last = std::max(range.last, idx);
    }
    for (size_t i = range.first; i <= range.last; ++i)
      for (const BlockRealizeNode* r : outermost_blocks(elems[i]))
        if (!listed.count(r))
          throw ScheduleError(P, "blocks " + names + " are not consecutive: block " +
                                     r->block->name + " lies between them");
  }
  StmtPath ppath = paths[0];
  if (paths.size() > 1) ppath.stmts.resize(common);
  // When the range is a lone block, ppath ends at that block: its loops are
  // the ones outside the new block either way.
  std::vector<const ForNode*> loops = enclosing_loops(ppath);
  std::vector<Stmt> elems =
      range.parent.as<SeqStmtNode>() ? elements(range.parent) : std::vector<Stmt>{range.parent};
  std::vector<Stmt> inside(elems.begin() + static_cast<std::ptrdiff_t>(range.first),
                           elems.begin() + static_cast<std::ptrdiff_t>(range.last + 1));
  Stmt inner = make_seq(inside);

  // One spatial iteration variable per enclosing loop the blocks use.
  auto outer = std::make_shared<BlockNode>();
  std::vector<Expr> values;
  VarMap subst;
  for (const ForNode* l : loops) {
    if (!uses_var(inner, l->loop_var.get())) continue;
    for (const BlockRealizeNode* r : listed)
      for (size_t i = 0; i < r->iter_values.size(); ++i)
        if (r->block->iter_vars[i].kind != IterKind::DataPar &&
            uses_var(r->iter_values[i], l->loop_var.get()))
          throw ScheduleError(P, "loop " + l->loop_var->name + " binds reduction variable " +
                                     r->block->iter_vars[i].var->name + " of block " +
                                     r->block->name + " outside the new block");
    if (!preserve_unit_iters && is_const_int(l->extent, 1)) {
      subst[l->loop_var.get()] = l->min;
      continue;
    }
    Var v = make_var("v" + l->loop_var->name, l->loop_var->dtype);
    subst[l->loop_var.get()] = v;
    outer->iter_vars.push_back(IterVar{v, Range{l->min, l->extent}, IterKind::DataPar, {}});
    values.push_back(l->loop_var);
  }
  outer->name =
      unused_block_name(f->body, paths[0].node().as<BlockRealizeNode>()->block->name + "_o");
  outer->body = substitute(inner, subst);
  Stmt outer_realize = make_block_realize(values, make_bool(true), with_regions(outer));

  Stmt replacement = outer_realize;
  if (range.parent.as<SeqStmtNode>()) {
    std::vector<Stmt> rebuilt(elems.begin(),
                              elems.begin() + static_cast<std::ptrdiff_t>(range.first));
    rebuilt.push_back(outer_realize);
    rebuilt.insert(rebuilt.end(), elems.begin() + static_cast<std::ptrdiff_t>(range.last + 1),
                   elems.end());
    replacement = make_seq(rebuilt);
  }
  update_func(func, with_body(f, replace_stmt(f->body, range.parent.get(), replacement)),
              "blockize");

  BlockRV rv = new_block_rv(func, outer->name);
  TraceList targets;
  for (BlockRV b : blocks) targets.push_back(trace_rv(b));
  record(Instruction{
      P, {}, {{"target", targets}, {"preserve_unit_iters", preserve_unit_iters}}, {trace_rv(rv)}});
  return rv;
}

}  // namespace tirc
