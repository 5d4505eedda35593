// transform_layout (a buffer's elements moved by an index map) and reindex (a
// copy of a buffer indexed directly by a block's iteration variables).
#include <set>

#include "ir/arith/analyzer.h"
#include "ir/arith/linear_form.h"
#include "ir/functor.h"
#include "ir/structural.h"
#include "ir/substitute.h"
#include "schedule/analysis.h"
#include "schedule/buffer_rewrite.h"
#include "schedule/schedule.h"

namespace tirc {

namespace {

// Maps with more points than this are not enumerated to check bijectivity.
constexpr int64_t kMaxCheckedPoints = int64_t{1} << 22;

TraceValue buffer_index_value(BufferIndex index) {
  return TraceValue::Tuple{
      {TraceValue(index.is_write ? "write" : "read"), TraceValue(index.index)}};
}

// Rewrites every access of one buffer as an access of another with new
// indices, simplifying them under the bounds of the enclosing loops and
// iteration variables; recomputes the regions of blocks that access it.
class AccessRewriter : public StmtMutator {
 public:
  AccessRewriter(Buffer from, Buffer to,
                 std::function<std::vector<Expr>(const std::vector<Expr>&)> map)
      : from_(std::move(from)), to_(std::move(to)), map_(std::move(map)) {
    scopes_.emplace_back();
  }

 protected:
  Buffer mutate_buffer(const Buffer& b) override { return b == from_ ? to_ : b; }

  Expr mutate_load(const Expr& e, const BufferLoadNode* n) override {
    if (n->buffer != from_) return StmtMutator::mutate_load(e, n);
    std::vector<Expr> idx;
    mutate_all(n->indices, idx);
    return make_load(to_, remap(idx));
  }
  Stmt mutate_store(const Stmt& s, const BufferStoreNode* n) override {
    if (n->buffer != from_) return StmtMutator::mutate_store(s, n);
    std::vector<Expr> idx;
    mutate_all(n->indices, idx);
    return make_store(to_, mutate(n->value), remap(idx));
  }
  Stmt mutate_for(const Stmt& s, const ForNode* n) override {
    scopes_.push_back(scopes_.back());
    scopes_.back().bind(n->loop_var, Range::from_min_extent(n->min, n->extent));
    Stmt out = StmtMutator::mutate_for(s, n);
    scopes_.pop_back();
    return out;
  }
  Block mutate_block(const Block& b) override {
    scopes_.push_back(scopes_.back());
    for (const IterVar& iv : b->iter_vars) scopes_.back().bind(iv.var, iv.dom);
    Block out = StmtMutator::mutate_block(b);
    scopes_.pop_back();
    if (out != b && (reads_buffer(*out, to_) || writes_buffer(*out, to_)))
      out = refresh_regions(out, to_);
    return out;
  }

 private:
  std::vector<Expr> remap(const std::vector<Expr>& idx) {
    std::vector<Expr> out;
    for (const Expr& e : map_(idx)) out.push_back(scopes_.back().simplify(e));
    return out;
  }

  Buffer from_, to_;
  std::function<std::vector<Expr>(const std::vector<Expr>&)> map_;
  std::vector<Analyzer> scopes_;
};

// Every load and store of buf in s.
class AccessCollector : public StmtVisitor {
 public:
  explicit AccessCollector(Buffer buf) : buf_(std::move(buf)) {}
  std::vector<std::vector<Expr>> accesses;

 protected:
  void visit_load(const BufferLoadNode* n) override {
    if (n->buffer == buf_) accesses.push_back(n->indices);
    StmtVisitor::visit_load(n);
  }
  void visit_store(const BufferStoreNode* n) override {
    if (n->buffer == buf_) accesses.push_back(n->indices);
    StmtVisitor::visit_store(n);
  }

 private:
  Buffer buf_;
};

}  // namespace

void Schedule::transform_layout(BlockRV block, BufferIndex buffer, const IndexMap& index_map) {
  const char* P = "transform_layout";
  const BlockEntry entry = resolve(block, P);
  const PrimFunc f = mod_.at(entry.func);
  const BlockNode& blk = *find_block(f->body, entry.name)->node().as<BlockRealizeNode>()->block;
  Buffer buf = block_buffer(blk, buffer, P);
  if (index_map.params.size() != buf->shape.size())
    throw ScheduleError(P, "the index map takes " + std::to_string(index_map.params.size()) +
                               " indices but buffer " + buf->name + " has " +
                               std::to_string(buf->shape.size()) + " dimensions");
  if (index_map.results.empty()) throw ScheduleError(P, "the index map has no results");
  for (size_t r = 0; r < index_map.results.size(); ++r)
    if (!index_map.results[r] || !index_map.results[r].dtype().is_integer() ||
        !index_map.results[r].dtype().is_scalar())
      throw ScheduleError(
          P, "result " + std::to_string(r) + " of the index map is not an integer expression");
  if (!is_param_buffer(f, buf) && !is_allocated_buffer(f, buf))
    throw ScheduleError(P,
                        "buffer " + buf->name + " is neither a parameter nor allocated by a block");
  std::vector<int64_t> shape;
  int64_t points = 1;
  for (const Expr& e : buf->shape) {
    auto v = as_const_int(e);
    if (!v) throw ScheduleError(P, "buffer " + buf->name + " has a non-constant shape");
    shape.push_back(*v);
    points *= *v;
  }
  if (points > kMaxCheckedPoints)
    throw ScheduleError(
        P, "buffer " + buf->name + " is too large to check that the index map is a bijection");

  // The image of the old shape under the map, found by enumeration: its
  // bounding box is the new shape, and the map must fill the box exactly.
  std::vector<const VarNode*> params;
  for (const Var& v : index_map.params) params.push_back(v.get());
  const size_t nres = index_map.results.size();
  std::vector<int64_t> image;
  image.reserve(static_cast<size_t>(points) * nres);
  std::vector<int64_t> lo(nres, INT64_MAX), hi(nres, INT64_MIN);
  for_each_point(shape, [&](const std::vector<int64_t>& p) {
    for (size_t r = 0; r < nres; ++r) {
      auto v = eval_index(index_map.results[r], params, p);
      if (!v)
        throw ScheduleError(P, "result " + std::to_string(r) +
                                   " of the index map is not an integer function of its " +
                                   "parameters");
      image.push_back(*v);
      lo[r] = std::min(lo[r], *v);
      hi[r] = std::max(hi[r], *v);
    }
    return true;
  });
  std::vector<int64_t> new_shape(nres, 1);
  int64_t new_points = 1;
  for (size_t r = 0; r < nres && points > 0; ++r) {
    if (lo[r] != 0)
      throw ScheduleError(P, "result " + std::to_string(r) + " of the index map starts at " +
                                 std::to_string(lo[r]) + ", not 0");
    new_shape[r] = hi[r] + 1;
    new_points *= new_shape[r];
  }
  std::string not_bijective =
      "the index map is not a bijection from the shape of buffer " + buf->name;
  if (new_points != points) throw ScheduleError(P, not_bijective);
  std::vector<bool> hit(static_cast<size_t>(points), false);
  for (int64_t i = 0; i < points; ++i) {
    int64_t flat = 0;
    for (size_t r = 0; r < nres; ++r)
      flat = flat * new_shape[r] + image[static_cast<size_t>(i) * nres + r];
    if (hit[static_cast<size_t>(flat)]) throw ScheduleError(P, not_bijective);
    hit[static_cast<size_t>(flat)] = true;
  }

  auto node = std::make_shared<BufferNode>(*buf);
  DataType index_type = buf->shape.empty() ? DataType::int32() : buf->shape[0].dtype();
  node->shape.clear();
  for (int64_t e : new_shape) node->shape.push_back(make_int(e, index_type));
  node->strides.clear();
  Buffer moved = node;
  AccessRewriter rewriter(buf, moved, [&](const std::vector<Expr>& idx) {
    VarMap vmap;
    for (size_t d = 0; d < idx.size(); ++d) vmap[params[d]] = idx[d];
    std::vector<Expr> out;
    for (const Expr& r : index_map.results) out.push_back(substitute(r, vmap));
    return out;
  });
  Stmt body = rewriter.mutate(f->body);
  auto fn = std::make_shared<PrimFuncNode>(*f);
  fn->body = body;
  for (Param& p : fn->params)
    if (p.buffer == buf) p.buffer = moved;
  update_func(entry.func, fn, "transform_layout");
  record({"transform_layout",
          {},
          {{"block", trace_rv(block)},
           {"buffer", buffer_index_value(buffer)},
           {"index_map", std::make_shared<const IndexMap>(index_map)}},
          {}});
}

BlockRV Schedule::reindex(BlockRV block, BufferIndex buffer) {
  const char* P = "reindex";
  const BlockEntry entry = resolve(block, P);
  const PrimFunc f = mod_.at(entry.func);
  BlockInScope loc = locate_block(f->body, entry.name, P);
  const BlockNode& blk = *loc.realize->block;
  Buffer buf = block_buffer(blk, buffer, P);
  const std::string& bname = blk.name;
  if (!buffer.is_write && writes_buffer(blk, buf))
    throw ScheduleError(P, "block " + bname + " also writes buffer " + buf->name);
  if (buffer.is_write && reads_buffer(blk, buf) && !blk.init)
    throw ScheduleError(
        P, "block " + bname + " reads buffer " + buf->name + " without initializing it");

  // The copy spans the block's whole iteration domain, which inside an outer
  // block each instance only covers the part its variables select.
  for (const IterVar& outer : loc.scope->block->iter_vars)
    for (const Expr& v : loc.realize->iter_values)
      if (uses_var(v, outer.var.get()))
        throw ScheduleError(P, "block " + bname + " depends on the variables of block " +
                                   loc.scope->block->name + " around it");

  AccessCollector collector(buf);
  if (blk.init) collector.visit(blk.init);
  collector.visit(blk.body);
  if (collector.accesses.empty())
    throw ScheduleError(P, "block " + bname + " does not access buffer " + buf->name + " directly");
  const std::vector<Expr>& indices = collector.accesses.front();
  for (const auto& a : collector.accesses)
    if (!same_indices(a, indices))
      throw ScheduleError(
          P, "block " + bname + " accesses buffer " + buf->name + " at more than one index");

  // The iteration variables the access uses, in the block's order.
  std::vector<const IterVar*> used;
  for (const IterVar& iv : blk.iter_vars) {
    bool uses = false;
    for (const Expr& e : indices) uses |= uses_var(e, iv.var.get());
    if (uses) used.push_back(&iv);
  }
  auto is_iter_var = [&](const Expr& term) {
    for (const IterVar& iv : blk.iter_vars)
      if (term.get() == iv.var.get()) return true;
    return false;
  };
  for (const Expr& e : indices)
    for (const arith::LinearTerm& t : arith::decompose(simplify(e)).terms)
      if (!is_iter_var(t.term))
        throw ScheduleError(P, "the index of buffer " + buf->name + " in block " + bname +
                                   " is not affine in its iteration variables");
  std::vector<int64_t> extents;
  std::vector<const VarNode*> used_vars;
  int64_t points = 1;
  for (const IterVar* iv : used) {
    auto mn = as_const_int(iv->dom.min);
    auto ext = as_const_int(iv->dom.extent);
    if (!mn || !ext || *mn != 0)
      throw ScheduleError(P, "iteration variable " + iv->var->name + " of block " + bname +
                                 " does not range over a constant [0, extent)");
    extents.push_back(*ext);
    used_vars.push_back(iv->var.get());
    points *= *ext;
  }
  // The copy reads (or writes back) every point of the iteration domain; an
  // access the block only makes under a guard (padding's if_then_else) would
  // then leave the buffer.
  {
    Analyzer az;
    for (size_t k = 0; k < used.size(); ++k)
      az.bind(used[k]->var, Range::from_min_extent(make_int(0), make_int(extents[k])));
    for (size_t d = 0; d < indices.size() && d < buf->shape.size(); ++d) {
      ConstIntBound b = az.const_int_bound(indices[d]);
      auto dim = as_const_int(buf->shape[d]);
      if (!b.min || !b.max || !dim || *b.min < 0 || *b.max >= *dim)
        throw ScheduleError(P, "the access of buffer " + buf->name + " in block " + bname +
                                   " leaves the buffer over the block's iteration domain");
    }
  }
  // A write copied back must not send two elements to one place.
  if (buffer.is_write) {
    if (points > kMaxCheckedPoints)
      throw ScheduleError(
          P, "block " + bname + " has too many iterations to check its access of " + buf->name);
    std::set<std::vector<int64_t>> seen;
    for_each_point(extents, [&](const std::vector<int64_t>& p) {
      std::vector<int64_t> at;
      for (const Expr& e : indices) at.push_back(eval_index(e, used_vars, p).value_or(0));
      if (!seen.insert(at).second)
        throw ScheduleError(P, "block " + bname + " writes some element of buffer " + buf->name +
                                   " more than once");
      return true;
    });
  }
  for (const BlockRealizeNode* c : child_blocks(Stmt(loc.scope->block))) {
    // As for cache_write: with a second writer (the update of a decomposed
    // reduction after its init) the block would no longer initialize the
    // buffer the other one updates.
    if (buffer.is_write && c != loc.realize && writes_buffer(*c->block, buf))
      throw ScheduleError(P, "buffer " + buf->name + " is also written by block " + c->block->name);
    if (c == loc.realize || top_index_of(loc.top, c) != loc.top_index) continue;
    bool conflict =
        writes_buffer(*c->block, buf) || (buffer.is_write && reads_buffer(*c->block, buf));
    if (conflict)
      throw ScheduleError(P, "block " + c->block->name + " accesses buffer " + buf->name +
                                 " in the loop nest of block " + bname);
  }

  std::string name = unique_block_name(entry.func, buf->name + "_reindex");
  std::vector<Expr> shape, mins;
  for (const IterVar* iv : used) {
    shape.push_back(iv->dom.extent);
    mins.push_back(iv->dom.min);
  }
  Buffer re = make_buffer(name, buf->dtype, shape, buf->scope);
  std::vector<Expr> direct;
  for (const IterVar* iv : used) direct.push_back(iv->var);
  AccessRewriter rewriter(buf, re, [&](const std::vector<Expr>&) { return direct; });
  Stmt new_realize = rewriter.mutate(loc.path.node());

  Stmt stage = make_copy_stage(name, mins, shape, [&](const std::vector<Var>& v) {
    VarMap vmap;
    for (size_t i = 0; i < used.size(); ++i) vmap[used[i]->var.get()] = v[i];
    std::vector<Expr> at;
    for (const Expr& e : indices) at.push_back(simplify(substitute(e, vmap)));
    std::vector<Expr> vs(v.begin(), v.end());
    if (buffer.is_write) return make_store(buf, make_load(re, vs), at);
    return make_store(re, make_load(buf, at), vs);
  });
  Stmt scope = replace_stmt(Stmt(loc.scope->block), loc.realize, new_realize);
  Block new_scope = insert_stage(*scope.as<BlockNode>(),
                                 buffer.is_write ? loc.top_index + 1 : loc.top_index, stage, re);
  Stmt body = replace_stmt(f->body, loc.scope, with_block(*loc.scope, new_scope));
  update_func(entry.func, with_body(f, body), "reindex");

  BlockRV out = new_block_rv(entry.func, name);
  record({"reindex",
          {},
          {{"block", trace_rv(block)}, {"buffer", buffer_index_value(buffer)}},
          {trace_rv(out)}});
  return out;
}

}  // namespace tirc
