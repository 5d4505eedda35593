// tensorize: replaces a block's body by a tensor intrinsic's implementation
// when the body computes what the intrinsic's description computes.
#include <unordered_map>
#include <unordered_set>

#include "ir/arith/analyzer.h"
#include "ir/functor.h"
#include "ir/substitute.h"
#include "ir/text/printer.h"
#include "schedule/blockize_impl.h"
#include "schedule/schedule.h"
#include "schedule/state.h"
#include "schedule/tensor_intrin.h"

namespace tirc {

namespace {

constexpr const char* kPrimitive = "tensorize";

// The region the block accesses of a buffer (its write region when it
// writes it), or nullptr.
const BufferRegion* region_of(const BlockNode& block, const Buffer& b) {
  for (const auto* list : {&block.writes, &block.reads})
    for (const BufferRegion& r : *list)
      if (r.buffer == b) return &r;
  return nullptr;
}

// Structural comparison of an intrinsic description with a block body.
// Variables of the description map to the block's variables where they are
// defined; buffers map on first use; every index must equal the block's
// region minimum plus the description's index.
class IntrinMatcher {
 public:
  explicit IntrinMatcher(const BlockNode& target) : target_(target) {}

  std::string mismatch;
  std::unordered_map<const BufferNode*, Buffer> buffers;

  bool stmt(const Stmt& d, const Stmt& t) {
    if (!d || !t) return (!d && !t) || fail("one side has a statement the other lacks");
    if (d.kind() != t.kind())
      return fail(std::string("expected a ") + to_string(d.kind()) + " statement, found " +
                  to_string(t.kind()));
    switch (d.kind()) {
      case StmtKind::For: {
        auto *a = d.as<ForNode>(), *b = t.as<ForNode>();
        if (!expr(a->min, b->min) || !expr(a->extent, b->extent)) return fail("loop ranges differ");
        vars_[a->loop_var.get()] = b->loop_var;
        return stmt(a->body, b->body);
      }
      case StmtKind::BlockRealize: {
        auto *a = d.as<BlockRealizeNode>(), *b = t.as<BlockRealizeNode>();
        const BlockNode &ab = *a->block, &bb = *b->block;
        if (ab.iter_vars.size() != bb.iter_vars.size())
          return fail("block " + bb.name + " has " + std::to_string(bb.iter_vars.size()) +
                      " iteration variables, the intrinsic's " +
                      std::to_string(ab.iter_vars.size()));
        for (size_t i = 0; i < ab.iter_vars.size(); ++i) {
          const IterVar &x = ab.iter_vars[i], &y = bb.iter_vars[i];
          if (x.kind != y.kind || !expr(x.dom.min, y.dom.min) || !expr(x.dom.extent, y.dom.extent))
            return fail("iteration variable " + y.var->name + " of block " + bb.name +
                        " differs in kind or domain");
          if (!expr(a->iter_values[i], b->iter_values[i]))
            return fail("bindings of " + y.var->name + " differ");
          vars_[x.var.get()] = y.var;
        }
        if (!expr(a->predicate, b->predicate))
          return fail("predicates of block " + bb.name + " differ");
        if (!ab.alloc_buffers.empty() || !bb.alloc_buffers.empty() || !bb.match_buffers.empty())
          return fail("block " + bb.name + " allocates or matches buffers");
        return stmt(ab.init, bb.init) && stmt(ab.body, bb.body);
      }
      case StmtKind::Seq: {
        auto &a = d.as<SeqStmtNode>()->seq, &b = t.as<SeqStmtNode>()->seq;
        if (a.size() != b.size()) return fail("statement sequences differ in length");
        for (size_t i = 0; i < a.size(); ++i)
          if (!stmt(a[i], b[i])) return false;
        return true;
      }
      case StmtKind::BufferStore: {
        auto *a = d.as<BufferStoreNode>(), *b = t.as<BufferStoreNode>();
        return access(a->buffer, a->indices, b->buffer, b->indices) && expr(a->value, b->value);
      }
      case StmtKind::Evaluate:
        return expr(d.as<EvaluateNode>()->value, t.as<EvaluateNode>()->value);
      case StmtKind::IfThenElse: {
        auto *a = d.as<IfThenElseNode>(), *b = t.as<IfThenElseNode>();
        return expr(a->cond, b->cond) && stmt(a->then_case, b->then_case) &&
               stmt(a->else_case, b->else_case);
      }
      default:
        return fail(std::string("cannot match a ") + to_string(d.kind()) + " statement");
    }
  }

  bool expr(const Expr& d, const Expr& t) {
    if (d.kind() != t.kind() || d.dtype() != t.dtype())
      return fail("expression " + print_expr(t) + " does not match " + print_expr(d));
    switch (d.kind()) {
      case ExprKind::IntImm:
        return d.as<IntImmNode>()->value == t.as<IntImmNode>()->value ||
               fail("constants differ: " + print_expr(t));
      case ExprKind::FloatImm:
        return d.as<FloatImmNode>()->value == t.as<FloatImmNode>()->value ||
               fail("constants differ: " + print_expr(t));
      case ExprKind::Var: {
        auto it = vars_.find(d.as<VarNode>());
        if (it == vars_.end() || !it->second.same_as(t))
          return fail("variable " + print_expr(t) + " differs");
        return true;
      }
      case ExprKind::BufferLoad: {
        auto *a = d.as<BufferLoadNode>(), *b = t.as<BufferLoadNode>();
        return access(a->buffer, a->indices, b->buffer, b->indices);
      }
      case ExprKind::Not:
        return expr(d.as<NotNode>()->a, t.as<NotNode>()->a);
      case ExprKind::Cast:
        return expr(d.as<CastNode>()->value, t.as<CastNode>()->value);
      case ExprKind::Select: {
        auto *a = d.as<SelectNode>(), *b = t.as<SelectNode>();
        return expr(a->cond, b->cond) && expr(a->true_value, b->true_value) &&
               expr(a->false_value, b->false_value);
      }
      case ExprKind::Call: {
        auto *a = d.as<CallNode>(), *b = t.as<CallNode>();
        if (a->op != b->op || a->args.size() != b->args.size())
          return fail("calls differ: " + print_expr(t));
        for (size_t i = 0; i < a->args.size(); ++i)
          if (!expr(a->args[i], b->args[i])) return false;
        return true;
      }
      case ExprKind::Ramp: {
        auto *a = d.as<RampNode>(), *b = t.as<RampNode>();
        return a->lanes == b->lanes && expr(a->base, b->base) && expr(a->stride, b->stride);
      }
      case ExprKind::Broadcast: {
        auto *a = d.as<BroadcastNode>(), *b = t.as<BroadcastNode>();
        return a->lanes == b->lanes && expr(a->value, b->value);
      }
      case ExprKind::StringImm:
        return d.as<StringImmNode>()->value == t.as<StringImmNode>()->value;
      default: {
        auto *a = d.as<BinaryNode>(), *b = t.as<BinaryNode>();
        return expr(a->a, b->a) && expr(a->b, b->b);
      }
    }
  }

 private:
  bool fail(const std::string& why) {
    if (mismatch.empty()) mismatch = why;
    return false;
  }

  bool access(const Buffer& db, const std::vector<Expr>& di, const Buffer& tb,
              const std::vector<Expr>& ti) {
    auto it = buffers.find(db.get());
    if (it == buffers.end()) {
      if (used_.count(tb.get()))
        return fail("buffer " + tb->name + " plays two roles of the intrinsic");
      if (db->dtype != tb->dtype)
        return fail("buffer " + tb->name + " has type " + tb->dtype.str() + ", the intrinsic's " +
                    db->name + " has " + db->dtype.str());
      it = buffers.emplace(db.get(), tb).first;
      used_.insert(tb.get());
    } else if (it->second != tb) {
      return fail("the intrinsic's buffer " + db->name + " is " + it->second->name + " here but " +
                  tb->name + " elsewhere");
    }
    const BufferRegion* region = region_of(target_, tb);
    if (!region) return fail("buffer " + tb->name + " is not in the block's reads or writes");
    const size_t rank = region->region.size(), drank = di.size();
    if (ti.size() != rank || drank > rank || db->ndim() != drank)
      return fail("the access to " + tb->name + " has a different number of dimensions");
    const size_t lead = rank - drank;
    for (size_t k = 0; k < rank; ++k) {
      const Range& r = region->region[k];
      Expr want = r.min;
      if (k < lead) {
        if (!is_const_int(r.extent, 1))
          return fail("the region of " + tb->name + " has more dimensions than the intrinsic's " +
                      db->name);
      } else {
        if (!az_.can_prove_equal(r.extent, db->shape[k - lead]))
          return fail("the region of " + tb->name + " does not have the shape of the intrinsic's " +
                      db->name);
        want = r.min + substitute(di[k - lead], vars_);
      }
      if (!az_.can_prove_equal(want, ti[k]))
        return fail("index " + print_expr(ti[k]) + " of " + tb->name + " is not " +
                    print_expr(az_.simplify(want)));
    }
    return true;
  }

  const BlockNode& target_;
  VarMap vars_;
  std::unordered_set<const BufferNode*> used_;
  Analyzer az_;
};

class BufferRenamer : public StmtMutator {
 public:
  explicit BufferRenamer(std::unordered_map<const BufferNode*, Buffer> map)
      : map_(std::move(map)) {}

 protected:
  Buffer mutate_buffer(const Buffer& b) override {
    auto it = map_.find(b.get());
    return it == map_.end() ? b : it->second;
  }

 private:
  std::unordered_map<const BufferNode*, Buffer> map_;
};

// The body of a function inside its implicit root block.
Stmt inside_root(const PrimFunc& f) {
  if (auto* r = f->body.as<BlockRealizeNode>(); r && r->block->name == "root")
    return r->block->body;
  return f->body;
}

// A fresh copy of an implementation buffer, for one match_buffer. Its
// symbolic strides and offset (variables the match binds, which the
// implementation's body may use) get fresh variables, recorded in `fresh`,
// so that two tensorized blocks never share one.
Buffer fresh_view(const Buffer& impl, const Buffer& source, VarMap& fresh) {
  auto n = std::make_shared<BufferNode>(*impl);
  n->name = source->name;
  n->data = make_var(source->name, DataType::handle());
  n->scope = source->scope;
  auto renew = [&](Expr& e) {
    auto* v = e ? e.as<VarNode>() : nullptr;
    if (!v) return;
    auto it = fresh.find(v);
    if (it == fresh.end()) it = fresh.emplace(v, make_var(v->name, v->dtype)).first;
    e = it->second;
  };
  for (Expr& stride : n->strides) renew(stride);
  renew(n->elem_offset);
  return n;
}

}  // namespace

void Schedule::tensorize(BlockOrLoop target, const std::string& intrin, bool preserve_unit_iters) {
  std::string func;
  std::string block_name;
  Stmt body;
  if (auto* b = std::get_if<BlockRV>(&target)) {
    const BlockEntry& e = resolve(*b, kPrimitive);
    func = e.func;
    block_name = e.name;
    body = mod_.at(func)->body;
  } else {
    const LoopEntry& e = resolve(std::get<LoopRV>(target), kPrimitive);
    func = e.func;
    BlockizeOutcome out =
        blockize_loop(mod_.at(func)->body, e.var.get(), preserve_unit_iters, kPrimitive);
    body = out.body;
    block_name = out.outer_name;
  }
  const TensorIntrin* ti = find_tensor_intrin(intrin);
  if (!ti) throw ScheduleError(kPrimitive, "unknown tensor intrinsic " + intrin);
  StmtPath bpath = *find_block(body, block_name);
  auto* realize = bpath.node().as<BlockRealizeNode>();
  const BlockNode& blk = *realize->block;

  if (blk.init)
    throw ScheduleError(
        kPrimitive,
        "block " + blk.name +
            " has an init; decompose_reduction first so that only the update is tensorized");
  IntrinMatcher matcher(blk);
  if (!matcher.stmt(inside_root(ti->desc), blk.body))
    throw ScheduleError(kPrimitive, "block " + blk.name + " does not match intrinsic " + intrin +
                                        ": " + matcher.mismatch);
  if (!blk.match_buffers.empty())
    throw ScheduleError(kPrimitive, "block " + blk.name + " already has match_buffers");

  auto out = std::make_shared<BlockNode>(blk);
  std::unordered_map<const BufferNode*, Buffer> rename;
  VarMap fresh;
  const auto& dparams = ti->desc->params;
  const auto& iparams = ti->impl->params;
  for (size_t i = 0; i < dparams.size() && i < iparams.size(); ++i) {
    if (!dparams[i].buffer || !iparams[i].buffer) continue;
    auto it = matcher.buffers.find(dparams[i].buffer.get());
    if (it == matcher.buffers.end())
      throw ScheduleError(kPrimitive, "block " + blk.name + " does not match intrinsic " + intrin +
                                          ": buffer " + dparams[i].buffer->name +
                                          " of the intrinsic is not used");
    Buffer view = fresh_view(iparams[i].buffer, it->second, fresh);
    rename[iparams[i].buffer.get()] = view;
    out->match_buffers.push_back(MatchBufferRegion{view, *region_of(blk, it->second)});
  }
  out->body = substitute(BufferRenamer(rename).mutate(inside_root(ti->impl)), fresh);
  Stmt new_body = replace_stmt(body, realize, with_block(*realize, out));

  const PrimFunc f = mod_.at(func);
  update_func(func, with_body(f, new_body), "tensorize");
  record(Instruction{kPrimitive,
                     {},
                     {{"block_or_loop", trace_value(target)},
                      {"tensor_intrin", intrin},
                      {"preserve_unit_iters", preserve_unit_iters}},
                     {}});
}

}  // namespace tirc
