// A "local" allocation outside some of a kernel's threadIdx loops: in the
// lowered program one buffer that the threads of those loops all index (an
// accumulator tile that lives across the loops of a shared-memory matmul:
// init, the k loop, the write-back); on the GPU each thread's own memory
// holding only its part.
//
// That is the same program only when no element is touched by two threads.
// Each access index must read as a sum of coefficient * loop variable (loops
// inside the allocation, constant ranges) plus a non-negative constant, with
// one term for each such threadIdx loop, its coefficient c the same in every
// access. The index then names its thread: with N the launch size along the
// tag, floor(index / c) mod N is the thread's index when
//   - the terms below c (and the constant's remainder mod c) stay below c,
//   - every term above c, and the constant's quotient by c, is a multiple of
//     c * N (of N for the quotient),
//   - no other term has the coefficient c.
// Where that holds for every tag, different threads touch different elements,
// and dropping the thread terms from every index gives each thread a slice
// of (largest remaining index + 1) elements. Anything else is refused.
//
// A tensor-core accumulator (scope "wmma.accumulator") is sliced the same
// way by warp: over the threadIdx.y/z loops only (a warp is all of
// threadIdx.x), its accesses being the tiles of warp matrix operations,
// each checked with its whole footprint (16 rows of its row stride, 16
// columns) as two more terms; the slice is whole rows of tiles.
#include <algorithm>
#include <map>

#include "codegen/llvm/cuda_emitter.h"
#include "ir/arith/linear_form.h"
#include "ir/functor.h"
#include "ir/intrinsic.h"
#include "ir/text/printer.h"

namespace tirc::llvm_gen {

namespace {

struct LoopRange {
  std::string tag;  // a threadIdx tag the allocation does not enclose, or empty
  int64_t min = 0;
  int64_t extent = 1;
};

class SliceByThread : public StmtMutator {
 public:
  SliceByThread(const AllocateNode& a, const KernelPlan& plan,
                const std::vector<std::string>& enclosing, bool by_warp)
      : a_(a), by_warp_(by_warp) {
    for (const std::string& tag : plan.thread_tags()) {
      if (std::find(enclosing.begin(), enclosing.end(), tag) != enclosing.end()) continue;
      if (by_warp && tag == "threadIdx.x") continue;
      auto c = as_const_int(plan.axis(tag)->extent);
      if (!c) fail("the launch along " + tag + " is not constant", a.loc);
      if (*c > 1) launch_[tag] = *c;
    }
  }

  // The slice of one thread (of one warp: whole rows of tiles).
  int64_t slice_elements() const {
    if (!by_warp_ || ld_ == 0) return elements_;
    const int64_t row = kMmaTile * ld_;
    return (elements_ + row - 1) / row * row;
  }

 private:
  [[noreturn]] void fail(const std::string& why, const SourceLoc& loc) const {
    if (by_warp_)
      refuse("accumulator " + a_.buffer_var->name +
                 " (scope \"wmma.accumulator\") is outside threadIdx.y/z loops that index it, "
                 "and the generator cannot give each warp its own part: " +
                 why,
             loc);
    refuse("local allocation " + a_.buffer_var->name +
               " is outside threadIdx loops that index it, and the generator cannot give each "
               "thread its own part: " +
               why,
           loc);
  }

  bool ours(const Buffer& b) const { return b->data.get() == a_.buffer_var.get(); }

  Stmt mutate_for(const Stmt& s, const ForNode* n) override {
    LoopRange r;
    auto lo = as_const_int(n->min);
    auto ext = as_const_int(n->extent);
    if (n->for_kind == ForKind::ThreadBinding && launch_.count(n->thread_tag))
      r.tag = n->thread_tag;
    if (lo && ext) {
      r.min = *lo;
      r.extent = std::max<int64_t>(*ext, 1);
      loops_[n->loop_var.get()] = r;
    }
    loc_ = n->loc.line > 0 ? n->loc : loc_;
    Stmt out = StmtMutator::mutate_for(s, n);
    loops_.erase(n->loop_var.get());
    return out;
  }

  Expr mutate_var(const Expr& e) override {
    if (e.as<VarNode>() == a_.buffer_var.get())
      fail("its storage is used other than by loads and stores", loc_);
    return e;
  }

  Expr mutate_call(const Expr& e, const CallNode* n) override {
    if (n->op == kAddressOf && !n->args.empty())
      if (auto* load = n->args[0].as<BufferLoadNode>(); load && ours(load->buffer))
        fail("an element's address is taken", loc_);
    return StmtMutator::mutate_call(e, n);
  }

  // A warp matrix operation: each tile of ours at its offset in the slice.
  Stmt mutate_evaluate(const Stmt& s, const EvaluateNode* n) override {
    const Intrinsic* in = by_warp_ ? find_warp_matrix(n->value) : nullptr;
    if (!in) return StmtMutator::mutate_evaluate(s, n);
    loc_ = n->loc.line > 0 ? n->loc : loc_;
    auto* call = n->value.as<CallNode>();
    std::vector<Expr> args = call->args;
    for (size_t i = 0; i < args.size(); ++i) {
      const BufferLoadNode* at = address_of_element(args[i]);
      if (!at || !ours(at->buffer) || i % 2 != 0 || i / 2 >= warp_matrix_tiles(in->id)) {
        args[i] = mutate(args[i]);
        continue;
      }
      auto ld = as_const_int(args[i + 1]);
      if (!ld || *ld < kMmaTile) fail("a tile's row stride is not a constant of 16 or more", loc_);
      if (ld_ != 0 && ld_ != *ld)
        fail("its tiles have row strides " + std::to_string(ld_) + " and " + std::to_string(*ld),
             loc_);
      ld_ = *ld;
      const Expr index = slice_index(at->buffer, at->indices, {{*ld, kMmaTile}, {1, kMmaTile}});
      args[i] = make_call(DataType::handle(), kAddressOf, {make_load(at->buffer, {index})});
    }
    auto out = std::make_shared<EvaluateNode>(make_call(call->dtype, call->op, args));
    out->loc = n->loc;
    return Stmt(std::move(out));
  }

  Expr mutate_load(const Expr& e, const BufferLoadNode* n) override {
    Expr out = StmtMutator::mutate_load(e, n);
    if (!ours(n->buffer)) return out;
    if (by_warp_) fail("it is read element by element", loc_);
    auto* load = out.as<BufferLoadNode>();
    return make_load(load->buffer, {slice_index(load->buffer, load->indices)});
  }

  Stmt mutate_store(const Stmt& s, const BufferStoreNode* n) override {
    Stmt out = StmtMutator::mutate_store(s, n);
    if (!ours(n->buffer)) return out;
    if (by_warp_) fail("it is written element by element", loc_);
    auto* store = out.as<BufferStoreNode>();
    return make_store(store->buffer, store->value, {slice_index(store->buffer, store->indices)});
  }

  // a * b + c, refused where it overflows (indices far past any buffer).
  int64_t mul_add(int64_t a, int64_t b, int64_t c) const {
    int64_t p = 0, out = 0;
    if (__builtin_mul_overflow(a, b, &p) || __builtin_add_overflow(p, c, &out))
      fail("an index overflows 64 bits", loc_);
    return out;
  }

  // The index with its thread terms dropped, after the checks above; the
  // footprint's (coefficient, extent) terms count in the checks and the
  // slice's size only (a tile's rows and columns past its first element).
  Expr slice_index(const Buffer& b, const std::vector<Expr>& indices,
                   const std::vector<std::pair<int64_t, int64_t>>& footprint = {}) {
    if (indices.size() != 1 || !indices[0].dtype().is_scalar())
      fail("an access is not one scalar index", loc_);
    if (b->dtype != a_.dtype) fail("it is read or written as another type", loc_);
    const Expr& index = indices[0];
    arith::AffineRules rules;
    rules.of_interest = [&](const VarNode* v) { return loops_.count(v) > 0; };
    std::optional<arith::LinearForm> form = arith::decompose(index, rules);
    if (!form) fail("index " + print_expr(index) + " is not affine in its loops", loc_);
    struct Term {
      int64_t coef, extent;
      std::string tag;
    };
    std::vector<Term> terms;
    int64_t constant = form->constant;
    arith::LinearForm rest(form->dtype);
    rest.add_constant(form->constant);
    std::map<std::string, int64_t> coefs;
    for (const arith::LinearTerm& t : form->terms) {
      auto* v = t.term.as<VarNode>();
      if (t.kind != arith::TermKind::Var || !v)
        fail("index " + print_expr(index) + " uses " + print_expr(t.term) +
                 ", which is not a loop inside the allocation with a constant range",
             loc_);
      const LoopRange& r = loops_.at(v);
      if (t.coef <= 0) fail("index " + print_expr(index) + " has a negative coefficient", loc_);
      if (!r.tag.empty()) {
        if (r.min != 0) fail("loop " + v->name + " (" + r.tag + ") does not start at 0", loc_);
        coefs[r.tag] = t.coef;
      } else {
        rest.add_term(t.term, t.coef, t.kind);
        constant = mul_add(t.coef, r.min, constant);
      }
      terms.push_back({t.coef, r.extent, r.tag});
    }
    for (const auto& [coef, extent] : footprint) terms.push_back({coef, extent, ""});
    if (constant < 0) fail("index " + print_expr(index) + " can be negative", loc_);
    for (const auto& [tag, launch] : launch_) {
      auto it = coefs.find(tag);
      if (it == coefs.end())
        fail("index " + print_expr(index) + " is the same for every thread along " + tag, loc_);
      const int64_t c = it->second;
      int64_t low = constant % c;
      bool ok = (constant / c) % launch == 0;
      int64_t same = 0;
      for (const Term& t : terms) {
        if (t.coef < c) low = mul_add(t.coef, t.extent - 1, low);
        if (t.coef > c) ok &= t.coef % mul_add(c, launch, 0) == 0;
        same += t.coef == c;
      }
      if (!ok || low >= c || same > 1)
        fail("index " + print_expr(index) + " does not keep the threads along " + tag +
                 " apart (element / " + std::to_string(c) + " mod " + std::to_string(launch) +
                 " is not the thread's index)",
             loc_);
      auto [seen, fresh] = thread_coefs_.emplace(tag, c);
      if (!fresh && seen->second != c)
        fail("two accesses step by " + std::to_string(seen->second) + " and " + std::to_string(c) +
                 " along " + tag,
             loc_);
    }
    int64_t last = constant;
    for (const Term& t : terms)
      if (t.tag.empty()) last = mul_add(t.coef, t.extent - 1, last);
    elements_ = std::max(elements_, mul_add(last, 1, 1));
    return arith::emit(rest);
  }

  const AllocateNode& a_;
  const bool by_warp_;
  int64_t elements_ = 0;
  int64_t ld_ = 0;                               // by warp: the tiles' one row stride
  std::map<std::string, int64_t> launch_;        // tag -> launch size, for tags a slice drops
  std::map<std::string, int64_t> thread_coefs_;  // tag -> the coefficient every access has
  std::map<const VarNode*, LoopRange> loops_;    // loops with constant ranges around here
  SourceLoc loc_;
};

}  // namespace

ThreadSlice slice_by_thread(const AllocateNode& a, const KernelPlan& plan,
                            const std::vector<std::string>& enclosing, bool by_warp) {
  SliceByThread slicer(a, plan, enclosing, by_warp);
  ThreadSlice out;
  out.body = slicer.mutate(a.body);
  out.elements = std::max<int64_t>(slicer.slice_elements(), 1);
  return out;
}

}  // namespace tirc::llvm_gen
