#include "schedule/compute_common.h"

#include "ir/conjuncts.h"
#include "ir/functor.h"
#include "ir/structural.h"
#include "schedule/schedule_error.h"

namespace tirc {

namespace {

class BufferUse : public StmtVisitor {
 public:
  explicit BufferUse(const BufferNode* b) : b_(b) {}
  bool found = false;

 protected:
  void visit_load(const BufferLoadNode* n) override {
    found |= n->buffer.get() == b_;
    StmtVisitor::visit_load(n);
  }
  void visit_store(const BufferStoreNode* n) override {
    found |= n->buffer.get() == b_;
    StmtVisitor::visit_store(n);
  }
  void visit_region(const BufferRegion& r) override {
    found |= r.buffer.get() == b_;
    StmtVisitor::visit_region(r);
  }
  void visit_block(const BlockNode* n) override {
    for (const MatchBufferRegion& m : n->match_buffers) found |= m.buffer.get() == b_;
    StmtVisitor::visit_block(n);
  }

 private:
  const BufferNode* b_;
};

// Drops one buffer from whichever block allocates it.
class AllocRemover : public StmtMutator {
 public:
  explicit AllocRemover(const BufferNode* b) : b_(b) {}

 protected:
  Block mutate_block(const Block& b) override {
    Block m = StmtMutator::mutate_block(b);
    bool has = false;
    for (const Buffer& a : m->alloc_buffers) has |= a.get() == b_;
    if (!has) return m;
    auto n = std::make_shared<BlockNode>(*m);
    std::erase_if(n->alloc_buffers, [&](const Buffer& a) { return a.get() == b_; });
    return n;
  }

 private:
  const BufferNode* b_;
};

}  // namespace

const StmtNode* removal_root(const StmtPath& path, const std::string& primitive) {
  size_t i = path.stmts.size() - 1;
  while (i > 0 && path.stmts[i - 1].as<ForNode>()) --i;
  if (i == 0 || !path.stmts[i - 1].as<SeqStmtNode>()) {
    auto* r = path.node().as<BlockRealizeNode>();
    throw ScheduleError(primitive, "block " + (r ? r->block->name : std::string("?")) +
                                       " is the only statement of its scope and cannot be removed");
  }
  return path.stmts[i].get();
}


bool buffer_used(const Stmt& s, const Buffer& b) {
  BufferUse u(b.get());
  u.visit(s);
  return u.found;
}

Stmt remove_alloc(const Stmt& s, const Buffer& b) {
  AllocRemover r(b.get());
  return r.mutate(s);
}

bool is_trivial_predicate(const Expr& p) {
  return !p || is_const_int(p, 1);
}

bool predicate_only_bounds_domain(const BlockRealizeNode* realize) {
  const BlockNode& b = *realize->block;
  for (const Expr& c : conjuncts(realize->predicate)) {
    auto* lt = c.as<BinaryNode>();
    if (!lt || lt->kind != ExprKind::LT) return false;
    const std::optional<int64_t> bound = as_const_int(lt->b);
    bool bounds_a_value = false;
    for (size_t k = 0; k < b.iter_vars.size() && bound && !bounds_a_value; ++k) {
      const Range& dom = b.iter_vars[k].dom;
      const std::optional<int64_t> min = as_const_int(dom.min), extent = as_const_int(dom.extent);
      bounds_a_value = min && extent && *bound >= *min + *extent &&
                       structural_equal(realize->iter_values[k], lt->a);
    }
    if (!bounds_a_value) return false;
  }
  return true;
}

}  // namespace tirc
