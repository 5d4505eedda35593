#include "schedule/iteration_conflict.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "ir/arith/analyzer.h"
#include "ir/arith/expr_equal.h"
#include "ir/arith/int_math.h"
#include "ir/arith/linear_form.h"
#include "ir/functor.h"
#include "ir/substitute.h"
#include "schedule/analysis.h"

namespace tirc {

namespace {

// One access (or a box of them) in the loop variables: per dimension the
// first index and the number of consecutive indices.
struct Access {
  const VarNode* storage = nullptr;
  Buffer buffer;
  std::vector<Range> box;
  bool write = false;
  std::string block;  // the innermost block around it ("" when none)
};

// Decides whether two iterations v != v' of one loop can reach a common
// element through two accesses. The second access of a pair is read in the
// second iteration: its loop variable and every inner loop variable are
// replaced by twins with the same ranges, while enclosing variables (outer
// loops, parameters) are shared by both iterations.
class Separation {
 public:
  // v over `own`: the loop variable (or one digit of it, see Digits).
  Separation(const Var& v, const Range& own, const std::vector<std::pair<Var, Range>>& outer,
             const std::vector<std::pair<Var, Range>>& inner)
      : v_(v.get()), extent_(as_const_int(own.extent)) {
    for (const auto& [var, range] : outer) az_.bind(var, range);
    add_twin(v);
    for (const auto& [var, range] : inner) add_twin(var);
    az_.bind(v, own);
    az_.bind(twin_var(v_), own);
    for (const auto& [var, range] : inner) {
      az_.bind(var, range);
      az_.bind(twin_var(var.get()), Range{twin(range.min), twin(range.extent)});
    }
  }

  Expr twin(const Expr& e) const { return substitute(e, twin_); }

  // Whether no element of `w` in one iteration is an element of `a` in
  // another.
  bool apart(const Access& w, const Access& a) const {
    if (w.buffer == a.buffer || same_layout(w.buffer, a.buffer)) {
      for (size_t d = 0; d < w.box.size() && d < a.box.size(); ++d)
        if (dimension_apart(w.box[d], a.box[d])) return true;
      // Two dimensions indexed [x // E, x % E] (E the inner extent) are one
      // dimension indexed x: a flattened pixel p of an [.., H, W] buffer.
      const std::vector<Range> mw = merge_split_pairs(w), ma = merge_split_pairs(a);
      if (mw.size() == ma.size() && mw.size() < w.box.size())
        for (size_t d = 0; d < mw.size(); ++d)
          if (dimension_apart(mw[d], ma[d])) return true;
      if (rows_apart(w, a)) return true;
    }
    if (w.buffer->dtype != a.buffer->dtype) return false;
    std::optional<Range> fw = flat(w), fa = flat(a);
    return fw && fa && dimension_apart(*fw, *fa);
  }

  // The same for index tuples (a block's spatial iteration values) over
  // domains `doms`.
  bool apart(const std::vector<Expr>& values, const std::vector<Range>& doms) const {
    std::vector<Range> box;
    for (const Expr& e : values) box.push_back(Range{e, make_int(1, e.dtype())});
    for (size_t d = 0; d < box.size(); ++d)
      if (dimension_apart(box[d], box[d])) return true;
    std::optional<Range> f = flat_box(box, doms, {});
    return f && dimension_apart(*f, *f);
  }

 private:
  void add_twin(const Var& v) {
    Var t = make_var(v->name + "'", v->dtype);
    twins_[v.get()] = t;
    twin_[v.get()] = t;
  }
  const Var& twin_var(const VarNode* v) const { return twins_.at(v); }

  static bool same_layout(const Buffer& a, const Buffer& b) {
    auto same = [](const std::vector<Expr>& x, const std::vector<Expr>& y) {
      if (x.size() != y.size()) return false;
      for (size_t i = 0; i < x.size(); ++i)
        if (!arith::same_expr(x[i], y[i])) return false;
      return true;
    };
    const bool same_offset = !a->elem_offset || !b->elem_offset
                                 ? !a->elem_offset && !b->elem_offset
                                 : arith::same_expr(a->elem_offset, b->elem_offset);
    return same_offset && same(a->shape, b->shape) && same(a->strides, b->strides);
  }

  // The coefficient of the plain term `v` in f, removed from f; nullopt when
  // v also occurs inside another term (i * j, floordiv(i, 4)).
  static std::optional<int64_t> take_coefficient(arith::LinearForm& f, const VarNode* v) {
    int64_t coef = 0;
    std::vector<arith::LinearTerm> rest;
    for (const arith::LinearTerm& t : f.terms) {
      if (t.term.get() == static_cast<const ExprNode*>(v)) {
        coef = t.coef;
      } else {
        if (uses_var(t.term, v)) return std::nullopt;
        rest.push_back(t);
      }
    }
    f.terms = std::move(rest);
    return coef;
  }

  // [xw, xw + ew) in iteration v and [xa, xa + ea) in iteration v' != v
  // never meet: with xw = c*v + R, xa = c*v' + R', their distance is
  // c*(v - v') + (R - R'), which must stay outside [-(ew-1), ea-1] for every
  // |v - v'| >= 1.
  bool dimension_apart(const Range& w, const Range& a) const {
    Expr xw = az_.simplify(w.min), xa = az_.simplify(twin(a.min));
    arith::LinearForm fw = arith::decompose(xw), fa = arith::decompose(xa);
    std::optional<int64_t> cw = take_coefficient(fw, v_);
    std::optional<int64_t> ca = take_coefficient(fa, twin_var(v_).get());
    if (!cw || !ca || *cw != *ca) return false;
    fw.add(fa, -1);
    ConstIntBound ew = az_.const_int_bound(w.extent), ea = az_.const_int_bound(twin(a.extent));
    if (!ew.max || !ea.max) return false;
    const arith::i128 wmax = *ew.max, amax = *ea.max;
    const arith::i128 c = *cw < 0 ? -static_cast<arith::i128>(*cw) : static_cast<arith::i128>(*cw);
    if (c != 0 && wmax == 1 && amax == 1 && interleaved_apart(fw, c)) return true;
    if (c != 0 && wmax == 1 && amax == 1 && digits_apart(fw, c)) return true;
    ConstIntBound diff = az_.const_int_bound(az_.simplify(arith::emit(fw)));
    if (!diff.min || !diff.max) return false;
    const arith::i128 lo = *diff.min, hi = *diff.max;
    if (c == 0) return lo >= amax || hi <= -wmax;
    return lo >= amax - c && hi <= c - wmax;
  }

  // Single elements c*v + R and c*v' + R' where R - R' is sum of d*(x - x')
  // over inner loop variables x (each with its twin, nothing else): the
  // element is one linear function of v and the inner variables in both
  // iterations. Where its coefficients, sorted by size, each exceed the
  // reach of all smaller ones (sum of |d| * (x's span)), they are the digits
  // of a mixed-radix number: the function is injective, and v != v' gives
  // distinct elements whatever the inner variables are. A loop that is a
  // middle digit of fused and split loops is this (a tile copied by threads
  // z, y, x with a serial loop outside them in the index, inside in the nest).
  bool digits_apart(const arith::LinearForm& diff, arith::i128 c) const {
    if (!extent_ || diff.constant != 0) return false;
    std::vector<std::pair<arith::i128, arith::i128>> digits = {{c, *extent_ - 1}};
    std::unordered_map<const VarNode*, std::pair<Expr, int64_t>> own;
    std::unordered_map<const VarNode*, int64_t> twinned;
    for (const arith::LinearTerm& t : diff.terms) {
      auto* x = t.term.as<VarNode>();
      if (!x) return false;
      if (twins_.count(x)) {
        own.try_emplace(x, t.term, 0).first->second.second += t.coef;
      } else {
        twinned[x] += t.coef;
      }
    }
    for (const auto& [x, term] : own) {
      const auto& [var, coef] = term;
      auto it = twinned.find(twin_var(x).get());
      if (it == twinned.end() || it->second != -coef) return false;
      const ConstIntBound b = az_.const_int_bound(var);
      if (!b.min || !b.max) return false;
      digits.push_back({coef < 0 ? -arith::i128{coef} : arith::i128{coef}, *b.max - *b.min});
    }
    if (twinned.size() != own.size()) return false;
    std::sort(digits.begin(), digits.end());
    arith::i128 reach = 0;
    for (const auto& [coef, span] : digits) {
      if (span > 0 && coef <= reach) return false;
      reach += coef * span;
    }
    return true;
  }

  // Single elements c*v + R and c*v' + R' where every coefficient and the
  // constant of R - R' are multiples of g: the distance c*(v - v') + (R - R')
  // is zero only when c*(v - v') is a multiple of g, impossible when
  // 0 < |c*(v - v')| <= |c| * (extent - 1) < g. The loop is then the fine
  // index under a coarser one (jo * 16 + ji with ji the loop).
  bool interleaved_apart(const arith::LinearForm& diff, arith::i128 c) const {
    if (!extent_) return false;
    int64_t g = diff.constant;
    for (const arith::LinearTerm& t : diff.terms) g = arith::gcd64(g, t.coef);
    g = arith::gcd64(g, 0);  // |g|
    return g > c * (*extent_ - 1);
  }

  // x's box with each pair of single-element dimensions [y // E, y % E]
  // (split_pair) merged into one dimension indexed y.
  static std::vector<Range> merge_split_pairs(const Access& x) {
    std::vector<Range> out;
    const std::vector<Range>& box = x.box;
    for (size_t d = 0; d < box.size(); ++d) {
      if (d + 1 < box.size() && is_const_int(box[d].extent, 1) &&
          is_const_int(box[d + 1].extent, 1)) {
        if (Expr y = split_pair(x.buffer, box[d].min, box[d + 1].min, d)) {
          out.push_back(Range{y, box[d].extent});
          ++d;
          continue;
        }
      }
      out.push_back(box[d]);
    }
    return out;
  }

  // Single elements [r, b + c] in two adjacent dimensions of both accesses,
  // b the same sum of terms that no iteration changes (no variable of the
  // loop or inside it) and c the rest: one element in two iterations means
  // equal r and equal c, so equal r * E + c for any E; the accesses are apart
  // where that is. E is c's span, so that the digits a fused and split loop
  // left in r and c (f // 4 and f % 4 * 8 of a tile copied by the fused loop
  // of its rows and columns) simplify back to the loop: 8 * f.
  bool rows_apart(const Access& w, const Access& a) const {
    if (w.box.size() != a.box.size()) return false;
    for (size_t d = 0; d + 1 < w.box.size(); ++d) {
      bool single = true;
      for (const Access* x : {&w, &a})
        for (size_t k : {d, d + 1}) single = single && is_const_int(x->box[k].extent, 1);
      if (!single) continue;
      std::optional<std::pair<Expr, Expr>> cw = split_invariant(w.box[d + 1].min),
                                           ca = split_invariant(a.box[d + 1].min);
      if (!cw || !ca || !arith::same_expr(cw->first, ca->first)) continue;
      const ConstIntBound bw = az_.const_int_bound(cw->second),
                          ba = az_.const_int_bound(twin(ca->second));
      if (!bw.min || !bw.max || !ba.min || !ba.max) continue;
      const arith::i128 span =
          std::max<arith::i128>(*bw.max, *ba.max) - std::min<arith::i128>(*bw.min, *ba.min) + 1;
      if (span > (arith::i128{1} << 31)) continue;
      const DataType t = cw->second.dtype();
      const Expr e = make_int(static_cast<int64_t>(span), t);
      if (dimension_apart(Range{w.box[d].min * e + cw->second, make_int(1, t)},
                          Range{a.box[d].min * e + ca->second, make_int(1, t)}))
        return true;
    }
    return false;
  }

  // x as {the sum of its terms that no iteration changes, the rest}.
  std::optional<std::pair<Expr, Expr>> split_invariant(const Expr& x) const {
    const arith::LinearForm f = arith::decompose(az_.simplify(x));
    arith::LinearForm fixed(f.dtype), moving(f.dtype);
    fixed.add_constant(f.constant);
    for (const arith::LinearTerm& t : f.terms)
      (arith::same_expr(twin(t.term), t.term) ? fixed : moving).add_term(t.term, t.coef, t.kind);
    if (moving.is_constant()) return std::nullopt;
    return std::pair{arith::emit(fixed), arith::emit(moving)};
  }

  // The box as one range of row-major offsets (elem_offset + sum of
  // stride * index), when every index provably lies inside `shape` (so
  // distinct indices are distinct offsets). `strides` empty: compact.
  std::optional<Range> flat_box(const std::vector<Range>& box, const std::vector<Range>& shape,
                                const std::vector<Expr>& strides) const {
    if (box.size() != shape.size() || box.empty()) return std::nullopt;
    DataType t = box[0].min.dtype();
    Expr offset = make_int(0, t), span = make_int(0, t), stride = make_int(1, t);
    for (size_t d = box.size(); d-- > 0;) {
      const Range& r = box[d];
      const Range& s = shape[d];
      if (!az_.can_prove(r.min >= s.min) || !az_.can_prove(r.min + r.extent <= s.min + s.extent))
        return std::nullopt;
      Expr st = strides.empty() ? stride : strides[d];
      offset = offset + (r.min - s.min) * st;
      span = span + (r.extent - 1) * st;
      if (strides.empty()) stride = stride * s.extent;
    }
    return Range{az_.simplify(offset), az_.simplify(span + 1)};
  }

  std::optional<Range> flat(const Access& x) const {
    std::vector<Range> shape;
    for (const Expr& e : x.buffer->shape) shape.push_back(Range{make_int(0, e.dtype()), e});
    if (!x.buffer->strides.empty() && x.buffer->strides.size() != shape.size()) return std::nullopt;
    std::optional<Range> f = flat_box(x.box, shape, x.buffer->strides);
    if (f && x.buffer->elem_offset) f->min = az_.simplify(f->min + x.buffer->elem_offset);
    return f;
  }

  const VarNode* v_;
  std::optional<int64_t> extent_;
  std::unordered_map<const VarNode*, Var> twins_;
  VarMap twin_;
  Analyzer az_;
};

// Every access under a loop, in the loop variables, with the inner loops'
// ranges; storage allocated inside is private to an iteration and skipped.
class AccessCollector : public StmtVisitor {
 public:
  std::vector<Access> accesses;
  std::vector<std::pair<Var, Range>> inner;
  std::optional<std::string> opaque;  // an access that cannot be modelled
  std::string scope_block;            // the block around the loop

  void run(const Stmt& body) { visit(body); }

 protected:
  void visit_load(const BufferLoadNode* n) override {
    record(n->buffer, n->indices, false);
    for (const Expr& i : n->indices) visit(i);
  }
  void visit_store(const BufferStoreNode* n) override {
    record(n->buffer, n->indices, true);
    visit(n->value);
    for (const Expr& i : n->indices) visit(i);
  }
  void visit_var(const VarNode* v) override {
    // A handle in an expression (T.address_of, a kernel call, an intrinsic
    // taking a buffer's data) reaches storage without an index we can read.
    if (v->dtype.is_handle()) opaque_use(v->name);
  }
  void visit_call(const CallNode* n) override {
    if (n->op.find("address_of") != std::string::npos) {
      for (const Expr& a : n->args)
        if (auto* load = a.as<BufferLoadNode>()) opaque_use(load->buffer->name);
    }
    StmtVisitor::visit_call(n);
  }
  void visit_for(const ForNode* n) override {
    visit(n->min);
    visit(n->extent);
    inner.push_back({n->loop_var, Range{subst(n->min), subst(n->extent)}});
    visit(n->body);
  }
  void visit_let(const LetStmtNode* n) override {
    visit(n->value);
    subst_[n->var.get()] = subst(n->value);
    visit(n->body);
  }
  void visit_allocate(const AllocateNode* n) override {
    private_.insert(n->buffer_var.get());
    StmtVisitor::visit_allocate(n);
  }
  void visit_allocate_const(const AllocateConstNode* n) override {
    private_.insert(n->buffer_var.get());
    StmtVisitor::visit_allocate_const(n);
  }
  void visit_block_realize(const BlockRealizeNode* r) override {
    for (const Expr& v : r->iter_values) visit(v);
    visit(r->predicate);
    const BlockNode& b = *r->block;
    for (size_t i = 0; i < b.iter_vars.size() && i < r->iter_values.size(); ++i)
      subst_[b.iter_vars[i].var.get()] = subst(r->iter_values[i]);
    for (const Buffer& a : b.alloc_buffers) private_.insert(a->data.get());
    for (const MatchBufferRegion& m : b.match_buffers) {
      BufferRegion source{m.source.buffer, {}};
      for (const Range& x : m.source.region)
        source.region.push_back(Range{subst(x.min), subst(x.extent)});
      matched_[m.buffer->data.get()] = std::move(source);
    }
    blocks_.push_back(r);
    visit(b.init);
    visit(b.body);
    blocks_.pop_back();
  }

 private:
  Expr subst(const Expr& e) const { return subst_.empty() ? e : substitute(e, subst_); }

  std::string block_name() const {
    return blocks_.empty() ? scope_block : blocks_.back()->block->name;
  }

  void record(const Buffer& buffer, const std::vector<Expr>& indices, bool write) {
    if (private_.count(buffer->data.get())) return;
    Access a;
    a.write = write;
    a.block = block_name();
    if (auto it = matched_.find(buffer->data.get()); it != matched_.end()) {
      // An access through a match_buffer view lies inside the matched region.
      a.buffer = it->second.buffer;
      a.box = it->second.region;
    } else {
      a.buffer = buffer;
      for (const Expr& i : indices) {
        std::optional<Range> r = index_range(i);
        if (!r) {
          opaque_use(buffer->name);
          return;
        }
        a.box.push_back(*r);
      }
    }
    if (private_.count(a.buffer->data.get())) return;
    a.storage = a.buffer->data.get();
    accesses.push_back(std::move(a));
  }

  // One index (scalar, or a vector of lanes) as a range of indices.
  std::optional<Range> index_range(const Expr& i) const {
    if (auto* b = i.as<BroadcastNode>())
      return Range{subst(b->value), make_int(1, b->value.dtype())};
    if (auto* ramp = i.as<RampNode>()) {
      auto stride = as_const_int(ramp->stride);
      if (!stride) return std::nullopt;
      int64_t reach = *stride * (ramp->lanes - 1);
      Expr base = subst(ramp->base);
      DataType t = base.dtype();
      if (reach >= 0) return Range{base, make_int(reach + 1, t)};
      return Range{base + make_int(reach, t), make_int(1 - reach, t)};
    }
    if (i.dtype().is_vector()) return std::nullopt;
    return Range{subst(i), make_int(1, i.dtype())};
  }

  // Storage reached opaquely inside a block counts as the block's declared
  // regions; outside any block under the loop it cannot be analysed.
  void opaque_use(const std::string& what) {
    if (blocks_.empty()) {
      if (!opaque) opaque = "the storage of " + what + " is used through a handle";
      return;
    }
    const BlockRealizeNode* r = blocks_.back();
    if (!declared_.insert(r).second) return;
    for (int write = 0; write < 2; ++write)
      for (const BufferRegion& region : write ? r->block->writes : r->block->reads) {
        if (private_.count(region.buffer->data.get())) continue;
        Access a;
        a.storage = region.buffer->data.get();
        a.buffer = region.buffer;
        a.write = write;
        a.block = r->block->name;
        for (const Range& x : region.region) a.box.push_back(Range{subst(x.min), subst(x.extent)});
        accesses.push_back(std::move(a));
      }
  }

  VarMap subst_;
  std::unordered_set<const VarNode*> private_;
  std::unordered_map<const VarNode*, BufferRegion> matched_;
  std::vector<const BlockRealizeNode*> blocks_;
  std::unordered_set<const BlockRealizeNode*> declared_;
};

// A fused loop variable v seen through floordiv(v, E) / floormod(v, E) as the
// digits of a mixed-radix number (most significant first): v = sum of digit *
// weight, and distinct v means some digit differs while the digits above it
// agree. Proving each digit apart in turn (the ones above shared, the ones
// below free) proves v apart even when the fused order does not match the
// buffer's layout (j0 * I0 + i0 fused over C[i0 * .., j0 * ..]).
struct Digits {
  std::vector<std::pair<Var, Range>> digits;  // most significant first
  VarMap value;                               // v -> its digits
};

void collect_divisors(const Expr& e, const VarNode* v, std::vector<int64_t>& out) {
  struct Visit : ExprVisitor {
    const VarNode* v;
    std::vector<int64_t>* out;
    void visit_binary(const BinaryNode* n) override {
      if ((n->kind == ExprKind::FloorDiv || n->kind == ExprKind::FloorMod) &&
          n->a.get() == static_cast<const ExprNode*>(v))
        if (auto k = as_const_int(n->b); k && *k > 1) out->push_back(*k);
      ExprVisitor::visit_binary(n);
    }
  } visit;
  visit.v = v;
  visit.out = &out;
  visit.visit(e);
}

std::optional<Digits> digits_of(const ForNode* loop, const std::vector<Access>& accesses) {
  const VarNode* v = loop->loop_var.get();
  auto extent = as_const_int(loop->extent);
  if (!extent || !is_const_int(loop->min, 0)) return std::nullopt;
  std::vector<int64_t> divisors;
  for (const Access& a : accesses)
    for (const Range& r : a.box) collect_divisors(r.min, v, divisors);
  if (divisors.empty()) return std::nullopt;
  std::sort(divisors.begin(), divisors.end());
  divisors.erase(std::unique(divisors.begin(), divisors.end()), divisors.end());
  for (size_t i = 1; i < divisors.size(); ++i)
    if (divisors[i] % divisors[i - 1]) return std::nullopt;
  Digits d;
  DataType t = loop->loop_var->dtype;
  Expr value = make_int(0, t);
  int64_t weight = 1;
  // From the least significant digit up: v % E1, (v // E1) % (E2 / E1), ..., v // Ek.
  for (size_t i = 0; i <= divisors.size(); ++i) {
    int64_t radix = i < divisors.size() ? divisors[i] / weight : (*extent + weight - 1) / weight;
    Var digit = make_var(loop->loop_var->name + "_d" + std::to_string(i), t);
    d.digits.insert(d.digits.begin(), {digit, Range{make_int(0, t), make_int(radix, t)}});
    value = value + digit * make_int(weight, t);
    if (i < divisors.size()) weight = divisors[i];
  }
  d.value[v] = value;
  return d;
}

// Whether the access's indices ignore the loop variable entirely.
bool ignores(const Access& a, const VarNode* v) {
  for (const Range& r : a.box)
    if (uses_var(r.min, v) || uses_var(r.extent, v)) return false;
  return true;
}

std::string in_block(const std::string& block) {
  return block.empty() ? "" : " (block " + block + ")";
}

}  // namespace

std::optional<std::string> iteration_conflict(const StmtPath& path, const std::string& thread_tag) {
  const ForNode* loop = path.node().as<ForNode>();
  if (!loop) return std::nullopt;
  const std::string& tag = thread_tag.empty() ? loop->thread_tag : thread_tag;
  const bool per_gpu_block = tag.rfind("blockIdx.", 0) == 0;
  const std::string& name = loop->loop_var->name;
  std::vector<std::pair<Var, Range>> outer;
  for (const ForNode* f : enclosing_loops(path))
    outer.push_back({f->loop_var, {f->min, f->extent}});
  for (size_t i = 0; i + 1 < path.stmts.size(); ++i)
    if (auto* b = path.stmts[i].as<BlockNode>())
      for (const IterVar& iv : b->iter_vars) outer.push_back({iv.var, iv.dom});

  AccessCollector collect;
  if (const BlockRealizeNode* r = enclosing_block(path)) collect.scope_block = r->block->name;
  collect.run(loop->body);
  if (collect.opaque)
    return "cannot prove the iterations of loop " + name + " are independent: " + *collect.opaque;

  // One separation per digit of a fused loop, else one for the loop itself.
  if (per_gpu_block)
    std::erase_if(collect.accesses, [](const Access& a) { return a.buffer->scope == "shared"; });
  std::vector<Access> all = collect.accesses;
  std::vector<Separation> levels;
  if (std::optional<Digits> digits = digits_of(loop, all)) {
    for (Access& a : all)
      for (Range& r : a.box)
        r = Range{substitute(r.min, digits->value), substitute(r.extent, digits->value)};
    const auto& ds = digits->digits;
    for (size_t t = 0; t < ds.size(); ++t) {
      std::vector<std::pair<Var, Range>> above = outer, below = collect.inner;
      above.insert(above.end(), ds.begin(), ds.begin() + static_cast<std::ptrdiff_t>(t));
      below.insert(below.end(), ds.begin() + static_cast<std::ptrdiff_t>(t) + 1, ds.end());
      levels.emplace_back(ds[t].first, ds[t].second, above, below);
    }
  } else {
    levels.emplace_back(loop->loop_var, Range{loop->min, loop->extent}, outer, collect.inner);
  }
  auto apart = [&](const Access& w, const Access& a) {
    for (const Separation& sep : levels)
      if (!sep.apart(w, a)) return false;
    return true;
  };
  for (size_t i = 0; i < all.size(); ++i) {
    const Access& w = all[i];
    if (!w.write) continue;
    for (size_t j = 0; j < all.size(); ++j) {
      const Access& a = all[j];
      // Two writes are one unordered pair; a write with itself is checked too.
      if (a.storage != w.storage || (a.write && j < i)) continue;
      if (apart(w, a)) continue;
      const std::string& buf = w.buffer->name;
      if (a.write) {
        if (i == j && ignores(collect.accesses[i], loop->loop_var.get()))
          return "block " + w.block + " writes " + buf +
                 " at the same place in every iteration of loop " + name;
        return "cannot prove the iterations of loop " + name + " write distinct elements of " +
               buf + in_block(w.block);
      }
      return "cannot prove that no iteration of loop " + name + " reads an element of " + buf +
             " that another iteration writes" + in_block(w.block) +
             (a.block != w.block ? ", read in block " + a.block : "");
    }
  }
  return std::nullopt;
}

namespace {

bool runs_concurrently(ForKind kind) {
  return kind == ForKind::Parallel || kind == ForKind::Vectorized || kind == ForKind::ThreadBinding;
}

// The variables of the loops of s that run their iterations concurrently.
std::vector<const VarNode*> concurrent_loops(const Stmt& s) {
  struct Collect : StmtVisitor {
    std::vector<const VarNode*> vars;
    void visit_for(const ForNode* n) override {
      if (runs_concurrently(n->for_kind)) vars.push_back(n->loop_var.get());
      StmtVisitor::visit_for(n);
    }
  } c;
  c.visit(s);
  return c.vars;
}

}  // namespace

std::optional<std::string> concurrent_loop_conflict(const Stmt& before, const Stmt& after) {
  for (const VarNode* v : concurrent_loops(after)) {
    StmtPath path = *find_loop(after, v);
    std::optional<std::string> why = iteration_conflict(path);
    if (!why) continue;
    // Already unproved before the primitive: not this primitive's doing.
    if (std::optional<StmtPath> old = find_loop(before, v);
        old && runs_concurrently(old->node().as<ForNode>()->for_kind) && iteration_conflict(*old))
      continue;
    const ForNode* loop = path.node().as<ForNode>();
    return std::string(kind_in_prose(loop->for_kind)) + " loop " + v->name + " would race: " + *why;
  }
  return std::nullopt;
}

bool feeds_injectively(const BlockRealizeNode* r, const std::vector<const ForNode*>& loops,
                       size_t index) {
  const ForNode* loop = loops[index];
  std::vector<Expr> spatial;
  std::vector<Range> doms;
  bool fed = false;
  for (size_t i = 0; i < r->iter_values.size() && i < r->block->iter_vars.size(); ++i) {
    const IterVar& iv = r->block->iter_vars[i];
    if (iv.kind != IterKind::DataPar) continue;
    spatial.push_back(r->iter_values[i]);
    doms.push_back(iv.dom);
    fed |= uses_var(r->iter_values[i], loop->loop_var.get());
  }
  if (!fed) return false;
  std::vector<std::pair<Var, Range>> outer, inner;
  for (size_t i = 0; i < loops.size(); ++i)
    if (i != index)
      (i < index ? outer : inner)
          .push_back({loops[i]->loop_var, {loops[i]->min, loops[i]->extent}});
  return Separation(loop->loop_var, Range{loop->min, loop->extent}, outer, inner)
      .apart(spatial, doms);
}

}  // namespace tirc
