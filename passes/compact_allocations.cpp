// compact-allocations: an allocation that only one loop uses, and that each
// iteration of that loop fills before reading, becomes a smaller allocation
// inside the loop holding one iteration's part (or one as large, when the
// loop is inside a thread-bound loop: the CUDA generator needs a block's
// shared tiles and accumulators inside its kernel).
//
// Why: a producer or epilogue computed per outer iteration (compute_at,
// reverse_compute_at: a conv's pad, its bias+clip) still writes a whole-size
// intermediate. Every iteration touches a few kilobytes of it, spread over
// the whole buffer (megabytes for a conv layer's output), which leave the
// caches as they are written; one iteration's part, reused, stays in L1.
//
// The rule, on the flat form (after partition-loops, whose main parts have no
// guards). Take an Allocate A and every load and store of a buffer over its
// storage; A's variable must appear nowhere else (no address taken, no kernel
// call). Take each statement under A that touches it (one loop nest, or the
// main part and tails partition-loops made of one) and in it a Serial or
// Parallel loop L that encloses all of its accesses, tried from the deepest
// such loop outwards; every statement must have one, or nothing changes.
// Each access index must read, after simplify, as
//   base + constant + sum of coef * v
// with the base (terms in variables defined outside L's body, or in digits
// of them such as z // 16, reading no memory) the same for all accesses and
// each v a loop variable inside L with constant bounds.
//
// One iteration of L must write every location it reads before reading it
// ("fill first", checked bottom-up): a statement that only writes fills what
// its stores write, provided they always run (no if above them between L and
// the store, loops of constant non-empty range); a loop fills what its body
// does in each iteration; in a sequence, the leading statements that only
// write (or else a run of statements that each fill what they read, such as
// the parts partition-loops made of one column loop, or else the first one,
// recursively: an init and its update under a column loop) fill a box, and
// every later access in the sequence must stay inside that box. A box is the set
//   { base + sum_k t_k * c_k : 0 <= t_k < n_k }
// whose strides c_k are the distinct coefficients of the writers' terms:
// each writer covers an interval of digits per group, and the writers
// together (a pad's border and interior stores) must cover every point
// exactly once. An access stays inside when each of its terms joins the
// group whose stride divides its coefficient, its constant splits into group
// digits, and each group's digit range stays in [0, n_k). Then every read of
// an iteration reads a value its own iteration wrote, nothing outside L sees
// the storage, and the map  base + sum t_k c_k  ->  sum t_k m_k  (m_k = n_1
// ... n_{k-1}) is one to one on the box: the storage becomes an Allocate of
// prod n_k elements at the top of L's body, private to each iteration, which
// also makes it private to each thread of a parallel loop. Since no statement
// reads what another wrote, each L gets storage of its own (the first keeps
// A's variable).
//
// A warp matrix operation's tile read from the storage (mma_sync's a and b,
// mma_store's source: T.address_of(buf[off]) with a constant row stride ld,
// ir/intrinsic.h) is an access of its whole footprint, off + r * ld + c for
// r, c < 16: it must stay inside the box, its rows contiguous there, and it
// becomes T.address_of of the compact element with ld the compact row
// stride (a GPU block's A and B tiles in shared memory, read by tensor
// cores). Any other address of an element, a tile written, keeps the
// allocation where it is. In shared memory, rows read as such tiles are
// spaced to an odd multiple of 16 bytes (Box::pad_rows: 64-byte rows of 32
// float16 become 80), so that a tile's rows fall into different banks.
//
// Anything else (a guarded writer, a read-modify-write reduction whose init
// was not hoisted, writers that leave a hole, indices that are not affine)
// keeps its allocation where it was. No change is always correct.
#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "ir/arith/expr_equal.h"
#include "ir/arith/int_math.h"
#include "ir/arith/linear_form.h"
#include "ir/function.h"
#include "ir/functor.h"
#include "ir/intrinsic.h"
#include "ir/var_use.h"
#include "passes/pass_util.h"
#include "passes/passes.h"

namespace tirc {

namespace {

// At most this many bytes move into loops, per function: one iteration's
// part is meant to stay in a core's own caches, and code generators keep
// such storage on the stack only within a budget (the x86 one: 256 KiB
// outside parallel loops), beyond which each iteration would allocate.
constexpr int64_t kMaxCompactBytes = 192 << 10;

struct Access {
  const void* node;  // the BufferLoadNode or BufferStoreNode
  Expr index;
  bool is_store;
  bool guarded;                       // under an IfThenElse below the walk's root
  std::vector<const ForNode*> loops;  // enclosing loops below the walk's root, outermost first
  int64_t ld = 0;                     // a warp matrix tile's row stride (0: one element)

  // The (coefficient, extent) terms past the first element it also touches.
  std::vector<std::pair<int64_t, int64_t>> footprint() const {
    if (ld == 0) return {};
    return {{ld, kMmaTile}, {1, kMmaTile}};
  }
};

// Every access to one storage variable below a statement, with the loops around it.
class AccessCollector : public StmtVisitor {
 public:
  explicit AccessCollector(const VarNode* data) : data_(data) {}

  std::vector<Access> accesses;
  bool other_use = false;  // the variable itself appears (address taken, call argument, ...)
  bool vector_access = false;
  std::unordered_set<const VarNode*> defined;  // loop and let variables defined below the root

 protected:
  void visit_var(const VarNode* v) override {
    if (v == data_) other_use = true;
  }
  void visit_load(const BufferLoadNode* n) override {
    if (n->buffer && n->buffer->data.get() == data_) record(n, n->indices, false, n->dtype);
    StmtVisitor::visit_load(n);
  }
  void visit_store(const BufferStoreNode* n) override {
    if (n->buffer && n->buffer->data.get() == data_) record(n, n->indices, true, n->value.dtype());
    StmtVisitor::visit_store(n);
  }
  void visit_call(const CallNode* n) override {
    if (n->op == kAddressOf && !n->args.empty())
      if (auto* at = n->args[0].as<BufferLoadNode>(); at && at->buffer->data.get() == data_) {
        other_use = true;  // an address this walk does not follow
        return;
      }
    const Intrinsic* in = find_warp_matrix(*n);
    if (!in) return StmtVisitor::visit_call(n);
    for (size_t i = 0; i < n->args.size(); ++i) {
      const BufferLoadNode* at = address_of_element(n->args[i]);
      if (!at || at->buffer->data.get() != data_) {
        visit(n->args[i]);
        continue;
      }
      // A tile read at a constant row stride; a tile written is another use.
      const bool read = i > 0 && i % 2 == 0 && i / 2 < warp_matrix_tiles(in->id);
      const std::optional<int64_t> ld = read ? as_const_int(n->args[i + 1]) : std::nullopt;
      if (!ld || *ld < kMmaTile) {
        other_use = true;
        continue;
      }
      record(at, at->indices, false, at->dtype);
      if (!accesses.empty() && accesses.back().node == at) accesses.back().ld = *ld;
      for (const Expr& e : at->indices) visit(e);
    }
  }
  void visit_for(const ForNode* n) override {
    defined.insert(n->loop_var.get());
    loops_.push_back(n);
    StmtVisitor::visit_for(n);
    loops_.pop_back();
  }
  void visit_let(const LetStmtNode* n) override {
    defined.insert(n->var.get());
    StmtVisitor::visit_let(n);
  }
  void visit_if(const IfThenElseNode* n) override {
    ++ifs_;
    StmtVisitor::visit_if(n);
    --ifs_;
  }

 private:
  void record(const void* node, const std::vector<Expr>& indices, bool store, DataType t) {
    if (indices.size() != 1 || t.lanes() != 1 || indices[0].dtype().lanes() != 1) {
      vector_access = true;
      return;
    }
    accesses.push_back({node, indices[0], store, ifs_ > 0, loops_});
  }

  const VarNode* data_;
  std::vector<const ForNode*> loops_;
  int ifs_ = 0;
};

// Statements under an allocation's wrappers (nested Allocates, lets), in order.
std::vector<Stmt> statements_under(Stmt body) {
  for (;;) {
    if (auto* let = body.as<LetStmtNode>())
      body = let->body;
    else if (auto* a = body.as<AllocateNode>())
      body = a->body;
    else
      break;
  }
  if (auto* seq = body.as<SeqStmtNode>()) return seq->seq;
  return {body};
}

struct Group {
  int64_t stride;      // c_k
  int64_t count;       // n_k
  int64_t weight = 0;  // m_k: the group's stride in the compact storage
};

struct LoopRange {
  int64_t min, extent;
};

// The terms of an index that use no loop inside the statement (a variable
// defined outside it, or a digit of one: blockIdx.z // 16 of fused grid
// loops), compared as a sum: the same terms with the same coefficients, in
// any order.
struct InvariantTerms {
  std::vector<std::pair<Expr, int64_t>> terms;

  void add(const Expr& term, int64_t coef) {
    for (auto& [t, c] : terms)
      if (arith::same_expr(t, term)) {
        c += coef;
        return;
      }
    terms.emplace_back(term, coef);
  }
  void drop_zeros() {
    std::erase_if(terms, [](const auto& tc) { return tc.second == 0; });
  }
  bool operator==(const InvariantTerms& o) const {
    if (terms.size() != o.terms.size()) return false;
    for (const auto& [t, c] : terms) {
      bool found = false;
      for (const auto& [u, d] : o.terms) found |= c == d && arith::same_expr(t, u);
      if (!found) return false;
    }
    return true;
  }
};

// An index as base + constant + sum coef * (inner loop variable).
struct SplitIndex {
  InvariantTerms base;                          // terms in no loop inside the statement
  int64_t constant = 0;                         // with every inner loop's min folded in
  std::vector<std::pair<Expr, int64_t>> inner;  // each term a loop variable
};

// The locations a set of stores writes in one execution of a statement, as
// mixed-radix digits over a common base: every distinct coefficient of their
// terms is a group, a store covers an interval of digits in each group, and
// the stores together must cover the whole box exactly once.
class Box {
 public:
  Box(const std::unordered_set<const VarNode*>& inner,
      const std::unordered_map<const VarNode*, LoopRange>& ranges)
      : inner_(inner), ranges_(ranges) {}

  bool build(const std::vector<const Access*>& writers) {
    if (writers.empty()) return false;
    std::vector<SplitIndex> parts;
    std::set<int64_t> strides;
    for (const Access* w : writers) {
      auto s = split(w->index);
      if (!s || (!parts.empty() && s->base != parts[0].base)) return false;
      for (const auto& [v, coef] : s->inner)
        if (range(v).extent > 1) strides.insert(coef);
      parts.push_back(std::move(*s));
    }
    index_type_ = writers[0]->index.dtype();
    base_ = parts[0].base;
    for (int64_t c : strides) groups_.push_back({c, 1});
    const size_t k = groups_.size();
    // Each writer's digit interval per group, relative to the lowest first element.
    int64_t origin = parts[0].constant;
    for (const SplitIndex& s : parts) origin = std::min(origin, s.constant);
    std::vector<std::vector<std::pair<int64_t, int64_t>>> spans;
    for (const SplitIndex& s : parts) {
      auto digits = digits_of(s.constant - origin);
      if (!digits) return false;
      std::vector<std::pair<int64_t, int64_t>> span(k);
      std::vector<bool> taken(k, false);
      for (size_t g = 0; g < k; ++g) span[g] = {(*digits)[g], (*digits)[g]};
      for (const auto& [v, coef] : s.inner) {
        const int64_t ext = range(v).extent;
        if (ext == 1) continue;
        size_t g = 0;
        while (groups_[g].stride != coef) ++g;
        if (taken[g]) return false;  // two loops on one digit: not a dense box
        taken[g] = true;
        span[g].second += ext - 1;
      }
      spans.push_back(std::move(span));
    }
    base_constant_ = origin;
    int64_t volume = 1;
    for (size_t g = 0; g < k; ++g) {
      int64_t lo = spans[0][g].first, hi = spans[0][g].second;
      for (const auto& span : spans) {
        lo = std::min(lo, span[g].first);
        hi = std::max(hi, span[g].second);
      }
      groups_[g].count = hi - lo + 1;
      base_constant_ += lo * groups_[g].stride;
      volume *= groups_[g].count;
      if (g > 0 && groups_[g].stride < groups_[g - 1].stride * groups_[g - 1].count) return false;
    }
    // Exactly once: the writers' pieces are disjoint and add up to the box.
    int64_t covered = 0;
    for (size_t i = 0; i < spans.size(); ++i) {
      int64_t n = 1;
      for (size_t g = 0; g < k; ++g) n *= spans[i][g].second - spans[i][g].first + 1;
      covered += n;
      for (size_t j = 0; j < i; ++j) {
        bool apart = false;
        for (size_t g = 0; g < k && !apart; ++g)
          apart = spans[i][g].second < spans[j][g].first || spans[j][g].second < spans[i][g].first;
        if (!apart) return false;
      }
    }
    if (covered != volume) return false;
    // Groups that continue each other (two loops of one split dimension) read as one.
    std::vector<Group> merged;
    for (const Group& g : groups_) {
      if (!merged.empty() && g.stride == merged.back().stride * merged.back().count)
        merged.back().count *= g.count;
      else
        merged.push_back(g);
    }
    groups_ = merged;
    int64_t weight = 1;
    for (Group& g : groups_) {
      g.weight = weight;
      weight *= g.count;
    }
    return true;
  }

  // The elements the compact storage spans (the product of the counts,
  // unless pad_rows spaced the rows).
  int64_t size() const {
    return groups_.empty() ? 1 : groups_.back().weight * groups_.back().count;
  }

  // Rows (row_stride apart in the original storage) of elem_bytes elements
  // spaced to an odd multiple of 16 bytes where they are an even one.
  // Tensor cores load a tile from shared memory 16 bytes of each of 8 rows
  // at a time; with rows of 64 or 128 bytes those fall into the same 4 of
  // the 32 banks, 4 or 8 ways serialized, and with an odd multiple of 16
  // into 8 different ones. A box whose rows follow each other (one group of
  // both) is first split into its rows. The map stays one to one: only the
  // gaps between rows grow.
  void pad_rows(int64_t elem_bytes, int64_t row_stride) {
    if (groups_.empty() || groups_[0].stride != 1 || 16 % elem_bytes != 0) return;
    if (groups_.size() == 1 || groups_[1].stride != row_stride) {
      // Whole rows in the first group: split it at the row.
      const Group first = groups_[0];
      if (row_stride >= first.count || first.count % row_stride != 0) return;
      groups_[0].count = row_stride;
      groups_.insert(groups_.begin() + 1, Group{row_stride, first.count / row_stride});
    }
    const int64_t row_bytes = groups_[0].count * elem_bytes;
    const bool pad = row_bytes % 16 == 0 && (row_bytes / 16) % 2 == 0;
    groups_[1].weight = groups_[0].count + (pad ? 16 / elem_bytes : 0);
    for (size_t g = 2; g < groups_.size(); ++g)
      groups_[g].weight = groups_[g - 1].weight * groups_[g - 1].count;
  }

  // A term's coefficient in the compact storage (index() maps each so), or
  // nullopt where no group takes it.
  std::optional<int64_t> stride(int64_t coef) const {
    const std::optional<size_t> g = group_of(coef);
    if (!g) return std::nullopt;
    return coef / groups_[*g].stride * groups_[*g].weight;
  }

  // The index into the compact storage, or nullopt when the access (with
  // its footprint's terms, Access::footprint) may leave the box.
  std::optional<Expr> index(const Expr& index,
                            const std::vector<std::pair<int64_t, int64_t>>& footprint = {}) const {
    auto s = split(index);
    if (!s || s->base != base_) return std::nullopt;
    auto digit = digits_of(s->constant - base_constant_);
    if (!digit) return std::nullopt;
    const size_t k = groups_.size();
    std::vector<int64_t> high(k, 0);
    arith::LinearForm out(index_type_);
    for (const auto& [v, coef] : s->inner) {
      const LoopRange r = range(v);
      if (r.extent == 1) continue;  // its single value is already in the constant
      size_t g = k;
      for (size_t j = k; j-- > 0;)
        if (coef >= groups_[j].stride) {
          g = j;
          break;
        }
      if (g == k || coef % groups_[g].stride) return std::nullopt;
      const int64_t scaled = coef / groups_[g].stride;
      high[g] += scaled * (r.extent - 1);
      // v - min counts from zero; the min went into the constant.
      out.add_term(v, scaled * groups_[g].weight);
      out.add_constant(-scaled * groups_[g].weight * r.min);
    }
    for (const auto& [coef, extent] : footprint) {
      const std::optional<size_t> g = group_of(coef);
      if (!g) return std::nullopt;
      high[*g] += coef / groups_[*g].stride * (extent - 1);
    }
    for (size_t g = 0; g < k; ++g) {
      if ((*digit)[g] < 0 || (*digit)[g] + high[g] >= groups_[g].count) return std::nullopt;
      out.add_constant((*digit)[g] * groups_[g].weight);
    }
    return arith::emit(out);
  }

 private:
  // Only for terms split() took, which all have one.
  LoopRange range(const Expr& v) const { return term_range(v).value_or(LoopRange{0, 1}); }

  // A term's values: an inner loop variable's range, or for a digit of one
  // (v // c, v % c of a loop v from 0 over a multiple of c: what fusing and
  // splitting loops leaves) the digit's; nullopt for any other term.
  std::optional<LoopRange> term_range(const Expr& term) const {
    if (auto* v = term.as<VarNode>()) {
      auto it = ranges_.find(v);
      if (it == ranges_.end()) return std::nullopt;
      return it->second;
    }
    auto* f = term.as<BinaryNode>();
    if (!f || (f->kind != ExprKind::FloorDiv && f->kind != ExprKind::FloorMod)) return std::nullopt;
    auto* v = f->a.as<VarNode>();
    const std::optional<int64_t> c = as_const_int(f->b);
    if (!v || !c || *c <= 0 || !inner_.count(v)) return std::nullopt;
    auto it = ranges_.find(v);
    if (it == ranges_.end() || it->second.min != 0 || it->second.extent % *c != 0)
      return std::nullopt;
    return LoopRange{0, f->kind == ExprKind::FloorDiv ? it->second.extent / *c : *c};
  }

  // The group whose stride is the largest at most coef, when it divides coef.
  std::optional<size_t> group_of(int64_t coef) const {
    for (size_t j = groups_.size(); j-- > 0;)
      if (coef >= groups_[j].stride)
        return coef % groups_[j].stride == 0 ? std::optional<size_t>(j) : std::nullopt;
    return std::nullopt;
  }

  std::optional<SplitIndex> split(const Expr& index) const {
    arith::LinearForm form = arith::decompose(index);
    SplitIndex s;
    s.constant = form.constant;
    for (const arith::LinearTerm& t : form.terms) {
      // A load's value may change between iterations: not invariant.
      if (!has_load(t.term) &&
          !uses_any(t.term, [&](const VarNode* v) { return inner_.count(v) > 0; })) {
        s.base.add(t.term, t.coef);
        continue;
      }
      const std::optional<LoopRange> r = term_range(t.term);
      if (!r || t.coef <= 0) return std::nullopt;
      s.constant += t.coef * r->min;
      s.inner.emplace_back(t.term, t.coef);
    }
    s.base.drop_zeros();
    if (!digits_independent(s)) return std::nullopt;
    return s;
  }

  // The box takes every inner term as a loop of its own, ranging freely: a
  // loop v and its digits v // c, v % c (or digits by two divisors) together
  // in one index range over less than their product. A loop is then either
  // a term itself or only digits of one divisor.
  static bool digits_independent(const SplitIndex& s) {
    std::unordered_map<const VarNode*, int64_t> divisor;  // 0: the loop itself
    for (const auto& [term, coef] : s.inner) {
      const VarNode* v = term.as<VarNode>();
      int64_t c = 0;
      if (!v) {
        auto* f = term.as<BinaryNode>();
        v = f->a.as<VarNode>();
        c = *as_const_int(f->b);
      }
      auto [it, first] = divisor.try_emplace(v, c);
      if (!first && (it->second != c || c == 0)) return false;
    }
    return true;
  }

  // An offset from the box's origin as one digit per group (the mixed-radix
  // digits of a point of the box; loop minimums are already folded into the
  // offset, so an access's first element is such a point), or nullopt when
  // it is not one.
  std::optional<std::vector<int64_t>> digits_of(int64_t offset) const {
    std::vector<int64_t> digit(groups_.size(), 0);
    for (size_t g = groups_.size(); g-- > 0;) {
      const int64_t c = groups_[g].stride;
      digit[g] = static_cast<int64_t>(arith::floor_div(offset, c));
      offset -= digit[g] * c;
    }
    if (offset != 0) return std::nullopt;
    return digit;
  }

  const std::unordered_set<const VarNode*>& inner_;
  const std::unordered_map<const VarNode*, LoopRange>& ranges_;
  InvariantTerms base_;
  int64_t base_constant_ = 0;
  DataType index_type_ = DataType::int32();
  std::vector<Group> groups_;
};

// The rule at one loop L (see the file comment).
class Compactor {
 public:
  Compactor(const AllocateNode& alloc, const ForNode& loop)
      : alloc_(alloc), loop_(loop), all_(alloc.buffer_var.get()) {}

  // The new index of every access, or nullopt when the rule does not hold at this loop.
  // into_kernel: L is inside a thread-bound loop.
  std::optional<std::unordered_map<const void*, Expr>> plan(bool into_kernel) {
    all_.visit(loop_.body);
    if (all_.other_use || all_.vector_access) return std::nullopt;
    for (const Access& a : all_.accesses) {
      by_node_[a.node] = &a;
      for (const ForNode* f : a.loops) {
        auto mn = as_const_int(f->min), ext = as_const_int(f->extent);
        if (mn && ext) ranges_[f->loop_var.get()] = {*mn, *ext};
      }
    }
    auto writers = fill_first(loop_.body);
    if (!writers) return std::nullopt;
    // Rows of the tiles tensor cores read from shared memory spaced
    // (Box::pad_rows), where they all have one stride and every access fits
    // the spaced rows (a copy whose one loop runs across several rows does
    // not); else as dense as the box.
    std::set<int64_t> row_strides;
    for (const Access& a : all_.accesses)
      if (a.ld != 0) row_strides.insert(a.ld);
    if (alloc_.scope == "shared" && row_strides.size() == 1)
      if (auto out = plan_box(*writers, into_kernel, *row_strides.begin())) return out;
    return plan_box(*writers, into_kernel, 0);
  }

  // plan's indices with the box of `writers`, its rows spaced where
  // row_stride is not 0.
  std::optional<std::unordered_map<const void*, Expr>> plan_box(
      const std::vector<const Access*>& writers, bool into_kernel, int64_t row_stride) {
    box_.emplace(all_.defined, ranges_);
    tile_strides_.clear();
    if (!box_->build(writers)) return std::nullopt;
    if (row_stride != 0) box_->pad_rows(alloc_.dtype.bytes(), row_stride);
    auto whole = as_const_int(alloc_.extents.at(0));
    // Smaller, or (kept_thread_bindings) as large but moved into a GPU kernel,
    // whose code generator needs it there (bytes: compact_allocations).
    if (!whole || box_->size() > *whole || (box_->size() == *whole && !into_kernel))
      return std::nullopt;
    std::unordered_map<const void*, Expr> out;
    for (const Access& a : all_.accesses) {
      auto index = box_->index(a.index, a.footprint());
      if (!index) return std::nullopt;
      out[a.node] = *index;
      if (a.ld == 0) continue;
      // A tile's rows stay contiguous; its row stride is the compact one.
      const std::optional<int64_t> ld = box_->stride(a.ld);
      if (box_->stride(1) != 1 || !ld) return std::nullopt;
      tile_strides_[a.node] = *ld;
    }
    return out;
  }

  // The compact row stride of each tile access (with plan's indices).
  const std::unordered_map<const void*, int64_t>& tile_strides() const { return tile_strides_; }

  int64_t size() const { return box_->size(); }

 private:
  // The stores that, in one execution of s, write every location s reads
  // before s reads it; nullopt when that cannot be shown. A statement that
  // only writes is its own filler; a loop's filler is its body's (each
  // iteration fills what it reads); in a sequence, the leading statements
  // that only write (or else a run of self-filling ones, or else the first
  // one, recursively) fill a box that every later access must stay inside.
  std::optional<std::vector<const Access*>> fill_first(const Stmt& s) {
    AccessCollector c(alloc_.buffer_var.get());
    c.visit(s);
    if (c.accesses.empty()) return std::nullopt;
    if (only_stores(c.accesses)) return always_run(c.accesses);
    if (auto* f = s.as<ForNode>()) return fill_first(f->body);
    if (!s.as<SeqStmtNode>() && !s.as<LetStmtNode>() && !s.as<AllocateNode>()) return std::nullopt;
    const std::vector<Stmt> children = statements_under(s);
    std::vector<std::vector<Access>> in_child;
    for (const Stmt& child : children) in_child.push_back(accesses_in(child));
    std::vector<const Access*> writers;
    size_t next = 0;
    for (; next < children.size(); ++next) {
      if (in_child[next].empty()) continue;
      if (!only_stores(in_child[next])) break;
      auto w = always_run(in_child[next]);
      if (!w) return std::nullopt;
      writers.insert(writers.end(), w->begin(), w->end());
    }
    if (writers.empty()) {
      if (next == children.size()) return std::nullopt;
      if (auto joint = joint_fill(children, in_child, next)) {
        writers = std::move(joint->first);
        next = joint->second;
      } else {
        auto w = fill_first(children[next++]);
        if (!w) return std::nullopt;
        writers = *w;
      }
    }
    // Every later access stays inside what the writers filled, with the
    // variables defined inside s ranging and the rest fixed.
    Box box(c.defined, ranges_);
    if (!box.build(writers)) return std::nullopt;
    for (; next < children.size(); ++next)
      for (const Access& a : in_child[next])
        if (!box.index(a.index, a.footprint())) return std::nullopt;
    return writers;
  }

  // Two or more children from `first` on that each fill what they read (the
  // parts partition-loops made of one loop, each an init and its update)
  // and whose writers together fill a box: those writers, and the child
  // after the run.
  std::optional<std::pair<std::vector<const Access*>, size_t>> joint_fill(
      const std::vector<Stmt>& children, const std::vector<std::vector<Access>>& in_child,
      size_t first) {
    std::vector<const Access*> joint;
    size_t k = first, filling = 0;
    for (; k < children.size(); ++k) {
      if (in_child[k].empty()) continue;
      auto w = only_stores(in_child[k]) ? always_run(in_child[k]) : fill_first(children[k]);
      if (!w) break;
      joint.insert(joint.end(), w->begin(), w->end());
      ++filling;
    }
    if (filling < 2) return std::nullopt;
    AccessCollector c(alloc_.buffer_var.get());
    for (size_t i = first; i < k; ++i) c.visit(children[i]);
    Box box(c.defined, ranges_);
    if (!box.build(joint)) return std::nullopt;
    return std::make_pair(std::move(joint), k);
  }

  std::vector<Access> accesses_in(const Stmt& s) const {
    AccessCollector c(alloc_.buffer_var.get());
    c.visit(s);
    return std::move(c.accesses);
  }

  static bool only_stores(const std::vector<Access>& accesses) {
    return std::all_of(accesses.begin(), accesses.end(),
                       [](const Access& a) { return a.is_store; });
  }

  // The stores (as the walk from L saw them) when each runs every time L's
  // body does: no if above it, loops of constant non-empty range.
  std::optional<std::vector<const Access*>> always_run(const std::vector<Access>& stores) const {
    std::vector<const Access*> out;
    for (const Access& a : stores) {
      const Access* w = by_node_.at(a.node);
      if (w->guarded) return std::nullopt;
      for (const ForNode* f : w->loops) {
        auto it = ranges_.find(f->loop_var.get());
        if (it == ranges_.end() || it->second.extent <= 0) return std::nullopt;
      }
      out.push_back(w);
    }
    return out;
  }

  const AllocateNode& alloc_;
  const ForNode& loop_;
  AccessCollector all_;
  std::unordered_map<const void*, const Access*> by_node_;
  std::unordered_map<const VarNode*, LoopRange> ranges_;
  std::optional<Box> box_;
  std::unordered_map<const void*, int64_t> tile_strides_;
};

// One loop that gets its own allocation.
struct Part {
  const ForNode* loop;
  Var data;
  int64_t size;
};

struct Compaction {
  const AllocateNode* alloc;
  std::vector<Part> parts;
  // The new index of every access, and the part it belongs to.
  std::unordered_map<const void*, std::pair<size_t, Expr>> accesses;
  std::unordered_map<const void*, int64_t> tile_strides;  // of tile accesses, the new row stride
};

// The first allocation (not in `tried`) that can move into loops.
class CompactionFinder : public StmtVisitor {
 public:
  CompactionFinder(std::unordered_set<const VarNode*>& tried, passes::NameSet& names)
      : tried_(tried), names_(names) {}
  std::optional<Compaction> found;

 protected:
  void visit_allocate(const AllocateNode* n) override {
    if (found) return;
    if (!tried_.count(n->buffer_var.get())) {
      tried_.insert(n->buffer_var.get());
      found = try_allocation(*n);
      if (found) return;
    }
    StmtVisitor::visit_allocate(n);
  }

 private:
  // Each statement under the allocation that touches it (after partition-loops,
  // the main part and tail of one loop) must keep its accesses inside one loop
  // where the rule holds; each such loop gets storage of its own.
  std::optional<Compaction> try_allocation(const AllocateNode& a) {
    if (a.extents.size() != 1 || a.dtype.lanes() != 1) return std::nullopt;
    AccessCollector everything(a.buffer_var.get());
    everything.visit(a.body);
    if (everything.other_use || everything.vector_access || everything.accesses.empty())
      return std::nullopt;
    Compaction out{&a, {}, {}, {}};
    size_t seen = 0;
    for (const Stmt& s : statements_under(a.body)) {
      AccessCollector c(a.buffer_var.get());
      c.visit(s);
      if (c.accesses.empty()) continue;
      seen += c.accesses.size();
      auto part = part_in(a, c.accesses);
      if (!part) return std::nullopt;
      const size_t k = out.parts.size();
      Var data =
          k == 0 ? a.buffer_var : make_var(names_.fresh(a.buffer_var->name), a.buffer_var->dtype);
      out.parts.push_back({part->loop, data, part->size});
      for (auto& [node, index] : part->indices) out.accesses[node] = {k, index};
      out.tile_strides.insert(part->tile_strides.begin(), part->tile_strides.end());
    }
    // Accesses outside those statements (a let's value above them) stay put.
    if (seen != everything.accesses.size()) return std::nullopt;
    return out;
  }

  struct Found {
    const ForNode* loop;
    int64_t size;
    std::unordered_map<const void*, Expr> indices;
    std::unordered_map<const void*, int64_t> tile_strides;
  };

  static std::optional<Found> part_in(const AllocateNode& a, const std::vector<Access>& accesses) {
    // The loops around every access, innermost last.
    std::vector<const ForNode*> common = accesses[0].loops;
    for (const Access& x : accesses) {
      size_t n = 0;
      while (n < common.size() && n < x.loops.size() && common[n] == x.loops[n]) ++n;
      common.resize(n);
    }
    for (size_t i = common.size(); i-- > 0;) {
      const ForNode* loop = common[i];
      if (loop->for_kind != ForKind::Serial && loop->for_kind != ForKind::Parallel) continue;
      const bool into_kernel =
          std::any_of(common.begin(), common.begin() + static_cast<std::ptrdiff_t>(i),
                      [](const ForNode* f) { return f->for_kind == ForKind::ThreadBinding; });
      Compactor compactor(a, *loop);
      if (auto indices = compactor.plan(into_kernel))
        return Found{loop, compactor.size(), std::move(*indices), compactor.tile_strides()};
    }
    return std::nullopt;
  }

  std::unordered_set<const VarNode*>& tried_;
  passes::NameSet& names_;
};

class CompactionRewriter : public StmtMutator {
 public:
  explicit CompactionRewriter(const Compaction& c) : c_(c) {}

 protected:
  Stmt mutate_allocate(const Stmt& s, const AllocateNode* n) override {
    if (n == c_.alloc) return mutate(n->body);
    return StmtMutator::mutate_allocate(s, n);
  }
  Stmt mutate_for(const Stmt& s, const ForNode* n) override {
    const Part* part = nullptr;
    for (const Part& p : c_.parts)
      if (p.loop == n) part = &p;
    if (!part) return StmtMutator::mutate_for(s, n);
    const AllocateNode& a = *c_.alloc;
    DataType t = a.extents[0].dtype();
    auto inner = std::make_shared<AllocateNode>(
        part->data, a.dtype, std::vector<Expr>{make_int(part->size, t)}, a.scope, mutate(n->body));
    inner->loc = a.loc;
    return with_body(*n, Stmt(std::move(inner)));
  }
  // A warp matrix operation: each compacted tile's row stride too.
  Expr mutate_call(const Expr& e, const CallNode* n) override {
    const Intrinsic* in = find_warp_matrix(*n);
    Expr out = StmtMutator::mutate_call(e, n);
    if (!in) return out;
    std::vector<Expr> args = out.as<CallNode>()->args;
    bool changed = false;
    for (size_t i = 0; i + 1 < n->args.size(); i += 2) {
      const BufferLoadNode* at = address_of_element(n->args[i]);
      auto ld = at ? c_.tile_strides.find(at) : c_.tile_strides.end();
      if (ld == c_.tile_strides.end()) continue;
      args[i + 1] = make_int(ld->second, n->args[i + 1].dtype());
      changed = true;
    }
    return changed ? make_call(n->dtype, n->op, args) : out;
  }
  Expr mutate_load(const Expr& e, const BufferLoadNode* n) override {
    auto it = c_.accesses.find(n);
    if (it == c_.accesses.end()) return StmtMutator::mutate_load(e, n);
    const auto& [part, index] = it->second;
    return Expr(std::make_shared<BufferLoadNode>(n->dtype, compact(n->buffer, part),
                                                 std::vector<Expr>{index}));
  }
  Stmt mutate_store(const Stmt& s, const BufferStoreNode* n) override {
    auto it = c_.accesses.find(n);
    if (it == c_.accesses.end()) return StmtMutator::mutate_store(s, n);
    const auto& [part, index] = it->second;
    auto m = std::make_shared<BufferStoreNode>(compact(n->buffer, part), mutate(n->value),
                                               std::vector<Expr>{index});
    m->loc = n->loc;
    return Stmt(std::move(m));
  }

 private:
  // b over one part's storage, with that part's element count.
  Buffer compact(const Buffer& b, size_t part) {
    Buffer& out = buffers_[{b.get(), part}];
    if (!out) {
      const Part& p = c_.parts[part];
      auto n = std::make_shared<BufferNode>(*b);
      n->data = p.data;
      n->shape = {make_int(p.size, b->shape.empty() ? DataType::int32() : b->shape[0].dtype())};
      n->strides.clear();
      out = n;
    }
    return out;
  }

  const Compaction& c_;
  std::map<std::pair<const BufferNode*, size_t>, Buffer> buffers_;
};

}  // namespace

PrimFunc compact_allocations(const PrimFunc& f) {
  std::unordered_set<const VarNode*> tried;
  passes::NameSet names(f);
  Stmt body = f->body;
  int64_t moved = 0;
  for (;;) {
    CompactionFinder finder(tried, names);
    finder.visit(body);
    if (!finder.found) break;
    int64_t bytes = 0;
    for (const Part& p : finder.found->parts) bytes += p.size * finder.found->alloc->dtype.bytes();
    if (moved + bytes > kMaxCompactBytes) continue;  // this one stays where it was
    moved += bytes;
    body = CompactionRewriter(*finder.found).mutate(body);
  }
  return body.same_as(f->body) ? f : with_body(f, body);
}

}  // namespace tirc
