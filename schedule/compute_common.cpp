#include "schedule/compute_common.h"

#include "ir/functor.h"
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

}  // namespace tirc
