#include "schedule/analysis.h"

#include <functional>
#include <unordered_set>

#include "ir/arith/analyzer.h"
#include "ir/functor.h"

namespace tirc {

namespace {

bool touches(const std::vector<BufferRegion>& regions, const Buffer& b) {
  for (const BufferRegion& r : regions)
    if (r.buffer == b) return true;
  return false;
}

bool shares_buffer(const std::vector<BufferRegion>& a, const std::vector<BufferRegion>& b) {
  for (const BufferRegion& r : a)
    if (touches(b, r.buffer)) return true;
  return false;
}

class VarUse : public StmtVisitor {
 public:
  explicit VarUse(const VarNode* v) : v_(v) {}
  bool found = false;

 protected:
  void visit_var(const VarNode* n) override { found |= n == v_; }

 private:
  const VarNode* v_;
};

// Writers of b among the scope's child blocks.
int count_writers(const Stmt& scope, const Buffer& b) {
  int n = 0;
  for (const BlockRealizeNode* r : child_blocks(scope)) n += touches(r->block->writes, b);
  return n;
}

}  // namespace

std::vector<const BlockRealizeNode*> producers_of(const Stmt& scope, const BlockRealizeNode* block) {
  std::vector<const BlockRealizeNode*> out;
  for (const BlockRealizeNode* r : child_blocks(scope))
    if (r != block && shares_buffer(r->block->writes, block->block->reads)) out.push_back(r);
  return out;
}

std::vector<const BlockRealizeNode*> consumers_of(const Stmt& scope, const BlockRealizeNode* block) {
  std::vector<const BlockRealizeNode*> out;
  for (const BlockRealizeNode* r : child_blocks(scope))
    if (r != block && shares_buffer(block->block->writes, r->block->reads)) out.push_back(r);
  return out;
}

bool is_complete_block(const Stmt& scope, const BlockRealizeNode* block) {
  const BlockNode& b = *block->block;
  for (const IterVar& iv : b.iter_vars)
    if (iv.kind != IterKind::DataPar) return false;
  for (const BufferRegion& w : b.writes) {
    if (touches(b.reads, w.buffer)) return false;
    if (count_writers(scope, w.buffer) != 1) return false;
  }
  return true;
}

bool is_reduction_block(const Stmt& scope, const BlockRealizeNode* block) {
  const BlockNode& b = *block->block;
  bool has_reduce = false;
  for (const IterVar& iv : b.iter_vars) {
    if (iv.kind == IterKind::Reduce) has_reduce = true;
    else if (iv.kind != IterKind::DataPar) return false;
  }
  if (!has_reduce || !b.init) return false;
  for (const BufferRegion& w : b.writes) {
    if (count_writers(scope, w.buffer) != 1) return false;
    for (const Range& r : w.region)
      for (const IterVar& iv : b.iter_vars)
        if (iv.kind == IterKind::Reduce && (uses_var(r.min, iv.var.get()) || uses_var(r.extent, iv.var.get())))
          return false;
  }
  return true;
}

bool is_affine_binding(const BlockRealizeNode* block, const std::vector<const ForNode*>& loops) {
  // Each loop variable may appear in at most one iteration value, with a
  // nonzero constant coefficient once the value is simplified; values must
  // not use anything but these loops' variables and constants.
  std::unordered_set<const VarNode*> loop_vars;
  for (const ForNode* f : loops) loop_vars.insert(f->loop_var.get());
  std::unordered_set<const VarNode*> used;
  Analyzer az;
  for (const ForNode* f : loops) az.bind(f->loop_var, Range{f->min, f->extent});
  for (const Expr& value : block->iter_values) {
    Expr v = az.simplify(value);
    std::unordered_set<const VarNode*> here;
    bool ok = true;
    // Only +, -, * by constant, floordiv/floormod by constant and loop vars.
    std::function<void(const Expr&)> walk = [&](const Expr& e) {
      if (!ok) return;
      if (e.as<IntImmNode>()) return;
      if (auto* var = e.as<VarNode>()) {
        if (!loop_vars.count(var)) ok = false;
        here.insert(var);
        return;
      }
      auto* bin = e.as<BinaryNode>();
      if (!bin) {
        ok = false;
        return;
      }
      switch (bin->kind) {
        case ExprKind::Add: case ExprKind::Sub:
          walk(bin->a);
          walk(bin->b);
          return;
        case ExprKind::Mul:
          if (!as_const_int(bin->a) && !as_const_int(bin->b)) ok = false;
          walk(bin->a);
          walk(bin->b);
          return;
        case ExprKind::FloorDiv: case ExprKind::FloorMod:
          if (!as_const_int(bin->b)) ok = false;
          walk(bin->a);
          return;
        default:
          ok = false;
      }
    };
    walk(v);
    if (!ok) return false;
    for (const VarNode* var : here) {
      // A loop variable shared by two values is fine only through
      // floordiv/floormod of a fused loop; keep the rule simple and strict.
      if (used.count(var) && !value.as<BinaryNode>()) return false;
      used.insert(var);
    }
  }
  return true;
}

bool uses_var(const Expr& e, const VarNode* v) {
  VarUse u(v);
  u.visit(e);
  return u.found;
}

bool uses_var(const Stmt& s, const VarNode* v) {
  VarUse u(v);
  u.visit(s);
  return u.found;
}

}  // namespace tirc
