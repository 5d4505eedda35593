// Scalar expressions. Integers and bools live in general-purpose registers as
// int64 values wrapped to their type (the interpreter's representation);
// floats live in xmm registers: float32 and float16 (as the exact float32 of
// the half, rounded back after every operation) in the low lane as float32,
// float64 as float64. Operands are evaluated in Sethi-Ullman order.
#include <algorithm>
#include <bit>
#include <cmath>

#include "codegen/x86/emitter.h"
#include "codegen/x86/math.h"
#include "ir/eval/numeric.h"
#include "ir/intrinsic.h"

namespace tirc {

using namespace Xbyak::util;
using Xbyak::Reg64;
using Xbyak::Xmm;

namespace {

const Xmm kScratch1(15), kScratch2(14);

bool is_int_like(DataType t) {
  return t.is_integer() || t.is_bool();
}

bool fits_i32(int64_t v) {
  return v >= INT32_MIN && v <= INT32_MAX;
}

// No loads and no integer division: evaluating it cannot fault, so a lazy
// if_then_else over it may evaluate both arms.
bool cannot_fault(const Expr& e) {
  if (!e) return true;
  switch (e.kind()) {
    case ExprKind::BufferLoad:
      return false;
    case ExprKind::Div:
    case ExprKind::Mod:
    case ExprKind::FloorDiv:
    case ExprKind::FloorMod:
      if (is_int_like(e.dtype())) return false;
      [[fallthrough]];
    default:
      break;
  }
  if (auto* b = e.as<BinaryNode>()) return cannot_fault(b->a) && cannot_fault(b->b);
  if (auto* n = e.as<NotNode>()) return cannot_fault(n->a);
  if (auto* c = e.as<CastNode>()) return cannot_fault(c->value);
  if (auto* s = e.as<SelectNode>())
    return cannot_fault(s->cond) && cannot_fault(s->true_value) && cannot_fault(s->false_value);
  if (auto* c = e.as<CallNode>())
    return std::all_of(c->args.begin(), c->args.end(),
                       [](const Expr& a) { return cannot_fault(a); });
  if (auto* r = e.as<RampNode>()) return cannot_fault(r->base) && cannot_fault(r->stride);
  if (auto* b = e.as<BroadcastNode>()) return cannot_fault(b->value);
  return true;
}

}  // namespace

int FunctionEmitter::need(const Expr& e) {
  auto it = need_cache_.find(e.get());
  if (it != need_cache_.end()) return it->second.second;
  int n = 1;
  auto combine = [&](std::vector<int> parts) {
    std::sort(parts.rbegin(), parts.rend());
    int best = 0;
    for (size_t i = 0; i < parts.size(); ++i) best = std::max(best, parts[i] + static_cast<int>(i));
    return std::max(best, 1);
  };
  if (auto* b = e.as<BinaryNode>()) {
    n = combine({need(b->a), b->b.kind() == ExprKind::IntImm ? 0 : need(b->b)});
  } else if (auto* l = e.as<BufferLoadNode>()) {
    n = l->indices.empty() ? 1 : need(l->indices[0]);
  } else if (auto* u = e.as<NotNode>()) {
    n = need(u->a);
  } else if (auto* c = e.as<CastNode>()) {
    n = need(c->value);
  } else if (auto* s = e.as<SelectNode>()) {
    n = combine({need(s->cond), need(s->true_value), need(s->false_value)});
  } else if (auto* c = e.as<CallNode>()) {
    std::vector<int> parts;
    for (const Expr& a : c->args) parts.push_back(need(a));
    n = combine(parts);
  }
  need_cache_[e.get()] = {e, n};
  return n;
}

void FunctionEmitter::wrap(const Reg64& r, DataType t) {
  if (t.is_bool()) return;
  switch (t.bits()) {
    case 8:
      if (t.is_int())
        code_.movsx(r, r.cvt8());
      else
        code_.movzx(r, r.cvt8());
      break;
    case 16:
      if (t.is_int())
        code_.movsx(r, r.cvt16());
      else
        code_.movzx(r, r.cvt16());
      break;
    case 32:
      if (t.is_int())
        code_.movsxd(r, r.cvt32());
      else
        code_.mov(r.cvt32(), r.cvt32());
      break;
    default:
      break;
  }
}

void FunctionEmitter::round_float(int x, DataType t) {
  if (t.code() == DataType::Code::BFloat)
    fail("bfloat16 arithmetic is not supported by the x86 generator");
  if (t.bits() != 16) return;
  code_.vcvtps2ph(Xmm(x), Xmm(x), 4);  // 4: the MXCSR mode, round to nearest even
  code_.vcvtph2ps(Xmm(x), Xmm(x));
}

void FunctionEmitter::to_double(int x, DataType from) {
  if (from.bits() != 64) code_.vcvtss2sd(Xmm(x), Xmm(x), Xmm(x));
}

void FunctionEmitter::from_double(int x, DataType to) {
  if (to.bits() == 64) return;
  if (to.bits() == 32) {
    code_.vcvtsd2ss(Xmm(x), Xmm(x), Xmm(x));
    return;
  }
  // float64 -> float16 in one rounding: round to odd into float32 (24 bits
  // keep enough guard bits), then to nearest even into float16.
  Xbyak::Label exact;
  code_.vcvtsd2ss(kScratch1, Xmm(x), Xmm(x));
  code_.vcvtss2sd(kScratch2, kScratch1, kScratch1);
  code_.vucomisd(kScratch2, Xmm(x));
  code_.jp(exact, Xbyak::CodeGenerator::T_NEAR);
  code_.je(exact, Xbyak::CodeGenerator::T_NEAR);
  code_.vmovd(eax, kScratch1);
  code_.vmovq(rdx, kScratch2);
  code_.vmovq(r11, Xmm(x));
  code_.btr(rdx, 63);
  code_.btr(r11, 63);
  Xbyak::Label no_step;
  code_.cmp(rdx, r11);
  code_.jbe(no_step, Xbyak::CodeGenerator::T_NEAR);
  code_.dec(eax);
  code_.L(no_step);
  code_.or_(eax, 1);
  code_.vmovd(kScratch1, eax);
  code_.L(exact);
  code_.vmovaps(Xmm(x), kScratch1);
  round_float(x, to);
}

int FunctionEmitter::eval_float_const(DataType t, double v) {
  if (t.code() == DataType::Code::BFloat) fail("bfloat16 is not supported by the x86 generator");
  int tmp = regs_.alloc(RegClass::Vec, 16, true);
  Xmm x(regs_.reg(tmp));
  if (t.bits() == 64) {
    code_.vmovsd(x, m_.pool.splat64(std::bit_cast<uint64_t>(v)));
  } else {
    float f = static_cast<float>(numeric::round_to_float(t, v));
    code_.vmovss(x, m_.pool.splat_f32(f));
  }
  return tmp;
}

int FunctionEmitter::eval(const Expr& e) {
  if (!e) fail("null expression");
  DataType t = e.dtype();
  if (t.is_vector() && e.kind() != ExprKind::Call)
    fail(std::string("vector expression ") + to_string(e.kind()) + " of type " + t.str() +
         " outside a vector store");
  if (t.code() == DataType::Code::BFloat) fail("bfloat16 is not supported by the x86 generator");
  if (t.is_handle() || t.is_void()) fail("expression of type " + t.str());
  if (auto h = hoisted_.find(e.get()); h != hoisted_.end()) {
    int tmp = regs_.alloc(RegClass::Gpr);
    code_.mov(Reg64(regs_.reg(tmp)), qword[rsp + h->second]);
    return tmp;
  }
  int out = -1;
  switch (e.kind()) {
    case ExprKind::IntImm: {
      out = regs_.alloc(RegClass::Gpr);
      code_.mov(Reg64(regs_.reg(out)), numeric::wrap_int(t, e.as<IntImmNode>()->value));
      break;
    }
    case ExprKind::FloatImm:
      out = eval_float_const(t, e.as<FloatImmNode>()->value);
      break;
    case ExprKind::Var:
      out = eval_var(e.as<VarNode>());
      break;
    case ExprKind::BufferLoad:
      out = eval_load(*e.as<BufferLoadNode>());
      break;
    case ExprKind::Not: {
      out = eval(e.as<NotNode>()->a);
      code_.xor_(Reg64(regs_.reg(out)), 1);
      break;
    }
    case ExprKind::Cast:
      out = eval_cast(*e.as<CastNode>());
      break;
    case ExprKind::Select:
      out = eval_select(*e.as<SelectNode>());
      break;
    case ExprKind::Call:
      if (t.is_vector()) fail("vector call " + e.as<CallNode>()->op + " outside a vector store");
      out = eval_call(*e.as<CallNode>());
      break;
    case ExprKind::StringImm:
    case ExprKind::Ramp:
    case ExprKind::Broadcast:
      fail(std::string("expression ") + to_string(e.kind()) + " in scalar code");
    default:
      out = eval_binary(*e.as<BinaryNode>());
      break;
  }
  regs_.unpin_all();
  return out;
}

int FunctionEmitter::eval_var(const VarNode* v) {
  auto it = vars_.find(v);
  if (it == vars_.end()) fail("variable " + v->name + " is not bound here");
  const VarLoc& loc = it->second;
  DataType t = v->dtype;
  if (t.is_float()) {
    if (loc.kind != VarLoc::Kind::Slot)
      fail("internal: float variable " + v->name + " not in memory");
    int tmp = regs_.alloc(RegClass::Vec, 16, true);
    if (t.bits() == 64)
      code_.vmovsd(Xmm(regs_.reg(tmp)), qword[rsp + loc.offset]);
    else
      code_.vmovss(Xmm(regs_.reg(tmp)), dword[rsp + loc.offset]);
    return tmp;
  }
  int tmp = regs_.alloc(RegClass::Gpr);
  Reg64 r(regs_.reg(tmp));
  switch (loc.kind) {
    case VarLoc::Kind::Gpr:
      code_.mov(r, Reg64(loc.reg));
      break;
    case VarLoc::Kind::Slot:
      code_.mov(r, qword[rsp + loc.offset]);
      break;
    case VarLoc::Kind::Const:
      code_.mov(r, numeric::wrap_int(t, loc.value));
      break;
  }
  return tmp;
}

Xbyak::RegExp FunctionEmitter::element_address(const Buffer& b, const Expr& index,
                                               int* index_temp) {
  auto it = storage_.find(b->data.get());
  if (it == storage_.end())
    fail("buffer " + b->name + " has storage " + b->data->name +
         " that is not a parameter or an Allocate");
  if (b->elem_offset && !is_const_int(b->elem_offset, 0))
    fail("buffer " + b->name + " has an element offset (not in the lowered form)");
  if (b->dtype.is_vector()) fail("buffer " + b->name + " of vector type " + b->dtype.str());
  const int es = b->dtype.bytes();
  auto c = as_const_int(index);
  int64_t disp = it->second.kind == StorageLoc::Kind::FrameOffset ? it->second.offset : 0;
  if (c) {
    disp += *c * es;
    if (!fits_i32(disp)) fail("constant index into " + b->name + " is out of range");
  } else {
    if (!is_int_like(index.dtype()) || index.dtype().is_vector())
      fail("index of " + b->name + " has type " + index.dtype().str());
    *index_temp = eval(index);
  }
  Xbyak::RegExp base;
  if (it->second.kind == StorageLoc::Kind::FrameOffset) {
    base = Xbyak::RegExp(rsp) + static_cast<int>(disp);
  } else {
    storage_address(it->second, r11);
    base = Xbyak::RegExp(r11) + static_cast<int>(disp);
  }
  if (!c) base = base + Reg64(regs_.reg(*index_temp)) * es;
  return base;
}

int FunctionEmitter::eval_load(const BufferLoadNode& l) {
  if (l.indices.size() != 1)
    fail("load from " + l.buffer->name + " with " + std::to_string(l.indices.size()) +
         " indices (the lowered form has flat buffers)");
  DataType t = l.buffer->dtype;
  if (t != l.dtype)
    fail("load of " + l.dtype.str() + " from " + t.str() + " buffer " + l.buffer->name);
  if (t.code() == DataType::Code::BFloat)
    fail("bfloat16 buffer " + l.buffer->name + " is not supported");
  int idx = -1;
  if (is_int_like(t)) {
    // The loaded value may replace the index in its register.
    Xbyak::RegExp a = element_address(l.buffer, l.indices[0], &idx);
    int out = idx >= 0 ? idx : regs_.alloc(RegClass::Gpr);
    Reg64 r(regs_.reg(out));
    if (t.is_bool()) {
      code_.cmp(byte[a], 0);
      code_.setne(al);
      code_.movzx(r, al);
    } else if (t.bits() == 8) {
      if (t.is_int())
        code_.movsx(r, byte[a]);
      else
        code_.movzx(r, byte[a]);
    } else if (t.bits() == 16) {
      if (t.is_int())
        code_.movsx(r, word[a]);
      else
        code_.movzx(r, word[a]);
    } else if (t.bits() == 32) {
      if (t.is_int())
        code_.movsxd(r, dword[a]);
      else
        code_.mov(r.cvt32(), dword[a]);
    } else {
      code_.mov(r, qword[a]);
    }
    return out;
  }
  Xbyak::RegExp a = element_address(l.buffer, l.indices[0], &idx);
  if (idx >= 0) regs_.reg(idx);
  int out = regs_.alloc(RegClass::Vec, 16, true);
  Xmm x(regs_.reg(out));
  if (t.bits() == 64) {
    code_.vmovsd(x, qword[a]);
  } else if (t.bits() == 32) {
    code_.vmovss(x, dword[a]);
  } else {
    code_.movzx(eax, word[a]);
    code_.vmovd(x, eax);
    code_.vcvtph2ps(x, x);
  }
  if (idx >= 0) regs_.release(idx);
  return out;
}

void FunctionEmitter::store_scalar(const Xbyak::RegExp& a, int temp, DataType t) {
  int r = regs_.reg(temp);
  if (is_int_like(t)) {
    Reg64 g(r);
    if (t.is_bool() || t.bits() == 8)
      code_.mov(byte[a], g.cvt8());
    else if (t.bits() == 16)
      code_.mov(word[a], g.cvt16());
    else if (t.bits() == 32)
      code_.mov(dword[a], g.cvt32());
    else
      code_.mov(qword[a], g);
    return;
  }
  if (t.code() == DataType::Code::BFloat) fail("bfloat16 store is not supported");
  if (t.bits() == 64) {
    code_.vmovsd(qword[a], Xmm(r));
  } else if (t.bits() == 32) {
    code_.vmovss(dword[a], Xmm(r));
  } else {
    code_.vcvtps2ph(kScratch1, Xmm(r), 4);
    code_.vmovd(eax, kScratch1);
    code_.mov(word[a], ax);
  }
}

int FunctionEmitter::eval_binary(const BinaryNode& b) {
  if (is_comparison(b.kind)) return eval_compare(b);
  if (b.a.dtype() != b.b.dtype())
    fail(std::string("operands of ") + to_string(b.kind) + " have types " + b.a.dtype().str() +
         " and " + b.b.dtype().str());
  if (is_int_like(b.dtype)) return eval_int_binary(b);
  return eval_float_binary(b);
}

int FunctionEmitter::eval_int_binary(const BinaryNode& b) {
  const DataType t = b.dtype;
  const bool u64 = t.is_uint() && t.bits() == 64;
  auto imm = as_const_int(b.b);
  const bool use_imm =
      imm && fits_i32(*imm) &&
      (b.kind == ExprKind::Add || b.kind == ExprKind::Sub || b.kind == ExprKind::Mul ||
       b.kind == ExprKind::And || b.kind == ExprKind::Or);
  int ta, tb = -1;
  if (use_imm) {
    ta = eval(b.a);
  } else if (need(b.b) > need(b.a)) {
    tb = eval(b.b);
    ta = eval(b.a);
  } else {
    ta = eval(b.a);
    tb = eval(b.b);
  }
  Reg64 ra(regs_.reg(ta));
  if (use_imm) {
    int32_t v = static_cast<int32_t>(*imm);
    switch (b.kind) {
      case ExprKind::Add:
        code_.add(ra, v);
        break;
      case ExprKind::Sub:
        code_.sub(ra, v);
        break;
      case ExprKind::Mul:
        code_.imul(ra, ra, v);
        break;
      case ExprKind::And:
        code_.and_(ra, v);
        break;
      default:
        code_.or_(ra, v);
        break;
    }
    wrap(ra, t);
    return ta;
  }
  Reg64 rb(regs_.reg(tb));
  switch (b.kind) {
    case ExprKind::Add:
      code_.add(ra, rb);
      break;
    case ExprKind::Sub:
      code_.sub(ra, rb);
      break;
    case ExprKind::Mul:
      code_.imul(ra, rb);
      break;
    case ExprKind::And:
      code_.and_(ra, rb);
      break;
    case ExprKind::Or:
      code_.or_(ra, rb);
      break;
    case ExprKind::Min:
      code_.cmp(ra, rb);
      if (u64)
        code_.cmova(ra, rb);
      else
        code_.cmovg(ra, rb);
      break;
    case ExprKind::Max:
      code_.cmp(ra, rb);
      if (u64)
        code_.cmovb(ra, rb);
      else
        code_.cmovl(ra, rb);
      break;
    case ExprKind::Div:
    case ExprKind::Mod:
    case ExprKind::FloorDiv:
    case ExprKind::FloorMod: {
      const bool quotient = b.kind == ExprKind::Div || b.kind == ExprKind::FloorDiv;
      const bool floor = b.kind == ExprKind::FloorDiv || b.kind == ExprKind::FloorMod;
      Xbyak::Label done;
      code_.test(rb, rb);
      code_.jz(*fail_target_, Xbyak::CodeGenerator::T_NEAR);
      if (t.bits() == 64 && !u64) {
        // INT64_MIN / -1 traps in idiv; the IR wraps it.
        Xbyak::Label normal;
        code_.cmp(rb, -1);
        code_.jne(normal, Xbyak::CodeGenerator::T_NEAR);
        if (quotient)
          code_.neg(ra);
        else
          code_.xor_(ra, ra);
        code_.jmp(done, Xbyak::CodeGenerator::T_NEAR);
        code_.L(normal);
      }
      code_.mov(rax, ra);
      if (u64) {
        code_.xor_(edx, edx);
        code_.div(rb);
      } else {
        code_.cqo();
        code_.idiv(rb);
        if (floor) {
          // Truncation rounded toward zero; floor differs when the remainder
          // is nonzero and its sign differs from the divisor's.
          Xbyak::Label exact;
          code_.test(rdx, rdx);
          code_.jz(exact, Xbyak::CodeGenerator::T_NEAR);
          code_.mov(r11, rdx);
          code_.xor_(r11, rb);
          code_.jns(exact, Xbyak::CodeGenerator::T_NEAR);
          if (quotient)
            code_.dec(rax);
          else
            code_.add(rdx, rb);
          code_.L(exact);
        }
      }
      code_.mov(ra, quotient ? rax : rdx);
      code_.L(done);
      break;
    }
    default:
      fail(std::string("integer operation ") + to_string(b.kind));
  }
  if (b.kind != ExprKind::Min && b.kind != ExprKind::Max) wrap(ra, t);
  regs_.release(tb);
  return ta;
}

int FunctionEmitter::eval_float_binary(const BinaryNode& b) {
  const DataType t = b.dtype;
  if (t.code() == DataType::Code::BFloat)
    fail("bfloat16 arithmetic is not supported by the x86 generator");
  if (b.kind == ExprKind::Mod) fail("float modulo (fmod) is not supported by the x86 generator");
  if (b.kind == ExprKind::And || b.kind == ExprKind::Or) fail("logical operation on floats");
  int ta, tb;
  if (need(b.b) > need(b.a)) {
    tb = eval(b.b);
    ta = eval(b.a);
  } else {
    ta = eval(b.a);
    tb = eval(b.b);
  }
  Xmm xa(regs_.reg(ta)), xb(regs_.reg(tb));
  const bool d = t.bits() == 64;
  switch (b.kind) {
    case ExprKind::Add:
      d ? code_.vaddsd(xa, xa, xb) : code_.vaddss(xa, xa, xb);
      break;
    case ExprKind::Sub:
      d ? code_.vsubsd(xa, xa, xb) : code_.vsubss(xa, xa, xb);
      break;
    case ExprKind::Mul:
      d ? code_.vmulsd(xa, xa, xb) : code_.vmulss(xa, xa, xb);
      break;
    case ExprKind::Div:
      d ? code_.vdivsd(xa, xa, xb) : code_.vdivss(xa, xa, xb);
      break;
    case ExprKind::Min:  // a < b ? a : b, as the interpreter
      d ? code_.vminsd(xa, xa, xb) : code_.vminss(xa, xa, xb);
      break;
    case ExprKind::Max:
      d ? code_.vmaxsd(xa, xa, xb) : code_.vmaxss(xa, xa, xb);
      break;
    case ExprKind::FloorDiv:
    case ExprKind::FloorMod: {
      // In double, as the interpreter: floor(a / b), a - floor(a / b) * b.
      to_double(xa.getIdx(), t);
      to_double(xb.getIdx(), t);
      code_.vdivsd(kScratch1, xa, xb);
      code_.vroundsd(kScratch1, kScratch1, kScratch1, 9);  // floor, no precision exception
      if (b.kind == ExprKind::FloorDiv) {
        code_.vmovapd(xa, kScratch1);
      } else {
        code_.vmulsd(kScratch1, kScratch1, xb);
        code_.vsubsd(xa, xa, kScratch1);
      }
      from_double(xa.getIdx(), t);
      break;
    }
    default:
      fail(std::string("float operation ") + to_string(b.kind));
  }
  round_float(xa.getIdx(), t);
  regs_.release(tb);
  return ta;
}

int FunctionEmitter::eval_compare(const BinaryNode& b) {
  DataType ot = b.a.dtype();
  if (ot != b.b.dtype())
    fail(std::string("operands of ") + to_string(b.kind) + " have types " + ot.str() + " and " +
         b.b.dtype().str());
  if (ot.is_vector()) fail("vector comparison in scalar code");
  int ta, tb;
  if (need(b.b) > need(b.a)) {
    tb = eval(b.b);
    ta = eval(b.a);
  } else {
    ta = eval(b.a);
    tb = eval(b.b);
  }
  if (is_int_like(ot)) {
    Reg64 ra(regs_.reg(ta)), rb(regs_.reg(tb));
    const bool u64 = ot.is_uint() && ot.bits() == 64;
    code_.cmp(ra, rb);
    switch (b.kind) {
      case ExprKind::EQ:
        code_.sete(al);
        break;
      case ExprKind::NE:
        code_.setne(al);
        break;
      case ExprKind::LT:
        u64 ? code_.setb(al) : code_.setl(al);
        break;
      case ExprKind::LE:
        u64 ? code_.setbe(al) : code_.setle(al);
        break;
      case ExprKind::GT:
        u64 ? code_.seta(al) : code_.setg(al);
        break;
      default:
        u64 ? code_.setae(al) : code_.setge(al);
        break;
    }
    code_.movzx(ra, al);
    regs_.release(tb);
    return ta;
  }
  Xmm xa(regs_.reg(ta)), xb(regs_.reg(tb));
  const bool d = ot.bits() == 64;
  auto ucomi = [&](const Xmm& x, const Xmm& y) { d ? code_.vucomisd(x, y) : code_.vucomiss(x, y); };
  switch (b.kind) {
    case ExprKind::EQ:
      ucomi(xa, xb);
      code_.sete(al);
      code_.setnp(dl);
      code_.and_(al, dl);
      break;
    case ExprKind::NE:
      ucomi(xa, xb);
      code_.setne(al);
      code_.setp(dl);
      code_.or_(al, dl);
      break;
    case ExprKind::LT:
      ucomi(xb, xa);
      code_.seta(al);
      break;
    case ExprKind::LE:
      ucomi(xb, xa);
      code_.setae(al);
      break;
    case ExprKind::GT:
      ucomi(xa, xb);
      code_.seta(al);
      break;
    default:
      ucomi(xa, xb);
      code_.setae(al);
      break;
  }
  regs_.release(ta);
  regs_.release(tb);
  int out = regs_.alloc(RegClass::Gpr);
  code_.movzx(Reg64(regs_.reg(out)), al);
  return out;
}

int FunctionEmitter::eval_cast(const CastNode& c) {
  const DataType to = c.dtype, from = c.value.dtype();
  if (to.code() == DataType::Code::BFloat || from.code() == DataType::Code::BFloat)
    fail("bfloat16 casts are not supported by the x86 generator");
  if (from.is_handle() || to.is_handle()) fail("cast between handles");
  if (to == from) return eval(c.value);
  int v = eval(c.value);
  if (is_int_like(from) && is_int_like(to)) {
    Reg64 r(regs_.reg(v));
    if (to.is_bool()) {
      code_.test(r, r);
      code_.setne(al);
      code_.movzx(r, al);
    } else {
      wrap(r, to);
    }
    return v;
  }
  if (is_int_like(from)) {
    Reg64 r(regs_.reg(v));
    int out = regs_.alloc(RegClass::Vec, 16, true);
    Xmm x(regs_.reg(out));
    const bool d = to.bits() == 64;
    code_.vxorps(x, x, x);
    if (from.is_uint() && from.bits() == 64) {
      if (target_.isa == Isa::avx512) {
        d ? code_.vcvtusi2sd(x, x, r) : code_.vcvtusi2ss(x, x, r);
      } else {
        // Halve with the low bit kept sticky, convert, double.
        Xbyak::Label small, done;
        code_.test(r, r);
        code_.jns(small, Xbyak::CodeGenerator::T_NEAR);
        code_.mov(rax, r);
        code_.shr(rax, 1);
        code_.mov(rdx, r);
        code_.and_(edx, 1);
        code_.or_(rax, rdx);
        d ? code_.vcvtsi2sd(x, x, rax) : code_.vcvtsi2ss(x, x, rax);
        d ? code_.vaddsd(x, x, x) : code_.vaddss(x, x, x);
        code_.jmp(done, Xbyak::CodeGenerator::T_NEAR);
        code_.L(small);
        d ? code_.vcvtsi2sd(x, x, r) : code_.vcvtsi2ss(x, x, r);
        code_.L(done);
      }
    } else {
      d ? code_.vcvtsi2sd(x, x, r) : code_.vcvtsi2ss(x, x, r);
    }
    // int -> float32 is one rounding; float32 -> float16 cannot double-round:
    // every integer that float32 rounds is beyond float16's range.
    round_float(x.getIdx(), to);
    regs_.release(v);
    return out;
  }
  if (to.is_float()) {
    int x = regs_.reg(v);
    if (to.bits() == 64) {
      to_double(x, from);
    } else if (from.bits() == 64) {
      from_double(x, to);
    } else if (to.bits() == 16) {
      round_float(x, to);
    }
    return v;
  }
  // float -> integer: truncate, saturate to the type's range, NaN -> 0.
  int x = regs_.reg(v);
  to_double(x, from);
  Xmm xd(x);
  int out = regs_.alloc(RegClass::Gpr);
  Reg64 r(regs_.reg(out));
  if (to.is_bool()) {
    code_.vxorpd(kScratch1, kScratch1, kScratch1);
    code_.vucomisd(xd, kScratch1);
    code_.setne(al);
    code_.setp(dl);
    code_.or_(al, dl);
    code_.movzx(r, al);
    regs_.release(v);
    return out;
  }
  auto dconst = [&](double value) { return m_.pool.splat64(std::bit_cast<uint64_t>(value)); };
  Xbyak::Label done;
  code_.xor_(r.cvt32(), r.cvt32());
  code_.vucomisd(xd, xd);
  code_.jp(done, Xbyak::CodeGenerator::T_NEAR);
  const int bits = to.bits();
  if (bits < 64) {
    double lo = to.is_int() ? -std::ldexp(1.0, bits - 1) : 0.0;
    double hi = to.is_int() ? std::ldexp(1.0, bits - 1) - 1 : std::ldexp(1.0, bits) - 1;
    code_.vmaxsd(xd, xd, dconst(lo));
    code_.vminsd(xd, xd, dconst(hi));
    code_.vcvttsd2si(r, xd);
  } else if (to.is_int()) {
    Xbyak::Label big;
    code_.vucomisd(xd, dconst(std::ldexp(1.0, 63)));
    code_.jae(big, Xbyak::CodeGenerator::T_NEAR);
    code_.vcvttsd2si(r, xd);
    code_.jmp(done, Xbyak::CodeGenerator::T_NEAR);
    code_.L(big);
    code_.mov(r, INT64_MAX);
  } else {
    Xbyak::Label big, huge;
    code_.vmaxsd(xd, xd, dconst(0.0));
    code_.vucomisd(xd, dconst(std::ldexp(1.0, 64)));
    code_.jae(huge, Xbyak::CodeGenerator::T_NEAR);
    code_.vucomisd(xd, dconst(std::ldexp(1.0, 63)));
    code_.jae(big, Xbyak::CodeGenerator::T_NEAR);
    code_.vcvttsd2si(r, xd);
    code_.jmp(done, Xbyak::CodeGenerator::T_NEAR);
    code_.L(big);
    code_.vsubsd(xd, xd, dconst(std::ldexp(1.0, 63)));
    code_.vcvttsd2si(r, xd);
    code_.btc(r, 63);
    code_.jmp(done, Xbyak::CodeGenerator::T_NEAR);
    code_.L(huge);
    code_.mov(r, -1);
  }
  code_.L(done);
  regs_.release(v);
  return out;
}

int FunctionEmitter::eval_select(const SelectNode& s) {
  if (!s.cond.dtype().is_bool()) fail("select condition of type " + s.cond.dtype().str());
  // Eager, as the IR says: both values are evaluated.
  std::vector<std::pair<int, int>> order = {
      {need(s.cond), 0}, {need(s.true_value), 1}, {need(s.false_value), 2}};
  // Neediest first, ties in operand order (std::sort with a tie-break, not
  // std::stable_sort: libstdc++ 12's is deprecated-warning noise under clang 19).
  std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  int temps[3];
  const Expr* parts[3] = {&s.cond, &s.true_value, &s.false_value};
  for (auto& [n, i] : order) temps[i] = eval(*parts[i]);
  Reg64 rc(regs_.reg(temps[0]));
  if (is_int_like(s.dtype)) {
    Reg64 rt(regs_.reg(temps[1])), rf(regs_.reg(temps[2]));
    code_.test(rc, rc);
    code_.cmovz(rt, rf);
  } else {
    Xmm xt(regs_.reg(temps[1])), xf(regs_.reg(temps[2]));
    code_.mov(rax, rc);
    code_.neg(rax);
    code_.vmovq(kScratch1, rax);
    code_.vpblendvb(xt, xf, xt, kScratch1);
  }
  regs_.release(temps[0]);
  regs_.release(temps[2]);
  return temps[1];
}

int FunctionEmitter::eval_lazy_choice(const CallNode& c) {
  const DataType t = c.dtype;
  const bool gpr = is_int_like(t);
  int tc = eval(c.args[0]);
  Reg64 rc(regs_.reg(tc));
  code_.test(rc, rc);
  regs_.release(tc);
  // Stores do not change flags, so the branch below still tests the condition.
  regs_.save_all_for_branch();
  int result = regs_.alloc_in_memory(gpr ? RegClass::Gpr : RegClass::Vec, gpr ? 8 : 16);
  Xbyak::Label other, done;
  code_.jz(other, Xbyak::CodeGenerator::T_NEAR);
  for (int arm = 1; arm <= 2; ++arm) {
    int v = eval(c.args[arm]);
    int r = regs_.reg(v);
    if (gpr)
      code_.mov(regs_.slot_of(result), Reg64(r));
    else
      code_.vmovups(regs_.slot_of(result), Xmm(r));
    regs_.release(v);
    regs_.unpin_all();
    regs_.forget_registers();
    if (arm == 1) {
      code_.jmp(done, Xbyak::CodeGenerator::T_NEAR);
      code_.L(other);
    }
  }
  code_.L(done);
  return result;
}

std::optional<uint8_t> rounding_immediate(IntrinsicId id) {
  switch (id) {
    case IntrinsicId::Floor:
      return 9;
    case IntrinsicId::Ceil:
      return 10;
    case IntrinsicId::Round:
      return 8;
    case IntrinsicId::Trunc:
      return 11;
    default:
      return std::nullopt;
  }
}

int FunctionEmitter::eval_call(const CallNode& c) {
  const Intrinsic* in = find_intrinsic(c, Backend::X86Scalar);
  const DataType t = c.dtype;
  auto arity = [&](size_t n) {
    if (c.args.size() != n)
      fail("intrinsic " + c.op + " expects " + std::to_string(n) + " arguments, got " +
           std::to_string(c.args.size()));
  };
  if (in && in->id == IntrinsicId::IfThenElse) {
    arity(3);
    if (!c.args[0].dtype().is_bool())
      fail("if_then_else condition of type " + c.args[0].dtype().str());
    if (cannot_fault(c.args[1]) && cannot_fault(c.args[2])) {
      SelectNode s(t, c.args[0], c.args[1], c.args[2]);
      return eval_select(s);
    }
    return eval_lazy_choice(c);
  }
  if (in && in->id == IntrinsicId::Abs) {
    arity(1);
    int v = eval(c.args[0]);
    int r = regs_.reg(v);
    if (is_int_like(t)) {
      if (t.is_int()) {
        Reg64 g(r);
        code_.mov(rax, g);
        code_.neg(rax);
        code_.test(g, g);
        code_.cmovs(g, rax);
        wrap(g, t);
      }
    } else if (t.bits() == 64) {
      code_.vandpd(Xmm(r), Xmm(r), m_.pool.splat64(0x7fffffffffffffffull));
    } else {
      code_.vandps(Xmm(r), Xmm(r), m_.pool.splat32(0x7fffffffu));
    }
    return v;
  }
  if (std::string why = cuda_only(c); !why.empty()) fail(why);
  if (!t.is_float()) fail("intrinsic " + c.op + " of type " + t.str() + " is not supported");
  if (t.code() == DataType::Code::BFloat) fail("bfloat16 is not supported by the x86 generator");
  if (!in) fail("intrinsic " + c.op + " is not supported by the x86 generator");
  if (std::optional<uint8_t> imm = rounding_immediate(in->id)) {
    arity(1);
    int v = eval(c.args[0]);
    Xmm x(regs_.reg(v));
    t.bits() == 64 ? code_.vroundsd(x, x, x, *imm) : code_.vroundss(x, x, x, *imm);
    return v;
  }
  if (in->id == IntrinsicId::Pow && c.args.size() == 2) {
    // pow(x, 2) is x * x exactly (the double product of two floats is exact,
    // so rounding it once matches a float multiply); other exponents are refused.
    auto* e = c.args[1].as<FloatImmNode>();
    if (e && e->value == 2.0) {
      int v = eval(c.args[0]);
      Xmm x(regs_.reg(v));
      t.bits() == 64 ? code_.vmulsd(x, x, x) : code_.vmulss(x, x, x);
      round_float(x.getIdx(), t);
      return v;
    }
    if (t.bits() == 64) fail("float64 pow is not supported by the x86 generator");
    int base = eval(c.args[0]);
    int exponent = eval(c.args[1]);
    int out = regs_.alloc(RegClass::Vec, 16, true);
    std::vector<int> temps, scratch;
    for (int i = 0; i < 3; ++i) temps.push_back(regs_.alloc(RegClass::Vec, 16, true));
    int br = regs_.reg(base), er = regs_.reg(exponent), dr = regs_.reg(out);
    for (int s : temps) scratch.push_back(regs_.reg(s));
    emit_vec_pow(code_, m_.pool, target_.isa, 128, dr, br, er, scratch);
    for (int s : temps) regs_.release(s);
    regs_.release(base);
    regs_.release(exponent);
    round_float(dr, t);
    return out;
  }
  if (in->id == IntrinsicId::Sqrt) {
    arity(1);
    int v = eval(c.args[0]);
    Xmm x(regs_.reg(v));
    t.bits() == 64 ? code_.vsqrtsd(x, x, x) : code_.vsqrtss(x, x, x);
    round_float(x.getIdx(), t);
    return v;
  }
  if (std::optional<VecMathFn> fn = vec_math_fn_of(in->id)) {
    arity(1);
    if (t.bits() == 64)
      fail("float64 " + std::string(in->name) + " is not supported by the x86 generator");
    int v = eval(c.args[0]);
    std::vector<int> scratch_temps, scratch;
    for (int i = 0; i < vec_math_scratch_count(*fn, target_.isa); ++i) {
      scratch_temps.push_back(regs_.alloc(RegClass::Vec, 16, true));
    }
    int x = regs_.reg(v);
    for (int s : scratch_temps) scratch.push_back(regs_.reg(s));
    emit_vec_math(code_, m_.pool, target_.isa, 128, *fn, x, x, scratch);
    for (int s : scratch_temps) regs_.release(s);
    round_float(x, t);
    return v;
  }
  fail("intrinsic " + c.op + " is not supported by the x86 generator");
}

}  // namespace tirc
