// lower-blocks: blocks become plain statements over their bound values.
#include <unordered_map>

#include "ir/arith/analyzer.h"
#include "ir/functor.h"
#include "ir/substitute.h"
#include "ir/var_use.h"
#include "passes/pass_util.h"
#include "passes/passes.h"

namespace tirc {

using namespace passes;

namespace {

// Guards carry the block's location for later diagnostics.
Stmt guarded(Expr cond, Stmt body, const SourceLoc& loc) {
  auto n = std::make_shared<IfThenElseNode>(std::move(cond), std::move(body), Stmt());
  n->loc = loc;
  return Stmt(std::move(n));
}

// Every variable f defines other than as a match_buffer's stride or
// elem_offset: its parameters (and their buffers' symbolic shapes, strides
// and offsets) and what its statements define.
VarSet defined_in(const PrimFunc& f) {
  VarSet defs = defined_vars(f->body);
  auto add = [&](const Expr& e) {
    if (auto* v = e ? e.as<VarNode>() : nullptr) defs.insert(v);
  };
  for (const Param& p : f->params) {
    if (p.var) defs.insert(p.var.get());
    if (!p.buffer) continue;
    if (p.buffer->data) defs.insert(p.buffer->data.get());
    for (const auto* list : {&p.buffer->shape, &p.buffer->strides})
      for (const Expr& e : *list) add(e);
    add(p.buffer->elem_offset);
  }
  return defs;
}

class BlockLowerer : public StmtMutator {
 public:
  BlockLowerer(bool keep_thread_bindings, VarSet defined)
      : keep_thread_bindings_(keep_thread_bindings), defined_(std::move(defined)) {}

  Stmt lower_top(const Stmt& s) {
    if (auto* b = s.as<BlockNode>()) return lower_block(*b, {}, make_bool(true), b->loc);
    return mutate(s);
  }

 protected:
  Stmt mutate_for(const Stmt& s, const ForNode* n) override {
    if (n->for_kind == ForKind::ThreadBinding && !keep_thread_bindings_)
      throw Error("thread-bound loop '" + n->loop_var->name + "' (thread \"" + n->thread_tag +
                      "\") has no meaning on a CPU target",
                  n->loc);
    return StmtMutator::mutate_for(s, n);
  }

  Block mutate_block(const Block& b) override {
    throw Error("block '" + b->name + "' without T.block binding cannot be lowered here", b->loc);
  }

  Stmt mutate_block_realize(const Stmt&, const BlockRealizeNode* n) override {
    return lower_block(*n->block, n->iter_values, n->predicate, n->loc);
  }

  Buffer mutate_buffer(const Buffer& b) override {
    auto it = views_.find(b.get());
    return it == views_.end() ? b : it->second;
  }

 private:
  bool keep_thread_bindings_;

  Stmt lower_block(const BlockNode& b, const std::vector<Expr>& values, const Expr& predicate,
                   const SourceLoc& loc) {
    if (values.size() != b.iter_vars.size())
      throw Error("block '" + b.name + "' binds " + std::to_string(values.size()) + " values to " +
                      std::to_string(b.iter_vars.size()) + " iteration variables",
                  loc);
    VarMap vmap;
    for (size_t i = 0; i < values.size(); ++i) vmap[b.iter_vars[i].var.get()] = values[i];

    // view_of adds the match_buffers' free stride/elem_offset variables to
    // vmap; nested blocks see them through matched_.
    std::vector<const VarNode*> matched_here;
    for (const MatchBufferRegion& m : b.match_buffers)
      views_[m.buffer.get()] = view_of(m, vmap, matched_here, loc);
    for (const VarNode* v : matched_here) matched_[v] = vmap.at(v);

    Stmt body = mutate(substitute(b.body, vmap));
    if (b.init) {
      Stmt init = mutate(substitute(b.init, vmap));
      std::vector<Expr> first_step;
      for (size_t i = 0; i < values.size(); ++i)
        if (b.iter_vars[i].kind == IterKind::Reduce)
          first_step.push_back(
              values[i] == cast_index(substitute(b.iter_vars[i].dom.min, vmap), values[i].dtype()));
      if (!first_step.empty()) init = guarded(conjunction(first_step), init, loc);
      body = make_seq({init, body});
    }
    for (const VarNode* v : matched_here) matched_.erase(v);
    for (size_t k = b.alloc_buffers.size(); k-- > 0;) {
      const Buffer& buf = b.alloc_buffers[k];
      // The storage a strided buffer (storage_align) spans, not just its element count.
      std::optional<int64_t> elems = as_const_int(simplify(storage_span(buf)));
      if (!elems)
        throw Error("buffer '" + buf->name + "' of block '" + b.name +
                        "' has a non-constant size; the lowered form allocates only constant sizes",
                    loc);
      auto alloc = std::make_shared<AllocateNode>(
          buf->data, buf->dtype, std::vector<Expr>{make_int(*elems)}, buf->scope, body);
      alloc->loc = loc;
      body = Stmt(std::move(alloc));
    }
    if (predicate && !is_const_int(predicate, 1))
      body = guarded(substitute(predicate, vmap), body, loc);
    return body;
  }

  // Whether e is a variable that nothing but this match_buffer binds: it
  // takes the view's actual stride or offset (TVM's symbolic match).
  const VarNode* free_var(const Expr& e, const VarMap& vmap) const {
    auto* v = e ? e.as<VarNode>() : nullptr;
    if (!v || defined_.count(v) || vmap.count(v) || matched_.count(v)) return nullptr;
    return v;
  }

  // A match_buffer becomes a buffer over the source's storage whose
  // elem_offset is where the matched region starts. Its free stride and
  // elem_offset variables are bound in vmap (and listed in `bound`).
  Buffer view_of(const MatchBufferRegion& m, VarMap& vmap, std::vector<const VarNode*>& bound,
                 const SourceLoc& loc) {
    Buffer src = mutate_buffer(m.source.buffer);
    std::vector<Expr> src_strides = effective_strides(src);
    Expr offset = src->elem_offset ? src->elem_offset : make_int(0);
    const auto& region = m.source.region;
    for (size_t i = 0; i < region.size() && i < src_strides.size(); ++i)
      offset = index_add(offset, index_mul(substitute(region[i].min, vmap), src_strides[i]));
    size_t nd = m.buffer->ndim();
    for (size_t d = 0; d < m.buffer->strides.size(); ++d) {
      const VarNode* var = free_var(m.buffer->strides[d], vmap);
      if (!var) continue;
      if (nd > src_strides.size())
        throw Error("match_buffer '" + m.buffer->name + "' has more dimensions than its source '" +
                        src->name + "'",
                    loc);
      // The view's dimension d is the source's d-th of its innermost nd.
      vmap[var] = src_strides[src_strides.size() - nd + d];
      bound.push_back(var);
    }
    if (const VarNode* var = free_var(m.buffer->elem_offset, vmap)) {
      vmap[var] = offset;
      bound.push_back(var);
    }
    auto v = std::make_shared<BufferNode>(*m.buffer);
    v->data = src->data;
    v->elem_offset = offset;
    v->scope = src->scope;
    if (m.buffer->strides.empty()) {
      bool leading_units = region.size() >= nd;
      for (size_t i = 0; leading_units && i + nd < region.size(); ++i)
        leading_units = is_const_int(region[i].extent, 1);
      // A view whose dimensions are the source's innermost ones keeps the
      // source's strides; otherwise the region is contiguous and compact.
      if (leading_units && nd > 0)
        v->strides.assign(src_strides.end() - static_cast<std::ptrdiff_t>(nd), src_strides.end());
    } else {
      for (Expr& s : v->strides) s = substitute(substitute(s, vmap), matched_);
    }
    return v;
  }

  std::unordered_map<const BufferNode*, Buffer> views_;
  // Variables the function defines other than as a match_buffer's stride or
  // elem_offset: parameters (and their buffers' shape variables), loops,
  // lets, allocations and iteration variables.
  VarSet defined_;
  // Free stride/elem_offset variables of the enclosing blocks' match_buffers
  // and their values.
  VarMap matched_;
};

}  // namespace

PrimFunc lower_blocks(const PrimFunc& f, bool keep_thread_bindings) {
  BlockLowerer lowerer(keep_thread_bindings, defined_in(f));
  Stmt body = lowerer.lower_top(f->body);
  return body.same_as(f->body) ? f : with_body(f, body);
}

}  // namespace tirc
