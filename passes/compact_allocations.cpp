// compact-allocations: an allocation that only one loop uses, and that each
// iteration of that loop fills before reading, becomes a smaller allocation
// inside the loop holding one iteration's part.
//
// Why: a producer or epilogue computed per outer iteration (compute_at,
// reverse_compute_at: a conv's pad, its bias+clip) still writes a whole-size
// intermediate. Every iteration touches a few kilobytes of it, but those
// kilobytes are spread over the whole buffer, so each one is a cache miss and
// a write-back: MobileNetV2's 16->96 1x1 conv moved 20 MB for 5 MB of output.
// One iteration's part, reused, stays in L1.
//
// The rule, on the flat form (after partition-loops, whose main parts have no
// guards). Take an Allocate A and every load and store of a buffer over its
// storage; A's variable must appear nowhere else (no address taken, no kernel
// call). Take each statement under A that touches it (one loop nest, or the
// main part and tails partition-loops made of one) and in it a Serial or
// Parallel loop L that encloses all of its accesses, tried from the deepest
// such loop outwards; every statement must have one, or nothing changes. Each access index must read, after simplify, as
//   base + constant + sum of coef * v
// where base (terms in variables defined outside L's body) is the same for
// all accesses and each v is a loop variable inside L with constant bounds.
// The first statement of L's body that touches the storage (the writer) must
// store to it exactly once, read none of it, and reach that store only
// through loops with constant, non-empty ranges (no if): in every iteration
// it then writes the whole set
//   box = { base + sum_k t_k * c_k : 0 <= t_k < n_k }
// where its terms, sorted by coefficient, form groups of mixed-radix digits
// (c_k, n_k). Every other access must stay inside the box, which is checked
// group by group (each term joins the group whose stride divides its
// coefficient, the constant is split into group digits, and each group's
// digit range must stay in [0, n_k)). Then every read of an iteration reads a
// value its own iteration wrote, nothing outside L sees the storage, and the
// map  base + sum t_k c_k  ->  sum t_k m_k  (m_k = n_1 ... n_{k-1})  is one to
// one on the box: the storage becomes an Allocate of prod n_k elements at the
// top of L's body, private to each iteration, which also makes it private to
// each thread of a parallel loop. Since no statement reads what another wrote,
// each L gets storage of its own (the first keeps A's variable).
//
// Anything else (a guarded writer, a read-modify-write reduction whose init
// was not hoisted, indices that are not affine) keeps its allocation where it
// was. No change is always correct.
#include <algorithm>
#include <map>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "ir/arith/int_math.h"
#include "ir/arith/linear_form.h"
#include "ir/functor.h"
#include "passes/pass_util.h"
#include "passes/passes.h"

namespace tirc {

namespace {

// At most this many bytes move into a loop: one iteration's part is meant to
// stay in a core's own caches, and a parallel body's stack is limited.
constexpr int64_t kMaxCompactBytes = 256 << 10;

struct Access {
  const void* node;  // the BufferLoadNode or BufferStoreNode
  Expr index;
  bool is_store;
  bool guarded;                         // under an IfThenElse below the walk's root
  std::vector<const ForNode*> loops;  // enclosing loops below the walk's root, outermost first
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
    if (n->buffer && n->buffer->data.get() == data_)
      record(n, n->indices, true, n->value.dtype());
    StmtVisitor::visit_store(n);
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
  int64_t stride;  // c_k
  int64_t count;   // n_k
  int64_t weight;  // m_k: the group's stride in the compact storage
};

struct LoopRange {
  int64_t min, extent;
};

// An index as base + constant + sum coef * (inner loop variable).
struct SplitIndex {
  std::map<const VarNode*, int64_t> base;  // terms in variables defined outside L's body
  int64_t constant = 0;                    // with every inner loop's min folded in
  std::vector<std::pair<Expr, int64_t>> inner;  // each term a loop variable
};

class Compactor {
 public:
  Compactor(const AllocateNode& alloc, const ForNode& loop) : alloc_(alloc), loop_(loop) {}

  // The new index of every access, or nullopt when the rule does not hold at this loop.
  std::optional<std::unordered_map<const void*, Expr>> plan() {
    const std::vector<Stmt> children = statements_under(loop_.body);

    AccessCollector all(alloc_.buffer_var.get());
    all.visit(loop_.body);
    if (all.other_use || all.vector_access) return std::nullopt;
    inner_ = all.defined;
    for (const Access& a : all.accesses)
      for (const ForNode* f : a.loops) {
        auto mn = as_const_int(f->min), ext = as_const_int(f->extent);
        if (mn && ext) ranges_[f->loop_var.get()] = {*mn, *ext};
      }

    const Access* writer = nullptr;
    for (const Stmt& child : children) {
      AccessCollector c(alloc_.buffer_var.get());
      c.visit(child);
      if (c.accesses.empty()) continue;
      if (c.accesses.size() != 1 || !c.accesses[0].is_store || c.accesses[0].guarded)
        return std::nullopt;
      for (const ForNode* f : c.accesses[0].loops) {
        auto it = ranges_.find(f->loop_var.get());
        if (it == ranges_.end() || it->second.extent <= 0) return std::nullopt;
      }
      for (const Access& a : all.accesses)
        if (a.node == c.accesses[0].node) writer = &a;
      break;
    }
    // Every access must lie in a child (none in a let value above them).
    size_t in_children = 0;
    for (const Stmt& child : children) {
      AccessCollector c(alloc_.buffer_var.get());
      c.visit(child);
      in_children += c.accesses.size();
    }
    if (in_children != all.accesses.size()) return std::nullopt;
    if (!writer || !box_of(*writer)) return std::nullopt;

    std::unordered_map<const void*, Expr> out;
    for (const Access& a : all.accesses) {
      auto index = compact_index(a.index);
      if (!index) return std::nullopt;
      out[a.node] = *index;
    }
    return out;
  }

  int64_t size() const {
    int64_t n = 1;
    for (const Group& g : groups_) n *= g.count;
    return n;
  }

 private:
  std::optional<SplitIndex> split(const Expr& index) const {
    arith::LinearForm form = arith::decompose(index);
    SplitIndex s;
    s.constant = form.constant;
    for (const arith::LinearTerm& t : form.terms) {
      auto* v = t.term.as<VarNode>();
      if (!v) return std::nullopt;
      if (!inner_.count(v)) {
        s.base[v] += t.coef;
        continue;
      }
      auto it = ranges_.find(v);
      if (it == ranges_.end() || t.coef <= 0) return std::nullopt;
      s.constant += t.coef * it->second.min;
      s.inner.emplace_back(t.term, t.coef);
    }
    std::erase_if(s.base, [](const auto& kv) { return kv.second == 0; });
    return s;
  }

  // The groups of the writer's terms; false when they are not one dense box.
  bool box_of(const Access& writer) {
    auto s = split(writer.index);
    if (!s) return false;
    base_ = s->base;
    base_constant_ = s->constant;
    index_type_ = writer.index.dtype();
    std::vector<std::pair<int64_t, int64_t>> terms;  // coef, extent
    for (const auto& [v, coef] : s->inner) {
      int64_t ext = ranges_.at(v.as<VarNode>()).extent;
      if (ext > 1) terms.emplace_back(coef, ext);
    }
    std::sort(terms.begin(), terms.end());
    int64_t weight = 1;
    for (const auto& [coef, ext] : terms) {
      if (!groups_.empty()) {
        Group& g = groups_.back();
        const int64_t span = g.stride * g.count;
        if (coef == span) {
          weight /= g.count;
          g.count *= ext;
          weight *= g.count;
          continue;
        }
        if (coef < span) return false;  // overlapping digits: not a dense box
      }
      groups_.push_back({coef, ext, weight});
      weight *= ext;
    }
    const int64_t bytes = weight * alloc_.dtype.bytes();
    auto whole = as_const_int(alloc_.extents.at(0));
    return whole && weight < *whole && bytes <= kMaxCompactBytes;
  }

  std::optional<Expr> compact_index(const Expr& index) const {
    auto s = split(index);
    if (!s || s->base != base_) return std::nullopt;
    const size_t k = groups_.size();
    // Each group's digit range: the constant's digit plus its terms' ranges.
    std::vector<int64_t> digit(k, 0), high(k, 0);
    int64_t rest = s->constant - base_constant_;
    for (size_t g = k; g-- > 0;) {
      const int64_t c = groups_[g].stride;
      // Nearest digit: a small negative offset (a stencil's -1) stays in its group.
      digit[g] = static_cast<int64_t>(arith::floor_div(rest + c / 2, c));
      rest -= digit[g] * c;
    }
    if (rest != 0) return std::nullopt;
    arith::LinearForm out(index_type_);
    for (const auto& [v, coef] : s->inner) {
      const LoopRange& range = ranges_.at(v.as<VarNode>());
      const int64_t ext = range.extent;
      size_t g = k;
      for (size_t j = k; j-- > 0;)
        if (coef >= groups_[j].stride) {
          g = j;
          break;
        }
      if (g == k || coef % groups_[g].stride) {
        if (ext == 1) continue;  // a single iteration: its min is already in the constant
        return std::nullopt;
      }
      const int64_t scaled = coef / groups_[g].stride;
      high[g] += scaled * (ext - 1);
      // v - min counts from zero; the min went into the constant.
      out.add_term(v, scaled * groups_[g].weight);
      out.add_constant(-scaled * groups_[g].weight * range.min);
    }
    for (size_t g = 0; g < k; ++g) {
      if (digit[g] < 0 || digit[g] + high[g] >= groups_[g].count) return std::nullopt;
      out.add_constant(digit[g] * groups_[g].weight);
    }
    if (k == 0 && s->constant != base_constant_) return std::nullopt;
    return arith::emit(out);
  }

  const AllocateNode& alloc_;
  const ForNode& loop_;
  std::unordered_set<const VarNode*> inner_;
  std::unordered_map<const VarNode*, LoopRange> ranges_;
  std::map<const VarNode*, int64_t> base_;
  int64_t base_constant_ = 0;
  DataType index_type_ = DataType::int32();
  std::vector<Group> groups_;
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
    Compaction out{&a, {}, {}};
    size_t seen = 0;
    for (const Stmt& s : statements_under(a.body)) {
      AccessCollector c(a.buffer_var.get());
      c.visit(s);
      if (c.accesses.empty()) continue;
      seen += c.accesses.size();
      auto part = part_in(a, c.accesses);
      if (!part) return std::nullopt;
      const size_t k = out.parts.size();
      Var data = k == 0 ? a.buffer_var : make_var(names_.fresh(a.buffer_var->name), a.buffer_var->dtype);
      out.parts.push_back({part->loop, data, part->size});
      for (auto& [node, index] : part->indices) out.accesses[node] = {k, index};
    }
    // Accesses outside those statements (a let's value above them) stay put.
    if (seen != everything.accesses.size()) return std::nullopt;
    return out;
  }

  struct Found {
    const ForNode* loop;
    int64_t size;
    std::unordered_map<const void*, Expr> indices;
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
      Compactor compactor(a, *loop);
      if (auto indices = compactor.plan()) return Found{loop, compactor.size(), std::move(*indices)};
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
    auto inner = std::make_shared<AllocateNode>(part->data, a.dtype,
                                                std::vector<Expr>{make_int(part->size, t)},
                                                a.scope, mutate(n->body));
    inner->loc = a.loc;
    auto m = std::make_shared<ForNode>(n->loop_var, n->min, n->extent, n->for_kind,
                                       Stmt(std::move(inner)), n->thread_tag, n->annotations);
    m->loc = n->loc;
    return Stmt(std::move(m));
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
  for (;;) {
    CompactionFinder finder(tried, names);
    finder.visit(body);
    if (!finder.found) break;
    body = CompactionRewriter(*finder.found).mutate(body);
  }
  return body.same_as(f->body) ? f : with_body(f, body);
}

}  // namespace tirc
