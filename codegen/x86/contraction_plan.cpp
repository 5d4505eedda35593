// Recognises contraction nests and plans their register tiling
// (rules in contraction_plan.h).
#include "codegen/x86/contraction_plan.h"

#include <algorithm>
#include <set>
#include <sstream>

#include "ir/arith/analyzer.h"
#include "ir/arith/linear_form.h"
#include "ir/conjuncts.h"
#include "ir/functor.h"
#include "ir/guarded_load.h"
#include "ir/structural.h"
#include "ir/var_use.h"

namespace tirc {
namespace {

using Role = ContractionPlan::LoopRole;

// An index as constant + sum(coef * nest variable) + sum(scale * invariant
// subtree), 64-bit, looking through integer casts. The invariant subtrees
// stay unmerged and in order: invariant_offset rebuilds them as written.
std::optional<arith::LinearForm> decompose(const Expr& e, const std::set<const VarNode*>& nest) {
  if (has_load(e)) return std::nullopt;  // indirect indices are not affine
  arith::AffineRules rules;
  rules.of_interest = [&](const VarNode* v) { return nest.count(v) > 0; };
  rules.whole_invariant_subtrees = true;
  rules.look_through_int_casts = true;
  rules.merge_terms = false;
  return arith::decompose(e, rules);
}

// The invariant part as one int64 expression.
Expr invariant_offset(const arith::LinearForm& idx,
                      const std::vector<ContractionPlan::Loop>& loops) {
  int64_t constant = idx.constant;
  for (const auto& l : loops) constant += idx.coefficient(l.var.get()) * l.min;
  Expr sum = make_int(constant, DataType::int64());
  for (const auto& [term, scale, kind] : idx.terms) {
    if (kind != arith::TermKind::Invariant) continue;
    Expr t = term.dtype() == DataType::int64() ? term : make_cast(DataType::int64(), term);
    if (scale != 1) t = make_binary(ExprKind::Mul, t, make_int(scale, DataType::int64()));
    sum = constant == 0 && sum.as<IntImmNode>() ? t : make_binary(ExprKind::Add, sum, t);
    constant = 1;  // only the first term may replace a zero constant
  }
  return sum;
}

// The load if it reads one float32 element by one flat index, else null.
const BufferLoadNode* flat_f32(const BufferLoadNode* load) {
  if (!load || load->dtype != DataType::float32() || load->indices.size() != 1 || !load->buffer ||
      !load->buffer->data)
    return nullptr;
  return load;
}

const BufferLoadNode* as_f32_load(const Expr& e) {
  return flat_f32(e.as<BufferLoadNode>());
}

struct Update {
  const BufferStoreNode* store = nullptr;
  const BufferLoadNode* a = nullptr;
  const BufferLoadNode* b = nullptr;  // null for max(C, A)
  Expr guard_a, guard_b;              // if_then_else(guard, A[a], 0): zero where it fails
};

// A float32 load, or `if_then_else(cond, load, 0)` (a pad inlined into a
// convolution) with *guard set to cond.
const BufferLoadNode* guarded_load(const Expr& e, Expr* guard) {
  GuardedLoad g = as_guarded_load(e);
  *guard = g.guard;
  return flat_f32(g.load);
}

bool is_c_load(const Expr& e, const BufferStoreNode* store) {
  auto* load = as_f32_load(e);
  return load && load->buffer->data == store->buffer->data &&
         structural_equal(load->indices[0], store->indices[0]);
}

bool match_product(const Expr& e, Update& u) {
  if (e.kind() != ExprKind::Mul) return false;
  auto* mul = e.as<BinaryNode>();
  u.a = guarded_load(mul->a, &u.guard_a);
  u.b = guarded_load(mul->b, &u.guard_b);
  return u.a && u.b;
}

// C[c] = C[c] + A*B, A*B + C[c], fma(A, B, C[c]), or max(C[c], A).
std::optional<Update> match_update(const Stmt& s, std::string& why) {
  auto* store = s.as<BufferStoreNode>();
  if (!store) {
    why = std::string("innermost statement is a ") + to_string(s.kind()) + ", not a store";
    return std::nullopt;
  }
  if (!store->buffer || store->buffer->dtype != DataType::float32() ||
      store->value.dtype() != DataType::float32() || store->indices.size() != 1 ||
      !store->buffer->data) {
    why = "store is not a scalar float32 store with one index";
    return std::nullopt;
  }
  Update u;
  u.store = store;
  const Expr& v = store->value;
  bool ok = false;
  if (v.kind() == ExprKind::Add) {
    auto* add = v.as<BinaryNode>();
    if (is_c_load(add->a, store)) ok = match_product(add->b, u);
    if (!ok && is_c_load(add->b, store)) ok = match_product(add->a, u);
  } else if (auto* call = v.as<CallNode>(); call && call->op == "fma" && call->args.size() == 3) {
    u.a = guarded_load(call->args[0], &u.guard_a);
    u.b = guarded_load(call->args[1], &u.guard_b);
    ok = u.a && u.b && is_c_load(call->args[2], store);
  } else if (v.kind() == ExprKind::Max) {
    // The accumulator first: x86 max returns its second operand on NaN.
    auto* mx = v.as<BinaryNode>();
    u.a = as_f32_load(mx->b);
    ok = u.a && is_c_load(mx->a, store);
  }
  if (!ok) {
    why = "store is not C[c] = C[c] + A[a] * B[b] or max(C[c], A[a])";
    return std::nullopt;
  }
  if (u.a->buffer->data == store->buffer->data ||
      (u.b && u.b->buffer->data == store->buffer->data)) {
    why = "an operand reads the accumulated buffer";
    return std::nullopt;
  }
  return u;
}

int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

// Vector registers the C tile needs when the scope starts at loops[t], or -1
// when the C elements it covers are not distinct (two iterations would hold
// the same element in different accumulators).
int64_t tile_accumulators(const ContractionPlan& p, int t, int64_t budget) {
  int64_t count = 1;
  std::vector<const ContractionPlan::Loop*> spatial;
  for (int i = t; i < static_cast<int>(p.loops.size()); ++i) {
    const auto& l = p.loops[i];
    if (l.stride_c == 0) continue;
    count *= i == p.vector_loop ? ceil_div(l.extent, p.vector_lanes) : l.extent;
    if (count > budget) return count;
    spatial.push_back(&l);
  }
  // Distinct elements: enumerate the (small) tile's C offsets.
  std::set<int64_t> seen;
  std::vector<int64_t> iv(spatial.size(), 0);
  for (;;) {
    int64_t off = 0;
    for (size_t i = 0; i < spatial.size(); ++i) off += iv[i] * spatial[i]->stride_c;
    if (!seen.insert(off).second) return -1;
    size_t d = spatial.size();
    for (;;) {
      if (d == 0) return count;
      --d;
      if (++iv[d] < spatial[d]->extent) break;
      iv[d] = 0;
    }
  }
}

// plan.init from the init nest before the update nest at plan.tile_scope:
// its loops must be the tile's C-varying loops in order (same ranges and C
// strides), its C offset the update's, its value a float32 constant or a
// load contiguous or invariant along the vector loop.
bool plan_init(ContractionPlan& plan, const Stmt& nest, std::set<const VarNode*> vars,
               std::string& why) {
  std::vector<ContractionPlan::Loop> loops(plan.loops.begin(),
                                           plan.loops.begin() + plan.tile_scope);
  std::vector<int> tile;  // the plan's loop for each init loop
  for (int i = plan.tile_scope; i < static_cast<int>(plan.loops.size()); ++i)
    if (plan.loops[i].stride_c != 0) tile.push_back(i);
  Stmt body = nest;
  while (auto* f = body.as<ForNode>()) {
    auto mn = as_const_int(f->min), ext = as_const_int(f->extent);
    const size_t k = loops.size() - static_cast<size_t>(plan.tile_scope);
    if (!mn || !ext || k >= tile.size() || *mn != plan.loops[tile[k]].min ||
        *ext != plan.loops[tile[k]].extent) {
      why = "the init nest's loops are not the register tile's";
      return false;
    }
    ContractionPlan::Loop l;
    l.var = f->loop_var;
    l.min = *mn;
    l.extent = *ext;
    loops.push_back(l);
    vars.insert(f->loop_var.get());
    body = f->body;
  }
  auto* store = body.as<BufferStoreNode>();
  if (loops.size() - static_cast<size_t>(plan.tile_scope) != tile.size() || !store ||
      store->indices.size() != 1 || !store->buffer || store->buffer->data != plan.c.data) {
    why = "the init nest does not store the register tile";
    return false;
  }
  ContractionPlan::Init init;
  init.present = true;
  std::optional<arith::LinearForm> value;
  if (auto* f = store->value.as<FloatImmNode>(); f && f->dtype == DataType::float32()) {
    init.constant = static_cast<float>(f->value);
  } else if (auto* load = as_f32_load(store->value); load && load->buffer->data != plan.c.data) {
    init.load = true;
    value = decompose(load->indices[0], vars);
    if (!value) {
      why = "the init value's index is not affine";
      return false;
    }
    init.value = {load->buffer->data, Expr()};
  } else {
    why = "the init value is not a float32 constant or load";
    return false;
  }
  auto c = decompose(store->indices[0], vars);
  if (!c) {
    why = "the init's C index is not affine";
    return false;
  }
  // Outer loops and tile loops alike: the init loop at position i stands for
  // plan loop i (outer) or tile[i - scope].
  for (size_t i = 0; i < loops.size(); ++i) {
    const int p = i < static_cast<size_t>(plan.tile_scope)
                      ? static_cast<int>(i)
                      : tile[i - static_cast<size_t>(plan.tile_scope)];
    if (c->coefficient(loops[i].var.get()) != plan.loops[p].stride_c) {
      why = "the init nest writes C in another order than the tile";
      return false;
    }
    if (value) plan.loops[p].stride_init = value->coefficient(loops[i].var.get());
  }
  if (!structural_equal(invariant_offset(*c, loops), plan.c.offset)) {
    why = "the init nest writes another part of C";
    return false;
  }
  if (value) {
    const int64_t s = plan.loops[plan.vector_loop].stride_init;
    if (s != 0 && s != 1) {
      why = "the init value is neither contiguous nor invariant along the vector loop";
      return false;
    }
    init.value.offset = invariant_offset(*value, loops);
  }
  plan.init = init;
  return true;
}

// The conjuncts of a guard as affine tests on the nest's iterations, or
// false with why set: every variable must be one the emitter fixes at each
// product (an unrolled loop, a tile loop other than the vector loop, an
// outer loop of one iteration) and every conjunct a comparison.
bool plan_guard(const ContractionPlan& plan, const Expr& guard,
                const std::set<const VarNode*>& nest_vars,
                std::vector<ContractionPlan::GuardTest>& out, std::string& why) {
  for (const Expr& c : conjuncts(guard)) {
    const ExprKind k = c.kind();
    auto* cmp = c.as<BinaryNode>();
    if (!cmp || !is_comparison(k) || !cmp->a.dtype().is_int() || cmp->a.dtype().lanes() != 1) {
      why = "a guard is not a conjunction of integer comparisons";
      return false;
    }
    // Simplified first: variables known where the nest is emitted have been
    // replaced by their values, leaving constant terms such as 0 * 2.
    auto diff = decompose(simplify(make_binary(ExprKind::Sub, cmp->a, cmp->b)), nest_vars);
    if (!diff || diff->has_kind(arith::TermKind::Invariant)) {
      why = "a guard depends on a value the nest does not fix";
      return false;
    }
    ContractionPlan::GuardTest t;
    t.kind = k;
    t.constant = diff->constant;
    for (size_t i = 0; i < plan.loops.size(); ++i) {
      const auto& l = plan.loops[i];
      const int64_t coef = diff->coefficient(l.var.get());
      if (coef == 0) continue;
      t.constant += coef * l.min;
      if (l.extent == 1) continue;
      const bool fixed = l.role == ContractionPlan::LoopRole::Unrolled;
      if (!fixed) {
        why = "a guard depends on loop '" + l.var->name + "', which is not unrolled";
        return false;
      }
      t.coeff.emplace_back(static_cast<int>(i), coef);
    }
    out.push_back(std::move(t));
  }
  return true;
}

}  // namespace

bool ContractionPlan::GuardTest::holds(const std::vector<int64_t>& iteration) const {
  int64_t v = constant;
  for (const auto& [loop, c] : coeff) v += c * iteration[static_cast<size_t>(loop)];
  return compare_values(kind, v, int64_t{0});
}

std::string ContractionPlan::summary() const {
  static const char* kRole[] = {"outer", "tile", "unroll", "vector"};
  std::ostringstream os;
  os << "loops[";
  for (size_t i = 0; i < loops.size(); ++i) {
    const auto& l = loops[i];
    if (i) os << ' ';
    os << l.var->name << ':' << l.extent << ':' << kRole[static_cast<int>(l.role)];
    if (l.unroll > 1) os << 'x' << l.unroll;
  }
  os << "] scope=" << tile_scope << " vector=" << vector_loop << " lanes=" << vector_lanes
     << " tail=" << vector_tail;
  if (vector_stride != 1) os << " stride=" << vector_stride;
  if (combine == Combine::Max) os << " combine=max";
  if (init.present) os << " init=" << (init.load ? "load" : "constant");
  if (!guard_a.empty() || !guard_b.empty())
    os << " guards=" << guard_a.size() << '/' << guard_b.size();
  os << " broadcast="
     << (both_vectors     ? '-'
         : a_is_broadcast ? 'A'
                          : 'B')
     << " acc=" << accumulators << " fmas=" << unrolled_fmas;
  return os.str();
}

std::optional<ContractionPlan> plan_contraction(const ForNode& root, const Target& target,
                                                const PlanLimits& limits, std::string* why_not) {
  std::string why;
  auto refuse = [&](std::string reason) -> std::optional<ContractionPlan> {
    if (why_not) *why_not = std::move(reason);
    return std::nullopt;
  };

  ContractionPlan plan;
  plan.vector_lanes = target.f32_lanes();
  std::set<const VarNode*> nest_vars;
  const ForNode* loop = &root;
  Stmt innermost, init_nest;
  int init_at = 0;  // the update nest's first loop when there is an init nest
  for (;;) {
    if (loop->for_kind == ForKind::Parallel || loop->for_kind == ForKind::ThreadBinding)
      return refuse("loop '" + loop->loop_var->name + "' is " + to_string(loop->for_kind));
    auto mn = as_const_int(loop->min), ext = as_const_int(loop->extent);
    if (!mn || !ext) return refuse("loop '" + loop->loop_var->name + "' has a non-constant range");
    if (*ext <= 0) return refuse("loop '" + loop->loop_var->name + "' is empty");
    ContractionPlan::Loop l;
    l.var = loop->loop_var;
    l.min = *mn;
    l.extent = *ext;
    plan.loops.push_back(l);
    nest_vars.insert(loop->loop_var.get());
    if (auto* inner = loop->body.as<ForNode>()) {
      loop = inner;
      continue;
    }
    if (auto* seq = loop->body.as<SeqStmtNode>();
        seq && seq->seq.size() == 2 && seq->seq[1].as<ForNode>() && !init_nest) {
      init_nest = seq->seq[0];
      init_at = static_cast<int>(plan.loops.size());
      loop = seq->seq[1].as<ForNode>();
      continue;
    }
    innermost = loop->body;
    break;
  }
  auto update = match_update(innermost, why);
  if (!update) return refuse(why);

  const bool max = !update->b;
  if (max) plan.combine = ContractionPlan::Combine::Max;
  auto c = decompose(update->store->indices[0], nest_vars);
  auto a = decompose(update->a->indices[0], nest_vars);
  // Max has no B: a constant stand-in keeps every stride of B zero.
  auto b = max ? std::optional<arith::LinearForm>(arith::LinearForm(DataType::int64(), false))
               : decompose(update->b->indices[0], nest_vars);
  if (!c || !a || !b) return refuse("an index is not affine in the nest's loop variables");
  for (auto& l : plan.loops) {
    l.stride_c = c->coefficient(l.var.get());
    l.stride_a = a->coefficient(l.var.get());
    l.stride_b = b->coefficient(l.var.get());
  }
  plan.c = {update->store->buffer->data, invariant_offset(*c, plan.loops)};
  plan.a = {update->a->buffer->data, invariant_offset(*a, plan.loops)};
  plan.b = max ? plan.a
               : ContractionPlan::Access{update->b->buffer->data, invariant_offset(*b, plan.loops)};

  const int n = static_cast<int>(plan.loops.size());
  // Unit stride first; a stride-2 operand costs a permute per load.
  for (int64_t stride : {1, 2}) {
    for (int i = n - 1; i >= 0 && plan.vector_loop < 0; --i) {
      const auto& l = plan.loops[i];
      if (l.stride_c != 1) continue;
      if ((l.stride_a == 0 && l.stride_b == stride) || (l.stride_a == stride && l.stride_b == 0)) {
        plan.vector_loop = i;
        plan.vector_stride = static_cast<int>(stride);
        plan.a_is_broadcast = l.stride_a == 0;
      }
    }
  }
  for (int i = n - 1; i >= 0 && plan.vector_loop < 0 && !max; --i) {
    const auto& l = plan.loops[i];
    if (l.stride_c == 1 && l.stride_a == 1 && l.stride_b == 1) {
      plan.vector_loop = i;
      plan.a_is_broadcast = false;
      plan.both_vectors = true;
    }
  }
  if (plan.vector_loop < 0)
    return refuse(
        "no loop has unit stride in C and stride 1 or 2 in one operand with the other invariant "
        "(or unit stride in both)");
  plan.vector_tail = static_cast<int>(plan.loops[plan.vector_loop].extent % plan.vector_lanes);

  const int64_t budget = target.vector_registers() - limits.reserved_vector_registers;
  if (budget < 1) return refuse("no vector registers left for accumulators");
  int scope = -1;
  int64_t accumulators = 0;
  for (int t = init_at; t <= plan.vector_loop; ++t) {
    int64_t acc = tile_accumulators(plan, t, budget);
    if (acc >= 1 && acc <= budget) {
      scope = t;
      accumulators = acc;
      break;
    }
  }
  if (scope < 0)
    return refuse("the C tile does not fit in " + std::to_string(budget) +
                  " registers at any scope");
  plan.tile_scope = scope;
  plan.accumulators = static_cast<int>(accumulators);
  if (init_nest) {
    if (scope != init_at) return refuse("the init nest writes more than the register tile");
    if (!plan_init(plan, init_nest, nest_vars, why)) return refuse(why);
  }

  // Roles inside the scope: C-varying loops unrolled into the tile;
  // reductions unrolled from the innermost outward within the FMA bound.
  int64_t fmas = accumulators;
  bool counted_inside = false;
  for (int i = n - 1; i >= scope; --i) {
    auto& l = plan.loops[i];
    if (i == plan.vector_loop) {
      l.role = Role::Vector;
    } else if (l.stride_c != 0) {
      l.role = Role::Unrolled;
    } else if (!counted_inside && fmas * l.extent <= limits.max_unrolled_fmas) {
      l.role = Role::Unrolled;
      fmas *= l.extent;
    } else {
      l.role = Role::TileLoop;
      if (!counted_inside) {
        for (int64_t u = std::min<int64_t>(l.extent, limits.max_unrolled_fmas / fmas); u > 1; --u)
          if (l.extent % u == 0) {
            l.unroll = u;
            break;
          }
        fmas *= l.unroll;
        counted_inside = true;
      }
    }
  }
  plan.unrolled_fmas = static_cast<int>(fmas);
  if (update->guard_a || update->guard_b) {
    if (max) return refuse("a max operand is guarded");
    if ((update->guard_a && !plan_guard(plan, update->guard_a, nest_vars, plan.guard_a, why)) ||
        (update->guard_b && !plan_guard(plan, update->guard_b, nest_vars, plan.guard_b, why)))
      return refuse(why);
  }
  return plan;
}

}  // namespace tirc
