// cache_read and cache_write: a copy of a buffer in another storage scope,
// filled (or written back) by a copy block over the buffer's whole shape placed
// at the top level of the block's scope, as TVM places it before compute_at.
#include <algorithm>

#include "ir/arith/analyzer.h"
#include "ir/arith/linear_form.h"
#include "schedule/analysis.h"
#include "schedule/buffer_rewrite.h"
#include "schedule/schedule.h"

namespace tirc {

namespace {

// Names built from a scope ("shared.dyn") must stay identifiers.
std::string cache_name(const Buffer& buf, const std::string& scope) {
  std::string name = buf->name + "_" + scope;
  for (char& c : name)
    if (c == '.' || c == '-') c = '_';
  return name;
}

// Consumer handles resolved to the direct children of `loc`'s scope.
std::vector<const BlockRealizeNode*> resolve_consumers(const Schedule& sch,
                                                       const std::vector<BlockRV>& rvs,
                                                       const BlockInScope& loc,
                                                       const std::string& func,
                                                       const char* primitive) {
  std::vector<const BlockRealizeNode*> out;
  auto children = child_blocks(Stmt(loc.scope->block));
  for (BlockRV rv : rvs) {
    const Schedule::BlockEntry& e = sch.resolve(rv, primitive);
    const BlockRealizeNode* found = nullptr;
    for (const BlockRealizeNode* c : children)
      if (c->block->name == e.name) found = c;
    if (e.func != func || !found)
      throw ScheduleError(primitive, "consumer block " + e.name + " is not in the scope of block " +
                                         loc.realize->block->name);
    out.push_back(found);
  }
  return out;
}

TraceList consumer_list(const Schedule& sch, const std::vector<BlockRV>& rvs) {
  TraceList l(rvs.size());
  for (size_t i = 0; i < rvs.size(); ++i) l[i].v = sch.trace_rv(rvs[i]);
  return l;
}

// The scope block with the consumers' accesses of `from` redirected to `to`.
Stmt redirect(Stmt scope, const std::vector<const BlockRealizeNode*>& blocks, const Buffer& from,
              const Buffer& to) {
  for (const BlockRealizeNode* r : blocks) {
    Stmt old = find_block(scope, r->block->name)->node();
    scope = replace_stmt(scope, old.get(), replace_buffer(old, from, to));
  }
  return scope;
}

// True when the block's write of buf, over its iteration domain, reaches
// every element: each dimension is either the whole extent or an index that
// distinct iteration variables (used in no other dimension) number exactly
// [0, extent): one variable over that range, or several as the digits of a
// mixed radix (`o * 16 + i` for o in [0, 8), i in [0, 16): an output whose
// channels a layout split into blocks).
bool writes_whole_buffer(const BlockNode& b, const Buffer& buf) {
  const BufferRegion* region = nullptr;
  for (const BufferRegion& r : b.writes)
    if (r.buffer == buf) region = &r;
  if (!region || region->region.size() != buf->shape.size()) return false;
  Analyzer ana;
  for (const IterVar& iv : b.iter_vars) ana.bind(iv.var, iv.dom);
  auto domain_of = [&](const VarNode* v) -> const IterVar* {
    for (const IterVar& iv : b.iter_vars)
      if (iv.var.get() == v) return &iv;
    return nullptr;
  };
  std::vector<const VarNode*> used;
  for (size_t d = 0; d < buf->shape.size(); ++d) {
    const Range& r = region->region[d];
    auto shape = as_const_int(buf->shape[d]);
    auto extent = as_const_int(ana.simplify(r.extent));
    auto min = as_const_int(ana.simplify(r.min));
    if (!shape || !extent) return false;
    if (min && *min == 0 && *extent == *shape) continue;
    if (*extent != 1) return false;
    arith::LinearForm form = arith::decompose(ana.simplify(r.min));
    if (form.terms.empty() || form.constant != 0) return false;
    // The digits, least significant first: each coefficient the product of
    // the extents below it.
    std::vector<std::pair<int64_t, const VarNode*>> digits;
    for (const arith::LinearTerm& t : form.terms) {
      auto* var = t.term.as<VarNode>();
      if (!var || t.coef <= 0) return false;
      digits.push_back({t.coef, var});
    }
    std::sort(digits.begin(), digits.end(),
              [](const auto& x, const auto& y) { return x.first < y.first; });
    int64_t place = 1;
    for (const auto& [coef, var] : digits) {
      const IterVar* iv = domain_of(var);
      if (!iv || coef != place || std::find(used.begin(), used.end(), var) != used.end())
        return false;
      auto lo = as_const_int(iv->dom.min), n = as_const_int(iv->dom.extent);
      if (!lo || *lo != 0 || !n || *n <= 0 || __builtin_mul_overflow(place, *n, &place))
        return false;
      used.push_back(var);
    }
    if (place != *shape) return false;
  }
  return true;
}

// Whether `regions` hold all of `buf` (constant bounds).
bool covers_whole_buffer(const std::vector<BufferRegion>& regions, const Buffer& buf) {
  for (const BufferRegion& r : regions) {
    if (r.buffer != buf || r.region.size() != buf->shape.size()) continue;
    bool whole = true;
    for (size_t d = 0; d < buf->shape.size(); ++d) {
      auto min = as_const_int(simplify(r.region[d].min));
      auto extent = as_const_int(simplify(r.region[d].extent));
      auto shape = as_const_int(buf->shape[d]);
      whole &= min && extent && shape && *min == 0 && *extent == *shape;
    }
    if (whole) return true;
  }
  return false;
}

}  // namespace

BlockRV Schedule::cache_read(BlockRV block, int read_buffer_index, const std::string& storage_scope,
                             const std::vector<BlockRV>& consumer_blocks) {
  const char* P = "cache_read";
  const BlockEntry entry = resolve(block, P);
  const PrimFunc f = mod_.at(entry.func);
  BlockInScope loc = locate_block(f->body, entry.name, P);
  const BlockNode& blk = *loc.realize->block;
  Buffer src = block_buffer(blk, {false, read_buffer_index}, P);
  if (storage_scope.empty()) throw ScheduleError(P, "the storage scope is empty");
  if (writes_buffer(blk, src))
    throw ScheduleError(P, "block " + blk.name + " both reads and writes buffer " + src->name);
  // The cache copies the whole buffer, which an outer block must declare.
  const BlockNode& outer = *loc.scope->block;
  if (!(outer.name == "root" && outer.iter_vars.empty()) && !covers_whole_buffer(outer.reads, src))
    throw ScheduleError(P, "block " + outer.name + " around block " + blk.name +
                               " reads only part of buffer " + src->name);

  // The cache is filled after the last writer of the buffer in the scope.
  std::optional<size_t> last_writer;
  std::string last_writer_name;
  std::vector<const BlockRealizeNode*> readers;
  for (const BlockRealizeNode* c : child_blocks(Stmt(loc.scope->block))) {
    size_t at = top_index_of(loc.top, c).value_or(0);
    if (writes_buffer(*c->block, src)) {
      if (!last_writer || at >= *last_writer) {
        last_writer = at;
        last_writer_name = c->block->name;
      }
    } else if (reads_buffer(*c->block, src)) {
      readers.push_back(c);
    }
  }
  std::vector<const BlockRealizeNode*> consumers =
      consumer_blocks.empty() ? readers
                              : resolve_consumers(*this, consumer_blocks, loc, entry.func, P);
  for (const BlockRealizeNode* c : consumers) {
    const std::string& name = c->block->name;
    if (!reads_buffer(*c->block, src))
      throw ScheduleError(P, "consumer block " + name + " does not read buffer " + src->name);
    if (writes_buffer(*c->block, src))
      throw ScheduleError(P,
                          "consumer block " + name + " both reads and writes buffer " + src->name);
    if (last_writer && top_index_of(loc.top, c).value_or(0) <= *last_writer)
      throw ScheduleError(P, "block " + name + " reads buffer " + src->name +
                                 " before or in the loop nest where block " + last_writer_name +
                                 " writes it");
  }

  std::string name = unique_block_name(entry.func, cache_name(src, storage_scope));
  Buffer cache = make_buffer(name, src->dtype, src->shape, storage_scope);
  std::vector<Expr> mins;
  for (const Expr& e : src->shape) mins.push_back(make_int(0, e.dtype()));
  Stmt stage = make_copy_stage(name, mins, src->shape, [&](const std::vector<Var>& v) {
    std::vector<Expr> idx(v.begin(), v.end());
    return make_store(cache, make_load(src, idx), idx);
  });
  Stmt scope = redirect(Stmt(loc.scope->block), consumers, src, cache);
  Block new_scope =
      insert_stage(*scope.as<BlockNode>(), last_writer ? *last_writer + 1 : 0, stage, cache);
  Stmt body = replace_stmt(f->body, loc.scope, with_block(*loc.scope, new_scope));
  update_func(entry.func, with_body(f, body), "cache_read");

  BlockRV out = new_block_rv(entry.func, name);
  Instruction inst{"cache_read",
                   {},
                   {{"block", trace_rv(block)},
                    {"read_buffer_index", read_buffer_index},
                    {"storage_scope", storage_scope}},
                   {trace_rv(out)}};
  if (!consumer_blocks.empty())
    inst.keywords.push_back({"consumer_blocks", consumer_list(*this, consumer_blocks)});
  record(std::move(inst));
  return out;
}

BlockRV Schedule::cache_write(BlockRV block, int write_buffer_index,
                              const std::string& storage_scope,
                              const std::vector<BlockRV>& consumer_blocks) {
  const char* P = "cache_write";
  const BlockEntry entry = resolve(block, P);
  const PrimFunc f = mod_.at(entry.func);
  BlockInScope loc = locate_block(f->body, entry.name, P);
  const BlockNode& blk = *loc.realize->block;
  Buffer dst = block_buffer(blk, {true, write_buffer_index}, P);
  if (storage_scope.empty()) throw ScheduleError(P, "the storage scope is empty");
  // The write-back copies the whole buffer, so the block must produce all of it.
  if (!writes_whole_buffer(blk, dst))
    throw ScheduleError(P,
                        "block " + blk.name + " does not write the whole of buffer " + dst->name);
  // Inside an outer block each instance of that block writes only the part its
  // variables select, while the write-back copies the whole buffer.
  for (const IterVar& outer : loc.scope->block->iter_vars)
    for (const Expr& v : loc.realize->iter_values)
      if (uses_var(v, outer.var.get()))
        throw ScheduleError(P, "block " + blk.name + " does not write the whole of buffer " +
                                   dst->name + " within block " + loc.scope->block->name);

  std::vector<const BlockRealizeNode*> consumers =
      resolve_consumers(*this, consumer_blocks, loc, entry.func, P);
  for (const BlockRealizeNode* c : consumers) {
    const std::string& name = c->block->name;
    if (c == loc.realize) throw ScheduleError(P, "block " + name + " cannot be its own consumer");
    if (!reads_buffer(*c->block, dst))
      throw ScheduleError(P, "consumer block " + name + " does not read buffer " + dst->name);
    if (top_index_of(loc.top, c).value_or(0) < loc.top_index)
      throw ScheduleError(P, "consumer block " + name + " comes before block " + blk.name);
  }
  for (const BlockRealizeNode* c : child_blocks(Stmt(loc.scope->block))) {
    if (c == loc.realize) continue;
    const std::string& name = c->block->name;
    if (writes_buffer(*c->block, dst))
      throw ScheduleError(P, "buffer " + dst->name + " is also written by block " + name);
    bool redirected = false;
    for (const BlockRealizeNode* r : consumers) redirected |= r == c;
    // The write-back follows the block's whole loop nest: a reader of the
    // original buffer inside that nest would see it too late.
    if (!redirected && reads_buffer(*c->block, dst) && top_index_of(loc.top, c) == loc.top_index)
      throw ScheduleError(P, "block " + name + " reads buffer " + dst->name +
                                 " in the loop nest of block " + blk.name);
  }

  std::string name = unique_block_name(entry.func, cache_name(dst, storage_scope));
  Buffer cache = make_buffer(name, dst->dtype, dst->shape, storage_scope);
  std::vector<Expr> mins;
  for (const Expr& e : dst->shape) mins.push_back(make_int(0, e.dtype()));
  Stmt stage = make_copy_stage(name, mins, dst->shape, [&](const std::vector<Var>& v) {
    std::vector<Expr> idx(v.begin(), v.end());
    return make_store(dst, make_load(cache, idx), idx);
  });
  std::vector<const BlockRealizeNode*> redirected = consumers;
  redirected.push_back(loc.realize);
  Stmt scope = redirect(Stmt(loc.scope->block), redirected, dst, cache);
  Block new_scope = insert_stage(*scope.as<BlockNode>(), loc.top_index + 1, stage, cache);
  Stmt body = replace_stmt(f->body, loc.scope, with_block(*loc.scope, new_scope));
  update_func(entry.func, with_body(f, body), "cache_write");

  BlockRV out = new_block_rv(entry.func, name);
  Instruction inst{"cache_write",
                   {},
                   {{"block", trace_rv(block)},
                    {"write_buffer_index", write_buffer_index},
                    {"storage_scope", storage_scope}},
                   {trace_rv(out)}};
  if (!consumer_blocks.empty())
    inst.keywords.push_back({"consumer_blocks", consumer_list(*this, consumer_blocks)});
  record(std::move(inst));
  return out;
}

}  // namespace tirc
