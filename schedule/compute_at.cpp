// compute_at and reverse_compute_at: move a block under a loop of the blocks
// it depends on (or that depend on it), computing only the region one
// iteration of that loop needs (or provides).
//
// The checks follow TVM's ComputeAtOrReverseComputeAt:
//  - the block and the loop live in one function and one scope, and the loop
//    is not an ancestor of the block;
//  - the block is complete or a reduction, and has no predicate (its T.where
//    would refer to the loops it leaves);
//  - compute_at only: the block does not write a function parameter (an
//    output block has no consumer to be computed for);
//  - compute_at: every consumer of the block is under the loop; reverse:
//    every producer is; under the loop, producers come before consumers and
//    the insertion point lies between the last producer and the first
//    consumer (index -1: at the first consumer, TVM's default; -2: right after
//    the last producer; N >= 0: that position of the loop's body);
//  - reverse only: the producers' reductions finish within one iteration of
//    the loop (otherwise the consumer would read partial results).
// The block's iteration domain under the loop comes from the required region
// of its buffers: each dimension of the block's own access must be one
// iteration variable plus an offset. Reduce variables keep their whole
// domain. When the region may leave the iteration domain a T.where clips it.
#include <algorithm>
#include <unordered_set>

#include "ir/arith/analyzer.h"
#include "ir/arith/relax.h"
#include "ir/functor.h"
#include "ir/substitute.h"
#include "schedule/analysis.h"
#include "schedule/compute_common.h"
#include "schedule/schedule.h"

namespace tirc {

namespace {

using arith::SymInterval;

struct BufferRange {
  Buffer buffer;
  std::vector<SymInterval> dims;  // inclusive bounds per dimension
  // Where every access to dimensions d, d + 1 is [x // E, x % E] (E the
  // extent of d + 1: a flattened pixel), the bounds of x itself, at d.
  std::vector<std::optional<SymInterval>> flat;
};

bool contains(const std::vector<const BlockRealizeNode*>& v, const BlockRealizeNode* x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

bool regions_touch(const std::vector<BufferRegion>& rs, const Buffer& b) {
  for (const BufferRegion& r : rs)
    if (r.buffer == b) return true;
  return false;
}

std::vector<Stmt> children_of(const Stmt& body) {
  if (auto* seq = body.as<SeqStmtNode>()) return seq->seq;
  return {body};
}

Expr one_like(const Expr& e) {
  return make_const(e.dtype(), 1);
}

// The loops strictly between `loop` (the path's front) and the block.
std::vector<const ForNode*> loops_inside(const StmtPath& path) {
  std::vector<const ForNode*> out;
  for (size_t i = 1; i + 1 < path.stmts.size(); ++i)
    if (auto* f = path.stmts[i].as<ForNode>()) out.push_back(f);
  return out;
}

class ComputeAtPlanner {
 public:
  ComputeAtPlanner(bool reverse, const PrimFunc& func, const std::string& block_name,
                   const Var& loop_var, bool preserve_unit_loops, int index)
      : reverse_(reverse),
        prim_(reverse ? "reverse_compute_at" : "compute_at"),
        func_(func),
        preserve_(preserve_unit_loops),
        index_(index) {
    const Stmt& body = func->body;
    bpath_ = *find_block(body, block_name);
    lpath_ = *find_loop(body, loop_var.get());
    realize_ = bpath_.node().as<BlockRealizeNode>();
    loop_ = lpath_.node().as<ForNode>();
    block_name_ = block_name;
    loop_name_ = loop_var->name;
  }

  Stmt run() {
    check_location();
    check_block();
    int pos = insertion_point();
    std::vector<BufferRange> required = required_region();
    Stmt placed = place_block(required);
    std::vector<Stmt> subtrees = children_of(loop_->body);
    subtrees.insert(subtrees.begin() + pos, placed);
    const StmtNode* removed = removal_root(bpath_, prim_);
    Stmt body = replace_stmt(func_->body, loop_, with_body(*loop_, make_seq(std::move(subtrees))));
    return replace_stmt(body, removed, Stmt());
  }

 private:
  [[noreturn]] void fail(const std::string& why) const { throw ScheduleError(prim_, why); }

  void check_location() {
    scope_ = scope_of(bpath_);
    if (scope_of(lpath_).get() != scope_.get())
      fail("block " + block_name_ + " and loop " + loop_name_ + " are not in the same scope");
    for (const Stmt& s : bpath_.stmts)
      if (s.get() == loop_) fail("loop " + loop_name_ + " is an ancestor of block " + block_name_);
  }

  void check_block() {
    if (!is_complete_block(scope_, realize_) && !is_reduction_block(scope_, realize_))
      fail("block " + block_name_ + " is neither a complete block nor a reduction block");
    if (!is_trivial_predicate(realize_->predicate) && !predicate_only_bounds_domain(realize_))
      fail("block " + block_name_ +
           " has a predicate (T.where) over the loops it would leave that does more than keep "
           "its iteration values in their domains");
    if (!reverse_)
      for (const BufferRegion& w : realize_->block->writes)
        if (is_param_buffer(func_, w.buffer))
          fail("block " + block_name_ + " is an output block: it writes function parameter " +
               w.buffer->name);
  }

  // Position in the loop's body: between the last producer and the first
  // consumer found there.
  int insertion_point() {
    producers_ = producers_of(scope_, realize_);
    consumers_ = consumers_of(scope_, realize_);
    const auto& needed = reverse_ ? producers_ : consumers_;
    if (needed.empty())
      fail("block " + block_name_ + " has no " + (reverse_ ? "producers" : "consumers"));
    std::vector<Stmt> subtrees = children_of(loop_->body);
    int n = static_cast<int>(subtrees.size());
    int last_producer = -1, first_consumer = n;
    size_t needed_seen = 0;
    for (int i = 0; i < n; ++i) {
      for (const BlockRealizeNode* r : collect_blocks(subtrees[i])) {
        if (contains(producers_, r)) last_producer = i;
        if (contains(consumers_, r)) first_consumer = std::min(first_consumer, i);
        if (contains(needed, r)) {
          ++needed_seen;
          under_loop_.push_back(r);
        }
      }
    }
    if (needed_seen < needed.size())
      fail("block " + block_name_ + " has " + (reverse_ ? "producers" : "consumers") +
           " outside loop " + loop_name_);
    if (last_producer >= first_consumer)
      fail("under loop " + loop_name_ + " a producer of block " + block_name_ +
           " comes after one of its consumers");
    if (index_ == -1) return first_consumer;
    if (index_ == -2) return last_producer + 1;
    if (index_ >= last_producer + 1 && index_ <= first_consumer) return index_;
    fail("index " + std::to_string(index_) + " is not a valid insertion point under loop " +
         loop_name_ + " (valid: " + std::to_string(last_producer + 1) + ".." +
         std::to_string(first_consumer) + ", -1, -2)");
  }

  // Binds the loop, its ancestors in the scope and the scope block's
  // iteration variables, which stay fixed during one iteration of the loop.
  void bind_fixed(Analyzer& an) const {
    if (auto* scope_block = scope_.as<BlockNode>())
      for (const IterVar& iv : scope_block->iter_vars) an.bind(iv.var, iv.dom);
    for (const ForNode* f : enclosing_loops(lpath_)) an.bind(f->loop_var, Range{f->min, f->extent});
    an.bind(loop_->loop_var, Range{loop_->min, loop_->extent});
  }

  // The region of each buffer the moved block shares with the blocks under
  // the loop, relaxed over the loops inside it.
  std::vector<BufferRange> required_region() {
    Analyzer an;
    bind_fixed(an);
    std::vector<BufferRange> out;
    const auto& own = reverse_ ? realize_->block->reads : realize_->block->writes;
    Stmt loop_stmt = lpath_.node();
    for (const BlockRealizeNode* other : under_loop_) {
      StmtPath path = *find_block(loop_stmt, other->block->name);
      arith::RelaxDomain dom;
      for (const ForNode* f : loops_inside(path)) dom[f->loop_var.get()] = Range{f->min, f->extent};
      if (reverse_) check_reduction_finishes(other, dom);
      VarMap binding;
      for (size_t k = 0; k < other->block->iter_vars.size(); ++k)
        binding[other->block->iter_vars[k].var.get()] = other->iter_values[k];
      const auto& theirs = reverse_ ? other->block->writes : other->block->reads;
      for (const BufferRegion& r : theirs) {
        if (!regions_touch(own, r.buffer)) continue;
        std::vector<SymInterval> dims;
        std::vector<std::optional<SymInterval>> flat(r.region.size());
        for (size_t d = 0; d + 1 < r.region.size(); ++d) {
          if (!is_const_int(r.region[d].extent, 1) || !is_const_int(r.region[d + 1].extent, 1))
            continue;
          Expr x = split_pair(r.buffer, substitute(r.region[d].min, binding),
                              substitute(r.region[d + 1].min, binding), d);
          if (!x) continue;
          if (auto xi = arith::relax_interval(x, dom, an)) flat[d] = SymInterval{xi->lo, xi->hi};
        }
        for (size_t d = 0; d < r.region.size(); ++d) {
          Expr lo_e = substitute(r.region[d].min, binding);
          Expr hi_e = substitute(
              r.region[d].min + r.region[d].extent - one_like(r.region[d].extent), binding);
          auto lo = arith::relax_interval(lo_e, dom, an);
          auto hi = arith::relax_interval(hi_e, dom, an);
          if (lo && hi) {
            dims.push_back({lo->lo, hi->hi});
          } else {
            Expr ext = r.buffer->shape[d];
            dims.push_back({make_const(ext.dtype(), 0), an.simplify(ext - one_like(ext))});
          }
        }
        unite(out, r.buffer, dims, flat, an);
      }
    }
    return out;
  }

  static void unite(std::vector<BufferRange>& acc, const Buffer& b,
                    const std::vector<SymInterval>& dims,
                    const std::vector<std::optional<SymInterval>>& flat, const Analyzer& an) {
    for (BufferRange& br : acc) {
      if (br.buffer != b) continue;
      for (size_t d = 0; d < dims.size(); ++d) {
        br.dims[d].lo = an.simplify(min(br.dims[d].lo, dims[d].lo));
        br.dims[d].hi = an.simplify(max(br.dims[d].hi, dims[d].hi));
        if (br.flat[d] && flat[d]) {
          br.flat[d]->lo = an.simplify(min(br.flat[d]->lo, flat[d]->lo));
          br.flat[d]->hi = an.simplify(max(br.flat[d]->hi, flat[d]->hi));
        } else {
          br.flat[d].reset();
        }
      }
      return;
    }
    acc.push_back({b, dims, flat});
  }

  // A producer whose reduce variables are bound to the loop (or loops above
  // it) has not finished its reduction at the end of one iteration.
  void check_reduction_finishes(const BlockRealizeNode* producer,
                                const arith::RelaxDomain& inside) const {
    const BlockNode& b = *producer->block;
    for (size_t k = 0; k < b.iter_vars.size(); ++k) {
      if (b.iter_vars[k].kind != IterKind::Reduce) continue;
      Analyzer probe;
      bind_fixed(probe);
      auto r = arith::relax_interval(producer->iter_values[k], inside, probe);
      if (!r || !probe.can_prove_equal(r->lo, b.iter_vars[k].dom.min) ||
          !probe.can_prove_equal(r->hi, b.iter_vars[k].dom.min + b.iter_vars[k].dom.extent -
                                            one_like(b.iter_vars[k].dom.extent)))
        fail("loop " + loop_name_ + " carries the reduction of producer " + b.name + ": block " +
             block_name_ + " would read partial results");
    }
  }

  // Domains of the moved block's iteration variables from the required
  // region of the buffers it accesses: dimension d of its access is
  // `v + offset`, so v ranges over the region shifted by -offset.
  std::vector<std::optional<SymInterval>> iter_domains(const std::vector<BufferRange>& required,
                                                       const Analyzer& an) const {
    const BlockNode& b = *realize_->block;
    std::vector<std::optional<SymInterval>> doms(b.iter_vars.size());
    const auto& own = reverse_ ? b.reads : b.writes;
    for (const BufferRegion& r : own) {
      const BufferRange* req = nullptr;
      for (const BufferRange& x : required)
        if (x.buffer == r.buffer) req = &x;
      if (!req) continue;
      for (size_t d = 0; d < r.region.size(); ++d) {
        if (!is_const_int(an.simplify(r.region[d].extent), 1))
          fail("block " + block_name_ + " accesses " + r.buffer->name +
               " with a region wider than one point in dimension " + std::to_string(d));
        // [v // E, v % E] where the blocks under the loop access that pair
        // too: v covers the flat range they need.
        if (d + 1 < r.region.size() && req->flat[d]) {
          Expr x = split_pair(r.buffer, r.region[d].min, r.region[d + 1].min, d);
          if (auto* v = x ? x.as<VarNode>() : nullptr) {
            for (size_t k = 0; k < b.iter_vars.size(); ++k) {
              if (b.iter_vars[k].var.get() != v) continue;
              const SymInterval s = *req->flat[d];
              if (doms[k]) {
                doms[k]->lo = an.simplify(min(doms[k]->lo, s.lo));
                doms[k]->hi = an.simplify(max(doms[k]->hi, s.hi));
              } else {
                doms[k] = s;
              }
            }
            ++d;
            continue;
          }
        }
        const Expr& m = r.region[d].min;
        std::vector<size_t> used;
        for (size_t k = 0; k < b.iter_vars.size(); ++k)
          if (uses_var(m, b.iter_vars[k].var.get())) used.push_back(k);
        if (used.empty()) continue;
        size_t k = used[0];
        Expr offset = an.simplify(m - Expr(b.iter_vars[k].var));
        bool plain = used.size() == 1;
        for (const IterVar& iv : b.iter_vars) plain = plain && !uses_var(offset, iv.var.get());
        if (!plain)
          fail("block " + block_name_ + " accesses " + r.buffer->name + " in dimension " +
               std::to_string(d) +
               " at an index that is not one iteration variable plus an offset");
        SymInterval s{an.simplify(req->dims[d].lo - offset), an.simplify(req->dims[d].hi - offset)};
        if (doms[k]) {
          doms[k]->lo = an.simplify(min(doms[k]->lo, s.lo));
          doms[k]->hi = an.simplify(max(doms[k]->hi, s.hi));
        } else {
          doms[k] = s;
        }
      }
    }
    return doms;
  }

  // The block realize with new bindings, wrapped in loops ax0, ax1, ...
  Stmt place_block(const std::vector<BufferRange>& required) const {
    Analyzer an;
    bind_fixed(an);
    const BlockNode& b = *realize_->block;
    auto doms = iter_domains(required, an);
    std::vector<Var> loop_vars;
    std::vector<Expr> extents, values;
    Expr predicate;
    auto add_pred = [&](const Expr& cond) {
      if (an.can_prove(cond)) return;
      predicate = predicate ? logical_and(predicate, cond) : cond;
    };
    for (size_t k = 0; k < b.iter_vars.size(); ++k) {
      const IterVar& iv = b.iter_vars[k];
      Expr dom_lo = iv.dom.min;
      Expr dom_hi = an.simplify(iv.dom.min + iv.dom.extent - one_like(iv.dom.extent));
      bool full = !doms[k] || iv.kind == IterKind::Reduce;
      if (doms[k] && iv.kind == IterKind::Reduce &&
          !(an.can_prove(doms[k]->lo <= dom_lo) && an.can_prove(doms[k]->hi >= dom_hi)))
        fail("block " + block_name_ +
             " would cover only part of the domain of its reduce variable " + iv.var->name);
      // A moved consumer must still produce all of its output: iterations
      // reading none of the producer's region (a padding border) would be lost.
      if (reverse_ && !full) {
        ConstIntBound lo_b = an.const_int_bound(doms[k]->lo);
        ConstIntBound hi_b = an.const_int_bound(doms[k]->hi);
        if (!(lo_b.min && hi_b.max &&
              an.can_prove(make_const(dom_lo.dtype(), *lo_b.min) <= dom_lo) &&
              an.can_prove(make_const(dom_hi.dtype(), *hi_b.max) >= dom_hi)))
          fail("block " + block_name_ + " would cover only part of the domain of " + iv.var->name +
               " under loop " + loop_name_);
      }
      Expr lo = full ? dom_lo : doms[k]->lo;
      Expr extent =
          full ? iv.dom.extent : an.simplify(doms[k]->hi - doms[k]->lo + one_like(doms[k]->lo));
      Expr value = lo;
      if (preserve_ || !is_const_int(extent, 1)) {
        Var ax = make_var("ax" + std::to_string(loop_vars.size()), iv.var->dtype);
        an.bind(ax, Range{make_const(ax->dtype, 0), extent});
        loop_vars.push_back(ax);
        extents.push_back(extent);
        value = lo + Expr(ax);
      }
      value = an.simplify(value);
      values.push_back(value);
      if (!full) {
        add_pred(an.simplify(value >= iv.dom.min));
        add_pred(an.simplify(value < an.simplify(iv.dom.min + iv.dom.extent)));
      }
    }
    Stmt s = make_block_realize(values, predicate ? predicate : make_bool(true), realize_->block);
    for (size_t i = loop_vars.size(); i-- > 0;)
      s = make_for(loop_vars[i], make_const(loop_vars[i]->dtype, 0), extents[i], ForKind::Serial,
                   s);
    return s;
  }

  bool reverse_;
  std::string prim_;
  PrimFunc func_;
  bool preserve_;
  int index_;
  StmtPath bpath_, lpath_;
  const BlockRealizeNode* realize_ = nullptr;
  const ForNode* loop_ = nullptr;
  std::string block_name_, loop_name_;
  Stmt scope_;
  std::vector<const BlockRealizeNode*> producers_, consumers_, under_loop_;
};

}  // namespace

namespace {

void compute_location(Schedule& sch, bool reverse, BlockRV block, LoopRV loop,
                      bool preserve_unit_loops, int index) {
  std::string prim = reverse ? "reverse_compute_at" : "compute_at";
  Schedule::BlockEntry b = sch.resolve(block, prim);
  Schedule::LoopEntry l = sch.resolve(loop, prim);
  if (b.func != l.func)
    throw ScheduleError(
        prim, "block " + b.name + " and loop " + l.var->name + " are in different functions");
  const PrimFunc& f = sch.func(b.func);
  ComputeAtPlanner planner(reverse, f, b.name, l.var, preserve_unit_loops, index);
  Stmt body = planner.run();
  // Under a parallel or thread-bound loop, the moved block must not make
  // iterations touch the same elements: update_func proves it.
  sch.update_func(b.func, with_body(f, body), prim);
  sch.record(Instruction{prim,
                         {},
                         {{"block", sch.trace_rv(block)},
                          {"loop", sch.trace_rv(loop)},
                          {"preserve_unit_loops", preserve_unit_loops},
                          {"index", index}},
                         {}});
}

}  // namespace

void Schedule::compute_at(BlockRV block, LoopRV loop, bool preserve_unit_loops, int index) {
  compute_location(*this, false, block, loop, preserve_unit_loops, index);
}

void Schedule::reverse_compute_at(BlockRV block, LoopRV loop, bool preserve_unit_loops, int index) {
  compute_location(*this, true, block, loop, preserve_unit_loops, index);
}

}  // namespace tirc
