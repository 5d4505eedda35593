// vectorize-loops: the rule and the rewrite are described in vectorize_loops.h.
#include "passes/vectorize_loops.h"

#include <algorithm>
#include <optional>
#include <unordered_map>

#include "ir/arith/analyzer.h"
#include "ir/arith/linear_form.h"
#include "ir/functor.h"
#include "ir/intrinsic.h"
#include "ir/structural.h"
#include "ir/var_use.h"
#include "passes/pass_util.h"

namespace tirc {

namespace {

// Why an element or value type has no lane-wise form here; empty when it has.
std::string type_problem(DataType t) {
  DataType e = t.element_of();
  if (e.is_bool()) return {};
  if (e.is_integer() && (e.bits() == 8 || e.bits() == 16 || e.bits() == 32 || e.bits() == 64))
    return {};
  if (e.code() == DataType::Code::Float && (e.bits() == 32 || e.bits() == 64)) return {};
  return "a value of type " + e.str();
}

// The coefficient of v in `index` when the index is linear in v with a
// constant coefficient (the rest of it free of v); nullopt otherwise.
std::optional<int64_t> coefficient_of(const Expr& index, const VarNode* v) {
  arith::AffineRules rules;
  rules.of_interest = [v](const VarNode* x) { return x == v; };
  rules.whole_invariant_subtrees = true;
  std::optional<arith::LinearForm> f = arith::decompose(index, rules);
  if (!f) return std::nullopt;
  return f->coefficient(v);
}

// Whether evaluating e can fault: a load (its index may be out of bounds
// where the condition is false) or an integer division or modulo (by zero).
bool may_fault(const Expr& e) {
  struct Finder : ExprVisitor {
    bool found = false;
    void visit_load(const BufferLoadNode*) override { found = true; }
    void visit_binary(const BinaryNode* n) override {
      const bool division = n->kind == ExprKind::Div || n->kind == ExprKind::Mod ||
                            n->kind == ExprKind::FloorDiv || n->kind == ExprKind::FloorMod;
      if (division && !n->dtype.is_float()) found = true;
      ExprVisitor::visit_binary(n);
    }
  } f;
  f.visit(e);
  return f.found;
}

// ---- the rule -----------------------------------------------------------------

class Legality {
 public:
  Legality(const ForNode& loop, int vector_bytes)
      : loop_(loop), v_(loop.loop_var.get()), vector_bytes_(vector_bytes) {}

  // Whether the loop may be rewritten; why not in why().
  bool check() {
    const DataType t = loop_.loop_var->dtype;
    if (t != DataType::int32() && t != DataType::int64())
      return fail("loop variable of type " + t.str() + " (int32 or int64 expected)");
    if (!collect(loop_.body)) return false;
    int bytes = 1;
    for (const BufferStoreNode* s : stores_) bytes = std::max(bytes, s->buffer->dtype.bytes());
    lanes_ = vector_lanes(vector_bytes_, bytes, as_const_int(loop_.extent));
    for (const BufferStoreNode* s : stores_)
      if (!check_store(*s)) return false;
    for (const LetStmtNode* l : lets_)
      if (!check_expr(l->value)) return false;
    for (const BufferStoreNode* s : stores_)
      if (!check_expr(s->value) || !check_expr(s->indices[0])) return false;
    return true;
  }

  const std::string& why() const { return why_; }
  // The loop's lanes (after check()).
  int lanes() const { return lanes_; }

 private:
  bool fail(std::string why) {
    why_ = std::move(why);
    return false;
  }

  // The stores and lets of a straight-line body.
  bool collect(const Stmt& s) {
    if (auto* store = s.as<BufferStoreNode>()) {
      stores_.push_back(store);
      return true;
    }
    if (auto* seq = s.as<SeqStmtNode>()) {
      for (const Stmt& x : seq->seq)
        if (!collect(x)) return false;
      return true;
    }
    if (auto* let = s.as<LetStmtNode>()) {
      if (uses_var(let->value, v_))
        return fail("let " + let->var->name + " depends on the loop variable");
      if (!let->var->dtype.is_scalar()) return fail("let " + let->var->name + " binds a vector");
      lets_.push_back(let);
      return collect(let->body);
    }
    return fail(std::string("body is not straight-line stores (it contains ") +
                to_string(s.kind()) + ")");
  }

  bool check_store(const BufferStoreNode& s) {
    const Buffer& b = s.buffer;
    if (s.value.dtype().is_vector() ||
        std::any_of(s.indices.begin(), s.indices.end(),
                    [](const Expr& i) { return i.dtype().is_vector(); }))
      return fail("a vector expression inside the loop");
    if (s.indices.size() != 1)
      return fail("store to " + b->name + " with " + std::to_string(s.indices.size()) +
                  " indices (one expected)");
    if (std::string p = type_problem(b->dtype); !p.empty() || b->dtype.is_vector())
      return fail("store to " + b->dtype.str() + " buffer " + b->name);
    if (b->dtype.is_bool()) return fail("store to bool buffer " + b->name);
    if (s.value.dtype() != b->dtype)
      return fail("store of a " + s.value.dtype().str() + " value to " + b->dtype.str() +
                  " buffer " + b->name);
    const Expr& index = s.indices[0];
    std::optional<int64_t> coef = coefficient_of(index, v_);
    if (!coef)
      return fail("store index of " + b->name +
                  " is not linear in the loop variable with a constant coefficient");
    if (*coef == 0) return fail("store index of " + b->name + " does not move with the loop");
    // Lanes write distinct elements unless the index wraps within a vector.
    const int bits = index.dtype().bits();
    const uint64_t stride = *coef < 0 ? 0 - static_cast<uint64_t>(*coef) : *coef;
    const uint64_t limit = bits >= 2 && bits <= 64 ? (uint64_t{1} << (bits - 1)) - 1 : 0;
    if (stride > limit / static_cast<uint64_t>(lanes_ - 1))
      return fail("store index of " + b->name + " has stride " + std::to_string(*coef) +
                  ", too large for " + std::to_string(lanes_) + " lanes");
    auto [it, fresh] = stored_.emplace(b->data.get(), Stored{index, b});
    if (!fresh && !structural_equal(it->second.index, index))
      return fail(b->name + " is stored at two indices");
    if (!fresh && it->second.buffer->dtype.bytes() != b->dtype.bytes())
      return fail(b->name + " and " + it->second.buffer->name +
                  " share storage but have elements of different sizes");
    return true;
  }

  // Every subexpression of e (loop-invariant ones included).
  bool check_expr(const Expr& e) {
    if (e.dtype().is_vector() || e.kind() == ExprKind::Ramp || e.kind() == ExprKind::Broadcast)
      return fail("a vector expression inside the loop");
    if (auto* l = e.as<BufferLoadNode>()) return check_load(*l);
    if (std::string p = type_problem(e.dtype()); !p.empty()) return fail(p);
    switch (e.kind()) {
      case ExprKind::IntImm:
      case ExprKind::FloatImm:
      case ExprKind::Var:
        return true;
      case ExprKind::StringImm:
        return fail("a string inside the loop");
      case ExprKind::Not:
        return check_expr(e.as<NotNode>()->a);
      case ExprKind::Cast:
        return check_expr(e.as<CastNode>()->value);
      case ExprKind::Select: {
        auto* s = e.as<SelectNode>();
        return check_expr(s->cond) && check_expr(s->true_value) && check_expr(s->false_value);
      }
      case ExprKind::Call:
        return check_call(e, *e.as<CallNode>());
      default: {
        auto* b = e.as<BinaryNode>();
        if (!b) return fail(std::string("an expression ") + to_string(e.kind()));
        return check_expr(b->a) && check_expr(b->b);
      }
    }
  }

  bool check_load(const BufferLoadNode& l) {
    const Buffer& b = l.buffer;
    if (l.indices.size() != 1)
      return fail("load from " + b->name + " with " + std::to_string(l.indices.size()) +
                  " indices (one expected)");
    if (std::string p = type_problem(b->dtype); !p.empty() || b->dtype.is_vector())
      return fail("load from " + b->dtype.str() + " buffer " + b->name);
    const Expr& index = l.indices[0];
    if (b->dtype.is_bool() && uses_var(index, v_))
      return fail("load from bool buffer " + b->name + " at an index that moves with the loop");
    auto it = stored_.find(b->data.get());
    if (it != stored_.end()) {
      if (!structural_equal(it->second.index, index))
        return fail(b->name + " is read at another index than " + it->second.buffer->name +
                    " is stored at");
      if (it->second.buffer->dtype.bytes() != b->dtype.bytes())
        return fail(b->name + " is read with another element size than " + it->second.buffer->name +
                    " is stored with");
    }
    return check_expr(index);
  }

  bool check_call(const Expr& e, const CallNode& c) {
    const Intrinsic* in = find_intrinsic(c);
    if (!in) return fail("a call of " + c.op);
    if (in->rule == DtypeRule::Structural) return fail("a call of T." + std::string(in->name));
    if (in->arity != kVariadicArity && c.args.size() != static_cast<size_t>(in->arity))
      return fail("a call of T." + std::string(in->name) + " with " +
                  std::to_string(c.args.size()) + " arguments");
    if (in->id == IntrinsicId::IfThenElse && uses_var(e, v_) &&
        (may_fault(c.args[1]) || may_fault(c.args[2])))
      return fail("if_then_else whose arms may fault (a load or an integer division)");
    for (const Expr& a : c.args)
      if (!check_expr(a)) return false;
    return true;
  }

  struct Stored {
    Expr index;
    Buffer buffer;
  };

  const ForNode& loop_;
  const VarNode* v_;
  const int vector_bytes_;
  int lanes_ = 2;
  std::vector<const BufferStoreNode*> stores_;
  std::vector<const LetStmtNode*> lets_;
  std::unordered_map<const VarNode*, Stored> stored_;  // storage -> where it is stored
  std::string why_;
};

// ---- the vector body ------------------------------------------------------------

// The body with v replaced by Ramp(base, 1, lanes): expressions that depend
// on v become vectors of `lanes`, the others stay scalar and are broadcast
// where they meet a vector.
class VectorBody : public StmtMutator {
 public:
  VectorBody(const VarNode* v, Expr base, int lanes)
      : v_(v), base_(std::move(base)), lanes_(lanes) {}

 protected:
  Stmt mutate_store(const Stmt&, const BufferStoreNode* n) override {
    Expr index = vector_index(n->indices[0]);
    Expr value = widen(mutate(n->value));
    auto s = std::make_shared<BufferStoreNode>(n->buffer, std::move(value),
                                               std::vector<Expr>{std::move(index)});
    s->loc = n->loc;
    return Stmt(std::move(s));
  }

  Expr mutate_var(const Expr& e) override {
    if (e.get() != v_) return e;
    return make_ramp(base_, make_int(1, base_.dtype()), lanes_);
  }

  Expr mutate_load(const Expr& e, const BufferLoadNode* n) override {
    if (!varies(e)) return e;
    return make_load(n->buffer, {vector_index(n->indices[0])});
  }

  Expr mutate_binary(const Expr& e, const BinaryNode* n) override {
    if (!varies(e)) return e;
    std::vector<Expr> ops = lanewise({mutate(n->a), mutate(n->b)});
    return make_binary(n->kind, ops[0], ops[1]);
  }

  Expr mutate_not(const Expr& e, const NotNode* n) override {
    if (!varies(e)) return e;
    return make_not(mutate(n->a));
  }

  Expr mutate_cast(const Expr& e, const CastNode* n) override {
    if (!varies(e)) return e;
    Expr value = mutate(n->value);
    return make_cast(n->dtype.with_lanes(value.dtype().lanes()), value);
  }

  Expr mutate_select(const Expr& e, const SelectNode* n) override {
    if (!varies(e)) return e;
    std::vector<Expr> ops =
        lanewise({mutate(n->cond), mutate(n->true_value), mutate(n->false_value)});
    return make_select(ops[0], ops[1], ops[2]);
  }

  Expr mutate_call(const Expr& e, const CallNode* n) override {
    if (!varies(e)) return e;
    std::vector<Expr> args;
    for (const Expr& a : n->args) args.push_back(mutate(a));
    args = lanewise(std::move(args));
    const int lanes = args.empty() ? 1 : args[0].dtype().lanes();
    return make_call(n->dtype.with_lanes(lanes), n->op, std::move(args));
  }

 private:
  bool varies(const Expr& e) {
    auto [it, fresh] = varies_.emplace(e.get(), false);
    if (fresh) it->second = uses_var(e, v_);
    return it->second;
  }

  Expr widen(const Expr& e) const { return e.dtype().is_scalar() ? make_broadcast(e, lanes_) : e; }

  // The operands of a lane-wise operation: all scalar, or all vectors.
  std::vector<Expr> lanewise(std::vector<Expr> ops) const {
    const bool vector =
        std::any_of(ops.begin(), ops.end(), [](const Expr& x) { return x.dtype().is_vector(); });
    if (vector)
      for (Expr& x : ops) x = widen(x);
    return ops;
  }

  // An index that depends on v: Ramp(index[v := base], c, lanes) when it is
  // linear in v with a constant coefficient c, else the index's vector form
  // (read lane by lane).
  Expr vector_index(const Expr& index) {
    if (!varies(index)) return index;
    std::optional<int64_t> c = coefficient_of(index, v_);
    if (!c) return mutate(index);
    Expr at_base = simplify(substitute(index, VarMap{{v_, base_}}));
    if (*c == 0) return at_base;
    return make_ramp(at_base, make_int(*c, index.dtype()), lanes_);
  }

  const VarNode* v_;
  const Expr base_;
  const int lanes_;
  std::unordered_map<const ExprNode*, bool> varies_;
};

// ---- the walk over the program -----------------------------------------------------

// A constant extent of at most this many full vectors is emitted without a
// loop (as the x86 generator does, codegen/x86/emitter_vector.cpp).
constexpr int64_t kMaxStraightLineVectors = 4;

class LoopVectorizer : public StmtMutator {
 public:
  LoopVectorizer(int vector_bytes, passes::NameSet& names, VectorizeStats* stats)
      : StmtMutator(Walk::StatementsOnly),
        vector_bytes_(vector_bytes),
        names_(names),
        stats_(stats) {}

 protected:
  Stmt mutate_for(const Stmt& s, const ForNode* n) override {
    Stmt inner = StmtMutator::mutate_for(s, n);  // inner loops first
    auto* loop = inner.as<ForNode>();
    if (loop->for_kind != ForKind::Vectorized) return inner;
    Legality rule(*loop, vector_bytes_);
    if (!rule.check()) {
      if (stats_) stats_->refused.push_back("loop " + loop->loop_var->name + ": " + rule.why());
      return with_kind(*loop, ForKind::Serial);
    }
    if (stats_) ++stats_->vectorized;
    return rewrite(*loop, rule.lanes());
  }

 private:
  Stmt rewrite(const ForNode& loop, int lanes) {
    const Var& v = loop.loop_var;
    const DataType t = v->dtype;
    const Expr mn = passes::cast_index(loop.min, t), extent = passes::cast_index(loop.extent, t);
    const Expr width = make_int(lanes, t);
    // Full vectors and the iterations left, both constant when the extent is.
    Expr vectors = simplify(truncdiv(extent, width));
    Expr rest_min = simplify(mn + vectors * width);
    Expr rest = simplify(truncmod(extent, width));
    const std::optional<int64_t> n_vectors = as_const_int(vectors), n_rest = as_const_int(rest);

    std::vector<Stmt> parts;
    // A copy of the body: the first as it is, the others with new variables
    // for its lets (the lowered form defines each variable once).
    auto copy = [&](VarMap vmap) {
      return parts.empty() && vmap.empty() ? loop.body
                                           : passes::with_new_variables(loop.body, names_, vmap);
    };
    if (n_vectors && n_rest && *n_vectors <= kMaxStraightLineVectors) {
      // A short constant extent becomes straight-line vector code: its full
      // vectors, then the rest as narrower power-of-two vectors and at most
      // one scalar iteration. A loop around it (the rows of a register tile)
      // then holds no loop, so a code generator can unroll it and keep what
      // it accumulates in registers.
      int64_t at = 0;
      for (int64_t i = 0; i < *n_vectors; ++i, at += lanes)
        parts.push_back(
            VectorBody(v.get(), simplify(mn + make_int(at, t)), lanes).mutate(copy({})));
      for (int w = lanes / 2; w >= 2; w /= 2)
        if (*n_rest & w) {
          parts.push_back(VectorBody(v.get(), simplify(mn + make_int(at, t)), w).mutate(copy({})));
          at += w;
        }
      if (*n_rest & 1) parts.push_back(copy({{v.get(), simplify(mn + make_int(at, t))}}));
      return make_seq(std::move(parts));
    }
    if (n_vectors == 1) {
      // One full vector: its body alone, at the loop's start.
      parts.push_back(VectorBody(v.get(), mn, lanes).mutate(loop.body));
    } else if (!n_vectors || *n_vectors > 0) {
      Var vv = make_var(names_.fresh(v->name + "_vec"), t);
      Expr base = simplify(mn + Expr(vv) * width);
      Stmt body = VectorBody(v.get(), base, lanes).mutate(loop.body);
      Stmt header = with_header(loop, vv, make_int(0, t), vectors, body);
      parts.push_back(with_kind(*header.as<ForNode>(), ForKind::Serial));
    }
    if (!n_rest || *n_rest != 0 || parts.empty()) {
      Var tail = make_var(names_.fresh(v->name + "_tail"), t);
      VarMap vmap{{v.get(), Expr(tail)}};
      Stmt body = passes::with_new_variables(loop.body, names_, vmap);
      // A loop with no full vector keeps the original range (an extent that is
      // not positive runs nothing either way).
      Expr tmin = parts.empty() ? mn : rest_min, text = parts.empty() ? extent : rest;
      Stmt header = with_header(loop, tail, tmin, text, body);
      parts.push_back(with_kind(*header.as<ForNode>(), ForKind::Serial));
    }
    return make_seq(std::move(parts));
  }

  const int vector_bytes_;
  passes::NameSet& names_;
  VectorizeStats* stats_;
};

void check_vector_bytes(int vector_bytes) {
  if (vector_bytes < 1 || vector_bytes > 4096)
    throw Error("vectorize_loops: vector_bytes " + std::to_string(vector_bytes) +
                " is not in [1, 4096]");
}

}  // namespace

int vector_lanes(int vector_bytes, int max_store_bytes, std::optional<int64_t> extent) {
  int lanes = std::max(2, vector_bytes / std::max(1, max_store_bytes));
  if (extent && *extent < lanes) {
    int fit = 2;
    while (fit * 2 <= *extent) fit *= 2;
    lanes = std::min(lanes, fit);
  }
  return lanes;
}

Stmt vectorize_loops(const Stmt& body, int vector_bytes, VectorizeStats* stats) {
  check_vector_bytes(vector_bytes);
  passes::NameSet names(make_prim_func({}, body));
  return LoopVectorizer(vector_bytes, names, stats).mutate(body);
}

PrimFunc vectorize_loops(const PrimFunc& f, int vector_bytes, VectorizeStats* stats) {
  check_vector_bytes(vector_bytes);
  passes::NameSet names(f);
  Stmt body = LoopVectorizer(vector_bytes, names, stats).mutate(f->body);
  return body.same_as(f->body) ? f : with_body(f, std::move(body));
}

}  // namespace tirc
