// Vector code: Vectorized loops and the vector expressions users write
// (T.Ramp / T.Broadcast / vector loads and stores). Lanes are 32 bits
// (float32, int32, and bools as all-ones / zero lanes).
//
// The vectorization rule: a Vectorized loop becomes vector code only when
// that is exactly equivalent to running it serially:
//   - its loop variable is int32 and its body is straight-line: one
//     BufferStore or a sequence of them (no lets, ifs, loops, allocations);
//   - every stored buffer is float32 or int32, and every store's index is
//     linear in the loop variable with stride 1 (so lanes write distinct,
//     consecutive elements), or on AVX-512 a constant nonzero stride (a
//     scatter: distinct elements too);
//   - every load is of a float32 or int32 buffer at an index linear in the
//     loop variable with a constant stride (1: vector load, 0: broadcast,
//     other: gather); a buffer that the body also stores to (same storage)
//     is read only at exactly the index of that store, and stored at one index;
//   - every operation that depends on the loop variable has a lane-wise
//     equivalent with the interpreter's rounding: + - * min max on float32
//     and int32 (int32 wraps), float32 division, comparisons, and/or/not,
//     select, if_then_else whose arms cannot fault or are loads that move
//     with the loop (read under the condition's lanes only), casts between float32,
//     int32 and bool, abs, sqrt, floor/ceil/round/trunc, exp/log/tanh/erf/sigmoid.
//     Integer division is not vectorized. Subexpressions that do not depend
//     on the loop variable are evaluated once per vector as scalars.
// Otherwise the loop is emitted serially (GeneratorStats::serial_fallbacks).
// Full vectors run unmasked; the remaining (extent % lanes) iterations run as
// one masked vector (opmask k1 on AVX-512, vmaskmovps/vpmaskmovd and masked
// gathers on AVX2), so no lane touches memory outside the serial loop's.
#include <algorithm>
#include <bit>
#include <cstring>
#include <set>

#include "codegen/x86/emitter.h"
#include "codegen/x86/math.h"
#include "ir/arith/linear_form.h"
#include "ir/eval/numeric.h"
#include "ir/functor.h"
#include "ir/structural.h"
#include "ir/var_use.h"

namespace tirc {

using namespace Xbyak::util;
using Xbyak::Reg64;
using Xbyak::Xmm;

namespace {

const int kMaskReg = 13;  // AVX2 tail mask (ymm13); AVX-512 uses k1
// A vectorized loop of constant extent up to this many full vectors is
// emitted straight-line (an elementwise row of a register tile, a bias init).
constexpr int64_t kMaxUnrolledVectorChunks = 4;
// Registers such a loop may hold addresses in, leaving enough for the rest.
constexpr size_t kMaxVectorAddressRegisters = 4;
constexpr int kKeepFreeGprs = 4;
const int kScratchA = 15, kScratchB = 14;

Xmm vr(int idx, int bytes) {
  if (bytes == 64) return Xbyak::Zmm(idx);
  if (bytes == 32) return Xbyak::Ymm(idx);
  return Xmm(idx);
}

bool lane_type(DataType t) {
  t = t.element_of();
  return t == DataType::float32() || t == DataType::int32() || t.is_bool();
}

bool has_vector_node(const Expr& e) {
  struct Finder : ExprVisitor {
    bool found = false;
    void visit_ramp(const RampNode*) override { found = true; }
    void visit_broadcast(const BroadcastNode*) override { found = true; }
  } f;
  f.visit(e);
  return f.found || e.dtype().is_vector();
}

// Coefficient of v in index when index is linear in v (v appears nowhere else).
bool linear_coef(const Expr& index, const VarNode* v, int64_t* coef) {
  arith::LinearForm lf = arith::decompose(index);
  *coef = 0;
  for (const auto& t : lf.terms) {
    if (t.term.get() == v) {
      *coef += t.coef;
    } else if (uses_var(t.term, v)) {
      return false;
    }
  }
  return true;
}

bool cannot_fault(const Expr& e) {
  struct Finder : ExprVisitor {
    bool found = false;
    void visit_load(const BufferLoadNode*) override { found = true; }
    void visit_binary(const BinaryNode* n) override {
      if ((n->kind == ExprKind::Div || n->kind == ExprKind::Mod || n->kind == ExprKind::FloorDiv ||
           n->kind == ExprKind::FloorMod) &&
          !n->dtype.is_float())
        found = true;
      ExprVisitor::visit_binary(n);
    }
  } f;
  f.visit(e);
  return !f.found;
}

// A load that moves with loop variable v (so it is a vector load or gather
// that can be masked lane by lane) at an index that cannot fault.
bool guarded_load(const Expr& e, const VarNode* v) {
  auto* l = e.as<BufferLoadNode>();
  int64_t coef = 0;
  return l && l->indices.size() == 1 && cannot_fault(l->indices[0]) &&
         linear_coef(l->indices[0], v, &coef) && coef != 0;
}

bool math_available(VecMathFn fn, Isa isa) {
  // The vector math library may not support every function yet: try it on a scratch buffer.
  try {
    Xbyak::CodeGenerator scratch(1 << 16);
    ConstantPool pool;
    std::vector<int> regs;
    for (int i = 0; i < vec_math_scratch_count(fn, isa); ++i) regs.push_back(i + 2);
    emit_vec_math(scratch, pool, isa, 256, fn, 0, 1, regs);
    return true;
  } catch (...) {
    return false;
  }
}

struct VectorRule {
  const VarNode* v;
  Isa isa;
  std::map<const VarNode*, Expr> stored_at;  // storage -> the index it is stored at
  std::string why;

  bool fail(std::string w) {
    why = std::move(w);
    return false;
  }
  // An if_then_else arm the vector code may evaluate for every lane.
  bool guardable(const Expr& arm) const { return cannot_fault(arm) || guarded_load(arm, v); }

  bool expr_ok(const Expr& e) {
    if (has_vector_node(e)) return fail("vector expression inside a Vectorized loop");
    if (!uses_var(e, v)) {
      if (!lane_type(e.dtype())) return fail("loop-invariant value of type " + e.dtype().str());
      return true;
    }
    DataType t = e.dtype();
    if (!lane_type(t)) return fail("value of type " + t.str());
    switch (e.kind()) {
      case ExprKind::Var:
        return true;
      case ExprKind::BufferLoad: {
        auto* l = e.as<BufferLoadNode>();
        if (l->indices.size() != 1 || !lane_type(l->buffer->dtype) || l->buffer->dtype.is_bool())
          return fail("load from " + l->buffer->name);
        int64_t coef;
        if (!linear_coef(l->indices[0], v, &coef))
          return fail("index of " + l->buffer->name + " is not linear");
        auto it = stored_at.find(l->buffer->data.get());
        if (it != stored_at.end() && !structural_equal(it->second, l->indices[0]))
          return fail(l->buffer->name + " is read at another index than it is stored at");
        return true;
      }
      case ExprKind::Add:
      case ExprKind::Sub:
      case ExprKind::Mul:
      case ExprKind::Min:
      case ExprKind::Max:
      case ExprKind::Div:
      case ExprKind::And:
      case ExprKind::Or:
      case ExprKind::EQ:
      case ExprKind::NE:
      case ExprKind::LT:
      case ExprKind::LE:
      case ExprKind::GT:
      case ExprKind::GE: {
        auto* b = e.as<BinaryNode>();
        if (e.kind() == ExprKind::Div && t != DataType::float32()) return fail("integer division");
        return expr_ok(b->a) && expr_ok(b->b);
      }
      case ExprKind::Not:
        return expr_ok(e.as<NotNode>()->a);
      case ExprKind::Select: {
        auto* s = e.as<SelectNode>();
        return expr_ok(s->cond) && expr_ok(s->true_value) && expr_ok(s->false_value);
      }
      case ExprKind::Cast: {
        auto* c = e.as<CastNode>();
        if (!lane_type(c->value.dtype())) return fail("cast from " + c->value.dtype().str());
        return expr_ok(c->value);
      }
      case ExprKind::Call: {
        auto* c = e.as<CallNode>();
        const Intrinsic* in = find_intrinsic(*c, Backend::X86Vector);
        if (!in) return fail("call " + intrinsic_name(*c));
        const std::string op(in->name);
        const std::optional<VecMathFn> fn = vec_math_fn_of(in->id);
        if (in->id == IntrinsicId::IfThenElse) {
          if (c->args.size() != 3 || !guardable(c->args[1]) || !guardable(c->args[2]))
            return fail("if_then_else whose arms may fault");
        } else if (in->id == IntrinsicId::Abs) {
        } else if (rounding_immediate(in->id)) {
          if (t != DataType::float32()) return fail(op + " of " + t.str());
        } else if (fn) {
          if (t != DataType::float32() || !math_available(*fn, isa))
            return fail(op + " is not available");
        } else if (in->id == IntrinsicId::Pow && c->args.size() == 2) {
          if (t != DataType::float32()) return fail("pow of " + t.str());
        } else {
          return fail("call " + op);
        }
        for (const Expr& a : c->args)
          if (!expr_ok(a)) return false;
        return true;
      }
      default:
        return fail(std::string("operation ") + to_string(e.kind()));
    }
  }
};

}  // namespace

bool can_vectorize(const ForNode& f, Isa isa, std::string* why) {
  VectorRule rule{f.loop_var.get(), isa, {}, {}};
  auto refuse = [&](const std::string& w) {
    if (why) *why = w;
    return false;
  };
  if (f.loop_var->dtype != DataType::int32()) return refuse("loop variable is not int32");
  std::vector<const BufferStoreNode*> stores;
  if (auto* s = f.body.as<BufferStoreNode>()) {
    stores.push_back(s);
  } else if (auto* seq = f.body.as<SeqStmtNode>()) {
    for (const Stmt& st : seq->seq) {
      auto* s = st.as<BufferStoreNode>();
      if (!s) return refuse("body is not straight-line stores");
      stores.push_back(s);
    }
  } else {
    return refuse("body is not straight-line stores");
  }
  for (const BufferStoreNode* s : stores) {
    DataType t = s->buffer->dtype;
    if (s->indices.size() != 1 || (t != DataType::float32() && t != DataType::int32()) ||
        s->value.dtype() != t)
      return refuse("store to " + s->buffer->name);
    int64_t coef;
    // A constant stride other than 1 is a scatter, AVX-512 only; lanes still
    // write distinct elements unless the stride is 0.
    if (!linear_coef(s->indices[0], f.loop_var.get(), &coef) ||
        (coef != 1 && (isa != Isa::avx512 || coef == 0)))
      return refuse("store index of " + s->buffer->name + " does not have stride 1" +
                    (isa == Isa::avx512 ? " (or a constant nonzero stride)" : ""));
    auto [it, fresh] = rule.stored_at.emplace(s->buffer->data.get(), s->indices[0]);
    if (!fresh && !structural_equal(it->second, s->indices[0]))
      return refuse(s->buffer->name + " is stored at two indices");
  }
  for (const BufferStoreNode* s : stores)
    if (!rule.expr_ok(s->value)) return refuse(rule.why);
  return true;
}

bool FunctionEmitter::vector_stride(const Expr& index, const VecCtx& cx, int64_t* stride,
                                    Expr* base) const {
  if (auto* r = index.as<RampNode>()) {
    auto s = as_const_int(r->stride);
    if (!s) return false;
    *stride = *s;
    *base = r->base;
    return true;
  }
  if (index.dtype().is_vector()) return false;
  *base = index;
  if (!cx.loop_var) {
    *stride = 0;
    return true;
  }
  return linear_coef(index, cx.loop_var, stride);
}

void FunctionEmitter::emit_tail_mask(const Reg64& remaining, int lanes) {
  const int bytes = lanes * 4;
  std::vector<uint8_t> iota(64);
  for (int i = 0; i < 16; ++i) std::memcpy(iota.data() + 4 * i, &i, 4);
  code_.vmovd(Xmm(kScratchA), remaining.cvt32());
  code_.vpbroadcastd(vr(kScratchA, bytes), Xmm(kScratchA));
  if (target_.isa == Isa::avx512)
    code_.vpcmpgtd(k1, vr(kScratchA, bytes), m_.pool.table(iota));
  else
    code_.vpcmpgtd(vr(kMaskReg, bytes), vr(kScratchA, bytes), m_.pool.table(iota));
}

Xbyak::RegExp FunctionEmitter::vector_address(const Buffer& b, const Expr& index, const Expr& base,
                                              int64_t stride, const VecCtx& cx, int* index_temp) {
  if (cx.addresses)
    if (auto it = cx.addresses->find({b->data.get(), index.get()}); it != cx.addresses->end())
      return Xbyak::RegExp(Reg64(it->second)) +
             static_cast<int>(cx.chunk * stride * b->dtype.bytes());
  return element_address(b, base, index_temp);
}

int FunctionEmitter::eval_vec_load(const Expr& index, const Buffer& b, const VecCtx& cx, int guard,
                                   bool negate) {
  DataType et = b->dtype;
  if (et != DataType::float32() && et != DataType::int32())
    fail("vector load from " + et.str() + " buffer " + b->name +
         " (float32 and int32 are supported)");
  const int bytes = cx.bytes();
  int64_t stride;
  Expr base;
  if (!vector_stride(index, cx, &stride, &base))
    fail("vector load from " + b->name + " at a non-linear index");
  const bool avx512 = target_.isa == Isa::avx512;
  int idx = -1;
  if (stride == 0) {
    Xbyak::RegExp a = element_address(b, base, &idx);
    int out = regs_.alloc(RegClass::Vec, bytes, !avx512);
    code_.vpbroadcastd(vr(regs_.reg(out), bytes), dword[a]);
    if (idx >= 0) regs_.release(idx);
    return out;
  }
  if (guard >= 0 && stride == 0)
    fail("guarded vector load from " + b->name + " that does not move");
  // The lanes to read: the guard (negated if asked) within the tail mask,
  // in k2 (AVX-512) or kScratchB (AVX2).
  auto guard_lanes = [&] {
    if (guard < 0) return;
    Xmm g = vr(regs_.reg(guard), bytes);
    if (avx512) {
      code_.vpmovd2m(k2, g);
      if (negate) code_.knotw(k2, k2);
      if (cx.masked) code_.kandw(k2, k2, k1);
    } else {
      Xmm m = vr(kScratchB, bytes);
      if (negate)
        code_.vpxor(m, g, m_.pool.splat32(0xffffffffu));
      else
        code_.vmovaps(m, g);
      if (cx.masked) code_.vpand(m, m, vr(kMaskReg, bytes));
    }
  };
  if (stride == 1) {
    Xbyak::RegExp a = vector_address(b, index, base, stride, cx, &idx);
    int out = regs_.alloc(RegClass::Vec, bytes, !avx512);
    Xmm d = vr(regs_.reg(out), bytes);
    if (guard >= 0) {
      guard_lanes();
      if (avx512)
        code_.vmovups(d | k2 | T_z, ptr[a]);
      else
        code_.vmaskmovps(d, vr(kScratchB, bytes), ptr[a]);
    } else if (!cx.masked)
      code_.vmovups(d, ptr[a]);
    else if (avx512)
      code_.vmovups(d | k1 | T_z, ptr[a]);
    else
      code_.vmaskmovps(d, vr(kMaskReg, bytes), ptr[a]);
    if (idx >= 0) regs_.release(idx);
    return out;
  }
  // Stride 2, every lane read: the even elements of two overlapping loads
  // (elements 0..lanes-1 and lanes-1..2*lanes-2, so none past the last lane's).
  if (stride == 2 && guard < 0 && !cx.masked && (bytes == 64 || (bytes == 32 && !avx512))) {
    Xbyak::RegExp a = vector_address(b, index, base, stride, cx, &idx);
    int out = regs_.alloc(RegClass::Vec, bytes, !avx512);
    Xmm d = vr(regs_.reg(out), bytes);
    code_.vmovups(d, ptr[a]);
    if (avx512) {
      std::vector<uint8_t> lanes(64);
      for (uint32_t i = 0; i < 16; ++i) {
        const uint32_t from = i < 8 ? 2 * i : 2 * i + 1;  // high load's element 1 is 16
        std::memcpy(lanes.data() + 4 * i, &from, 4);
      }
      int perm = regs_.alloc(RegClass::Vec, bytes, false);
      code_.vmovdqu32(vr(regs_.reg(perm), bytes), m_.pool.table(lanes));
      code_.vpermt2ps(d, vr(regs_.reg(perm), bytes), ptr[a + 60]);
      regs_.release(perm);
    } else {
      // Per 128-bit half: elements 0, 2 of the low load and 1, 3 of the high
      // one; then the 64-bit pairs in order 0, 2, 1, 3.
      code_.vshufps(d, d, ptr[a + 28], 0xD8);
      code_.vpermpd(Xbyak::Ymm(d.getIdx()), Xbyak::Ymm(d.getIdx()), 0xD8);
    }
    if (idx >= 0) regs_.release(idx);
    return out;
  }
  // Gather: lane i reads base + i * stride.
  if (stride * 16 > INT32_MAX || stride * 16 < INT32_MIN) fail("vector load stride too large");
  std::vector<uint8_t> offsets(64);
  for (int i = 0; i < 16; ++i) {
    int32_t o = static_cast<int32_t>(stride * i);
    std::memcpy(offsets.data() + 4 * i, &o, 4);
  }
  Xbyak::RegExp a = vector_address(b, index, base, stride, cx, &idx);
  code_.lea(rax, ptr[a]);
  if (idx >= 0) regs_.release(idx);
  int vidx = regs_.alloc(RegClass::Vec, bytes, !avx512);
  int out = regs_.alloc(RegClass::Vec, bytes, !avx512);
  Xmm vi = vr(regs_.reg(vidx), bytes), d = vr(regs_.reg(out), bytes);
  if (avx512)
    code_.vmovdqu32(vi, m_.pool.table(offsets));
  else
    code_.vmovdqu(vi, m_.pool.table(offsets));  // vmovdqu32 (EVEX) would need AVX-512VL
  if (avx512) {
    if (guard >= 0)
      guard_lanes();
    else if (cx.masked)
      code_.kmovw(k2, k1);
    else
      code_.kxnorw(k2, k2, k2);
    code_.vpxord(d, d, d);
    code_.vpgatherdd(d | k2, ptr[rax + vi * 4]);
  } else {
    Xmm m = vr(kScratchB, bytes);
    if (guard >= 0)
      guard_lanes();
    else if (cx.masked)
      code_.vmovaps(m, vr(kMaskReg, bytes));
    else
      code_.vpcmpeqd(m, m, m);
    code_.vpxor(d, d, d);
    code_.vpgatherdd(d, ptr[rax + vi * 4], m);
  }
  regs_.release(vidx);
  return out;
}

int FunctionEmitter::eval_vec(const Expr& e, const VecCtx& cx) {
  const int bytes = cx.bytes();
  const bool avx512 = target_.isa == Isa::avx512;
  const DataType t = e.dtype().element_of();
  if (!lane_type(t))
    fail("vector value of type " + e.dtype().str() + " (float32, int32, bool are supported)");
  auto new_vec = [&] { return regs_.alloc(RegClass::Vec, bytes, !avx512); };
  auto V = [&](int temp) { return vr(regs_.reg(temp), bytes); };
  auto broadcast_scalar = [&](int s, DataType st) {
    int out = new_vec();
    if (st.is_float()) {
      code_.vbroadcastss(V(out), Xmm(regs_.reg(s)));
    } else {
      Reg64 r(regs_.reg(s));
      if (st.is_bool()) code_.neg(r);
      code_.vmovd(Xmm(kScratchA), r.cvt32());
      code_.vpbroadcastd(V(out), Xmm(kScratchA));
    }
    regs_.release(s);
    return out;
  };
  auto ones = [&] { return m_.pool.splat32(0xffffffffu); };
  auto vxor = [&](const Xmm& d, const Xmm& a, const Xbyak::Operand& b) {
    avx512 ? code_.vpxord(d, a, b) : code_.vpxor(d, a, b);
  };
  // Lanes of tv where cond (all-ones/zero lanes) is set, of fv elsewhere:
  // the result in fv's temp, cond and tv released.
  auto blend = [&](int cond, int tv, int fv) {
    Xmm xc = V(cond), xt = V(tv), xf = V(fv);
    if (avx512) {
      code_.vpmovd2m(k2, xc);
      code_.vblendmps(xf | k2, xf, xt);
    } else {
      code_.vblendvps(xf, xf, xt, xc);
    }
    regs_.release(cond);
    regs_.release(tv);
    return fv;
  };
  int out = -1;
  if (auto* f = e.as<FloatImmNode>(); f && t == DataType::float32()) {
    // A float32 constant: its splat from the pool, one load.
    out = new_vec();
    code_.vmovups(V(out),
                  m_.pool.splat_f32(static_cast<float>(numeric::round_to_float(t, f->value))));
    return out;
  }
  if (e.dtype().is_scalar() && !uses_var(e, cx.loop_var)) {
    out = broadcast_scalar(eval(e), t);
    regs_.unpin_all();
    return out;
  }
  switch (e.kind()) {
    case ExprKind::Var: {
      // The vectorized loop variable: its first lane plus 0, 1, 2, ...
      int s = eval(e);
      out = broadcast_scalar(s, DataType::int32());
      std::vector<uint8_t> iota(64);
      for (int i = 0; i < 16; ++i) std::memcpy(iota.data() + 4 * i, &i, 4);
      code_.vpaddd(V(out), V(out), m_.pool.table(iota));
      break;
    }
    case ExprKind::Ramp: {
      auto* r = e.as<RampNode>();
      auto stride = as_const_int(r->stride);
      if (!stride || !t.is_int()) fail("Ramp with a non-constant stride or a non-int32 type");
      out = broadcast_scalar(eval(r->base), t);
      std::vector<uint8_t> steps(64);
      for (int i = 0; i < 16; ++i) {
        int32_t v = static_cast<int32_t>(*stride * i);
        std::memcpy(steps.data() + 4 * i, &v, 4);
      }
      code_.vpaddd(V(out), V(out), m_.pool.table(steps));
      break;
    }
    case ExprKind::Broadcast: {
      auto* b = e.as<BroadcastNode>();
      if (b->value.dtype().is_vector()) fail("Broadcast of a vector");
      out = broadcast_scalar(eval(b->value), t);
      break;
    }
    case ExprKind::BufferLoad: {
      auto* l = e.as<BufferLoadNode>();
      if (l->indices.size() != 1)
        fail("vector load from " + l->buffer->name + " with several indices");
      out = eval_vec_load(l->indices[0], l->buffer, cx);
      break;
    }
    case ExprKind::Not: {
      out = eval_vec(e.as<NotNode>()->a, cx);
      vxor(V(out), V(out), ones());
      break;
    }
    case ExprKind::Select: {
      auto* s = e.as<SelectNode>();
      int c = eval_vec(s->cond, cx), tv = eval_vec(s->true_value, cx),
          fv = eval_vec(s->false_value, cx);
      out = blend(c, tv, fv);
      break;
    }
    case ExprKind::Cast: {
      auto* c = e.as<CastNode>();
      DataType from = c->value.dtype().element_of();
      out = eval_vec(c->value, cx);
      Xmm x = V(out);
      if (from == t) break;
      if (from.is_bool()) {
        code_.vpsrld(x, x, 31);
        if (t.is_float()) code_.vcvtdq2ps(x, x);
      } else if (t.is_bool()) {
        // x != 0 (for floats, NaN != 0 too).
        if (from.is_float()) {
          code_.vxorps(vr(kScratchA, bytes), vr(kScratchA, bytes), vr(kScratchA, bytes));
          if (avx512) {
            code_.vcmpps(k2, x, vr(kScratchA, bytes), 4);
            code_.vpmovm2d(x, k2);
          } else {
            code_.vcmpps(x, x, vr(kScratchA, bytes), 4);
          }
        } else {
          code_.vpxor(Xmm(kScratchA), Xmm(kScratchA), Xmm(kScratchA));
          if (avx512) {
            code_.vpcmpd(k2, x, vr(kScratchA, bytes), 4);
            code_.vpmovm2d(x, k2);
          } else {
            code_.vpcmpeqd(x, x, vr(kScratchA, bytes));
            vxor(x, x, ones());
          }
        }
      } else if (t.is_float()) {
        code_.vcvtdq2ps(x, x);
      } else {
        // float32 -> int32: truncate, saturate, NaN -> 0 (the interpreter's rule).
        Xmm big = vr(kScratchA, bytes), ordered = vr(kScratchB, bytes);
        if (avx512) {
          code_.vcmpps(k2, x, m_.pool.splat_f32(2147483648.0f), 13);  // >= 2^31
          code_.vcmpps(k3, x, x, 7);                                  // ordered
          code_.vcvttps2dq(x, x);
          code_.vmovdqu32(x | k2, m_.pool.splat32(0x7fffffffu));
          code_.vmovdqu32(x | k3 | T_z, x);
        } else {
          code_.vcmpps(big, x, m_.pool.splat_f32(2147483648.0f), 13);
          code_.vcmpps(ordered, x, x, 7);
          code_.vcvttps2dq(x, x);
          code_.vblendvps(x, x, m_.pool.splat32(0x7fffffffu), big);
          code_.vpand(x, x, ordered);
        }
      }
      break;
    }
    case ExprKind::Call: {
      auto* c = e.as<CallNode>();
      const std::string op = intrinsic_name(*c);
      const Intrinsic* in = find_intrinsic(*c, Backend::X86Vector);
      auto is = [&](IntrinsicId id) { return in && in->id == id; };
      if (is(IntrinsicId::IfThenElse)) {
        if (c->args.size() != 3)
          fail("vector if_then_else with " + std::to_string(c->args.size()) + " arguments");
        if (cannot_fault(c->args[1]) && cannot_fault(c->args[2])) {
          SelectNode s(e.dtype(), c->args[0], c->args[1], c->args[2]);
          return eval_vec(Expr(std::make_shared<SelectNode>(s)), cx);
        }
        // An arm that may fault is a load read only in the lanes that take it.
        int cond = eval_vec(c->args[0], cx);
        auto arm = [&](const Expr& a, bool negate) {
          if (cannot_fault(a)) return eval_vec(a, cx);
          if (!guarded_load(a, cx.loop_var))
            fail("vector if_then_else whose arm may fault and is not a load along the loop");
          auto* l = a.as<BufferLoadNode>();
          return eval_vec_load(l->indices[0], l->buffer, cx, cond, negate);
        };
        int tv = arm(c->args[1], false), fv = arm(c->args[2], true);
        out = blend(cond, tv, fv);
        break;
      }
      if (is(IntrinsicId::Pow) && c->args.size() == 2) {
        if (t != DataType::float32()) fail("vector pow of " + t.str());
        int base = eval_vec(c->args[0], cx);
        int exponent = eval_vec(c->args[1], cx);
        out = new_vec();
        std::vector<int> temps, scratch;
        for (int i = 0; i < 3; ++i) temps.push_back(new_vec());
        int br = regs_.reg(base), er = regs_.reg(exponent), dr = regs_.reg(out);
        for (int s : temps) scratch.push_back(regs_.reg(s));
        emit_vec_pow(code_, m_.pool, target_.isa, bytes * 8, dr, br, er, scratch);
        for (int s : temps) regs_.release(s);
        regs_.release(base);
        regs_.release(exponent);
        break;
      }
      if (c->args.size() != 1) fail("vector call " + op);
      out = eval_vec(c->args[0], cx);
      Xmm x = V(out);
      const std::optional<uint8_t> imm = in ? rounding_immediate(in->id) : std::nullopt;
      const std::optional<VecMathFn> fn = in ? vec_math_fn_of(in->id) : std::nullopt;
      if (is(IntrinsicId::Abs)) {
        if (t.is_float())
          code_.vandps(x, x, m_.pool.splat32(0x7fffffffu));
        else
          code_.vpabsd(x, x);
      } else if (imm) {
        if (avx512)
          code_.vrndscaleps(x, x, *imm);
        else
          code_.vroundps(x, x, *imm);
      } else if (fn) {
        std::vector<int> temps, scratch;
        for (int i = 0; i < vec_math_scratch_count(*fn, target_.isa); ++i)
          temps.push_back(new_vec());
        int xr = regs_.reg(out);
        for (int s : temps) scratch.push_back(regs_.reg(s));
        emit_vec_math(code_, m_.pool, target_.isa, bytes * 8, *fn, xr, xr, scratch);
        for (int s : temps) regs_.release(s);
      } else {
        fail("vector call " + op);
      }
      break;
    }
    default: {
      auto* b = e.as<BinaryNode>();
      if (!b) fail(std::string("vector ") + to_string(e.kind()));
      DataType ot = b->a.dtype().element_of();
      int ta, tb;
      if (need(b->b) > need(b->a)) {
        tb = eval_vec(b->b, cx);
        ta = eval_vec(b->a, cx);
      } else {
        ta = eval_vec(b->a, cx);
        tb = eval_vec(b->b, cx);
      }
      Xmm xa = V(ta), xb = V(tb);
      const bool f = ot.is_float();
      switch (e.kind()) {
        case ExprKind::Add:
          f ? code_.vaddps(xa, xa, xb) : code_.vpaddd(xa, xa, xb);
          break;
        case ExprKind::Sub:
          f ? code_.vsubps(xa, xa, xb) : code_.vpsubd(xa, xa, xb);
          break;
        case ExprKind::Mul:
          f ? code_.vmulps(xa, xa, xb) : code_.vpmulld(xa, xa, xb);
          break;
        case ExprKind::Div:
          if (!f) fail("vector integer division");
          code_.vdivps(xa, xa, xb);
          break;
        case ExprKind::Min:
          f ? code_.vminps(xa, xa, xb) : code_.vpminsd(xa, xa, xb);
          break;
        case ExprKind::Max:
          f ? code_.vmaxps(xa, xa, xb) : code_.vpmaxsd(xa, xa, xb);
          break;
        case ExprKind::And:
          avx512 ? code_.vpandd(xa, xa, xb) : code_.vpand(xa, xa, xb);
          break;
        case ExprKind::Or:
          avx512 ? code_.vpord(xa, xa, xb) : code_.vpor(xa, xa, xb);
          break;
        case ExprKind::EQ:
        case ExprKind::NE:
        case ExprKind::LT:
        case ExprKind::LE:
        case ExprKind::GT:
        case ExprKind::GE: {
          const ExprKind k = e.kind();
          if (f) {
            // Ordered predicates except !=, which is true for NaN as in the interpreter.
            uint8_t imm = k == ExprKind::EQ   ? 0
                          : k == ExprKind::NE ? 4
                          : k == ExprKind::LT ? 1
                          : k == ExprKind::LE ? 2
                          : k == ExprKind::GT ? 14
                                              : 13;
            if (avx512) {
              code_.vcmpps(k2, xa, xb, imm);
              code_.vpmovm2d(xa, k2);
            } else {
              code_.vcmpps(xa, xa, xb, imm);
            }
          } else if (avx512) {
            uint8_t imm = k == ExprKind::EQ   ? 0
                          : k == ExprKind::NE ? 4
                          : k == ExprKind::LT ? 1
                          : k == ExprKind::LE ? 2
                          : k == ExprKind::GT ? 6
                                              : 5;
            code_.vpcmpd(k2, xa, xb, imm);
            code_.vpmovm2d(xa, k2);
          } else {
            switch (k) {
              case ExprKind::EQ:
                code_.vpcmpeqd(xa, xa, xb);
                break;
              case ExprKind::NE:
                code_.vpcmpeqd(xa, xa, xb);
                vxor(xa, xa, ones());
                break;
              case ExprKind::GT:
                code_.vpcmpgtd(xa, xa, xb);
                break;
              case ExprKind::LE:
                code_.vpcmpgtd(xa, xa, xb);
                vxor(xa, xa, ones());
                break;
              case ExprKind::LT:
                code_.vpcmpgtd(xa, xb, xa);
                break;
              default:  // GE
                code_.vpcmpgtd(xa, xb, xa);
                vxor(xa, xa, ones());
                break;
            }
          }
          break;
        }
        default:
          fail(std::string("vector operation ") + to_string(e.kind()));
      }
      regs_.release(tb);
      out = ta;
      break;
    }
  }
  regs_.unpin_all();
  return out;
}

void FunctionEmitter::emit_vec_store(const BufferStoreNode& s, const VecCtx& cx) {
  const bool avx512 = target_.isa == Isa::avx512;
  const int bytes = cx.bytes();
  if (bytes != 16 && bytes != 32 && !(bytes == 64 && avx512))
    fail("vector of " + std::to_string(cx.lanes) + " lanes on " + target_.name());
  DataType et = s.buffer->dtype;
  if (et != DataType::float32() && et != DataType::int32())
    fail("vector store to " + et.str() + " buffer " + s.buffer->name +
         " (float32 and int32 are supported)");
  if (s.value.dtype().element_of() != et)
    fail("vector store of " + s.value.dtype().str() + " into " + et.str());
  if (s.indices.size() != 1) fail("vector store to " + s.buffer->name + " with several indices");
  int64_t stride;
  Expr base;
  if (!vector_stride(s.indices[0], cx, &stride, &base) || stride == 0 ||
      (cx.loop_var && stride != 1 && target_.isa != Isa::avx512))
    fail("vector store to " + s.buffer->name + " at a non-linear index");
  int v = eval_vec(s.value, cx);
  int idx = -1;
  if (stride == 1) {
    Xbyak::RegExp a = vector_address(s.buffer, s.indices[0], base, stride, cx, &idx);
    Xmm x = vr(regs_.reg(v), bytes);
    if (!cx.masked)
      code_.vmovups(ptr[a], x);
    else if (avx512)
      code_.vmovups(ptr[a] | k1, x);
    else
      code_.vmaskmovps(ptr[a], vr(kMaskReg, bytes), x);
  } else {
    if (!avx512)
      fail("vector store to " + s.buffer->name + " with stride " + std::to_string(stride) +
           " needs AVX-512 scatter");
    std::vector<uint8_t> offsets(64);
    for (int i = 0; i < 16; ++i) {
      int32_t o = static_cast<int32_t>(stride * i);
      std::memcpy(offsets.data() + 4 * i, &o, 4);
    }
    Xbyak::RegExp a = vector_address(s.buffer, s.indices[0], base, stride, cx, &idx);
    code_.lea(rax, ptr[a]);
    int vidx = regs_.alloc(RegClass::Vec, bytes, false);
    Xmm vi = vr(regs_.reg(vidx), bytes), x = vr(regs_.reg(v), bytes);
    code_.vmovdqu32(vi, m_.pool.table(offsets));
    if (cx.masked)
      code_.kmovw(k2, k1);
    else
      code_.kxnorw(k2, k2, k2);
    code_.vpscatterdd(ptr[rax + vi * 4] | k2, x);
    regs_.release(vidx);
  }
  regs_.release(v);
  if (idx >= 0) regs_.release(idx);
  regs_.unpin_all();
}

namespace {

// The largest subexpressions of e worth computing once before a loop over v:
// integer or boolean scalars that do not depend on v, are more than a
// variable or constant, read no memory (a store of the loop could change
// it), call nothing and divide only by nonzero constants (so evaluating them
// when the loop runs no iteration cannot trap).
void invariant_parts(const Expr& e, const VarNode* v, std::vector<Expr>& out) {
  if (!e) return;
  const DataType t = e.dtype();
  auto safe = [](const Expr& x) {
    struct Finder : ExprVisitor {
      bool unsafe = false;
      void visit_load(const BufferLoadNode*) override { unsafe = true; }
      void visit_call(const CallNode*) override { unsafe = true; }
      void visit_ramp(const RampNode*) override { unsafe = true; }
      void visit_broadcast(const BroadcastNode*) override { unsafe = true; }
      void visit_binary(const BinaryNode* n) override {
        const ExprKind k = n->kind;
        if ((k == ExprKind::Div || k == ExprKind::Mod || k == ExprKind::FloorDiv ||
             k == ExprKind::FloorMod) &&
            !n->dtype.is_float()) {
          auto d = as_const_int(n->b);
          if (!d || *d == 0) unsafe = true;
        }
        ExprVisitor::visit_binary(n);
      }
    } f;
    f.visit(x);
    return !f.unsafe;
  };
  const bool trivial = e.as<VarNode>() || e.as<IntImmNode>() ||
                       (e.as<CastNode>() && e.as<CastNode>()->value.as<VarNode>());
  if (t.is_scalar() && (t.is_int() || t.is_uint() || t.is_bool()) && !trivial && !uses_var(e, v) &&
      safe(e)) {
    out.push_back(e);
    return;
  }
  switch (e.kind()) {
    case ExprKind::BufferLoad:
      for (const Expr& i : e.as<BufferLoadNode>()->indices) invariant_parts(i, v, out);
      break;
    case ExprKind::Not:
      invariant_parts(e.as<NotNode>()->a, v, out);
      break;
    case ExprKind::Cast:
      invariant_parts(e.as<CastNode>()->value, v, out);
      break;
    case ExprKind::Select: {
      auto* n = e.as<SelectNode>();
      for (const Expr& x : {n->cond, n->true_value, n->false_value}) invariant_parts(x, v, out);
      break;
    }
    case ExprKind::Call:
      for (const Expr& x : e.as<CallNode>()->args) invariant_parts(x, v, out);
      break;
    default:
      if (auto* b = e.as<BinaryNode>()) {
        invariant_parts(b->a, v, out);
        invariant_parts(b->b, v, out);
      }
      break;
  }
}

}  // namespace

void FunctionEmitter::emit_vectorized(const ForNode& f) {
  const int lanes = target_.f32_lanes();
  int start = eval(f.min);
  int extent = eval(f.extent);
  code_.add(Reg64(regs_.reg(extent)), Reg64(regs_.reg(start)));
  int end_slot = frame_.alloc(8, 8);
  code_.mov(qword[rsp + end_slot], Reg64(regs_.reg(extent)));
  regs_.release(extent);
  int r = regs_.take_gpr(8);
  VarLoc loc{VarLoc::Kind::Slot, f.loop_var->dtype};
  if (r >= 0) {
    loc.kind = VarLoc::Kind::Gpr;
    loc.reg = r;
    code_.mov(Reg64(r), Reg64(regs_.reg(start)));
  } else {
    loc.offset = frame_.alloc(8, 8);
    code_.mov(qword[rsp + loc.offset], Reg64(regs_.reg(start)));
  }
  regs_.release(start);
  regs_.unpin_all();
  vars_[f.loop_var.get()] = loc;
  auto load_var = [&](const Reg64& dst) {
    if (r >= 0)
      code_.mov(dst, Reg64(r));
    else
      code_.mov(dst, qword[rsp + loc.offset]);
  };
  std::vector<const BufferStoreNode*> stores;
  if (auto* s = f.body.as<BufferStoreNode>())
    stores.push_back(s);
  else
    for (const Stmt& st : f.body.as<SeqStmtNode>()->seq) stores.push_back(st.as<BufferStoreNode>());
  VecCtx cx;
  cx.lanes = lanes;
  cx.loop_var = f.loop_var.get();
  std::vector<Expr> invariant;
  for (const BufferStoreNode* s : stores) {
    for (const Expr& i : s->indices) invariant_parts(i, cx.loop_var, invariant);
    invariant_parts(s->value, cx.loop_var, invariant);
  }
  std::vector<const ExprNode*> hoisted_here;
  for (const Expr& e : invariant) {
    if (hoisted_.count(e.get())) continue;
    int v = eval(e);
    const int slot = frame_.alloc(8, 8);
    code_.mov(qword[rsp + slot], Reg64(regs_.reg(v)));
    regs_.release(v);
    regs_.unpin_all();
    hoisted_[e.get()] = slot;
    hoisted_here.push_back(e.get());
  }
  auto next_chunk = [&] {
    if (r >= 0)
      code_.add(Reg64(r), lanes);
    else
      code_.add(qword[rsp + loc.offset], lanes);
  };
  // The addresses of the accesses that move with the loop, computed once
  // for its first vector into registers (at most kMaxVectorAddressRegisters);
  // later vectors add a displacement, and a counted loop advances them.
  std::map<std::pair<const VarNode*, const ExprNode*>, int> addresses;
  std::vector<std::pair<int, int64_t>> advance;  // register, bytes per lane step
  auto compute_addresses = [&] {
    std::vector<std::pair<Buffer, Expr>> accesses;
    for (const BufferStoreNode* s : stores) {
      accesses.emplace_back(s->buffer, s->indices[0]);
      struct Loads : ExprVisitor {
        std::vector<std::pair<Buffer, Expr>>* out;
        void visit_load(const BufferLoadNode* n) override {
          if (n->indices.size() == 1) out->emplace_back(n->buffer, n->indices[0]);
          ExprVisitor::visit_load(n);
        }
      } loads;
      loads.out = &accesses;
      loads.visit(s->value);
    }
    for (const auto& [b, index] : accesses) {
      const std::pair<const VarNode*, const ExprNode*> key{b->data.get(), index.get()};
      if (addresses.count(key) || addresses.size() >= kMaxVectorAddressRegisters) continue;
      int64_t stride;
      Expr base;
      if (!vector_stride(index, cx, &stride, &base) || stride == 0) continue;
      const int g = regs_.take_gpr(kKeepFreeGprs);
      if (g < 0) break;
      int idx = -1;
      Xbyak::RegExp a = element_address(b, base, &idx);
      code_.lea(Reg64(g), ptr[a]);
      if (idx >= 0) regs_.release(idx);
      regs_.unpin_all();
      addresses[key] = g;
      advance.emplace_back(g, stride * b->dtype.bytes());
    }
    cx.addresses = &addresses;
  };
  auto const_extent = as_const_int(f.extent);
  if (const_extent && *const_extent >= 0 && *const_extent / lanes <= kMaxUnrolledVectorChunks) {
    // A short constant extent: its full vectors straight-line, then a tail
    // under a mask known here; no compare or branch per vector.
    if (*const_extent > lanes) compute_addresses();
    for (int64_t c = 0; c < *const_extent / lanes; ++c) {
      cx.chunk = c * lanes;
      for (const BufferStoreNode* s : stores) emit_vec_store(*s, cx);
      next_chunk();
    }
    if (const int64_t rest = *const_extent % lanes) {
      cx.chunk = *const_extent / lanes * lanes;
      code_.mov(rax, rest);
      emit_tail_mask(rax, lanes);
      cx.masked = true;
      for (const BufferStoreNode* s : stores) emit_vec_store(*s, cx);
    }
  } else {
    // A counted loop over groups of kMaxUnrolledVectorChunks vectors, then
    // one over single vectors, then the masked tail; the moving addresses
    // advance with the loop variable instead of being computed per vector.
    compute_addresses();
    Xbyak::Label done;
    auto vectors_loop = [&](int64_t group) {
      Xbyak::Label top, out;
      code_.L(top);
      load_var(rax);
      code_.add(rax, lanes * group);
      code_.cmp(rax, qword[rsp + end_slot]);
      code_.jg(out, Xbyak::CodeGenerator::T_NEAR);
      for (int64_t c = 0; c < group; ++c) {
        cx.chunk = c * lanes;
        for (const BufferStoreNode* s : stores) emit_vec_store(*s, cx);
        next_chunk();
      }
      for (const auto& [g, bytes] : advance)
        code_.add(Reg64(g), static_cast<int>(bytes * lanes * group));
      code_.jmp(top, Xbyak::CodeGenerator::T_NEAR);
      code_.L(out);
    };
    vectors_loop(kMaxUnrolledVectorChunks);
    vectors_loop(1);
    cx.chunk = 0;
    if (!const_extent || *const_extent % lanes) {
      code_.mov(rax, qword[rsp + end_slot]);
      if (r >= 0)
        code_.sub(rax, Reg64(r));
      else
        code_.sub(rax, qword[rsp + loc.offset]);
      code_.jle(done, Xbyak::CodeGenerator::T_NEAR);
      emit_tail_mask(rax, lanes);
      cx.masked = true;
      for (const BufferStoreNode* s : stores) emit_vec_store(*s, cx);
    }
    code_.L(done);
  }
  for (const auto& [key, g] : addresses) regs_.give_back_gpr(g);
  for (const ExprNode* e : hoisted_here) hoisted_.erase(e);
  unbind_var(f.loop_var);
}

}  // namespace tirc
