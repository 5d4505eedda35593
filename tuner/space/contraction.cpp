#include "tuner/space/contraction.h"

#include "ir/guarded_load.h"
#include "ir/var_use.h"
#include "schedule/analysis.h"

namespace tirc {

namespace {

const BufferLoadNode* load_of(const Expr& e) {
  return e.as<BufferLoadNode>();
}

}  // namespace

ContractionUpdate contraction_update(const BlockNode& b, ContractionTypes types) {
  const bool any = types == ContractionTypes::any;
  auto* st = b.body.as<BufferStoreNode>();
  if (!st || !b.init) return {};
  const DataType t = st->value.dtype();
  if (any ? t.lanes() != 1 : !t.is_float() || t.bits() != 32) return {};
  // A load of the element the store writes.
  auto accumulator = [st](const Expr& e) {
    auto* c = load_of(e);
    return c && c->buffer == st->buffer && same_indices(c->indices, st->indices);
  };
  // An operand: a load or a zero-guarded one, under a cast where any type goes.
  auto operand = [any](const Expr& e) {
    auto* cast = any ? e.as<CastNode>() : nullptr;
    return as_guarded_load(cast ? cast->value : e);
  };
  if (auto* mx = st->value.as<BinaryNode>(); mx && mx->kind == ExprKind::Max) {
    const GuardedLoad a = operand(mx->b);
    if (!accumulator(mx->a) || !a.load || a.guard) return {};
    return {st, a.load, nullptr, {}};
  }
  auto* add = st->value.as<BinaryNode>();
  if (!add || add->kind != ExprKind::Add) return {};
  for (int side = 0; side < 2; ++side) {
    auto* mul = (side ? add->a : add->b).as<BinaryNode>();
    if (!accumulator(side ? add->b : add->a) || !mul || mul->kind != ExprKind::Mul) continue;
    const GuardedLoad a = operand(mul->a), b = operand(mul->b);
    if (!a.load || !b.load) continue;
    ContractionUpdate u{st, a.load, b.load, {}};
    for (const Expr& g : {a.guard, b.guard})
      if (g) u.guards.push_back(g);
    return u;
  }
  return {};
}

bool load_uses(const BufferLoadNode& load, const VarNode* v) {
  for (const Expr& e : load.indices)
    if (uses_var(e, v)) return true;
  return false;
}

int loop_for_var(const BlockNest& nest, const ExprNode* v) {
  const BlockNode& b = *nest.realize->block;
  for (size_t l = 0; l < nest.loops.size(); ++l) {
    int it = nest.loops[l].iter;
    if (it >= 0 && v == static_cast<const ExprNode*>(b.iter_vars[it].var.get()))
      return static_cast<int>(l);
  }
  return -1;
}

int columns_loop(const BlockNest& nest, const BufferStoreNode& st, size_t* dims, int* blocks) {
  const size_t n = st.indices.size();
  *dims = 1;
  *blocks = -1;
  if (int l = loop_for_var(nest, st.indices[n - 1].get()); l >= 0) return l;
  if (auto* add = st.indices[n - 1].as<BinaryNode>(); add && add->kind == ExprKind::Add) {
    for (int side = 0; side < 2; ++side) {
      auto* mul = (side ? add->b : add->a).as<BinaryNode>();
      const Expr& inner = side ? add->a : add->b;
      if (!mul || mul->kind != ExprKind::Mul) continue;
      auto e = as_const_int(mul->b);
      const int a = loop_for_var(nest, mul->a.get()), b = loop_for_var(nest, inner.get());
      if (e && a >= 0 && b >= 0 && nest.loops[b].extent == *e) {
        *blocks = a;
        return b;
      }
    }
  }
  Expr v = n >= 2 ? split_pair(st.buffer, st.indices[n - 2], st.indices[n - 1], n - 2) : Expr();
  if (!v) return -1;
  *dims = 2;
  return loop_for_var(nest, v.get());
}

int rows_loop(const BlockNest& nest, const ContractionUpdate& u, int jl, int fallback) {
  const BlockNode& b = *nest.realize->block;
  auto var = [&](int l) { return b.iter_vars[nest.loops[l].iter].var.get(); };
  const VarNode* j = var(jl);
  if (!u.b) return fallback;  // max(C, A): nothing is broadcast
  const BufferLoadNode* vec = load_uses(*u.a, j) ? u.a : u.b;
  const BufferLoadNode* bcast = vec == u.a ? u.b : u.a;
  if (load_uses(*bcast, j)) return fallback;
  for (int l = static_cast<int>(nest.loops.size()) - 1; l >= 0; --l) {
    if (l == jl || !nest.loops[l].spatial) continue;
    if (!load_uses(*vec, var(l)) && load_uses(*bcast, var(l))) return l;
  }
  return fallback;
}

std::optional<BlockRV> zero_pad_producer(Schedule& sch, BlockRV block, const ContractionUpdate& u) {
  for (BlockRV p : sch.get_producers(block)) {
    std::optional<BlockNest> n = describe_nest(sch, p);
    if (!n) continue;
    auto* st = n->realize->block->body.as<BufferStoreNode>();
    if (!st || !as_guarded_load(st->value).guard) continue;
    if (st->buffer == u.a->buffer || (u.b && st->buffer == u.b->buffer)) return p;
  }
  return std::nullopt;
}

}  // namespace tirc
