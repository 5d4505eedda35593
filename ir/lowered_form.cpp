// check_lowered_form: the contract of passes/LOWERED.md as a checker.
#include "ir/lowered_form.h"

#include <unordered_set>

#include "ir/functor.h"

namespace tirc {

namespace {

class LoweredFormChecker : public StmtVisitor {
 public:
  explicit LoweredFormChecker(const PrimFunc& f) {
    for (const Param& p : f->params) {
      if (p.var) storage_.insert(p.var.get());
      if (p.buffer && p.buffer->data) storage_.insert(p.buffer->data.get());
    }
  }

  void check(const Stmt& s) {
    current_ = s.get() ? s->loc : SourceLoc();
    visit(s);
  }

 protected:
  [[noreturn]] void fail(const std::string& what) const {
    throw Error("not in the lowered form: " + what, current_);
  }

  void check_access(const Buffer& b, const std::vector<Expr>& indices, const char* what) {
    if (!b) fail(std::string(what) + " of a null buffer");
    if (indices.size() != 1)
      fail(std::string(what) + " of buffer '" + b->name + "' has " +
           std::to_string(indices.size()) + " indices (one element offset expected)");
    if (b->ndim() != 1 || !b->strides.empty() ||
        (b->elem_offset && !is_const_int(b->elem_offset, 0)))
      fail(std::string(what) + " of buffer '" + b->name +
           "' that is not flat (1-D, compact, offset 0)");
    if (!b->data || !storage_.count(b->data.get()))
      fail(std::string(what) + " of buffer '" + b->name +
           "' whose storage is neither a parameter's nor an enclosing Allocate's");
  }

  void visit_load(const BufferLoadNode* n) override {
    check_access(n->buffer, n->indices, "load");
    StmtVisitor::visit_load(n);
  }
  void visit_store(const BufferStoreNode* n) override {
    current_ = n->loc;
    check_access(n->buffer, n->indices, "store");
    StmtVisitor::visit_store(n);
  }
  void visit_for(const ForNode* n) override {
    current_ = n->loc;
    if (n->for_kind == ForKind::ThreadBinding)
      fail("thread-bound loop '" + n->loop_var->name + "'");
    if (!n->min.dtype().is_integer() || !n->extent.dtype().is_integer())
      fail("loop '" + n->loop_var->name + "' with non-integer bounds");
    StmtVisitor::visit_for(n);
  }
  void visit_block(const BlockNode* n) override {
    current_ = n->loc;
    fail("Block '" + n->name + "'");
  }
  void visit_block_realize(const BlockRealizeNode* n) override {
    current_ = n->loc;
    fail("BlockRealize of block '" + (n->block ? n->block->name : std::string("?")) + "'");
  }
  void visit_decl_buffer(const DeclBufferNode* n) override {
    current_ = n->loc;
    fail("DeclBuffer of '" + (n->buffer ? n->buffer->name : std::string("?")) + "'");
  }
  void visit_if(const IfThenElseNode* n) override {
    current_ = n->loc;
    StmtVisitor::visit_if(n);
  }
  void visit_allocate_const(const AllocateConstNode* n) override {
    current_ = n->loc;
    if (n->extents.size() != 1 || !as_const_int(n->extents[0]))
      fail("AllocateConst of '" + n->buffer_var->name + "' without one constant extent");
    bool added = storage_.insert(n->buffer_var.get()).second;
    StmtVisitor::visit_allocate_const(n);
    if (added) storage_.erase(n->buffer_var.get());
  }
  void visit_evaluate(const EvaluateNode* n) override {
    current_ = n->loc;
    StmtVisitor::visit_evaluate(n);
  }
  void visit_call(const CallNode* n) override {
    if (n->op == kAddressOf && (n->args.size() != 1 || !n->args[0].as<BufferLoadNode>()))
      fail("T.address_of of something other than one buffer element");
    if (n->op == kCallKernel && (n->args.empty() || !n->args[0].as<StringImmNode>()))
      fail("T.call_kernel without a callee name");
    StmtVisitor::visit_call(n);
  }
  void visit_allocate(const AllocateNode* n) override {
    current_ = n->loc;
    if (n->extents.size() != 1 || !as_const_int(n->extents[0]))
      fail("Allocate of '" + n->buffer_var->name + "' without one constant extent");
    bool added = storage_.insert(n->buffer_var.get()).second;
    StmtVisitor::visit_allocate(n);
    if (added) storage_.erase(n->buffer_var.get());
  }

 private:
  std::unordered_set<const VarNode*> storage_;
  SourceLoc current_;
};

}  // namespace

void check_lowered_form(const PrimFunc& f) {
  if (!f) throw Error("not in the lowered form: null function");
  LoweredFormChecker(f).check(f->body);
}

}  // namespace tirc
