// The last steps of a tree reduction (passes/tree_reductions.cpp) within
// one warp: warp shuffles instead of shared memory and a barrier per step.
//
// The steps, at block level, each a threadIdx.x loop of half the last one's
// iterations down to one,
//
//   for t in threadIdx.x(h):     P[b + t] = P[b + t] op P[b + t + h]
//   for t in threadIdx.x(h / 2): P[b + t] = P[b + t] op P[b + t + h / 2]
//   ...
//   for t in threadIdx.x(1):     P[b + t] = P[b + t] op P[b + t + 1]
//
// with h at most half a warp, run on the block's first warp: lane l holds
// v = P[b + l] (l < 2h), and each step is v = v op shfl.down(v, h): lane
// l < h then holds what P[b + l] holds after the step, from the same two
// values in the same order, so the result is bit for bit the loops'. Each
// lane stores its value after the last step that changes its P[b + l]
// (the one of h > l >= h / 2; lane 0 after the last), which leaves P as
// the loops leave it: no reader of P needs to be known. Where 2h is under
// a warp, the lanes past it read what lower lanes write, so the warp
// synchronizes (bar.warp.sync) between the loads and the stores.
#include <llvm/IR/IntrinsicsNVPTX.h>

#include "codegen/llvm/cuda_emitter.h"
#include "ir/arith/linear_form.h"
#include "ir/structural.h"

namespace tirc::llvm_gen {

namespace {

constexpr int64_t kWarp = 32;

// One step's parts: P, the base b, the half h, op.
struct Step {
  const BufferStoreNode* store;
  arith::LinearForm base;
  int64_t half;
  ExprKind op;
};

std::optional<Step> match_step(const Stmt& s) {
  auto* loop = s.as<ForNode>();
  if (!loop || loop->for_kind != ForKind::ThreadBinding || loop->thread_tag != "threadIdx.x" ||
      as_const_int(loop->min).value_or(1) != 0)
    return std::nullopt;
  const int64_t half = as_const_int(loop->extent).value_or(0);
  auto* store = loop->body.as<BufferStoreNode>();
  if (half < 1 || !store || store->indices.size() != 1) return std::nullopt;
  auto* op = store->value.as<BinaryNode>();
  if (!op || (op->kind != ExprKind::Add && op->kind != ExprKind::Max && op->kind != ExprKind::Min))
    return std::nullopt;
  auto* self = op->a.as<BufferLoadNode>();
  auto* pair = op->b.as<BufferLoadNode>();
  if (!self || !pair || self->buffer->data.get() != store->buffer->data.get() ||
      pair->buffer->data.get() != store->buffer->data.get() ||
      !structural_equal(self->indices[0], store->indices[0]))
    return std::nullopt;
  const DataType t = store->value.dtype();
  if (!t.is_scalar() || t.bits() != 32 || !(t.is_integer() || t.code() == DataType::Code::Float))
    return std::nullopt;
  const VarNode* var = loop->loop_var.get();
  arith::AffineRules rules;
  rules.of_interest = [&](const VarNode* v) { return v == var; };
  auto at = arith::decompose(store->indices[0], rules);
  auto other = arith::decompose(pair->indices[0], rules);
  if (!at || !other || at->coefficient(var) != 1) return std::nullopt;
  other->add(*at, -1);
  if (!other->is_constant() || other->constant != half) return std::nullopt;
  at->add_term(loop->loop_var, -1, arith::TermKind::Var);
  if (at->has_kind(arith::TermKind::Var)) return std::nullopt;
  return Step{store, *at, half, op->kind};
}

}  // namespace

std::optional<WarpTree> match_warp_tree(const std::vector<Stmt>& seq, size_t first,
                                        const KernelPlan& plan) {
  const KernelPlan::Axis* x = plan.axis("threadIdx.x");
  const int64_t launched = x ? as_const_int(x->extent).value_or(0) : 0;
  if (launched == 0 || launched % kWarp != 0) return std::nullopt;
  std::optional<Step> head = first < seq.size() ? match_step(seq[first]) : std::nullopt;
  if (!head || head->half > kWarp / 2 || (head->half & (head->half - 1)) != 0) return std::nullopt;
  size_t steps = 1;
  for (int64_t half = head->half / 2; half >= 1; half /= 2, ++steps) {
    std::optional<Step> next =
        first + steps < seq.size() ? match_step(seq[first + steps]) : std::nullopt;
    if (!next || next->half != half || next->op != head->op ||
        next->store->buffer->data.get() != head->store->buffer->data.get())
      return std::nullopt;
    arith::LinearForm same = next->base;
    same.add(head->base, -1);
    if (!same.is_constant() || same.constant != 0) return std::nullopt;
  }
  return WarpTree{steps, head->store->buffer, arith::emit(head->base), head->half, head->op};
}

void FunctionEmitter::warp_tree(const WarpTree& tree) {
  using namespace llvm;
  const DataType t = tree.parts->dtype;
  const DataType it = tree.base.dtype();
  Value* x = thread_index("threadIdx.x");
  Value* warp0 = b_.CreateICmpULT(x, b_.getInt32(kWarp));
  for (const char* tag : {"threadIdx.y", "threadIdx.z"})
    if (plan_->axis(tag))
      warp0 = b_.CreateAnd(warp0, b_.CreateICmpEQ(thread_index(tag), b_.getInt32(0)));
  BasicBlock* in = new_block("warp_tree");
  BasicBlock* done = new_block("warp_tree.done");
  b_.CreateCondBr(warp0, in, done);
  b_.SetInsertPoint(in);

  const Var lane = make_var("lane", it), mine = make_var("mine", t), theirs = make_var("theirs", t);
  bind(lane, b_.CreateZExtOrTrunc(x, value_type(c_, it)));
  // Lanes past the first 2h read inside that range too (their values do not
  // reach lane 0): P[b + (l mod 2h)].
  const Expr lane_in = make_binary(ExprKind::FloorMod, lane, make_int(2 * tree.first_half, it));
  Value* v = load(*make_load(tree.parts, {make_binary(ExprKind::Add, tree.base, lane_in)})
                       .as<BufferLoadNode>());
  Value* kept = v;  // the value lane l leaves in P[b + l]
  const bool is_float = t.is_float();
  const Intrinsic::ID down =
      is_float ? Intrinsic::nvvm_shfl_sync_down_f32 : Intrinsic::nvvm_shfl_sync_down_i32;
  for (int64_t half = tree.first_half; half >= 1; half /= 2) {
    Value* other =
        b_.CreateIntrinsic(down, {}, {b_.getInt32(-1), v, b_.getInt32(half), b_.getInt32(0x1f)});
    bind(mine, v);
    bind(theirs, other);
    v = expr(make_binary(tree.op, mine, theirs));
    // Lanes h / 2 <= l < h take their last value here.
    Value* last = b_.CreateAnd(b_.CreateICmpUGE(x, b_.getInt32(half / 2)),
                               b_.CreateICmpULT(x, b_.getInt32(half)));
    kept = b_.CreateSelect(last, v, kept);
  }
  unbind(mine);
  unbind(theirs);
  // Lanes at or past 2h read elements that lanes below h now overwrite. The
  // shuffles make every lane wait for the others but order no memory, so the
  // warp synchronizes before the stores (compute-sanitizer's racecheck
  // reported this as a hazard on an H200).
  if (2 * tree.first_half < kWarp)
    b_.CreateIntrinsic(Intrinsic::nvvm_bar_warp_sync, {}, {b_.getInt32(-1)});
  BasicBlock* write = new_block("warp_tree.store");
  b_.CreateCondBr(b_.CreateICmpULT(x, b_.getInt32(tree.first_half)), write, done);
  b_.SetInsertPoint(write);
  bind(mine, kept);
  store(*make_store(tree.parts, mine, {make_binary(ExprKind::Add, tree.base, lane)})
             .as<BufferStoreNode>());
  unbind(mine);
  unbind(lane);
  b_.CreateBr(done);
  b_.SetInsertPoint(done);
}

}  // namespace tirc::llvm_gen
