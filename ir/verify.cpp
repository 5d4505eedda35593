// The function-level walk of the verifier: variable scopes, buffer
// declarations, access types and bounds, loop and block-binding rules. Block
// bodies get the checks in verify_block.cpp.
#include "ir/verify.h"

#include <unordered_map>
#include <unordered_set>

#include "ir/functor.h"
#include "ir/intrinsic.h"
#include "ir/var_use.h"
#include "ir/verify_internal.h"

namespace tirc {
namespace {

using namespace verify_detail;

bool is_true(const Expr& e) {
  return !e || is_const_int(e, 1);
}

std::optional<int64_t> add(std::optional<int64_t> a, std::optional<int64_t> b) {
  if (!a || !b) return std::nullopt;
  return *a + *b;
}

// One comparison `var op bound` usable to narrow var's range inside a guard.
struct VarConstraint {
  const VarNode* var;
  ExprKind op;  // LT, LE, GT, GE or EQ, with var on the left
  Expr other;
};

void collect_constraints(const Expr& cond, bool negate, std::vector<VarConstraint>& out) {
  if (!cond) return;
  if (auto* n = cond.as<NotNode>()) return collect_constraints(n->a, !negate, out);
  auto* b = cond.as<BinaryNode>();
  if (!b) return;
  if ((cond.kind() == ExprKind::And && !negate) || (cond.kind() == ExprKind::Or && negate)) {
    collect_constraints(b->a, negate, out);
    collect_constraints(b->b, negate, out);
    return;
  }
  if (!is_comparison(cond.kind())) return;
  ExprKind k = negate ? negated_comparison(cond.kind()) : cond.kind();
  if (k == ExprKind::NE) return;
  if (auto* v = b->a.as<VarNode>()) out.push_back({v, k, b->b});
  if (auto* v = b->b.as<VarNode>()) out.push_back({v, mirrored_comparison(k), b->a});
}

class FunctionVerifier : public StmtVisitor {
 public:
  FunctionVerifier(std::string name, std::vector<Diagnostic>& out) : sink_(std::move(name), out) {}

  void run(const PrimFunc& f) {
    if (!f || !f->body) {
      sink_.report({}, "function has no body");
      return;
    }
    // Every variable some statement defines, so a stray use can be told
    // apart from a use of a variable that exists nowhere.
    for (const VarNode* v : defined_vars(f->body)) all_defs_.insert(v);
    for (const Param& p : f->params) {
      if (p.var) all_defs_.insert(p.var.get());
      if (p.var && !p.buffer) define(p.var, {}, true);
    }
    for (const Param& p : f->params) {
      if (!p.buffer) continue;
      if (p.var) define(p.var, {}, true);
      declare_buffer_defining_shape(p.buffer);
    }
    visit(f->body);
  }

 protected:
  // ---- expressions ----------------------------------------------------------

  void visit_var(const VarNode* v) override {
    if (in_scope_.count(v) || !reported_vars_.insert(v).second) return;
    sink_.report(loc_,
                 "variable " + v->name +
                     (all_defs_.count(v) ? " is used outside its definition" : " is not defined"));
  }

  void visit_load(const BufferLoadNode* n) override {
    StmtVisitor::visit_load(n);
    check_access("load", n->buffer, n->indices, n->dtype, false);
  }

  void visit_call(const CallNode* n) override {
    const Intrinsic* in = find_intrinsic(*n);
    if (in)
      check_arguments(n, *in);
    else
      sink_.report(loc_, "call to unknown intrinsic " + n->op);
    if (!in || in->id != IntrinsicId::IfThenElse || n->args.size() != 3 || !n->args[0] ||
        !n->args[0].dtype().is_bool())
      return StmtVisitor::visit_call(n);
    // Only the chosen branch is evaluated: each is checked under its condition.
    visit(n->args[0]);
    Frame f = enter();
    guards_.push_back({n->args[0], false});
    invalidate();
    visit(n->args[1]);
    guards_.back().negate = true;
    invalidate();
    visit(n->args[2]);
    leave(f);
  }

  // The registry's arity; address_of and call_kernel have rules of their own.
  void check_arguments(const CallNode* n, const Intrinsic& in) {
    switch (in.id) {
      case IntrinsicId::AddressOf:
        if (n->args.size() != 1 || !n->args[0].as<BufferLoadNode>())
          sink_.report(loc_, "T.address_of takes one buffer element (buf[i]), got " +
                                 std::to_string(n->args.size()) + " argument(s)" +
                                 (n->args.size() == 1 ? " that is not a buffer element" : ""));
        if (!n->dtype.is_handle())
          sink_.report(loc_, "T.address_of has type " + n->dtype.str() + ", not handle");
        return;
      case IntrinsicId::CallKernel:
        if (n->args.empty() || !n->args[0].as<StringImmNode>())
          sink_.report(loc_, "T.call_kernel needs the callee's name as its first argument");
        return;
      case IntrinsicId::MmaFill:
      case IntrinsicId::MmaSync:
      case IntrinsicId::MmaStore:
        return check_warp_matrix(n, in);
      default:
        if (n->args.size() != static_cast<size_t>(in.arity))
          sink_.report(loc_, "T." + std::string(in.name) + " takes " + std::to_string(in.arity) +
                                 (in.arity == 1 ? " argument" : " arguments") + ", got " +
                                 std::to_string(n->args.size()));
        return;
    }
  }

  // A warp matrix operation (ir/intrinsic.h): a statement whose tiles are
  // T.address_of elements of the right types and whose strides are integers.
  void check_warp_matrix(const CallNode* n, const Intrinsic& in) {
    const std::string t = "T." + std::string(in.name);
    if (n->args.size() != static_cast<size_t>(in.arity))
      return sink_.report(loc_, t + " takes " + std::to_string(in.arity) + " arguments, got " +
                                    std::to_string(n->args.size()));
    if (evaluated_ != n)
      sink_.report(loc_, t + " is a statement (T.evaluate) and cannot be part of an expression");
    if (n->dtype != DataType::int32()) sink_.report(loc_, t + " has type " + n->dtype.str());
    // The element type each tile argument needs, in argument order.
    auto tile = [&](size_t i, const char* role, std::initializer_list<DataType> types) {
      const Expr& a = n->args[i];
      const BufferLoadNode* load = address_of_element(a);
      if (!load)
        return sink_.report(
            loc_, t + ": the " + role + " tile must be T.address_of(buf[...]), got " + expr_str(a));
      for (const DataType& d : types)
        if (load->dtype == d) return;
      sink_.report(loc_, t + ": the " + role + " tile " + load->buffer->name + " has type " +
                             load->dtype.str() + ", not " + types.begin()->str());
    };
    auto stride = [&](size_t i) {
      const DataType d = n->args[i].dtype();
      if (!d.is_integer() || !d.is_scalar())
        sink_.report(loc_, t + ": argument " + std::to_string(i + 1) +
                               " (a row stride) must be an integer, got " + d.str());
    };
    const DataType f32 = DataType::float32();
    switch (in.id) {
      case IntrinsicId::MmaFill:
        tile(0, "accumulator", {f32});
        stride(1);
        if (n->args[2].dtype() != f32)
          sink_.report(loc_, t + ": the value must be float32, got " + n->args[2].dtype().str());
        return;
      case IntrinsicId::MmaSync: {
        tile(0, "accumulator", {f32});
        stride(1);
        tile(2, "a", {DataType::float16(), DataType::bfloat16()});
        stride(3);
        tile(4, "b", {DataType::float16(), DataType::bfloat16()});
        stride(5);
        auto elem = [&](size_t i) {
          const BufferLoadNode* load = address_of_element(n->args[i]);
          return load ? load->dtype : DataType();
        };
        if (elem(2) != elem(4))
          sink_.report(loc_, t + ": the a and b tiles have different types (" + elem(2).str() +
                                 ", " + elem(4).str() + ")");
        return;
      }
      default:
        tile(0, "destination", {f32});
        stride(1);
        tile(2, "accumulator", {f32});
        stride(3);
        return;
    }
  }

  // ---- statements -----------------------------------------------------------

  void visit_store(const BufferStoreNode* n) override {
    LocScope at(this, n);
    StmtVisitor::visit_store(n);
    if (n->buffer && n->buffer->data) {
      auto it = const_handles_.find(n->buffer->data.get());
      if (it != const_handles_.end())
        sink_.report(loc_, "store to " + n->buffer->name + " writes constant '" + it->second +
                               "' (T.allocate_const storage is read-only)");
    }
    if (n->value) check_access("store", n->buffer, n->indices, n->value.dtype(), true);
  }

  void visit_for(const ForNode* n) override {
    LocScope at(this, n);
    if (!n->loop_var || !n->min || !n->extent) return sink_.report(loc_, "incomplete for loop");
    std::string loop = "loop " + n->loop_var->name + ": ";
    bool integral = true;
    for (auto [what, e] : {std::pair{"min", n->min}, std::pair{"extent", n->extent}}) {
      if (!e.dtype().is_integer() || !e.dtype().is_scalar()) {
        integral = false;
        sink_.report(loc_,
                     loop + what + " has type " + e.dtype().str() + ", not an integer scalar");
      } else if (n->loop_var->dtype != e.dtype()) {
        sink_.report(loc_, loop + "variable of type " + n->loop_var->dtype.str() + " has " + what +
                               " of type " + e.dtype().str());
      }
    }
    if (n->for_kind == ForKind::Vectorized && !as_const_int(n->extent))
      sink_.report(loc_, loop + "vectorized loop has non-constant extent " + expr_str(n->extent));
    visit(n->min);
    visit(n->extent);
    Frame f = enter();
    Binding range;
    if (integral) range.range = Range{n->min, n->extent};
    define(n->loop_var, range, true);
    visit(n->body);
    leave(f);
  }

  void visit_block_realize(const BlockRealizeNode* n) override {
    LocScope at_block(this, n->block.get());
    LocScope at(this, n);  // the realize's own location wins when it has one
    const BlockNode* b = n->block.get();
    if (!b) return sink_.report(loc_, "block realize without a block");
    if (n->iter_values.size() != b->iter_vars.size())
      sink_.report(loc_, "block " + b->name + " has " + std::to_string(b->iter_vars.size()) +
                             " iteration variables but " + std::to_string(n->iter_values.size()) +
                             " bound values");
    if (n->predicate && !(n->predicate.dtype().is_bool() && n->predicate.dtype().is_scalar()))
      sink_.report(loc_, "block " + b->name + ": predicate has type " + n->predicate.dtype().str() +
                             ", not bool");
    for (const Expr& v : n->iter_values) visit(v);
    visit(n->predicate);
    check_bindings(n);
    enter_block(b, is_true(n->predicate) ? Expr() : n->predicate);
  }

  void visit_block(const BlockNode* n) override {
    LocScope at(this, n);
    enter_block(n, Expr());
  }

  void visit_seq(const SeqStmtNode* n) override {
    LocScope at(this, n);
    StmtVisitor::visit_seq(n);
  }

  void visit_if(const IfThenElseNode* n) override {
    LocScope at(this, n);
    visit(n->cond);
    bool usable = n->cond && n->cond.dtype().is_bool();
    Frame f = enter();
    if (usable) guards_.push_back({n->cond, false});
    invalidate();
    visit(n->then_case);
    if (usable) guards_.back().negate = true;
    invalidate();
    visit(n->else_case);
    leave(f);
  }

  void visit_let(const LetStmtNode* n) override {
    LocScope at(this, n);
    visit(n->value);
    Binding bound;
    if (n->value && n->value.dtype().is_integer() && n->value.dtype().is_scalar())
      bound.bound = analyzer().const_int_bound(n->value);
    Frame f = enter();
    define(n->var, bound, true);
    visit(n->body);
    leave(f);
  }

  void visit_evaluate(const EvaluateNode* n) override {
    LocScope at(this, n);
    evaluated_ = n->value.get();
    StmtVisitor::visit_evaluate(n);
  }

  void visit_allocate(const AllocateNode* n) override {
    LocScope at(this, n);
    for (const Expr& e : n->extents) visit(e);
    Frame f = enter();
    define(n->buffer_var, {}, true);
    storage_handles_.insert(n->buffer_var.get());
    visit(n->body);
    leave(f);
  }

  void visit_allocate_const(const AllocateConstNode* n) override {
    LocScope at(this, n);
    for (const Expr& e : n->extents) {
      visit(e);
      auto v = as_const_int(e);
      if (!v || *v <= 0)
        sink_.report(loc_, "allocate_const " + n->buffer_var->name + " of constant '" +
                               n->constant + "': extent " + expr_str(e) +
                               " is not a positive constant");
    }
    if (!n->buffer_var->dtype.is_handle())
      sink_.report(loc_, "allocate_const " + n->buffer_var->name + " binds a variable of type " +
                             n->buffer_var->dtype.str() + ", not handle");
    Frame f = enter();
    define(n->buffer_var, {}, true);
    storage_handles_.insert(n->buffer_var.get());
    const_handles_[n->buffer_var.get()] = n->constant;
    visit(n->body);
    leave(f);
  }

  void visit_decl_buffer(const DeclBufferNode* n) override {
    LocScope at(this, n);
    Frame f = enter();
    if (n->buffer) {
      use_buffer_shape(n->buffer);
      if (n->buffer->data && !in_scope_.count(n->buffer->data.get()))
        define(n->buffer->data, {}, false);
      declare(n->buffer);
    }
    visit(n->body);
    leave(f);
  }

 private:
  struct Binding {
    std::optional<Range> range;
    std::optional<ConstIntBound> bound;
  };
  struct ScopedVar {
    Var var;
    Binding binding;
  };
  struct Guard {
    Expr cond;
    bool negate;
  };
  struct Frame {
    size_t vars, buffers, guards;
  };

  // Makes diagnostics point at the innermost statement with a known location.
  class LocScope {
   public:
    LocScope(FunctionVerifier* v, const StmtNode* n) : v_(v), saved_(v->loc_) {
      if (n && n->loc.known()) v->loc_ = n->loc;
    }
    ~LocScope() { v_->loc_ = saved_; }

   private:
    FunctionVerifier* v_;
    SourceLoc saved_;
  };

  // ---- scopes ---------------------------------------------------------------

  Frame enter() const { return {scope_.size(), buffers_.size(), guards_.size()}; }

  void leave(const Frame& f) {
    while (scope_.size() > f.vars) {
      auto it = in_scope_.find(scope_.back().var.get());
      if (--it->second == 0) in_scope_.erase(it);
      scope_.pop_back();
    }
    while (buffers_.size() > f.buffers) {
      auto it = buffers_in_scope_.find(buffers_.back());
      if (--it->second == 0) buffers_in_scope_.erase(it);
      buffers_.pop_back();
    }
    guards_.resize(f.guards);
    invalidate();
  }

  // An explicit definition (loop, iteration, let, allocate, parameter) may
  // occur once per function; implicit ones (a buffer's data and shape
  // variables) define the variable where it is not defined yet.
  void define(const Var& v, Binding binding, bool explicit_def) {
    if (!v) return;
    if (explicit_def) {
      bool again = !explicit_defs_.insert(v.get()).second || implicit_defs_.count(v.get());
      if (again && reported_double_.insert(v.get()).second)
        sink_.report(loc_, "variable " + v->name + " is defined more than once");
    } else {
      if (in_scope_.count(v.get())) return;
      implicit_defs_.insert(v.get());
    }
    all_defs_.insert(v.get());
    scope_.push_back({v, std::move(binding)});
    ++in_scope_[v.get()];
    invalidate();
  }

  void declare(const Buffer& b) {
    buffers_.push_back(b.get());
    ++buffers_in_scope_[b.get()];
  }

  // Parameter and match_buffer buffers define the variables of their shape.
  void declare_buffer_defining_shape(const Buffer& b) {
    if (!b) return;
    define(b->data, {}, false);
    storage_handles_.insert(b->data.get());
    for (const auto* list : {&b->shape, &b->strides})
      for (const Expr& e : *list) {
        if (e.as<VarNode>())
          define(std::static_pointer_cast<const VarNode>(e.ptr()), {}, false);
        else
          visit(e);
      }
    if (b->elem_offset && b->elem_offset.as<VarNode>())
      define(std::static_pointer_cast<const VarNode>(b->elem_offset.ptr()), {}, false);
    declare(b);
  }

  void use_buffer_shape(const Buffer& b) {
    for (const Expr& e : b->shape) visit(e);
    for (const Expr& e : b->strides) visit(e);
    visit(b->elem_offset);
  }

  bool buffer_declared(const Buffer& b) const {
    if (buffers_in_scope_.count(b.get())) return true;
    // Lowered code reads allocations and parameters through flat buffers over
    // their handle (`A_1 = T.Buffer((4096,), data=A.data)`).
    return b->data && storage_handles_.count(b->data.get()) && in_scope_.count(b->data.get());
  }

  void check_buffer_declared(const Buffer& b, const std::string& use) {
    if (buffer_declared(b) || !reported_buffers_.insert(b.get()).second) return;
    sink_.report(loc_, "buffer " + b->name + " is used but not declared (in " + use + ")");
  }

  // ---- bounds ---------------------------------------------------------------

  void invalidate() { analyzer_.reset(); }

  // Variables bound to their ranges; inside guards, variables compared
  // against constants are narrowed accordingly.
  const Analyzer& analyzer() {
    if (analyzer_) return *analyzer_;
    Analyzer base = bind_scope({});
    if (guards_.empty()) return analyzer_.emplace(std::move(base));
    std::vector<VarConstraint> cs;
    for (const Guard& g : guards_) collect_constraints(g.cond, g.negate, cs);
    std::unordered_map<const VarNode*, ConstIntBound> narrowed;
    for (const VarConstraint& c : cs) {
      if (!in_scope_.count(c.var) || !c.other.dtype().is_integer()) continue;
      auto [it, fresh] = narrowed.try_emplace(c.var);
      if (fresh) {
        for (const ScopedVar& sv : scope_)
          if (sv.var.get() == c.var) it->second = base.const_int_bound(sv.var);
      }
      ConstIntBound o = base.const_int_bound(c.other);
      ConstIntBound& b = it->second;
      auto lower = [&b](std::optional<int64_t> v) {
        if (v && (!b.min || *v > *b.min)) b.min = v;
      };
      auto upper = [&b](std::optional<int64_t> v) {
        if (v && (!b.max || *v < *b.max)) b.max = v;
      };
      switch (c.op) {
        case ExprKind::LT:
          upper(add(o.max, -1));
          break;
        case ExprKind::LE:
          upper(o.max);
          break;
        case ExprKind::GT:
          lower(add(o.min, 1));
          break;
        case ExprKind::GE:
          lower(o.min);
          break;
        case ExprKind::EQ:
          lower(o.min), upper(o.max);
          break;
        default:
          break;
      }
    }
    return analyzer_.emplace(bind_scope(narrowed));
  }

  Analyzer bind_scope(const std::unordered_map<const VarNode*, ConstIntBound>& narrowed) const {
    Analyzer az;
    for (const ScopedVar& sv : scope_) {
      auto it = narrowed.find(sv.var.get());
      if (it != narrowed.end())
        az.bind(sv.var, it->second);
      else if (sv.binding.range)
        bind_range(az, sv.var, *sv.binding.range);
      else if (sv.binding.bound)
        az.bind(sv.var, *sv.binding.bound);
    }
    return az;
  }

  // A symbolic extent gives no upper bound: reporting "may access outside"
  // against the largest int32 would flag every symbolic-shape program.
  static void bind_range(Analyzer& az, const Var& var, const Range& r) {
    if (as_const_int(az.simplify(r.extent)))
      az.bind(var, r);
    else
      az.bind(var, ConstIntBound{az.const_int_bound(r.min).min, std::nullopt});
  }

  ConstIntBound index_bound(const Expr& idx) {
    const Analyzer& az = analyzer();
    if (idx.dtype().is_scalar()) return az.const_int_bound(idx);
    if (auto* b = idx.as<BroadcastNode>()) return az.const_int_bound(b->value);
    if (auto* r = idx.as<RampNode>()) {
      ConstIntBound first = az.const_int_bound(r->base);
      ConstIntBound last =
          az.const_int_bound(r->base + r->stride * make_int(r->lanes - 1, r->stride.dtype()));
      ConstIntBound u;
      if (first.min && last.min) u.min = std::min(*first.min, *last.min);
      if (first.max && last.max) u.max = std::max(*first.max, *last.max);
      return u;
    }
    return {};
  }

  // ---- accesses -------------------------------------------------------------

  void check_access(const char* what, const Buffer& buf, const std::vector<Expr>& indices,
                    DataType value_type, bool is_store) {
    if (!buf) return sink_.report(loc_, std::string(what) + " of a null buffer");
    std::string access = access_str(buf, indices);
    check_buffer_declared(buf, std::string(what) + " " + access);
    if (indices.size() != buf->ndim()) {
      sink_.report(loc_, std::string(what) + " " + access + " has " +
                             std::to_string(indices.size()) +
                             (indices.size() == 1 ? " index" : " indices") + " but buffer " +
                             buf->name + " has " + std::to_string(buf->ndim()) + " dimensions");
      return;
    }
    int lanes = 1;
    for (const Expr& i : indices) {
      if (!i) return sink_.report(loc_, std::string(what) + " " + access + " has a null index");
      if (!i.dtype().is_integer())
        sink_.report(loc_,
                     std::string(what) + " " + access + " has an index of type " + i.dtype().str());
      if (i.dtype().lanes() > 1) {
        if (lanes > 1 && lanes != i.dtype().lanes())
          sink_.report(loc_, std::string(what) + " " + access +
                                 " has indices with different numbers of lanes");
        lanes = i.dtype().lanes();
      }
    }
    if (value_type.element_of() != buf->dtype)
      sink_.report(loc_, std::string(what) + " " + access + (is_store ? " stores " : " yields ") +
                             "a value of type " + value_type.str() + " but buffer " + buf->name +
                             " has dtype " + buf->dtype.str());
    else if (value_type.lanes() != lanes)
      sink_.report(loc_, std::string(what) + " " + access + (is_store ? " stores " : " yields ") +
                             "a " + value_type.str() + " value through " + std::to_string(lanes) +
                             " index lanes");
    check_in_bounds(what, access, buf, indices);
  }

  void check_in_bounds(const char* what, const std::string& access, const Buffer& buf,
                       const std::vector<Expr>& indices) {
    std::optional<std::string> maybe;
    for (size_t d = 0; d < indices.size(); ++d) {
      auto extent = as_const_int(buf->shape[d]);
      if (!extent || !indices[d].dtype().is_integer()) continue;
      ConstIntBound b = index_bound(indices[d]);
      bool definitely = (b.max && *b.max < 0) || (b.min && *b.min >= *extent);
      if (definitely) {
        sink_.report(loc_, std::string(what) + " " + access + " is outside buffer " + buf->name +
                               " of shape " + shape_str(buf));
        return;
      }
      // Under a condition the bounds may be loose, so only certain errors count.
      bool possibly = b.min && b.max && (*b.min < 0 || *b.max >= *extent);
      if (possibly && guards_.empty() && !maybe)
        maybe = std::string(what) + " " + access + " may access outside buffer " + buf->name +
                " of shape " + shape_str(buf) + ": index " + std::to_string(d) + " ranges over " +
                bound_str(b);
    }
    if (maybe) sink_.report(loc_, *maybe);
  }

  // ---- blocks ---------------------------------------------------------------

  // Each bound value must stay inside its iteration variable's domain. With a
  // T.where the predicate may cut off the excess, so then only values outside
  // the domain on every iteration are errors.
  void check_bindings(const BlockRealizeNode* n) {
    const BlockNode* b = n->block.get();
    // An enclosing condition may narrow the values in ways bounds do not see.
    bool guarded = !is_true(n->predicate) || !guards_.empty();
    const Analyzer& az = analyzer();
    size_t count = std::min(n->iter_values.size(), b->iter_vars.size());
    for (size_t i = 0; i < count; ++i) {
      const IterVar& iv = b->iter_vars[i];
      const Expr& value = n->iter_values[i];
      if (!iv.var || !value || !iv.dom.min || !iv.dom.extent) continue;
      std::string head = "block " + b->name + ": iteration variable " + iv.var->name;
      if (value.dtype() != iv.var->dtype) {
        sink_.report(loc_, head + " of type " + iv.var->dtype.str() +
                               " is bound to a value of type " + value.dtype().str());
        continue;
      }
      if (!value.dtype().is_integer()) continue;
      ConstIntBound v = az.const_int_bound(value);
      ConstIntBound dmin = az.const_int_bound(iv.dom.min);
      std::optional<int64_t> dend = add(dmin.max, az.const_int_bound(iv.dom.extent).max);
      bool below_some = v.min && dmin.min && *v.min < *dmin.min;
      bool above_some = v.max && dend && *v.max >= *dend;
      bool below_all = v.max && dmin.min && *v.max < *dmin.min;
      bool above_all = v.min && dend && *v.min >= *dend;
      bool bad = guarded ? (below_all || above_all) : (below_some || above_some);
      if (!bad) continue;
      sink_.report(loc_, head + " is bound to " + expr_str(value) + ", which ranges over " +
                             bound_str(v) + ", outside its domain [" + expr_str(iv.dom.min) + ", " +
                             expr_str(simplify(iv.dom.min + iv.dom.extent)) + ")");
    }
  }

  void enter_block(const BlockNode* b, const Expr& predicate) {
    for (const IterVar& iv : b->iter_vars) {
      visit(iv.dom.min);
      visit(iv.dom.extent);
    }
    Frame f = enter();
    for (const IterVar& iv : b->iter_vars)
      define(
          iv.var,
          Binding{iv.dom.min && iv.dom.extent ? std::optional(iv.dom) : std::nullopt, std::nullopt},
          true);
    for (const Buffer& buf : b->alloc_buffers) {
      if (!buf) continue;
      use_buffer_shape(buf);
      define(buf->data, {}, false);
      declare(buf);
    }
    for (const MatchBufferRegion& m : b->match_buffers) {
      check_region(b->name, "T.match_buffer", m.source);
      declare_buffer_defining_shape(m.buffer);
    }
    for (const BufferRegion& r : b->reads) check_region(b->name, "T.reads", r);
    for (const BufferRegion& r : b->writes) check_region(b->name, "T.writes", r);
    if (predicate && predicate.dtype().is_bool()) {
      guards_.push_back({predicate, false});
      invalidate();
    }
    check_reduce_vars_in_outputs(*b, loc_, sink_);
    check_reduction_init(*b, init_blocks_, loc_, sink_);
    check_region_coverage(*b, analyzer(), loc_, sink_);
    visit(b->init);
    visit(b->body);
    if (b->name.size() > 5 && b->name.ends_with("_init")) {
      auto& written = init_blocks_[b->name];
      for (const BufferNode* w : direct_writes(b->body)) written.insert(w);
    }
    leave(f);
  }

  void check_region(const std::string& block, const char* where, const BufferRegion& r) {
    if (!r.buffer) return sink_.report(loc_, "block " + block + ": " + where + " of a null buffer");
    check_buffer_declared(r.buffer, std::string(where) + " of block " + block);
    if (r.region.size() != r.buffer->ndim())
      sink_.report(loc_, "block " + block + ": " + where + " region of " + r.buffer->name +
                             " has " + std::to_string(r.region.size()) +
                             " dimensions but the buffer has " + std::to_string(r.buffer->ndim()));
    for (const Range& range : r.region) visit_range(range);
  }

  DiagnosticSink sink_;
  SourceLoc loc_;
  // The value of the T.evaluate statement being visited (a warp matrix
  // operation must be one).
  const ExprNode* evaluated_ = nullptr;
  std::vector<ScopedVar> scope_;
  std::unordered_map<const VarNode*, int> in_scope_;
  std::unordered_set<const VarNode*> all_defs_, explicit_defs_, implicit_defs_;
  std::unordered_set<const VarNode*> reported_vars_, reported_double_;
  // Handles of allocations, parameter and match_buffer buffers: the storage a
  // flat buffer of lowered code may view.
  std::unordered_set<const VarNode*> storage_handles_;
  std::unordered_map<const VarNode*, std::string> const_handles_;  // allocate_const var -> constant
  std::vector<const BufferNode*> buffers_;
  std::unordered_map<const BufferNode*, int> buffers_in_scope_;
  std::unordered_set<const BufferNode*> reported_buffers_;
  std::vector<Guard> guards_;
  std::optional<Analyzer> analyzer_;
  InitBlockWrites init_blocks_;
};

}  // namespace

std::vector<Diagnostic> verify(const PrimFunc& f, std::string_view name) {
  std::vector<Diagnostic> out;
  FunctionVerifier(std::string(name), out).run(f);
  return out;
}

std::vector<Diagnostic> verify(const IRModule& m) {
  std::vector<Diagnostic> out;
  for (const auto& [name, f] : m.functions()) FunctionVerifier(name, out).run(f);
  std::vector<Diagnostic> links = verify_module_links(m);
  out.insert(out.end(), links.begin(), links.end());
  return out;
}

}  // namespace tirc
