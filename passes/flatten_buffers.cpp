// flatten-buffers: every access becomes one element offset on a flat buffer
// over the same storage (one flat buffer per storage variable and type).
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "ir/arith/analyzer.h"
#include "ir/functor.h"
#include "passes/pass_util.h"
#include "passes/passes.h"

namespace tirc {

using namespace passes;

namespace {

// Element offset of `indices` in b, a Ramp when one index is a Ramp and the
// others are scalars, so vector accesses stay recognisable.
Expr flat_offset(const Buffer& b, const std::vector<Expr>& indices) {
  std::vector<Expr> strides = effective_strides(b);
  Expr base = b->elem_offset ? b->elem_offset : make_int(0);
  int ramps = 0, vectors = 0;
  for (const Expr& e : indices) {
    if (e.as<RampNode>()) ++ramps;
    if (e.dtype().lanes() > 1) ++vectors;
  }
  if (vectors == 1 && ramps == 1) {
    const RampNode* ramp = nullptr;
    Expr ramp_stride;
    for (size_t i = 0; i < indices.size(); ++i) {
      if (auto* r = indices[i].as<RampNode>()) {
        ramp = r;
        ramp_stride = index_mul(r->stride, strides[i]);
        base = index_add(base, index_mul(r->base, strides[i]));
      } else {
        base = index_add(base, index_mul(indices[i], strides[i]));
      }
    }
    DataType t =
        base.dtype().bits() >= ramp_stride.dtype().bits() ? base.dtype() : ramp_stride.dtype();
    return make_ramp(cast_index(base, t), cast_index(ramp_stride, t), ramp->lanes);
  }
  for (size_t i = 0; i < indices.size(); ++i)
    base = index_add(base, index_mul(indices[i], strides[i]));
  return base;
}

class Flattener : public StmtMutator {
 public:
  explicit Flattener(const PrimFunc& f) : names_(f) {
    for (const Param& p : f->params) {
      if (!p.buffer) continue;
      owners_.emplace(p.buffer->data.get(), p.buffer);
      bound_.insert(p.buffer->data.get());
      if (p.var) bound_.insert(p.var.get());
    }
  }

 protected:
  Expr mutate_load(const Expr& e, const BufferLoadNode* n) override {
    std::vector<Expr> idx;
    mutate_all(n->indices, idx);
    (void)e;
    return Expr(std::make_shared<BufferLoadNode>(n->dtype, flat_buffer(n->buffer),
                                                 std::vector<Expr>{flat_offset(n->buffer, idx)}));
  }

  Stmt mutate_store(const Stmt&, const BufferStoreNode* n) override {
    std::vector<Expr> idx;
    mutate_all(n->indices, idx);
    auto s = std::make_shared<BufferStoreNode>(flat_buffer(n->buffer), mutate(n->value),
                                               std::vector<Expr>{flat_offset(n->buffer, idx)});
    s->loc = n->loc;
    return Stmt(std::move(s));
  }

  Stmt mutate_allocate(const Stmt&, const AllocateNode* n) override {
    Expr elems = make_int(1);
    for (const Expr& e : n->extents) elems = index_mul(elems, e);
    elems = simplify(elems);
    if (!as_const_int(elems))
      throw Error("allocation '" + n->buffer_var->name +
                      "' has a non-constant size; the lowered form allocates only constant sizes",
                  n->loc);
    allocations_[n->buffer_var.get()] = {n->dtype, *as_const_int(elems)};
    bound_.insert(n->buffer_var.get());
    auto a = std::make_shared<AllocateNode>(n->buffer_var, n->dtype, std::vector<Expr>{elems},
                                            n->scope, mutate(n->body));
    a->loc = n->loc;
    return Stmt(std::move(a));
  }

  // A constant's storage is flat like an allocation's: one extent, the element count.
  Stmt mutate_allocate_const(const Stmt&, const AllocateConstNode* n) override {
    int64_t elems = 1;
    for (const Expr& e : n->extents) {
      auto v = as_const_int(e);
      if (!v)
        throw Error("allocate_const '" + n->buffer_var->name + "' has a non-constant extent",
                    n->loc);
      elems *= *v;
    }
    allocations_[n->buffer_var.get()] = {n->dtype, elems};
    bound_.insert(n->buffer_var.get());
    auto a = std::make_shared<AllocateConstNode>(
        n->buffer_var, n->dtype, std::vector<Expr>{make_int(elems)}, n->constant, mutate(n->body));
    a->loc = n->loc;
    return Stmt(std::move(a));
  }

  Stmt mutate_decl_buffer(const Stmt&, const DeclBufferNode* n) override {
    const Buffer& b = n->buffer;
    if (bound_.count(b->data.get())) {
      owners_.emplace(b->data.get(), b);
      return mutate(n->body);
    }
    // A declaration with storage of its own becomes an allocation.
    Expr span = simplify(storage_span(b));
    if (!as_const_int(span))
      throw Error("buffer '" + b->name +
                      "' has a non-constant size; the lowered form allocates only constant sizes",
                  n->loc);
    allocations_[b->data.get()] = {b->dtype, *as_const_int(span)};
    bound_.insert(b->data.get());
    owners_.emplace(b->data.get(), b);
    auto a = std::make_shared<AllocateNode>(b->data, b->dtype, std::vector<Expr>{span}, b->scope,
                                            mutate(n->body));
    a->loc = n->loc;
    return Stmt(std::move(a));
  }

 private:
  struct Allocation {
    DataType dtype;
    int64_t elems;
  };

  Buffer flat_buffer(const Buffer& b) {
    auto key = std::make_pair(b->data.get(), b->dtype.str());
    auto it = flat_.find(key);
    if (it != flat_.end()) return it->second;
    Buffer owner = b;
    if (auto o = owners_.find(b->data.get()); o != owners_.end()) owner = o->second;
    Expr elems;
    if (auto a = allocations_.find(b->data.get()); a != allocations_.end()) {
      int64_t bytes = a->second.elems * a->second.dtype.bytes();
      elems = make_int(bytes / b->dtype.bytes());
    } else {
      elems = simplify(storage_span(owner->dtype == b->dtype ? owner : b));
    }
    auto flat = std::make_shared<BufferNode>();
    flat->name = names_.fresh(owner->name);
    flat->data = b->data;
    flat->dtype = b->dtype;
    flat->shape = {elems};
    flat->scope = b->scope;
    flat->align = owner->align;
    Buffer out = flat;
    flat_.emplace(key, out);
    return out;
  }

  NameSet names_;
  std::unordered_map<const VarNode*, Buffer> owners_;  // the declared buffer over each storage
  std::unordered_set<const VarNode*> bound_;
  std::unordered_map<const VarNode*, Allocation> allocations_;
  std::map<std::pair<const VarNode*, std::string>, Buffer> flat_;
};

}  // namespace

PrimFunc flatten_buffers(const PrimFunc& f) {
  Flattener flattener(f);
  return with_body(f, flattener.mutate(f->body));
}

}  // namespace tirc
