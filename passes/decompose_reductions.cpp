// decompose-reductions: TVM's decompose_reduction, applied wherever it is
// legal, at the outermost loop that binds a reduction variable.
#include <unordered_map>
#include <unordered_set>

#include "ir/arith/region.h"
#include "ir/functor.h"
#include "ir/substitute.h"
#include "passes/pass_util.h"
#include "passes/passes.h"

namespace tirc {

using namespace passes;

namespace {

// Whether a subtree touches storage in `data` anywhere outside `skip`.
class TouchesStorage : public StmtVisitor {
 public:
  TouchesStorage(const VarSet& data, const StmtNode* skip) : data_(data), skip_(skip) {}
  bool found = false;

 protected:
  void visit_stmt(const Stmt& s) override {
    if (s.get() != skip_) StmtVisitor::visit_stmt(s);
  }
  void visit_load(const BufferLoadNode* n) override {
    if (n->buffer && data_.count(n->buffer->data.get())) found = true;
    StmtVisitor::visit_load(n);
  }
  void visit_store(const BufferStoreNode* n) override {
    if (n->buffer && data_.count(n->buffer->data.get())) found = true;
    StmtVisitor::visit_store(n);
  }
  // Left out: block predicates, domains and regions, allocation extents.
  void visit_block_realize(const BlockRealizeNode* n) override {
    for (const Expr& e : n->iter_values) visit(e);
    visit_block(n->block.get());
  }
  void visit_block(const BlockNode* n) override {
    visit(n->init);
    visit(n->body);
  }
  void visit_allocate(const AllocateNode* n) override { visit(n->body); }
  void visit_allocate_const(const AllocateConstNode* n) override { visit(n->body); }

 private:
  const VarSet& data_;
  const StmtNode* skip_;
};

// Moves statements only.
class Decomposer : public StmtMutator {
 public:
  Decomposer() : StmtMutator(Walk::StatementsOnly) {}

 protected:
  // Statements other than loops, sequences and blocks between a block and
  // the loop where its init would go make hoisting illegal.
  Stmt mutate_stmt(const Stmt& s) override {
    if (!s || s.kind() == StmtKind::For || s.kind() == StmtKind::Seq ||
        s.kind() == StmtKind::Block || s.kind() == StmtKind::BlockRealize)
      return StmtMutator::mutate_stmt(s);
    Barrier guard(*this);
    return StmtMutator::mutate_stmt(s);
  }

  Stmt mutate_for(const Stmt& s, const ForNode* f) override {
    loops_.push_back(f);
    Stmt out = StmtMutator::mutate_for(s, f);
    loops_.pop_back();
    auto it = inits_before_.find(f);
    if (it == inits_before_.end()) return out;
    std::vector<Stmt> seq = std::move(it->second);
    inits_before_.erase(it);
    seq.push_back(out);
    return make_seq(std::move(seq));
  }

  // Inside a block the loops above it no longer count.
  Block mutate_block(const Block& b) override {
    std::vector<const ForNode*> saved_loops = std::move(loops_);
    std::vector<size_t> saved_barriers = std::move(barriers_);
    loops_.clear();
    barriers_.clear();
    Block out = StmtMutator::mutate_block(b);
    loops_ = std::move(saved_loops);
    barriers_ = std::move(saved_barriers);
    return out;
  }

  Stmt mutate_block_realize(const Stmt& s, const BlockRealizeNode* r) override {
    Block block = mutate_block(r->block);
    if (block->init && hoisted_init(r, *block)) return with_block(*r, with_init(*block, Stmt()));
    return block == r->block ? s : with_block(*r, block);
  }

 private:
  // A barrier marks how many loops lie above a statement that makes hoisting
  // illegal.
  struct Barrier {
    explicit Barrier(Decomposer& d) : d_(d) { d_.barriers_.push_back(d_.loops_.size()); }
    ~Barrier() { d_.barriers_.pop_back(); }
    Decomposer& d_;
  };

  // Builds the init nest and records where it goes, or returns null when
  // hoisting would change what the program computes.
  Stmt hoisted_init(const BlockRealizeNode* r, const BlockNode& b) {
    if (r->iter_values.size() != b.iter_vars.size()) return Stmt();
    VarSet reduce_loops, spatial_loops, reduce_ivs;
    for (size_t i = 0; i < b.iter_vars.size(); ++i) {
      const IterVar& iv = b.iter_vars[i];
      VarSet used = vars_of(r->iter_values[i]);
      if (iv.kind == IterKind::Reduce) {
        reduce_loops.insert(used.begin(), used.end());
        reduce_ivs.insert(iv.var.get());
      } else if (iv.kind == IterKind::DataPar) {
        spatial_loops.insert(used.begin(), used.end());
      } else {
        return Stmt();  // opaque variables: no notion of "first reduction step"
      }
    }
    size_t p = loops_.size();
    for (size_t q = 0; q < loops_.size(); ++q)
      if (reduce_loops.count(loops_[q]->loop_var.get())) {
        p = q;
        break;
      }
    if (p == loops_.size()) return Stmt();
    for (size_t barrier : barriers_)
      if (p < barrier) return Stmt();

    VarSet replicated, inner_other;
    for (size_t q = p; q < loops_.size(); ++q) {
      const VarNode* v = loops_[q]->loop_var.get();
      bool in_r = reduce_loops.count(v) > 0, in_s = spatial_loops.count(v) > 0;
      if (in_r && in_s) return Stmt();
      // A loop binding nothing repeats the reduction: the init would run once
      // per repetition in place but only once when hoisted.
      if (!in_r && !in_s && !is_const_int(loops_[q]->extent, 1)) return Stmt();
      (in_s ? replicated : inner_other).insert(v);
    }
    for (size_t q = p; q < loops_.size(); ++q)
      if (replicated.count(loops_[q]->loop_var.get()) &&
          (uses_any(loops_[q]->min, inner_other) || uses_any(loops_[q]->extent, inner_other)))
        return Stmt();
    std::vector<Expr> init_pred;
    for (const Expr& c : conjuncts(r->predicate)) {
      if (uses_any(c, inner_other)) return Stmt();
      init_pred.push_back(c);
    }
    for (const VarNode* v : vars_of(b.init))
      if (reduce_ivs.count(v)) return Stmt();

    // Nothing else under the hoisting loop may touch what the init writes.
    VarSet written;
    for (const BufferRegion& w : b.writes)
      if (w.buffer) written.insert(w.buffer->data.get());
    AccessRegions init_access = infer_access_regions(b);
    for (const BufferRegion& w : init_access.writes)
      if (w.buffer) written.insert(w.buffer->data.get());
    TouchesStorage touches(written, r);
    touches.visit(loops_[p]->body);
    if (touches.found) return Stmt();

    VarMap loop_map;
    std::vector<Var> new_loop_vars(loops_.size());
    for (size_t q = p; q < loops_.size(); ++q) {
      const Var& v = loops_[q]->loop_var;
      if (!replicated.count(v.get())) continue;
      new_loop_vars[q] = make_var(v->name + "_init", v->dtype);
      loop_map[v.get()] = Expr(new_loop_vars[q]);
    }
    auto init_block = std::make_shared<BlockNode>();
    init_block->name = b.name + "_init";
    SpatialIterVars spatial = copy_spatial_iter_vars(b, "_init");
    init_block->iter_vars = spatial.iter_vars;
    std::vector<Expr> values;
    for (size_t i : spatial.positions) values.push_back(substitute(r->iter_values[i], loop_map));
    init_block->body = substitute(b.init, spatial.map);
    AccessRegions regions = infer_access_regions(*init_block);
    init_block->reads = regions.reads;
    init_block->writes = regions.writes;
    init_block->annotations = {};
    auto realize = std::make_shared<BlockRealizeNode>(
        values, substitute(conjunction(init_pred), loop_map), Block(init_block));
    realize->loc = b.init->loc;
    Stmt nest(std::move(realize));
    for (size_t q = loops_.size(); q-- > p;) {
      if (!new_loop_vars[q]) continue;
      const ForNode* f = loops_[q];
      nest = with_header(*f, new_loop_vars[q], substitute(f->min, loop_map),
                         substitute(f->extent, loop_map), nest);
    }
    inits_before_[loops_[p]].push_back(nest);
    return nest;
  }

  std::vector<const ForNode*> loops_;
  std::vector<size_t> barriers_;
  std::unordered_map<const ForNode*, std::vector<Stmt>> inits_before_;
};

}  // namespace

PrimFunc decompose_reductions(const PrimFunc& f) {
  Decomposer d;
  Stmt body = d.mutate(f->body);
  return body.same_as(f->body) ? f : with_body(f, body);
}

}  // namespace tirc
