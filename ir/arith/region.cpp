#include "ir/arith/region.h"

#include <unordered_set>

#include "ir/arith/analyzer.h"
#include "ir/arith/relax.h"
#include "ir/functor.h"
#include "ir/intrinsic.h"
#include "ir/substitute.h"

namespace tirc {

namespace {

using arith::RelaxDomain;
using arith::SymInterval;

// Per-buffer union of accessed intervals, in order of first access.
class RegionUnion {
 public:
  void add(const Buffer& buffer, const std::vector<SymInterval>& dims, const Analyzer& an) {
    for (Entry& e : entries_) {
      if (e.buffer != buffer) continue;
      for (size_t d = 0; d < e.dims.size() && d < dims.size(); ++d) {
        e.dims[d].lo = unite(e.dims[d].lo, dims[d].lo, ExprKind::Min, an);
        e.dims[d].hi = unite(e.dims[d].hi, dims[d].hi, ExprKind::Max, an);
      }
      return;
    }
    entries_.push_back({buffer, dims});
  }

  std::vector<BufferRegion> regions(const Analyzer& an) const {
    std::vector<BufferRegion> out;
    for (const Entry& e : entries_) {
      BufferRegion r{e.buffer, {}};
      for (const SymInterval& s : e.dims) {
        Expr extent = an.simplify(make_binary(ExprKind::Add, make_binary(ExprKind::Sub, s.hi, s.lo),
                                              make_const(s.lo.dtype(), 1)));
        r.region.push_back(Range::from_min_extent(s.lo, extent));
      }
      out.push_back(std::move(r));
    }
    return out;
  }

 private:
  struct Entry {
    Buffer buffer;
    std::vector<SymInterval> dims;
  };

  static Expr unite(const Expr& a, const Expr& b, ExprKind k, const Analyzer& an) {
    if (a.dtype() != b.dtype()) return a;
    return an.simplify(make_binary(k, a, b));
  }

  std::vector<Entry> entries_;
};

// The interval of one index, falling back to the whole dimension.
SymInterval relax_index(const Expr& index, const Expr& dim_extent, const RelaxDomain& dom,
                        const Analyzer& an) {
  if (auto r = arith::relax_interval(index, dom, an)) return *r;
  DataType t = index.dtype().element_of();
  Expr extent = dim_extent ? dim_extent : make_const(t, 1);
  Expr hi = an.simplify(make_binary(ExprKind::Sub, extent, make_const(extent.dtype(), 1)));
  return {make_const(hi.dtype(), 0), hi};
}

class AccessCollector : public ExprVisitor {
 public:
  AccessCollector(const BlockNode& block) {
    for (const IterVar& iv : block.iter_vars)
      if (iv.var && iv.dom.min && iv.dom.extent) analyzer_.bind(iv.var, iv.dom);
    enter_block_buffers(block);
  }

  void collect(const Stmt& s) {
    if (!s) return;
    switch (s.kind()) {
      case StmtKind::BufferStore: {
        auto* n = s.as<BufferStoreNode>();
        visit(n->value);
        for (const Expr& i : n->indices) visit(i);
        record(n->buffer, n->indices, writes_);
        return;
      }
      case StmtKind::For: {
        auto* n = s.as<ForNode>();
        visit(n->min);
        visit(n->extent);
        dom_[n->loop_var.get()] = Range::from_min_extent(subst(n->min), subst(n->extent));
        collect(n->body);
        dom_.erase(n->loop_var.get());
        return;
      }
      case StmtKind::Block:
        return collect_block(*s.as<BlockNode>());
      case StmtKind::BlockRealize: {
        auto* n = s.as<BlockRealizeNode>();
        for (const Expr& v : n->iter_values) visit(v);
        visit(n->predicate);
        const BlockNode& inner = *n->block;
        std::vector<const VarNode*> ranged;
        for (size_t k = 0; k < inner.iter_vars.size() && k < n->iter_values.size(); ++k) {
          const IterVar& iv = inner.iter_vars[k];
          if (!iv.var) continue;
          Expr binding = subst(n->iter_values[k]);
          if (binding_within_domain(binding, iv)) {
            vmap_[iv.var.get()] = binding;
          } else {
            // A binding that may leave the iteration domain (a split that does
            // not divide, guarded by T.where) only runs inside it: relax the
            // variable over its declared domain instead.
            vmap_.erase(iv.var.get());
            dom_[iv.var.get()] = Range::from_min_extent(subst(iv.dom.min), subst(iv.dom.extent));
            ranged.push_back(iv.var.get());
          }
        }
        collect_block(inner);
        for (const VarNode* v : ranged) dom_.erase(v);
        return;
      }
      case StmtKind::Seq:
        for (const Stmt& x : s.as<SeqStmtNode>()->seq) collect(x);
        return;
      case StmtKind::IfThenElse: {
        auto* n = s.as<IfThenElseNode>();
        visit(n->cond);
        collect(n->then_case);
        collect(n->else_case);
        return;
      }
      case StmtKind::LetStmt: {
        auto* n = s.as<LetStmtNode>();
        visit(n->value);
        vmap_[n->var.get()] = subst(n->value);
        collect(n->body);
        return;
      }
      case StmtKind::Evaluate:
        visit(s.as<EvaluateNode>()->value);
        return;
      case StmtKind::Allocate: {
        auto* n = s.as<AllocateNode>();
        for (const Expr& e : n->extents) visit(e);
        local_data_.insert(n->buffer_var.get());
        collect(n->body);
        return;
      }
      case StmtKind::AllocateConst: {
        auto* n = s.as<AllocateConstNode>();
        for (const Expr& e : n->extents) visit(e);
        local_data_.insert(n->buffer_var.get());
        collect(n->body);
        return;
      }
      case StmtKind::DeclBuffer: {
        auto* n = s.as<DeclBufferNode>();
        local_.insert(n->buffer.get());
        collect(n->body);
        return;
      }
    }
  }

  AccessRegions result() const { return {reads_.regions(analyzer_), writes_.regions(analyzer_)}; }

 protected:
  void visit_load(const BufferLoadNode* n) override {
    record(n->buffer, n->indices, reads_);
    for (const Expr& i : n->indices) visit(i);
  }

  // A warp matrix operation (ir/intrinsic.h) writes its first tile (mma_sync
  // also reads it) and reads the others: each tile is the region its view
  // matched, or the element T.address_of names.
  void visit_call(const CallNode* n) override {
    const Intrinsic* in = find_warp_matrix(*n);
    if (!in) return ExprVisitor::visit_call(n);
    for (size_t i = 0; i < n->args.size(); ++i) {
      const BufferLoadNode* tile = address_of_element(n->args[i]);
      if (!tile) {
        visit(n->args[i]);
        continue;
      }
      if (i == 0) record(tile->buffer, tile->indices, writes_);
      if (i != 0 || in->id == IntrinsicId::MmaSync) record(tile->buffer, tile->indices, reads_);
      for (const Expr& e : tile->indices) visit(e);
    }
  }

 private:
  void enter_block_buffers(const BlockNode& block) {
    for (const Buffer& b : block.alloc_buffers) local_.insert(b.get());
    for (const MatchBufferRegion& m : block.match_buffers) {
      if (!m.buffer) continue;
      BufferRegion src = m.source;
      for (Range& r : src.region) r = Range::from_min_extent(subst(r.min), subst(r.extent));
      matched_[m.buffer.get()] = std::move(src);
    }
  }

  void collect_block(const BlockNode& block) {
    enter_block_buffers(block);
    collect(block.init);
    collect(block.body);
  }

  Expr subst(const Expr& e) const { return e ? substitute(e, vmap_) : e; }

  // Whether every value `binding` takes over the enclosing loops provably lies
  // in the iteration variable's domain (unknown domains count as yes).
  bool binding_within_domain(const Expr& binding, const IterVar& iv) const {
    if (!iv.dom.min || !iv.dom.extent) return true;
    auto r = arith::relax_interval(binding, dom_, analyzer_);
    if (!r) return true;
    Expr min = subst(iv.dom.min);
    Expr last = make_binary(ExprKind::Sub, make_binary(ExprKind::Add, min, subst(iv.dom.extent)),
                            make_const(min.dtype(), 1));
    if (r->lo.dtype() != min.dtype() || r->hi.dtype() != last.dtype()) return true;
    return analyzer_.can_prove(r->lo >= min) && analyzer_.can_prove(r->hi <= last);
  }

  bool excluded(const Buffer& b) const {
    return !b || local_.count(b.get()) || (b->data && local_data_.count(b->data.get()));
  }

  void record(const Buffer& buffer, const std::vector<Expr>& indices, RegionUnion& into) {
    if (excluded(buffer)) return;
    auto m = matched_.find(buffer.get());
    if (m != matched_.end()) return record_region(m->second, into);
    std::vector<SymInterval> dims;
    for (size_t d = 0; d < indices.size(); ++d) {
      Expr extent = d < buffer->shape.size() ? buffer->shape[d] : Expr{};
      dims.push_back(relax_index(subst(indices[d]), extent, dom_, analyzer_));
    }
    into.add(buffer, dims, analyzer_);
  }

  // A matched buffer stands for its source region: record that, relaxed.
  void record_region(const BufferRegion& src, RegionUnion& into) {
    if (excluded(src.buffer)) return;
    std::vector<SymInterval> dims;
    for (size_t d = 0; d < src.region.size(); ++d) {
      const Range& r = src.region[d];
      Expr extent = d < src.buffer->shape.size() ? src.buffer->shape[d] : Expr{};
      SymInterval lo = relax_index(r.min, extent, dom_, analyzer_);
      Expr last = make_binary(ExprKind::Sub, make_binary(ExprKind::Add, r.min, r.extent),
                              make_const(r.min.dtype(), 1));
      SymInterval hi = relax_index(last, extent, dom_, analyzer_);
      dims.push_back({lo.lo, hi.hi});
    }
    into.add(src.buffer, dims, analyzer_);
  }

  Analyzer analyzer_;
  RelaxDomain dom_;
  VarMap vmap_;
  std::unordered_set<const BufferNode*> local_;
  std::unordered_set<const VarNode*> local_data_;
  std::unordered_map<const BufferNode*, BufferRegion> matched_;
  RegionUnion reads_, writes_;
};

}  // namespace

AccessRegions infer_access_regions(const BlockNode& block) {
  AccessCollector c(block);
  c.collect(block.init);
  c.collect(block.body);
  return c.result();
}

BufferRegion relax_access(const Buffer& buffer, const std::vector<Expr>& indices,
                          const std::unordered_map<const VarNode*, Range>& dom) {
  Analyzer an;
  RegionUnion u;
  std::vector<SymInterval> dims;
  for (size_t d = 0; d < indices.size(); ++d) {
    Expr extent = buffer && d < buffer->shape.size() ? buffer->shape[d] : Expr{};
    dims.push_back(relax_index(indices[d], extent, dom, an));
  }
  u.add(buffer, dims, an);
  return u.regions(an).front();
}

}  // namespace tirc
