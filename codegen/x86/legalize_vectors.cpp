#include "codegen/x86/legalize_vectors.h"

#include "ir/error.h"
#include "ir/functor.h"

namespace tirc {

namespace {

// Lanes [offset, offset + lanes) of vector expression e; lanes == 1 gives a scalar.
Expr slice(const Expr& e, int offset, int lanes) {
  if (e.dtype().is_scalar()) return e;
  const DataType t = e.dtype().with_lanes(lanes);
  if (auto r = e.as<RampNode>()) {
    Expr base = offset == 0 ? r->base : r->base + r->stride * make_int(offset, r->stride.dtype());
    return lanes == 1 ? base : make_ramp(base, r->stride, lanes);
  }
  if (auto b = e.as<BroadcastNode>())
    return lanes == 1 ? b->value : make_broadcast(b->value, lanes);
  if (auto l = e.as<BufferLoadNode>()) {
    std::vector<Expr> indices;
    for (const Expr& i : l->indices) indices.push_back(slice(i, offset, lanes));
    return make_load(l->buffer, indices);
  }
  if (auto b = e.as<BinaryNode>())
    return make_binary(e.kind(), slice(b->a, offset, lanes), slice(b->b, offset, lanes));
  if (auto n = e.as<NotNode>()) return make_not(slice(n->a, offset, lanes));
  if (auto c = e.as<CastNode>()) return make_cast(t, slice(c->value, offset, lanes));
  if (auto s = e.as<SelectNode>())
    return make_select(slice(s->cond, offset, lanes), slice(s->true_value, offset, lanes),
                       slice(s->false_value, offset, lanes));
  if (auto c = e.as<CallNode>()) {
    std::vector<Expr> args;
    for (const Expr& a : c->args) args.push_back(slice(a, offset, lanes));
    return make_call(t, c->op, args);
  }
  throw Error(std::string("x86 codegen: cannot split a ") + to_string(e.kind()) + " of " +
              e.dtype().str() + " into register-wide pieces");
}

class WideStoreSplitter : public StmtMutator {
 public:
  explicit WideStoreSplitter(int vector_bytes) : vector_bytes_(vector_bytes) {}

  Stmt mutate_store(const Stmt& s, const BufferStoreNode* n) override {
    const DataType t = n->value.dtype();
    const int bytes = t.lanes() * t.bytes();
    if (t.is_scalar() || bytes <= vector_bytes_) return s;
    const int chunk = vector_bytes_ / t.bytes();
    std::vector<Stmt> parts;
    for (int offset = 0; offset < t.lanes(); offset += chunk) {
      const int n_lanes = std::min(chunk, t.lanes() - offset);
      const int piece = n_lanes * t.bytes();
      const bool whole = piece == 16 || piece == 32 || piece == 64;
      for (int at = offset; at < offset + n_lanes; at += whole ? n_lanes : 1) {
        const int lanes = whole ? n_lanes : 1;
        std::vector<Expr> indices;
        for (const Expr& i : n->indices) indices.push_back(slice(i, at, lanes));
        Stmt part = make_store(n->buffer, slice(n->value, at, lanes), indices);
        parts.push_back(part);
      }
    }
    return make_seq(parts);
  }

 private:
  int vector_bytes_;
};

}  // namespace

Stmt split_wide_vectors(const Stmt& body, int vector_bytes) {
  return WideStoreSplitter(vector_bytes).mutate(body);
}

}  // namespace tirc
