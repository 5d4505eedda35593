// tree-reductions (GPU kernels only): the last step of a reduction shared by
// a block's threads, one thread summing their n partial results in shared
// memory (what gpu_thread_reduction's rfactor leaves),
//
//   R[i] = R[i] + P[b + k]   for k in range(n)        (n a power of two)
//
// becomes log2(n) steps in which half the remaining threads each add a pair,
// all threads waiting between steps (the CUDA generator's barriers),
//
//   for t in threadIdx.x(n / 2): P[b + t] = P[b + t] + P[b + t + n / 2]
//   for t in threadIdx.x(n / 4): P[b + t] = P[b + t] + P[b + t + n / 4]
//   ...
//   R[i] = R[i] + P[b]
//
// for +, max and min (the sum's order changes, by rounding). Only where it
// is safe and the launch stays as it is: P is a "shared" allocation whose
// body ends with the loop (nothing reads P after it), the loop is outside
// every threadIdx loop, and the kernel's threads are threadIdx.x loops only,
// each of at least n / 2 iterations. Anything else is left alone.
#include <algorithm>

#include "ir/arith/linear_form.h"
#include "ir/functor.h"
#include "ir/structural.h"
#include "ir/var_use.h"
#include "passes/pass_util.h"
#include "passes/passes.h"

namespace tirc {

namespace {

// The threadIdx loops of a kernel: whether all are threadIdx.x, and the
// shortest one's iterations.
struct KernelThreads {
  bool x_only = true;
  int64_t shortest = 0;
};

KernelThreads threads_of(const Stmt& kernel) {
  struct Find : StmtVisitor {
    KernelThreads out;
    bool any = false;
    void visit_for(const ForNode* n) override {
      if (n->for_kind == ForKind::ThreadBinding && n->thread_tag.rfind("threadIdx.", 0) == 0) {
        auto e = as_const_int(n->extent);
        out.x_only &= n->thread_tag == "threadIdx.x" && e.has_value();
        const int64_t extent = e.value_or(0);
        out.shortest = any ? std::min(out.shortest, extent) : extent;
        any = true;
      }
      StmtVisitor::visit_for(n);
    }
  } find;
  find.visit(kernel);
  if (!find.any) find.out.x_only = false;
  return find.out;
}

class TreeReductions : public StmtMutator {
 public:
  explicit TreeReductions(passes::NameSet& names) : names_(names) {}

 protected:
  Stmt mutate_for(const Stmt& s, const ForNode* n) override {
    if (n->for_kind != ForKind::ThreadBinding) return StmtMutator::mutate_for(s, n);
    const bool outermost = bound_depth_ == 0;
    const bool thread = n->thread_tag.rfind("threadIdx.", 0) == 0;
    const KernelThreads saved = kernel_;
    if (outermost) kernel_ = threads_of(s);
    ++bound_depth_;
    thread_depth_ += thread;
    Stmt out = StmtMutator::mutate_for(s, n);
    --bound_depth_;
    thread_depth_ -= thread;
    if (outermost) kernel_ = saved;
    return out;
  }

  Stmt mutate_allocate(const Stmt& s, const AllocateNode* n) override {
    Stmt out = StmtMutator::mutate_allocate(s, n);
    if (n->scope != "shared" || bound_depth_ == 0 || thread_depth_ > 0 || !kernel_.x_only)
      return out;
    auto* a = out.as<AllocateNode>();
    auto* seq = a->body.as<SeqStmtNode>();
    if (!seq || seq->seq.empty()) return out;
    std::optional<Stmt> tree = rewrite(seq->seq.back(), *a);
    if (!tree) return out;
    std::vector<Stmt> members = seq->seq;
    members.back() = *tree;
    auto m = std::make_shared<AllocateNode>(a->buffer_var, a->dtype, a->extents, a->scope,
                                            make_seq(std::move(members)));
    m->loc = a->loc;
    return Stmt(std::move(m));
  }

 private:
  // The tree for `last`, when it is the serial sum over the allocation `a`.
  std::optional<Stmt> rewrite(const Stmt& last, const AllocateNode& a) const {
    auto* loop = last.as<ForNode>();
    if (!loop || loop->for_kind != ForKind::Serial || as_const_int(loop->min).value_or(1) != 0)
      return std::nullopt;
    const int64_t n = as_const_int(loop->extent).value_or(0);
    if (n < 2 || (n & (n - 1)) != 0 || kernel_.shortest < n / 2) return std::nullopt;
    auto* store = loop->body.as<BufferStoreNode>();
    if (!store || store->indices.size() != 1) return std::nullopt;
    const VarNode* k = loop->loop_var.get();
    auto* op = store->value.as<BinaryNode>();
    if (!op ||
        (op->kind != ExprKind::Add && op->kind != ExprKind::Max && op->kind != ExprKind::Min))
      return std::nullopt;
    // R[i] = R[i] op P[b + k] (either side), R not P, i free of k.
    auto* acc = op->a.as<BufferLoadNode>();
    auto* part = op->b.as<BufferLoadNode>();
    if (acc && acc->buffer->data.get() == a.buffer_var.get()) std::swap(acc, part);
    if (!acc || !part || part->buffer->data.get() != a.buffer_var.get() ||
        acc->buffer->data.get() == a.buffer_var.get() || acc->indices.size() != 1 ||
        part->indices.size() != 1 || acc->buffer->data.get() != store->buffer->data.get() ||
        !structural_equal(acc->indices[0], store->indices[0]) || uses_var(store->indices[0], k) ||
        !store->value.dtype().is_scalar())
      return std::nullopt;
    arith::AffineRules rules;
    rules.of_interest = [&](const VarNode* v) { return v == k; };
    std::optional<arith::LinearForm> index = arith::decompose(part->indices[0], rules);
    if (!index || index->coefficient(k) != 1) return std::nullopt;
    arith::LinearForm base = *index;
    base.add_term(loop->loop_var, -1, arith::TermKind::Var);
    const Expr b = arith::emit(base);
    if (uses_var(b, k)) return std::nullopt;

    const DataType it = loop->loop_var->dtype;
    auto combine = [&](const Expr& x, const Expr& y) { return make_binary(op->kind, x, y); };
    std::vector<Stmt> steps;
    for (int64_t half = n / 2; half >= 1; half /= 2) {
      Var t = make_var(names_.fresh(loop->loop_var->name + "_tree"), it);
      const Expr at = passes::index_add(b, t);
      const Expr pair = passes::index_add(at, make_int(half, it));
      Stmt add =
          make_store(part->buffer,
                     combine(make_load(part->buffer, {at}), make_load(part->buffer, {pair})), {at});
      steps.push_back(make_for(t, make_int(0, it), make_int(half, it), ForKind::ThreadBinding, add,
                               "threadIdx.x"));
    }
    const Expr first = passes::index_add(b, make_int(0, it));
    steps.push_back(
        make_store(store->buffer,
                   combine(make_load(acc->buffer, acc->indices), make_load(part->buffer, {first})),
                   store->indices));
    return make_seq(std::move(steps));
  }

  passes::NameSet& names_;
  KernelThreads kernel_;
  int bound_depth_ = 0, thread_depth_ = 0;
};

}  // namespace

PrimFunc tree_reductions(const PrimFunc& f) {
  passes::NameSet names(f);
  TreeReductions pass(names);
  Stmt body = pass.mutate(f->body);
  return body.get() == f->body.get() ? f : with_body(f, body);
}

}  // namespace tirc
