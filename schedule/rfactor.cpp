// rfactor: splits a commutative reduction into partial reductions over one
// loop (stored in a new buffer with one more dimension) and a final reduction
// of those partial results. The partial reductions start from the reducer's
// identity; the final one keeps the block's init, which may be any value of
// the output's position (a convolution's bias: C = bias + sum of the parts),
// where TVM requires the identity.
#include <algorithm>
#include <cmath>
#include <limits>

#include "ir/arith/region.h"
#include "ir/substitute.h"
#include "schedule/analysis.h"
#include "schedule/buffer_rewrite.h"
#include "schedule/schedule.h"
#include "schedule/state.h"

namespace tirc {

namespace {

constexpr const char* kPrimitive = "rfactor";

// `buf[idx] = buf[idx] <op> rhs` (or `rhs <op> buf[idx]`) with op commutative.
struct Reducer {
  ExprKind op;
  Buffer buffer;
  std::vector<Expr> indices;
  Expr rhs;
  bool load_on_left;
};

bool loads_buffer(const Expr& e, const Buffer& b) {
  bool found = false;
  struct Finder : ExprVisitor {
    const Buffer& b;
    bool& found;
    Finder(const Buffer& buf, bool& f) : b(buf), found(f) {}
    void visit_load(const BufferLoadNode* n) override {
      found |= n->buffer == b;
      ExprVisitor::visit_load(n);
    }
  } finder(b, found);
  finder.visit(e);
  return found;
}

std::optional<Reducer> match_reducer(const Stmt& body) {
  auto* store = body.as<BufferStoreNode>();
  if (!store) return std::nullopt;
  auto* bin = store->value.as<BinaryNode>();
  if (!bin) return std::nullopt;
  if (bin->kind != ExprKind::Add && bin->kind != ExprKind::Mul && bin->kind != ExprKind::Min &&
      bin->kind != ExprKind::Max)
    return std::nullopt;
  auto is_self = [&](const Expr& e) {
    auto* load = e.as<BufferLoadNode>();
    return load && load->buffer == store->buffer && same_indices(load->indices, store->indices);
  };
  for (bool left : {true, false}) {
    const Expr& self = left ? bin->a : bin->b;
    const Expr& rhs = left ? bin->b : bin->a;
    if (is_self(self) && !loads_buffer(rhs, store->buffer))
      return Reducer{bin->kind, store->buffer, store->indices, rhs, left};
  }
  return std::nullopt;
}

Expr identity_of(ExprKind op, DataType t) {
  const bool is_max = op == ExprKind::Max;
  switch (op) {
    case ExprKind::Add:
      return make_const(t, 0);
    case ExprKind::Mul:
      return make_const(t, 1);
    default:
      break;
  }
  if (t.is_float())
    return make_float(
        is_max ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity(),
        t);
  const int bits = t.bits();
  if (t.is_uint())
    return make_int(is_max ? 0 : static_cast<int64_t>((uint64_t{1} << (bits - 1)) * 2 - 1), t);
  const int64_t hi =
      bits >= 64 ? std::numeric_limits<int64_t>::max() : (int64_t{1} << (bits - 1)) - 1;
  return make_int(is_max ? -hi - 1 : hi, t);
}

Expr combine(const Reducer& r, const Expr& self, const Expr& rhs) {
  return r.load_on_left ? make_binary(r.op, self, rhs) : make_binary(r.op, rhs, self);
}

std::vector<Expr> insert_at(std::vector<Expr> v, size_t axis, Expr e) {
  v.insert(v.begin() + static_cast<std::ptrdiff_t>(axis), std::move(e));
  return v;
}

// The new block's regions from its body. A reduction block that left its
// output out of T.reads (as TVM prints them) gives blocks that leave theirs
// out too, as TVM's rfactor does, so that a trace's buffer indices after
// rfactor name the same buffers in both.
Block finish(std::shared_ptr<BlockNode> b, bool list_own_output) {
  AccessRegions regions = infer_access_regions(*b);
  b->writes = regions.writes;
  b->reads.clear();
  for (const BufferRegion& r : regions.reads)
    if (list_own_output || !b->init || !writes_buffer(*b, r.buffer)) b->reads.push_back(r);
  return b;
}

}  // namespace

BlockRV Schedule::rfactor(LoopRV loop, int factor_axis) {
  const LoopEntry le = resolve(loop, kPrimitive);
  const std::string& func = le.func;
  const PrimFunc f = mod_.at(func);
  const std::string loop_name = le.var->name;
  StmtPath lpath = *find_loop(f->body, le.var.get());
  auto* rf_loop = lpath.node().as<ForNode>();

  // ---- checks ----
  std::vector<const BlockRealizeNode*> under = collect_blocks(lpath.node());
  if (under.size() != 1)
    throw ScheduleError(kPrimitive, "loop " + loop_name +
                                        " must contain exactly one block, found " +
                                        std::to_string(under.size()));
  const BlockRealizeNode* realize = under[0];
  const BlockNode& blk = *realize->block;
  StmtPath bpath = *find_block(f->body, blk.name);
  std::vector<const ForNode*> loops = enclosing_loops(bpath);
  const BlockRealizeNode* scope = enclosing_block(bpath);
  if (!scope || loops.empty())
    throw ScheduleError(kPrimitive,
                        "block " + blk.name + " is not under a loop nest of a scope block");
  Stmt top;  // the outermost loop of the block's nest
  for (const Stmt& s : bpath.stmts)
    if (s.get() == loops.front()) top = s;
  if (collect_blocks(top).size() != 1)
    throw ScheduleError(kPrimitive,
                        "the loop nest of block " + blk.name + " contains other blocks");
  bool has_reduce = std::any_of(blk.iter_vars.begin(), blk.iter_vars.end(),
                                [](const IterVar& iv) { return iv.kind == IterKind::Reduce; });
  if (!blk.init || !has_reduce)
    throw ScheduleError(kPrimitive, "block " + blk.name + " is not a reduction block");
  const bool lists_output =
      std::any_of(blk.writes.begin(), blk.writes.end(),
                  [&](const BufferRegion& w) { return reads_buffer(blk, w.buffer); });
  if (!is_const_int(realize->predicate, 1))
    throw ScheduleError(kPrimitive,
                        "block " + blk.name + " has a predicate (T.where), which is not supported");
  bool binds_reduce = false;
  for (size_t i = 0; i < blk.iter_vars.size(); ++i) {
    if (!uses_var(realize->iter_values[i], le.var.get())) continue;
    if (blk.iter_vars[i].kind != IterKind::Reduce)
      throw ScheduleError(kPrimitive, "loop " + loop_name + " binds spatial variable " +
                                          blk.iter_vars[i].var->name + " of block " + blk.name);
    binds_reduce = true;
  }
  if (!binds_reduce)
    throw ScheduleError(kPrimitive, "loop " + loop_name +
                                        " does not bind a reduction variable of block " + blk.name);
  // Every loop of the nest becomes a spatial or a reduction variable of the
  // rfactor block: a loop feeding both kinds (spatial and reduction loops
  // fused) would make the new reduction variable span several outputs, whose
  // init then runs only for the first.
  for (const ForNode* l : loops) {
    bool spatial = false, reduce = false;
    for (size_t i = 0; i < blk.iter_vars.size(); ++i) {
      if (!uses_var(realize->iter_values[i], l->loop_var.get())) continue;
      (blk.iter_vars[i].kind == IterKind::Reduce ? reduce : spatial) = true;
    }
    if (spatial && reduce)
      throw ScheduleError(kPrimitive, "loop " + l->loop_var->name +
                                          " binds both spatial and reduction variables of block " +
                                          blk.name);
  }
  std::optional<Reducer> red = match_reducer(blk.body);
  if (!red)
    throw ScheduleError(kPrimitive,
                        "the update of block " + blk.name +
                            " is not a commutative reduction (+, *, min, max) of its output");
  // The init moves to the final reduction, whose iterations are the block's
  // spatial ones: it may read other buffers (a bias) but not the output, nor
  // depend on a reduction variable.
  auto* init_store = blk.init.as<BufferStoreNode>();
  if (!init_store || init_store->buffer != red->buffer ||
      !same_indices(init_store->indices, red->indices))
    throw ScheduleError(kPrimitive, "the init of block " + blk.name +
                                        " does not store into the reduction's element");
  for (const IterVar& iv : blk.iter_vars)
    if (iv.kind == IterKind::Reduce && uses_var(init_store->value, iv.var.get()))
      throw ScheduleError(kPrimitive, "the init of block " + blk.name +
                                          " depends on reduction variable " + iv.var->name);
  if (loads_buffer(init_store->value, red->buffer))
    throw ScheduleError(kPrimitive,
                        "the init of block " + blk.name + " reads its output " + red->buffer->name);
  auto extent = as_const_int(rf_loop->extent);
  if (!extent || !is_const_int(rf_loop->min, 0))
    throw ScheduleError(kPrimitive,
                        "loop " + loop_name + " must start at 0 and have a constant extent");
  const int ndim = static_cast<int>(red->buffer->ndim());
  const int axis = factor_axis < 0 ? factor_axis + ndim + 1 : factor_axis;
  if (axis < 0 || axis > ndim)
    throw ScheduleError(kPrimitive, "factor_axis " + std::to_string(factor_axis) +
                                        " is out of range [" + std::to_string(-ndim - 1) + ", " +
                                        std::to_string(ndim) + "] for buffer " + red->buffer->name);

  // ---- the partial-result buffer ----
  std::vector<Expr> rf_shape =
      insert_at(red->buffer->shape, static_cast<size_t>(axis), make_int(*extent));
  Buffer rf_buf =
      make_buffer(red->buffer->name + "_rf", red->buffer->dtype, rf_shape, red->buffer->scope);

  // ---- the rfactor block: the loop's variable becomes spatial ----
  auto rf = std::make_shared<BlockNode>();
  rf->name = unique_block_name(func, blk.name + "_rf");
  rf->annotations = blk.annotations;
  std::vector<Expr> rf_values;
  Var rf_iter = make_var("v" + loop_name, le.var->dtype);
  rf->iter_vars.push_back(
      IterVar{rf_iter, Range{make_int(0), make_int(*extent)}, IterKind::DataPar, {}});
  rf_values.push_back(le.var);
  VarMap rf_map;
  VarMap loop_to_iter{{le.var.get(), rf_iter}};
  for (size_t i = 0; i < blk.iter_vars.size(); ++i) {
    const IterVar& iv = blk.iter_vars[i];
    const Expr& value = realize->iter_values[i];
    if (iv.kind == IterKind::DataPar || !uses_var(value, le.var.get())) {
      Var nv = make_var(iv.var->name, iv.var->dtype);
      rf_map[iv.var.get()] = nv;
      rf->iter_vars.push_back(IterVar{nv, iv.dom, iv.kind, iv.thread_tag});
      rf_values.push_back(value);
      continue;
    }
    // A reduce variable over the rfactor loop and others: one reduce variable
    // per other loop, the rfactor loop replaced by the new spatial variable.
    for (const ForNode* l : loops) {
      if (l == rf_loop || !uses_var(value, l->loop_var.get()) ||
          loop_to_iter.count(l->loop_var.get()))
        continue;
      Var nv = make_var("v" + l->loop_var->name, l->loop_var->dtype);
      loop_to_iter[l->loop_var.get()] = nv;
      rf->iter_vars.push_back(IterVar{nv, Range{l->min, l->extent}, IterKind::Reduce, {}});
      rf_values.push_back(l->loop_var);
    }
    rf_map[iv.var.get()] = substitute(value, loop_to_iter);
  }
  std::vector<Expr> rf_indices;
  for (const Expr& e : red->indices) rf_indices.push_back(substitute(e, rf_map));
  rf_indices = insert_at(rf_indices, static_cast<size_t>(axis), rf_iter);
  Expr rf_self = make_load(rf_buf, rf_indices);
  rf->init = make_store(rf_buf, identity_of(red->op, rf_buf->dtype), rf_indices);
  rf->body = make_store(rf_buf, combine(*red, rf_self, substitute(red->rhs, rf_map)), rf_indices);
  Stmt rf_realize = make_block_realize(rf_values, realize->predicate, finish(rf, lists_output));

  // ---- the write-back block, under copies of the loops it needs ----
  std::vector<const ForNode*> wb_loops;
  for (const ForNode* l : loops) {
    bool needed = l == rf_loop;
    for (size_t i = 0; i < blk.iter_vars.size() && !needed; ++i)
      needed = blk.iter_vars[i].kind == IterKind::DataPar &&
               uses_var(realize->iter_values[i], l->loop_var.get());
    if (needed) wb_loops.push_back(l);
  }
  VarMap wb_loop_map;
  std::vector<Var> wb_loop_vars;
  for (const ForNode* l : wb_loops) {
    wb_loop_vars.push_back(make_var(l->loop_var->name, l->loop_var->dtype));
    wb_loop_map[l->loop_var.get()] = wb_loop_vars.back();
  }
  auto wb = std::make_shared<BlockNode>();
  wb->name = blk.name;
  wb->annotations = blk.annotations;
  Var wb_rf_iter = make_var("v" + loop_name, le.var->dtype);
  wb->iter_vars.push_back(
      IterVar{wb_rf_iter, Range{make_int(0), make_int(*extent)}, IterKind::Reduce, {}});
  std::vector<Expr> wb_values{wb_loop_map.at(le.var.get())};
  SpatialIterVars spatial = copy_spatial_iter_vars(blk);
  wb->iter_vars.insert(wb->iter_vars.end(), spatial.iter_vars.begin(), spatial.iter_vars.end());
  for (size_t i : spatial.positions)
    wb_values.push_back(substitute(realize->iter_values[i], wb_loop_map));
  std::vector<Expr> wb_indices;
  for (const Expr& e : red->indices) wb_indices.push_back(substitute(e, spatial.map));
  Expr partial = make_load(rf_buf, insert_at(wb_indices, static_cast<size_t>(axis), wb_rf_iter));
  wb->init = substitute(blk.init, spatial.map);
  wb->body = make_store(red->buffer, combine(*red, make_load(red->buffer, wb_indices), partial),
                        wb_indices);
  Stmt wb_nest = make_block_realize(wb_values, make_bool(true), finish(wb, lists_output));
  // New loops (own variables, no source location) copying the originals'
  // ranges, kinds, thread tags and annotations.
  for (size_t i = wb_loops.size(); i-- > 0;) {
    const ForNode* l = wb_loops[i];
    wb_nest = make_for(wb_loop_vars[i], l->min, l->extent, l->for_kind, wb_nest, l->thread_tag,
                       l->annotations);
  }

  // ---- splice: the rfactor nest then the write-back nest, rf buffer in scope ----
  Stmt rf_nest = replace_stmt(top, realize, rf_realize);
  auto new_scope = std::make_shared<BlockNode>(*scope->block);
  new_scope->body = replace_stmt(scope->block->body, top.get(), make_seq({rf_nest, wb_nest}));
  new_scope->alloc_buffers.push_back(rf_buf);
  Stmt body = replace_stmt(f->body, scope, with_block(*scope, new_scope));
  update_func(func, with_body(f, body), "rfactor");

  BlockRV out = new_block_rv(func, rf->name);
  record(Instruction{
      kPrimitive, {}, {{"loop", trace_rv(loop)}, {"factor_axis", factor_axis}}, {trace_rv(out)}});
  return out;
}

}  // namespace tirc
