#include "tuner/features.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <optional>
#include <unordered_set>

#include "ir/arith/analyzer.h"
#include "ir/arith/linear_form.h"
#include "ir/conjuncts.h"
#include "ir/flops.h"
#include "ir/functor.h"
#include "ir/substitute.h"
#include "ir/var_use.h"
#include "passes/pass_util.h"

namespace tirc {

int stride_bin(int64_t stride) {
  uint64_t s = stride < 0 ? 0 - static_cast<uint64_t>(stride) : static_cast<uint64_t>(stride);
  if (s == 0) return 0;
  return std::min(kStrideBins - 1, static_cast<int>(std::bit_width(s)));  // 1 + floor(log2 s)
}

namespace {

constexpr int kUnknownBin = kStrideBins - 1;

struct LoopRec {
  int depth = 0;
  std::optional<int64_t> extent, min;
  // From a block predicate: the full iterations and the tail (see header).
  std::optional<int64_t> cut_size;
  int64_t cut_tail = 0;
  std::array<double, kStrideBins> hist{};
  double total = 0;
  int stores = 0, writeback_stores = 0;
  bool has_inner_loop = false;
  const ForNode* node = nullptr;
};

struct Stats {
  int blocks = 0;
  int max_depth = 0;
  double dyn_bytes = 0;
  double inner_iters = 0;
  std::array<double, kStrideBins> inner_hist{};
  double inner_total = 0;
  double best_store_exec = -1;
  int64_t best_store_inner_extent = 0;
  std::vector<Buffer> buffers;  // accessed, each once
  std::unordered_set<const BufferNode*> seen_buffers;
  int local_buffers = 0;
  double local_elems = 0;
  // Products of the extents of the loops of each kind; 0 when there is none.
  double vectorized = 0, parallel = 0, unrolled = 0;
};

// The loads of an expression (and of the indices of loads), in order.
class LoadCollector : public ExprVisitor {
 public:
  std::vector<const BufferLoadNode*> loads;

 protected:
  void visit_load(const BufferLoadNode* n) override {
    loads.push_back(n);
    ExprVisitor::visit_load(n);
  }
};

// An index as the scalar it starts from: a vector index's first lane.
Expr scalar_index(Expr e) {
  for (;;) {
    if (auto* r = e.as<RampNode>()) {
      e = r->base;
    } else if (auto* b = e.as<BroadcastNode>()) {
      e = b->value;
    } else {
      return e;
    }
  }
}

std::optional<int64_t> const_value(const Expr& e) {
  if (!e) return std::nullopt;
  arith::LinearForm f = arith::decompose(e);
  if (!f.is_constant()) return std::nullopt;
  return f.constant;
}

class Walker {
 public:
  explicit Walker(const PrimFunc& f) : body_(f->body) {
    for (const Param& p : f->params)
      if (p.buffer) param_data_.insert(p.buffer->data.get());
    walk(f->body);
  }

  std::vector<LoopRec> loops;
  Stats stats;

 private:
  struct Open {
    int rec;
    const VarNode* var;
    const ForNode* loop;
  };

  void walk(const Stmt& s) {
    if (!s) return;
    switch (s.kind()) {
      case StmtKind::For:
        return walk_for(s.as<ForNode>());
      case StmtKind::BlockRealize:
        return walk_realize(s, s.as<BlockRealizeNode>());
      case StmtKind::Block:
        return walk(s.as<BlockNode>()->body);
      case StmtKind::BufferStore: {
        auto* n = s.as<BufferStoreNode>();
        accesses_in(n->value);
        for (const Expr& i : n->indices) accesses_in(i);
        access(n->buffer, n->indices, writeback(n));
        return;
      }
      case StmtKind::Seq:
        for (const Stmt& c : s.as<SeqStmtNode>()->seq) walk(c);
        return;
      case StmtKind::IfThenElse: {
        auto* n = s.as<IfThenElseNode>();
        accesses_in(n->cond);
        walk(n->then_case);
        walk(n->else_case);
        return;
      }
      case StmtKind::LetStmt: {
        auto* n = s.as<LetStmtNode>();
        accesses_in(n->value);
        vmap_[n->var.get()] = bound(n->value);
        walk(n->body);
        vmap_.erase(n->var.get());
        return;
      }
      case StmtKind::Evaluate:
        return accesses_in(s.as<EvaluateNode>()->value);
      case StmtKind::Allocate: {
        auto* n = s.as<AllocateNode>();
        if (n->scope != "global") {
          ++stats.local_buffers;
          double elems = 1;
          for (const Expr& e : n->extents) elems *= static_cast<double>(const_value(e).value_or(1));
          stats.local_elems += elems;
        }
        return walk(n->body);
      }
      case StmtKind::DeclBuffer:
        return walk(s.as<DeclBufferNode>()->body);
      case StmtKind::AllocateConst:
        return walk(s.as<AllocateConstNode>()->body);
    }
  }

  void walk_for(const ForNode* n) {
    int rec = static_cast<int>(loops.size());
    if (!open_.empty()) loops[static_cast<size_t>(open_.back().rec)].has_inner_loop = true;
    LoopRec r;
    r.depth = static_cast<int>(open_.size());
    r.extent = as_const_int(n->extent);
    r.min = as_const_int(n->min);
    r.node = n;
    loops.push_back(r);
    stats.max_depth = std::max(stats.max_depth, r.depth + 1);
    double factor = r.extent ? static_cast<double>(std::max<int64_t>(*r.extent, 0)) : 1.0;
    double* kind = n->for_kind == ForKind::Vectorized ? &stats.vectorized
                   : n->for_kind == ForKind::Parallel ? &stats.parallel
                   : n->for_kind == ForKind::Unrolled ? &stats.unrolled
                                                      : nullptr;
    if (kind) *kind = (*kind == 0 ? 1.0 : *kind) * factor;
    double saved = exec_;
    exec_ *= factor;
    open_.push_back({rec, n->loop_var.get(), n});
    walk(n->body);
    open_.pop_back();
    if (!loops[static_cast<size_t>(rec)].has_inner_loop) stats.inner_iters += exec_;
    exec_ = saved;
  }

  void walk_realize(const Stmt& s, const BlockRealizeNode* n) {
    const BlockNode* b = n->block.get();
    if (!s.same_as(body_)) ++stats.blocks;
    std::vector<const VarNode*> bound_here;
    for (size_t i = 0; i < b->iter_vars.size() && i < n->iter_values.size(); ++i) {
      Expr v = bound(n->iter_values[i]);
      vmap_[b->iter_vars[i].var.get()] = v;
      bound_here.push_back(b->iter_vars[i].var.get());
    }
    if (n->predicate) predicate(bound(n->predicate));
    for (const Buffer& a : b->alloc_buffers) {
      if (a->scope == "global") continue;
      ++stats.local_buffers;
      stats.local_elems += static_cast<double>(const_num_elements(a).value_or(0));
    }
    // The init runs once per output point: left out (see the header).
    walk(b->body);
    for (const VarNode* v : bound_here) vmap_.erase(v);
  }

  Expr bound(const Expr& e) const { return vmap_.empty() ? e : substitute(e, vmap_); }

  // A store that only copies a non-parameter buffer into another buffer.
  bool writeback(const BufferStoreNode* n) const {
    Expr v = n->value;
    while (auto* c = v.as<CastNode>()) v = c->value;
    auto* ld = v.as<BufferLoadNode>();
    if (!ld) return false;
    const VarNode* src = ld->buffer->data.get();
    return !param_data_.count(src) && src != n->buffer->data.get();
  }

  void accesses_in(const Expr& e) {
    if (!e) return;
    LoadCollector c;
    c.visit(e);
    for (const BufferLoadNode* ld : c.loads) access(ld->buffer, ld->indices, std::nullopt);
  }

  // writeback: nullopt for a load, else whether the store is a write-back.
  void access(const Buffer& b, const std::vector<Expr>& indices, std::optional<bool> writeback) {
    if (stats.seen_buffers.insert(b.get()).second) stats.buffers.push_back(b);
    int lanes = 1;
    std::vector<arith::LinearForm> forms;
    forms.reserve(indices.size());
    for (const Expr& i : indices) {
      lanes = std::max(lanes, i.dtype().lanes());
      forms.push_back(arith::decompose(bound(scalar_index(i))));
    }
    stats.dyn_bytes += exec_ * b->dtype.bytes() * lanes;

    std::vector<Expr> strides = passes::effective_strides(b);
    std::vector<std::optional<int64_t>> dim_stride(indices.size());
    for (size_t d = 0; d < indices.size() && d < strides.size(); ++d)
      dim_stride[d] = const_value(strides[d]);
    // The variables of each term that is not a plain variable: a loop variable
    // among them makes the index non-affine in that loop.
    std::vector<std::vector<std::unordered_set<const VarNode*>>> term_vars;
    auto collect_term_vars = [&] {
      term_vars.assign(forms.size(), {});
      bool open_var_inside = false;
      for (size_t d = 0; d < forms.size(); ++d)
        for (const arith::LinearTerm& t : forms[d].terms) {
          term_vars[d].push_back(t.term.as<VarNode>() ? std::unordered_set<const VarNode*>{}
                                                      : vars_of(t.term));
          for (const Open& o : open_) open_var_inside |= term_vars[d].back().count(o.var) > 0;
        }
      return open_var_inside;
    };
    if (collect_term_vars() && flatten(indices, strides, forms, dim_stride)) collect_term_vars();

    auto bin_for = [&](const VarNode* var) {
      int64_t coef = 0;
      for (size_t d = 0; d < forms.size(); ++d) {
        int64_t c = 0;
        for (size_t k = 0; k < forms[d].terms.size(); ++k) {
          const arith::LinearTerm& t = forms[d].terms[k];
          if (t.term.get() == var) {
            c += t.coef;
          } else if (term_vars[d][k].count(var)) {
            return kUnknownBin;
          }
        }
        if (c == 0) continue;
        if (!dim_stride[d]) return kUnknownBin;
        int64_t p = 0;
        if (__builtin_mul_overflow(c, *dim_stride[d], &p) || __builtin_add_overflow(coef, p, &coef))
          return kUnknownBin;
      }
      return stride_bin(coef);
    };

    for (const Open& o : open_) {
      LoopRec& r = loops[static_cast<size_t>(o.rec)];
      r.hist[static_cast<size_t>(bin_for(o.var))] += exec_;
      r.total += exec_;
      if (writeback) {
        ++r.stores;
        if (*writeback) ++r.writeback_stores;
      }
    }
    int inner_bin = open_.empty() ? 0 : bin_for(open_.back().var);
    stats.inner_hist[static_cast<size_t>(inner_bin)] += exec_;
    stats.inner_total += exec_;
    if (writeback && exec_ > stats.best_store_exec) {
      stats.best_store_exec = exec_;
      stats.best_store_inner_extent =
          open_.empty() ? 0 : loops[static_cast<size_t>(open_.back().rec)].extent.value_or(0);
    }
  }

  // The flattened offset, simplified with the open loops' ranges, as the one
  // dimension of forms (stride 1): `(f // 16) * 16 + f % 16` after a fuse is
  // `f`. False (forms unchanged) when a stride is not a constant.
  bool flatten(const std::vector<Expr>& indices, const std::vector<Expr>& strides,
               std::vector<arith::LinearForm>& forms,
               std::vector<std::optional<int64_t>>& dim_stride) const {
    if (strides.size() != indices.size()) return false;
    Expr offset = make_int(0);
    for (size_t d = 0; d < indices.size(); ++d) {
      if (!dim_stride[d]) return false;
      offset =
          passes::index_add(offset, passes::index_mul(bound(scalar_index(indices[d])), strides[d]));
    }
    Analyzer an;
    for (const Open& o : open_) an.bind(o.loop->loop_var, Range{o.loop->min, o.loop->extent});
    forms.assign(1, arith::decompose(an.simplify(offset)));
    dim_stride.assign(1, int64_t{1});
    return true;
  }

  // Looks for a split tail in each conjunct `f < 0` of a block predicate.
  void predicate(const Expr& pred) {
    for (const Expr& c : conjuncts(pred)) {
      auto* n = c.as<BinaryNode>();
      if (!n || !n->a.dtype().is_integer() || n->a.dtype().lanes() != 1) continue;
      Expr lhs = n->a, rhs = n->b;
      int64_t strict = 0;  // subtracted so that `<=` reads as `<`
      switch (c.kind()) {
        case ExprKind::LT:
          break;
        case ExprKind::LE:
          strict = 1;
          break;
        case ExprKind::GT:
          std::swap(lhs, rhs);
          break;
        case ExprKind::GE:
          std::swap(lhs, rhs), strict = 1;
          break;
        default:
          continue;
      }
      arith::LinearForm f = arith::decompose(lhs);
      f.add(arith::decompose(rhs), -1);
      f.add_constant(-strict);
      tail_from(f);
    }
  }

  // f < 0 with f = sum(c_u * u) + c0 over open loops u.
  void tail_from(const arith::LinearForm& f) {
    if (f.terms.empty()) return;
    size_t outer = open_.size();
    std::vector<size_t> pos;
    for (const arith::LinearTerm& t : f.terms) {
      if (t.coef <= 0) return;
      size_t p = 0;
      while (p < open_.size() && open_[p].var != t.term.get()) ++p;
      if (p == open_.size()) return;
      pos.push_back(p);
      outer = std::min(outer, p);
    }
    int64_t limit = -f.constant;  // sum(c_u * u) < limit
    int64_t chain = 1;            // 1 + sum over the inner loops of c_u * (extent_u - 1)
    int64_t c_outer = 0;
    for (size_t k = 0; k < f.terms.size(); ++k) {
      const LoopRec& r = loops[static_cast<size_t>(open_[pos[k]].rec)];
      if (!r.extent || !r.min || *r.extent < 1) return;
      int64_t c = f.terms[k].coef;
      limit -= c * *r.min;
      if (pos[k] == outer) {
        if (c_outer != 0) return;
        c_outer = c;
      } else {
        chain += c * (*r.extent - 1);
      }
    }
    if (chain != c_outer) return;
    LoopRec& r = loops[static_cast<size_t>(open_[outer].rec)];
    int64_t points = std::max<int64_t>(limit, 0);
    if (points >= *r.extent * c_outer) return;  // nothing cut
    int64_t size = points / c_outer, tail = points % c_outer;
    if (r.cut_size && std::pair(*r.cut_size, r.cut_tail) <= std::pair(size, tail)) return;
    r.cut_size = size;
    r.cut_tail = tail;
  }

  Stmt body_;
  std::unordered_set<const VarNode*> param_data_;
  VarMap vmap_;
  std::vector<Open> open_;
  double exec_ = 1;
};

LoopFeatures features_of(const LoopRec& r, bool cursor) {
  LoopFeatures out;
  out.v[kFeatCursor] = cursor ? 1.0f : 0.0f;
  if (r.extent) out.v[kFeatSize] = static_cast<float>(r.cut_size ? *r.cut_size : *r.extent);
  out.v[kFeatTail] = static_cast<float>(r.cut_tail);
  bool writeback = r.stores > 0 && r.writeback_stores == r.stores;
  out.v[kFeatCompute] = writeback ? 0.0f : 1.0f;
  if (r.total > 0)
    for (int b = 0; b < kStrideBins; ++b)
      out.v[static_cast<size_t>(kFeatStride0 + b)] =
          static_cast<float>(r.hist[static_cast<size_t>(b)] / r.total);
  return out;
}

float log2p1(double x) {
  return static_cast<float>(std::log2(1.0 + std::max(x, 0.0)));
}

}  // namespace

std::vector<LoopFeatures> loop_features(const PrimFunc& f, int cursor,
                                        std::vector<const ForNode*>* loops) {
  Walker w(f);
  std::vector<LoopFeatures> out;
  out.reserve(w.loops.size());
  for (size_t i = 0; i < w.loops.size(); ++i) {
    out.push_back(features_of(w.loops[i], cursor >= 0 && static_cast<size_t>(cursor) == i));
    if (loops) loops->push_back(w.loops[i].node);
  }
  return out;
}

std::vector<float> program_features(const PrimFunc& f) {
  Walker w(f);
  const Stats& s = w.stats;
  std::vector<float> out(static_cast<size_t>(kProgramFeatureCount), 0.0f);
  double flops = static_cast<double>(count_flops(f).value_or(0));
  double bytes = 0;
  for (const Buffer& b : s.buffers)
    bytes += static_cast<double>(const_num_elements(b).value_or(0)) * b->dtype.bytes();
  int tails = 0, compute = 0;
  for (const LoopRec& r : w.loops) {
    tails += r.cut_tail > 0;
    compute += !(r.stores > 0 && r.writeback_stores == r.stores);
  }
  double loops = static_cast<double>(w.loops.size());
  std::array<double, kProgramScalarFeatures> head{};
  head[0] = loops;
  head[1] = s.max_depth;
  head[2] = s.blocks;
  head[3] = log2p1(flops);
  head[4] = log2p1(bytes);
  head[5] = bytes > 0 ? flops / bytes : 0;
  head[6] = log2p1(s.dyn_bytes);
  head[7] = s.dyn_bytes > 0 ? flops / s.dyn_bytes : 0;
  head[8] = s.inner_iters > 0 ? s.dyn_bytes / s.inner_iters : 0;
  head[9] = log2p1(s.vectorized);
  head[10] = log2p1(s.parallel);
  head[11] = log2p1(s.unrolled);
  head[12] = tails;
  head[13] = loops > 0 ? compute / loops : 0;
  head[14] = s.local_buffers;
  head[15] = log2p1(s.local_elems);
  head[16] = static_cast<double>(s.best_store_inner_extent);
  for (int b = 0; b < kStrideBins; ++b)
    head[static_cast<size_t>(17 + b)] =
        s.inner_total > 0 ? s.inner_hist[static_cast<size_t>(b)] / s.inner_total : 0;
  for (size_t i = 0; i < head.size(); ++i) out[i] = static_cast<float>(head[i]);
  size_t n = std::min(w.loops.size(), static_cast<size_t>(kProgramFeatureLoops));
  for (size_t i = 0; i < n; ++i) {
    LoopFeatures lf = features_of(w.loops[i], false);
    for (size_t k = 0; k < lf.v.size(); ++k)
      out[static_cast<size_t>(kProgramScalarFeatures) + i * kLoopFeatureCount + k] = lf.v[k];
  }
  return out;
}

const std::vector<std::string>& program_feature_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v = {
        "loops",           "depth",          "blocks",        "log_flops",
        "log_bytes",       "flops_per_byte", "log_dyn_bytes", "dyn_flops_per_byte",
        "bytes_per_inner", "log_vectorized", "log_parallel",  "log_unrolled",
        "tails",           "compute_share",  "local_buffers", "log_local_elems",
        "inner_extent"};
    for (int b = 0; b < kStrideBins; ++b) v.push_back("inner_stride" + std::to_string(b));
    const char* loop_names[] = {"cursor", "size", "tail", "compute"};
    for (int l = 0; l < kProgramFeatureLoops; ++l) {
      std::string p = "loop" + std::to_string(l) + ".";
      for (const char* n : loop_names) v.push_back(p + n);
      for (int b = 0; b < kStrideBins; ++b) v.push_back(p + "stride" + std::to_string(b));
    }
    return v;
  }();
  return names;
}

}  // namespace tirc
