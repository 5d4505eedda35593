// compute_inline and reverse_compute_inline: fold an elementwise block into
// the blocks that read its result (or into the block that produces its
// input), removing the block and the intermediate buffer.
//
// compute_inline(B) requires, as TVM does: B has no init, its body is one
// BufferStore `X[v0, v1, ...] = f(...)` whose indices are distinct iteration
// variables and f uses no other iteration variable, B is complete and has no
// predicate, and X is not a function parameter (the result must stay). Every
// load X[e0, e1, ...] becomes f with vi := ei.
//
// reverse_compute_inline(C) requires: C has no init, its body is one
// BufferStore `Y[...] = g(..., X[v0, v1, ...], ...)` where every load of X
// has the same indices, distinct iteration variables that include every
// iteration variable C uses; C is complete with no predicate and has exactly
// one producer P; P is neither a reduction nor predicated, is one
// BufferStore `X[p0, p1, ...] = e`, and no other block reads X; X is not a
// function parameter; and each pi stays within the domain of the variable it
// feeds (otherwise P would write Y where C never did). P becomes
// `Y[... vi := pi ...] = g(... X[...] := e ...)`.
#include <algorithm>

#include "ir/arith/analyzer.h"
#include "ir/arith/region.h"
#include "ir/functor.h"
#include "ir/substitute.h"
#include "schedule/analysis.h"
#include "schedule/compute_common.h"
#include "schedule/schedule.h"

namespace tirc {

namespace {

bool reads_buffer(const std::vector<BufferRegion>& rs, const Buffer& b) {
  for (const BufferRegion& r : rs)
    if (r.buffer == b) return true;
  return false;
}

// Simplifies the indices of every load, so inlined accesses print cleanly
// (`v_yy + v_ry - 1`, never `v_yy + v_ry + 0`).
class IndexSimplifier : public ExprMutator {
 public:
  explicit IndexSimplifier(const Analyzer& an) : an_(an) {}

 protected:
  Expr mutate_load(const Expr& e, const BufferLoadNode* n) override {
    Expr m = ExprMutator::mutate_load(e, n);
    auto* ld = m.as<BufferLoadNode>();
    std::vector<Expr> idx;
    for (const Expr& i : ld->indices) idx.push_back(i.dtype().is_integer() ? an_.simplify(i) : i);
    return make_load(ld->buffer, std::move(idx));
  }

 private:
  const Analyzer& an_;
};

// Replaces loads of `buffer` by `value` with `index_vars` bound to the load's
// indices, and recomputes T.reads of every block that read the buffer.
class LoadInliner : public StmtMutator {
 public:
  LoadInliner(Buffer buffer, std::vector<const VarNode*> index_vars, Expr value)
      : buffer_(std::move(buffer)), index_vars_(std::move(index_vars)), value_(std::move(value)) {}

 protected:
  Expr mutate_load(const Expr& e, const BufferLoadNode* n) override {
    Expr m = StmtMutator::mutate_load(e, n);
    auto* ld = m.as<BufferLoadNode>();
    if (ld->buffer != buffer_) return m;
    VarMap map;
    for (size_t k = 0; k < index_vars_.size(); ++k) map[index_vars_[k]] = ld->indices[k];
    Analyzer plain;
    return IndexSimplifier(plain).mutate(substitute(value_, map));
  }

  Block mutate_block(const Block& b) override {
    Block m = StmtMutator::mutate_block(b);
    if (!reads_buffer(m->reads, buffer_)) return m;
    return with_reads_writes(*m, infer_access_regions(*m).reads, m->writes);
  }

 private:
  Buffer buffer_;
  std::vector<const VarNode*> index_vars_;
  Expr value_;
};

// Loads of one buffer inside an expression.
class LoadFinder : public ExprVisitor {
 public:
  explicit LoadFinder(const Buffer& b) : b_(b) {}
  std::vector<const BufferLoadNode*> loads;

 protected:
  void visit_load(const BufferLoadNode* n) override {
    if (n->buffer == b_) loads.push_back(n);
    ExprVisitor::visit_load(n);
  }

 private:
  const Buffer& b_;
};

// Replaces every load of one buffer by a fixed expression.
class LoadReplacer : public ExprMutator {
 public:
  LoadReplacer(Buffer b, Expr value) : b_(std::move(b)), value_(std::move(value)) {}

 protected:
  Expr mutate_load(const Expr& e, const BufferLoadNode* n) override {
    if (n->buffer == b_) return value_;
    return ExprMutator::mutate_load(e, n);
  }

 private:
  Buffer b_;
  Expr value_;
};

// The iteration variable an index is, if it is one.
int iter_var_index(const BlockNode& b, const Expr& e) {
  auto* v = e.as<VarNode>();
  if (!v) return -1;
  for (size_t k = 0; k < b.iter_vars.size(); ++k)
    if (b.iter_vars[k].var.get() == v) return static_cast<int>(k);
  return -1;
}

// Indices that are distinct iteration variables: their positions in
// b.iter_vars; empty when they are not.
std::optional<std::vector<int>> distinct_iter_vars(const BlockNode& b,
                                                   const std::vector<Expr>& indices) {
  std::vector<int> out;
  for (const Expr& e : indices) {
    int k = iter_var_index(b, e);
    if (k < 0 || std::find(out.begin(), out.end(), k) != out.end()) return std::nullopt;
    out.push_back(k);
  }
  return out;
}

// Checks shared by both primitives on the block being inlined.
const BufferStoreNode* check_simple_block(const std::string& prim, const Stmt& scope,
                                          const BlockRealizeNode* realize) {
  const BlockNode& b = *realize->block;
  if (b.init) throw ScheduleError(prim, "block " + b.name + " has an init (it is a reduction)");
  auto* store = b.body.as<BufferStoreNode>();
  if (!store)
    throw ScheduleError(prim, "the body of block " + b.name + " is not a single BufferStore");
  if (!is_complete_block(scope, realize))
    throw ScheduleError(prim, "block " + b.name + " is not a complete block");
  if (!is_trivial_predicate(realize->predicate) && !predicate_only_bounds_domain(realize))
    throw ScheduleError(prim, "block " + b.name +
                                  " has a predicate (T.where) that does more than keep its "
                                  "iteration values in their domains");
  return store;
}

Stmt with_new_block_body(const Stmt& body, const BlockRealizeNode* realize, Stmt new_body) {
  Block b = with_body(*realize->block, std::move(new_body));
  AccessRegions regions = infer_access_regions(*b);
  b = with_reads_writes(*b, std::move(regions.reads), std::move(regions.writes));
  return replace_stmt(body, realize, with_block(*realize, b));
}

}  // namespace

void Schedule::compute_inline(BlockRV block) {
  const std::string prim = "compute_inline";
  const BlockEntry entry = resolve(block, prim);
  const PrimFunc& f = func(entry.func);
  StmtPath path = *find_block(f->body, entry.name);
  auto* realize = path.node().as<BlockRealizeNode>();
  const BlockNode& b = *realize->block;
  Stmt scope = scope_of(path);
  const BufferStoreNode* store = check_simple_block(prim, scope, realize);
  const Buffer& out = store->buffer;
  if (is_param_buffer(f, out))
    throw ScheduleError(
        prim, "block " + b.name + " is an output block: it writes function parameter " + out->name);
  auto index_vars = distinct_iter_vars(b, store->indices);
  if (!index_vars)
    throw ScheduleError(prim, "block " + b.name + " stores into " + out->name +
                                  " at indices that are not distinct iteration variables");
  std::vector<const VarNode*> vars;
  for (int k : *index_vars) vars.push_back(b.iter_vars[k].var.get());
  for (const IterVar& iv : b.iter_vars)
    if (std::find(vars.begin(), vars.end(), iv.var.get()) == vars.end() &&
        uses_var(store->value, iv.var.get()))
      throw ScheduleError(prim, "the value of block " + b.name + " depends on iteration variable " +
                                    iv.var->name + ", which does not index " + out->name);

  Stmt body = replace_stmt(f->body, removal_root(path, prim), Stmt());
  LoadInliner inliner(out, vars, store->value);
  body = inliner.mutate(body);
  if (!buffer_used(body, out)) body = remove_alloc(body, out);
  update_func(entry.func, with_body(f, body), "compute_inline");
  record(Instruction{"compute_inline", {}, {{"block", trace_rv(block)}}, {}});
}

void Schedule::reverse_compute_inline(BlockRV block) {
  const std::string prim = "reverse_compute_inline";
  const BlockEntry entry = resolve(block, prim);
  const PrimFunc& f = func(entry.func);
  StmtPath path = *find_block(f->body, entry.name);
  auto* realize = path.node().as<BlockRealizeNode>();
  const BlockNode& c = *realize->block;
  Stmt scope = scope_of(path);
  const BufferStoreNode* store = check_simple_block(prim, scope, realize);

  auto producers = producers_of(scope, realize);
  if (producers.size() != 1)
    throw ScheduleError(prim, "block " + c.name + " has " + std::to_string(producers.size()) +
                                  " producers; it needs exactly one");
  const BlockRealizeNode* prod_realize = producers[0];
  const BlockNode& p = *prod_realize->block;
  bool reduce = static_cast<bool>(p.init);
  for (const IterVar& iv : p.iter_vars) reduce |= iv.kind == IterKind::Reduce;
  if (reduce)
    throw ScheduleError(prim,
                        "producer " + p.name + " of block " + c.name + " is a reduction block");
  auto* pstore = p.body.as<BufferStoreNode>();
  if (!pstore)
    throw ScheduleError(prim, "the body of producer " + p.name + " is not a single BufferStore");
  if (!is_complete_block(scope, prod_realize))
    throw ScheduleError(prim,
                        "producer " + p.name + " of block " + c.name + " is not a complete block");
  if (!is_trivial_predicate(prod_realize->predicate))
    throw ScheduleError(
        prim, "producer " + p.name + " of block " + c.name + " has a predicate (T.where)");
  const Buffer& mid = pstore->buffer;
  if (is_param_buffer(f, mid))
    throw ScheduleError(prim, "buffer " + mid->name + " between " + p.name + " and " + c.name +
                                  " is a function parameter and must stay");
  auto others = consumers_of(scope, prod_realize);
  if (others.size() != 1)
    throw ScheduleError(prim, "buffer " + mid->name + " written by " + p.name +
                                  " is read by blocks other than " + c.name);

  LoadFinder finder(mid);
  finder.visit(store->value);
  for (const Expr& i : store->indices) finder.visit(i);
  if (finder.loads.empty())
    throw ScheduleError(prim, "block " + c.name + " does not load " + mid->name + " in its body");
  auto load_vars = distinct_iter_vars(c, finder.loads[0]->indices);
  bool same = true;
  for (const BufferLoadNode* ld : finder.loads)
    for (size_t d = 0; d < ld->indices.size(); ++d)
      same = same && ld->indices[d].get() == finder.loads[0]->indices[d].get();
  if (!load_vars || !same)
    throw ScheduleError(prim, "block " + c.name + " reads " + mid->name +
                                  " at indices that are not the same distinct iteration variables");
  for (size_t k = 0; k < c.iter_vars.size(); ++k) {
    bool indexes =
        std::find(load_vars->begin(), load_vars->end(), static_cast<int>(k)) != load_vars->end();
    const VarNode* v = c.iter_vars[k].var.get();
    bool used = uses_var(store->value, v);
    for (const Expr& i : store->indices) used = used || uses_var(i, v);
    if (used && !indexes)
      throw ScheduleError(prim, "iteration variable " + c.iter_vars[k].var->name + " of block " +
                                    c.name + " does not index its load of " + mid->name);
  }

  // The consumer's variables as functions of the producer's; each must stay
  // in its domain over the producer's iterations.
  Analyzer an;
  for (const IterVar& iv : p.iter_vars) an.bind(iv.var, iv.dom);
  VarMap map;
  for (size_t d = 0; d < load_vars->size(); ++d) {
    const IterVar& iv = c.iter_vars[(*load_vars)[d]];
    const Expr& pi = pstore->indices[d];
    if (!an.can_prove(pi >= iv.dom.min) ||
        !an.can_prove(pi < an.simplify(iv.dom.min + iv.dom.extent)))
      throw ScheduleError(prim, "block " + c.name + " does not cover the region of " + mid->name +
                                    " that " + p.name + " writes (dimension " + std::to_string(d) +
                                    ")");
    map[iv.var.get()] = pi;
  }
  Expr value = substitute(LoadReplacer(mid, pstore->value).mutate(store->value), map);
  value = IndexSimplifier(an).mutate(value);
  std::vector<Expr> indices;
  for (const Expr& i : store->indices) indices.push_back(an.simplify(substitute(i, map)));

  Stmt body = replace_stmt(f->body, removal_root(path, prim), Stmt());
  body = with_new_block_body(body, prod_realize, make_store(store->buffer, value, indices));
  if (buffer_used(body, mid))
    throw ScheduleError(
        prim, "buffer " + mid->name + " is still used outside blocks " + p.name + " and " + c.name);
  body = remove_alloc(body, mid);
  update_func(entry.func, with_body(f, body), "reverse_compute_inline");
  record(Instruction{"reverse_compute_inline", {}, {{"block", trace_rv(block)}}, {}});
}

}  // namespace tirc
