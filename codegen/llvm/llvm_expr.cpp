// Expressions of lowered TIR as LLVM IR, with the interpreter's semantics
// (those of the C generator, codegen/c/c_expr.cpp): integers wrap, integer
// division by zero gives 0, float32 and float64 + - * / in their own
// precision (a multiply feeding an add may be fused), float16/bfloat16 computed in float32 and
// rounded to their format after each operation, everything else through double rounded once. Vector
// values are LLVM vectors; every operation is lane-wise.
#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Intrinsics.h>

#include "codegen/llvm/llvm_emitter.h"
#include "codegen/llvm/llvm_math.h"
#include "codegen/llvm/llvm_narrow_float.h"
#include "ir/buffer.h"
#include "ir/eval/numeric.h"
#include "ir/intrinsic.h"

namespace tirc::llvm_gen {

namespace {

bool is_narrow_float(DataType t) {
  return t.is_float() && t.bits() == 16;
}

}  // namespace

llvm::Type* storage_type(llvm::LLVMContext& c, DataType t) {
  if (t.is_vector())
    return llvm::FixedVectorType::get(storage_type(c, t.element_of()),
                                      static_cast<unsigned>(t.lanes()));
  if (t.is_bool()) return llvm::Type::getInt8Ty(c);
  if (t.is_integer()) return llvm::Type::getIntNTy(c, static_cast<unsigned>(t.bits()));
  if (is_narrow_float(t)) return llvm::Type::getInt16Ty(c);
  if (t == DataType::float32()) return llvm::Type::getFloatTy(c);
  if (t == DataType::float64()) return llvm::Type::getDoubleTy(c);
  throw Error("LLVM codegen: no storage type for " + t.str());
}

llvm::Type* value_type(llvm::LLVMContext& c, DataType t) {
  if (t.is_vector())
    return llvm::FixedVectorType::get(value_type(c, t.element_of()),
                                      static_cast<unsigned>(t.lanes()));
  if (t.is_bool()) return llvm::Type::getInt1Ty(c);
  if (is_narrow_float(t)) return llvm::Type::getFloatTy(c);
  return storage_type(c, t);
}

llvm::Type* FunctionEmitter::native_narrow_type(DataType t) const {
  // GPUs convert float32 <-> float16 / bfloat16 in one instruction each
  // (cvt.rn.f16.f32, cvt.f32.f16, and the bf16 forms from sm_80), with the
  // same rounding as the integer code the CPU targets get; NaNs keep no payload
  // in either.
  if (role_ != Role::cuda_device || !is_narrow_float(t)) return nullptr;
  return t.code() == DataType::Code::BFloat ? llvm::Type::getBFloatTy(c_)
                                            : llvm::Type::getHalfTy(c_);
}

llvm::Value* FunctionEmitter::to_storage(DataType t, llvm::Value* v) {
  if (t.is_bool()) return b_.CreateZExt(v, storage_type(c_, t.with_lanes(lanes_of(v))));
  if (llvm::Type* narrow = native_narrow_type(t))
    return b_.CreateBitCast(b_.CreateFPTrunc(v, v->getType()->getWithNewType(narrow)),
                            v->getType()->getWithNewType(b_.getInt16Ty()));
  if (t.code() == DataType::Code::BFloat) return emit_f32_to_bf16_bits(b_, v);
  if (is_narrow_float(t)) return emit_f32_to_f16_bits(b_, v);
  return v;
}

llvm::Value* FunctionEmitter::from_storage(DataType t, llvm::Value* v) {
  if (t.is_bool()) return b_.CreateICmpNE(v, llvm::Constant::getNullValue(v->getType()));
  if (llvm::Type* narrow = native_narrow_type(t))
    return b_.CreateFPExt(b_.CreateBitCast(v, v->getType()->getWithNewType(narrow)),
                          v->getType()->getWithNewType(b_.getFloatTy()));
  if (t.code() == DataType::Code::BFloat) return emit_bf16_bits_to_f32(b_, v);
  if (is_narrow_float(t)) return emit_f16_bits_to_f32(b_, v);
  return v;
}

int FunctionEmitter::lanes_of(llvm::Value* v) {
  if (auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(v->getType()))
    return static_cast<int>(vt->getNumElements());
  return 1;
}

llvm::Value* FunctionEmitter::element_address(const Buffer& b, llvm::Value* index) {
  if (b->dtype.is_vector())
    refuse("buffer " + b->name + " has vector element type " + b->dtype.str(), loc_);
  if (b->shape.size() != 1 || (b->elem_offset && !is_const_int(b->elem_offset, 0)) ||
      (!b->strides.empty() && !is_const_int(b->strides[0], 1)))
    refuse("buffer " + b->name + " is not flat (1-D, compact, offset 0): run lower() first", loc_);
  llvm::Value* base = lookup(b->data.get());
  if (!base->getType()->isPointerTy())
    refuse("storage of buffer " + b->name + " is not a handle", loc_);
  return b_.CreateGEP(storage_type(c_, b->dtype), base, index);
}

llvm::Value* FunctionEmitter::round_to(DataType t, llvm::Value* x) {
  llvm::Type* scalar = x->getType()->getScalarType();
  // x's shape (scalar, or a vector of its lanes) of another element type.
  auto of = [&](llvm::Type* s) { return x->getType()->getWithNewType(s); };
  if (t.bits() == 64) return scalar->isDoubleTy() ? x : b_.CreateFPExt(x, of(b_.getDoubleTy()));
  if (scalar->isDoubleTy()) {
    if (t == DataType::float32()) return b_.CreateFPTrunc(x, of(b_.getFloatTy()));
    // double -> float16/bfloat16 in one rounding: round to odd into float32
    // (24 bits >= 2 * 11 + 2), then to nearest even into the format.
    llvm::Value* nearest = b_.CreateFPTrunc(x, of(b_.getFloatTy()));
    llvm::Value* back = b_.CreateFPExt(nearest, x->getType());
    llvm::Type* int_type = of(b_.getInt32Ty());
    llvm::Value* bits = b_.CreateBitCast(nearest, int_type);
    // Rounded away from zero: step back one ulp towards zero (bits - 1 on
    // the magnitude, the sign bit untouched).
    llvm::Value* away = b_.CreateFCmpOGT(b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, back),
                                         b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x));
    bits = b_.CreateSelect(away, b_.CreateSub(bits, llvm::ConstantInt::get(int_type, 1)), bits);
    llvm::Value* inexact = b_.CreateFCmpONE(back, x);
    bits = b_.CreateSelect(inexact, b_.CreateOr(bits, llvm::ConstantInt::get(int_type, 1)), bits);
    x = b_.CreateBitCast(bits, of(b_.getFloatTy()));
  }
  if (t == DataType::float32()) return x;
  return from_storage(t, to_storage(t, x));
}

llvm::Value* FunctionEmitter::expr(const Expr& e) {
  if (!e) refuse("null expression", loc_);
  const DataType t = e.dtype();
  if (is_comparison(e.kind())) return compare(*e.as<BinaryNode>());
  switch (e.kind()) {
    case ExprKind::IntImm:
      if (t.is_bool()) return b_.getInt1(e.as<IntImmNode>()->value != 0);
      return llvm::ConstantInt::get(value_type(c_, t),
                                    static_cast<uint64_t>(e.as<IntImmNode>()->value), t.is_int());
    case ExprKind::FloatImm: {
      if (!t.is_float()) refuse("float immediate of type " + t.str(), loc_);
      const double v = numeric::round_to_float(t, e.as<FloatImmNode>()->value);
      return llvm::ConstantFP::get(value_type(c_, t), v);
    }
    case ExprKind::StringImm:
      refuse("string immediate in an expression", loc_);
    case ExprKind::Var: {
      llvm::Value* v = lookup(e.as<VarNode>());
      if (v->getType()->isPointerTy())
        refuse("handle variable " + e.as<VarNode>()->name + " used as a value", loc_);
      return v;
    }
    case ExprKind::BufferLoad:
      return load(*e.as<BufferLoadNode>());
    case ExprKind::And:
    case ExprKind::Or: {
      auto* b = e.as<BinaryNode>();
      llvm::Value* x = expr(b->a);
      llvm::Value* y = expr(b->b);
      return e.kind() == ExprKind::And ? b_.CreateAnd(x, y) : b_.CreateOr(x, y);
    }
    case ExprKind::Not:
      return b_.CreateNot(expr(e.as<NotNode>()->a));
    case ExprKind::Cast:
      return cast(t, e.as<CastNode>()->value);
    case ExprKind::Select: {
      auto* s = e.as<SelectNode>();
      llvm::Value* cond = expr(s->cond);
      llvm::Value* x = expr(s->true_value);
      llvm::Value* y = expr(s->false_value);
      return b_.CreateSelect(cond, x, y);
    }
    case ExprKind::Call:
      return call(*e.as<CallNode>());
    case ExprKind::Ramp:
      return ramp(*e.as<RampNode>());
    case ExprKind::Broadcast: {
      auto* b = e.as<BroadcastNode>();
      return b_.CreateVectorSplat(static_cast<unsigned>(b->lanes), expr(b->value));
    }
    default:
      break;
  }
  auto* b = e.as<BinaryNode>();
  if (!b) refuse(std::string("expression ") + to_string(e.kind()), loc_);
  return binary(*b);
}

llvm::Value* FunctionEmitter::index_expr(const Expr& e) {
  const bool outer = in_index_;
  in_index_ = true;
  llvm::Value* v = expr(e);
  in_index_ = outer;
  return v;
}

void FunctionEmitter::match_lanes(llvm::Value*& x, llvm::Value*& y) {
  // Well-typed IR broadcasts explicitly; a scalar meeting a vector is splat.
  const int lanes = std::max(lanes_of(x), lanes_of(y));
  if (lanes_of(x) != lanes) x = b_.CreateVectorSplat(static_cast<unsigned>(lanes), x);
  if (lanes_of(y) != lanes) y = b_.CreateVectorSplat(static_cast<unsigned>(lanes), y);
}

llvm::Value* FunctionEmitter::binary(const BinaryNode& b) {
  llvm::Value* x = expr(b.a);
  llvm::Value* y = expr(b.b);
  match_lanes(x, y);
  const DataType t = b.dtype.element_of();
  if (t.is_float()) return float_binary(b.kind, t, x, y);
  return int_binary(b.kind, t, x, y);
}

llvm::Value* FunctionEmitter::int_binary(ExprKind k, DataType t, llvm::Value* x, llvm::Value* y) {
  if (t.is_bool()) {
    if (k == ExprKind::Min) return b_.CreateAnd(x, y);
    if (k == ExprKind::Max) return b_.CreateOr(x, y);
    refuse(std::string("arithmetic ") + to_string(k) + " on bool", loc_);
  }
  if (!t.is_integer()) refuse(std::string("operation ") + to_string(k) + " on " + t.str(), loc_);
  const bool is_signed = t.is_int();
  llvm::Type* type = x->getType();
  auto constant = [&](int64_t v) {
    return llvm::ConstantInt::get(type, static_cast<uint64_t>(v), true);
  };
  switch (k) {
    // In an element index a signed overflow would address outside the buffer:
    // nsw there lets LLVM see that rows of a tile do not overlap.
    case ExprKind::Add:
      return b_.CreateAdd(x, y, "", false, in_index_ && is_signed);
    case ExprKind::Sub:
      return b_.CreateSub(x, y, "", false, in_index_ && is_signed);
    case ExprKind::Mul:
      return b_.CreateMul(x, y, "", false, in_index_ && is_signed);
    case ExprKind::Min:
      return b_.CreateSelect(is_signed ? b_.CreateICmpSLT(x, y) : b_.CreateICmpULT(x, y), x, y);
    case ExprKind::Max:
      return b_.CreateSelect(is_signed ? b_.CreateICmpSGT(x, y) : b_.CreateICmpUGT(x, y), x, y);
    case ExprKind::Div:
    case ExprKind::Mod:
    case ExprKind::FloorDiv:
    case ExprKind::FloorMod:
      break;
    default:
      refuse(std::string("integer operation ") + to_string(k), loc_);
  }
  // Division: y == 0 gives 0; for signed types y == -1 is a wrapping
  // negation (quotient) or 0 (remainder), so INT_MIN / -1 cannot trap. The
  // divisor is made safe first: LLVM's division by 0 or overflow is undefined.
  llvm::Value* zero = constant(0);
  llvm::Value* by_zero = b_.CreateICmpEQ(y, zero);
  if (!is_signed) {
    llvm::Value* safe = b_.CreateSelect(by_zero, constant(1), y);
    llvm::Value* r = (k == ExprKind::Div || k == ExprKind::FloorDiv) ? b_.CreateUDiv(x, safe)
                                                                     : b_.CreateURem(x, safe);
    return b_.CreateSelect(by_zero, zero, r);
  }
  llvm::Value* by_minus_one = b_.CreateICmpEQ(y, constant(-1));
  llvm::Value* special = b_.CreateOr(by_zero, by_minus_one);
  llvm::Value* safe = b_.CreateSelect(special, constant(1), y);
  llvm::Value* q = b_.CreateSDiv(x, safe);
  llvm::Value* r = b_.CreateSRem(x, safe);
  // Floor rounding differs from truncation when the remainder is nonzero and
  // its sign differs from the divisor's.
  llvm::Value* adjust =
      b_.CreateAnd(b_.CreateICmpNE(r, zero),
                   b_.CreateICmpNE(b_.CreateICmpSLT(r, zero), b_.CreateICmpSLT(y, zero)));
  switch (k) {
    case ExprKind::Div:
      return b_.CreateSelect(by_zero, zero, b_.CreateSelect(by_minus_one, b_.CreateNeg(x), q));
    case ExprKind::FloorDiv:
      q = b_.CreateSelect(adjust, b_.CreateSub(q, constant(1)), q);
      return b_.CreateSelect(by_zero, zero, b_.CreateSelect(by_minus_one, b_.CreateNeg(x), q));
    case ExprKind::Mod:
      return b_.CreateSelect(special, zero, r);
    default:  // FloorMod
      r = b_.CreateSelect(adjust, b_.CreateAdd(r, y), r);
      return b_.CreateSelect(special, zero, r);
  }
}

llvm::Value* FunctionEmitter::float_binary(ExprKind k, DataType t, llvm::Value* x, llvm::Value* y) {
  const bool native = !is_narrow_float(t);
  // float32/float64 a * b + c may become one FMA (one rounding), as in the
  // x86 generator's contraction kernels: the `contract` flag on both.
  auto rounded = [&](llvm::Value* r) {
    if (!native) return round_to(t, r);
    if (auto* inst = llvm::dyn_cast<llvm::Instruction>(r)) inst->setHasAllowContract(true);
    return r;
  };
  auto in_double = [&](llvm::Value* v) {
    return v->getType()->getScalarType()->isDoubleTy()
               ? v
               : b_.CreateFPExt(v, v->getType()->getWithNewType(b_.getDoubleTy()));
  };
  switch (k) {
    case ExprKind::Add:
      return rounded(b_.CreateFAdd(x, y));
    case ExprKind::Sub:
      return rounded(b_.CreateFSub(x, y));
    case ExprKind::Mul:
      return rounded(b_.CreateFMul(x, y));
    case ExprKind::Div:
      return rounded(b_.CreateFDiv(x, y));
    case ExprKind::Min:
      return b_.CreateSelect(b_.CreateFCmpOLT(x, y), x, y);
    case ExprKind::Max:
      return b_.CreateSelect(b_.CreateFCmpOGT(x, y), x, y);
    case ExprKind::Mod:
      // fmod in double (LLVM calls the C library's fmod for it).
      return round_to(t, b_.CreateFRem(in_double(x), in_double(y)));
    case ExprKind::FloorDiv:
    case ExprKind::FloorMod: {
      llvm::Value* dx = in_double(x);
      llvm::Value* dy = in_double(y);
      llvm::Value* q = b_.CreateUnaryIntrinsic(llvm::Intrinsic::floor, b_.CreateFDiv(dx, dy));
      if (k == ExprKind::FloorDiv) return round_to(t, q);
      return round_to(t, b_.CreateFSub(dx, b_.CreateFMul(q, dy)));
    }
    default:
      refuse(std::string("float operation ") + to_string(k), loc_);
  }
}

llvm::Value* FunctionEmitter::compare(const BinaryNode& b) {
  llvm::Value* x = expr(b.a);
  llvm::Value* y = expr(b.b);
  match_lanes(x, y);
  const DataType t = b.a.dtype().element_of();
  using P = llvm::CmpInst::Predicate;
  if (t.is_float()) {
    // As in C: != is true for NaN, every other comparison false.
    const P p = b.kind == ExprKind::EQ   ? P::FCMP_OEQ
                : b.kind == ExprKind::NE ? P::FCMP_UNE
                : b.kind == ExprKind::LT ? P::FCMP_OLT
                : b.kind == ExprKind::LE ? P::FCMP_OLE
                : b.kind == ExprKind::GT ? P::FCMP_OGT
                                         : P::FCMP_OGE;
    return b_.CreateFCmp(p, x, y);
  }
  const bool s = t.is_int();
  const P p = b.kind == ExprKind::EQ   ? P::ICMP_EQ
              : b.kind == ExprKind::NE ? P::ICMP_NE
              : b.kind == ExprKind::LT ? (s ? P::ICMP_SLT : P::ICMP_ULT)
              : b.kind == ExprKind::LE ? (s ? P::ICMP_SLE : P::ICMP_ULE)
              : b.kind == ExprKind::GT ? (s ? P::ICMP_SGT : P::ICMP_UGT)
                                       : (s ? P::ICMP_SGE : P::ICMP_UGE);
  return b_.CreateICmp(p, x, y);
}

llvm::Value* FunctionEmitter::cast(DataType to, const Expr& v) {
  const DataType from = v.dtype().element_of();
  llvm::Value* x = expr(v);
  const int lanes = lanes_of(x);
  const DataType elem = to.element_of();
  llvm::Type* target = value_type(c_, elem.with_lanes(lanes));
  auto of = [&](llvm::Type* s) { return x->getType()->getWithNewType(s); };
  if (elem.is_bool()) {
    if (from.is_float()) return b_.CreateFCmpUNE(x, llvm::Constant::getNullValue(x->getType()));
    return b_.CreateICmpNE(x, llvm::Constant::getNullValue(x->getType()));
  }
  if (elem.is_integer()) {
    if (from.is_float()) {
      // Truncation toward zero, saturating at the type's range, NaN -> 0.
      const auto id = elem.is_int() ? llvm::Intrinsic::fptosi_sat : llvm::Intrinsic::fptoui_sat;
      return b_.CreateIntrinsic(id, {target, x->getType()}, {x});
    }
    if (from.is_int()) return b_.CreateSExtOrTrunc(x, target);
    return b_.CreateZExtOrTrunc(x, target);  // unsigned and bool
  }
  if (!elem.is_float()) refuse("cast to " + to.str(), loc_);
  if (from.is_float()) {
    if (from == elem) return x;
    // Through double: every value of a narrower format is exact there.
    llvm::Value* d =
        x->getType()->getScalarType()->isDoubleTy() ? x : b_.CreateFPExt(x, of(b_.getDoubleTy()));
    return round_to(elem, d);
  }
  const bool is_signed = from.is_int();
  if (elem == DataType::float32() || elem == DataType::float64()) {
    // One rounding from the integer, as the interpreter does.
    return is_signed ? b_.CreateSIToFP(x, target) : b_.CreateUIToFP(x, target);
  }
  llvm::Value* d = is_signed ? b_.CreateSIToFP(x, of(b_.getDoubleTy()))
                             : b_.CreateUIToFP(x, of(b_.getDoubleTy()));
  return round_to(elem, d);
}

llvm::Value* FunctionEmitter::call(const CallNode& c) {
  const Intrinsic* in = find_intrinsic(c, Backend::Llvm);
  const DataType t = c.dtype.element_of();
  if (std::string why = cuda_only(c); !in && !why.empty()) refuse(why, loc_);
  if (!in)
    refuse("intrinsic " + intrinsic_name(c) + " of type " + c.dtype.str() + " is not supported",
           loc_);
  if (in->arity != kVariadicArity && c.args.size() != static_cast<size_t>(in->arity))
    refuse("intrinsic " + c.op + " expects " + std::to_string(in->arity) + " arguments, got " +
               std::to_string(c.args.size()),
           loc_);
  if (in->id == IntrinsicId::IfThenElse) {
    llvm::Value* cond = expr(c.args[0]);
    if (lanes_of(cond) > 1) {
      // Vector code evaluates both arms (passes/vectorize_loops.h only
      // vectorizes arms that cannot fault).
      llvm::Value* x = expr(c.args[1]);
      llvm::Value* y = expr(c.args[2]);
      return b_.CreateSelect(cond, x, y);
    }
    // Only the chosen arm is evaluated.
    llvm::BasicBlock* then_block = new_block("ite.then");
    llvm::BasicBlock* else_block = new_block("ite.else");
    llvm::BasicBlock* merge = new_block("ite.end");
    b_.CreateCondBr(cond, then_block, else_block);
    b_.SetInsertPoint(then_block);
    llvm::Value* x = expr(c.args[1]);
    llvm::BasicBlock* then_end = b_.GetInsertBlock();
    b_.CreateBr(merge);
    b_.SetInsertPoint(else_block);
    llvm::Value* y = expr(c.args[2]);
    llvm::BasicBlock* else_end = b_.GetInsertBlock();
    b_.CreateBr(merge);
    b_.SetInsertPoint(merge);
    if (x->getType() != y->getType()) refuse("if_then_else arms of different types", loc_);
    llvm::PHINode* phi = b_.CreatePHI(x->getType(), 2);
    phi->addIncoming(x, then_end);
    phi->addIncoming(y, else_end);
    return phi;
  }
  if (t.is_float()) {
    std::vector<llvm::Value*> args;
    for (const Expr& a : c.args) args.push_back(expr(a));
    const bool narrow = is_narrow_float(t);
    auto rounded = [&](llvm::Value* r) { return narrow ? round_to(t, r) : r; };
    auto unary = [&](llvm::Intrinsic::ID id) {
      return rounded(b_.CreateUnaryIntrinsic(id, args[0]));
    };
    switch (in->id) {
      case IntrinsicId::Sqrt:
        return unary(llvm::Intrinsic::sqrt);
      case IntrinsicId::Abs:
        return b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, args[0]);
      case IntrinsicId::Floor:
        return b_.CreateUnaryIntrinsic(llvm::Intrinsic::floor, args[0]);
      case IntrinsicId::Ceil:
        return b_.CreateUnaryIntrinsic(llvm::Intrinsic::ceil, args[0]);
      case IntrinsicId::Trunc:
        return b_.CreateUnaryIntrinsic(llvm::Intrinsic::trunc, args[0]);
      case IntrinsicId::Round:  // the default rounding mode: halfway cases to even
        return b_.CreateUnaryIntrinsic(llvm::Intrinsic::rint, args[0]);
      default:
        break;
    }
    if (t.bits() == 64)
      refuse("float64 " + std::string(in->name) + " is not supported by the LLVM generator", loc_);
    if (in->id == IntrinsicId::Pow) return rounded(emit_f32_pow(b_, args[0], args[1]));
    if (has_f32_math(in->id)) return rounded(emit_f32_math(b_, in->id, args[0]));
    refuse("intrinsic " + c.op + " of type " + c.dtype.str() + " is not supported", loc_);
  }
  if (t.is_integer() && in->on_integers()) {
    std::vector<llvm::Value*> args;
    for (const Expr& a : c.args) args.push_back(expr(a));
    llvm::Value* x = args[0];
    llvm::Type* type = x->getType();
    const bool is_signed = t.is_int();
    switch (in->id) {
      case IntrinsicId::Abs:
        if (!is_signed) return x;
        return b_.CreateSelect(b_.CreateICmpSLT(x, llvm::Constant::getNullValue(type)),
                               b_.CreateNeg(x), x);
      case IntrinsicId::BitwiseNot:
        return b_.CreateNot(x);
      case IntrinsicId::BitwiseAnd:
        return b_.CreateAnd(x, args[1]);
      case IntrinsicId::BitwiseOr:
        return b_.CreateOr(x, args[1]);
      case IntrinsicId::BitwiseXor:
        return b_.CreateXor(x, args[1]);
      case IntrinsicId::ShiftLeft:
      case IntrinsicId::ShiftRight: {
        // In 64 bits; a shift amount outside [0, 64) gives 0 (or the sign,
        // shifting a negative value right), as in the C generator.
        llvm::Value* s = args[1];
        match_lanes(x, s);
        llvm::Type* i64 = x->getType()->getWithNewType(b_.getInt64Ty());
        llvm::Value* wide = is_signed ? b_.CreateSExt(x, i64) : b_.CreateZExt(x, i64);
        const DataType st = c.args[1].dtype().element_of();
        s = st.is_int() ? b_.CreateSExtOrTrunc(s, i64) : b_.CreateZExtOrTrunc(s, i64);
        llvm::Value* in_range = b_.CreateICmpULT(s, llvm::ConstantInt::get(i64, 64));
        llvm::Value* safe = b_.CreateSelect(in_range, s, llvm::Constant::getNullValue(i64));
        llvm::Value* r;
        if (in->id == IntrinsicId::ShiftLeft) {
          r = b_.CreateSelect(in_range, b_.CreateShl(wide, safe),
                              llvm::Constant::getNullValue(i64));
        } else if (is_signed) {
          r = b_.CreateSelect(in_range, b_.CreateAShr(wide, safe),
                              b_.CreateAShr(wide, llvm::ConstantInt::get(i64, 63)));
        } else {
          r = b_.CreateSelect(in_range, b_.CreateLShr(wide, safe),
                              llvm::Constant::getNullValue(i64));
        }
        return b_.CreateTrunc(r, type);
      }
      default:
        break;
    }
  }
  refuse("intrinsic " + c.op + " of type " + c.dtype.str() + " is not supported", loc_);
}

llvm::Value* FunctionEmitter::load(const BufferLoadNode& l) {
  if (role_ == Role::cuda_host)
    refuse("buffer " + l.buffer->name +
               " is read on the host (a CUDA function's lets, loop "
               "bounds and call arguments cannot read device memory)",
           loc_);
  if (l.indices.size() != 1)
    refuse("buffer " + l.buffer->name + " is accessed with " + std::to_string(l.indices.size()) +
               " indices; the lowered form has flat (1-D) buffers (run lower() first)",
           loc_);
  const DataType elem = l.buffer->dtype;
  const Expr& index = l.indices[0];
  const int lanes = index.dtype().lanes();
  llvm::Type* st = storage_type(c_, elem);
  const llvm::Align align(static_cast<uint64_t>(elem.bytes()));
  if (lanes == 1) {
    return from_storage(
        elem, b_.CreateAlignedLoad(st, element_address(l.buffer, index_expr(index)), align));
  }
  if (auto* ramp = index.as<RampNode>(); ramp && is_const_int(ramp->stride, 1)) {
    llvm::Type* vt = storage_type(c_, elem.with_lanes(lanes));
    return from_storage(
        elem, b_.CreateAlignedLoad(vt, element_address(l.buffer, index_expr(ramp->base)), align));
  }
  if (auto* bc = index.as<BroadcastNode>()) {
    llvm::Value* v = from_storage(
        elem, b_.CreateAlignedLoad(st, element_address(l.buffer, index_expr(bc->value)), align));
    return b_.CreateVectorSplat(static_cast<unsigned>(lanes), v);
  }
  // A gather, lane by lane.
  llvm::Value* idx = index_expr(index);
  llvm::Value* out = llvm::PoisonValue::get(storage_type(c_, elem.with_lanes(lanes)));
  for (int k = 0; k < lanes; ++k) {
    llvm::Value* v =
        b_.CreateAlignedLoad(st, element_address(l.buffer, b_.CreateExtractElement(idx, k)), align);
    out = b_.CreateInsertElement(out, v, k);
  }
  return from_storage(elem, out);
}

llvm::Value* FunctionEmitter::ramp(const RampNode& r) {
  const DataType t = r.dtype.element_of();
  llvm::Value* base = expr(r.base);
  llvm::Value* stride = expr(r.stride);
  const auto lanes = static_cast<unsigned>(r.lanes);
  llvm::Value* vb = b_.CreateVectorSplat(lanes, base);
  llvm::Value* vs = b_.CreateVectorSplat(lanes, stride);
  if (t.is_integer()) {
    std::vector<llvm::Constant*> steps;
    for (unsigned k = 0; k < lanes; ++k)
      steps.push_back(llvm::ConstantInt::get(base->getType(), k));
    return b_.CreateAdd(vb, b_.CreateMul(llvm::ConstantVector::get(steps), vs));
  }
  if (!t.is_float()) refuse("ramp of " + t.str(), loc_);
  std::vector<llvm::Constant*> steps;
  for (unsigned k = 0; k < lanes; ++k) steps.push_back(llvm::ConstantFP::get(base->getType(), k));
  llvm::Value* offsets = b_.CreateFMul(llvm::ConstantVector::get(steps), vs);
  if (is_narrow_float(t)) offsets = round_to(t, offsets);
  llvm::Value* sum = b_.CreateFAdd(vb, offsets);
  return is_narrow_float(t) ? round_to(t, sum) : sum;
}

}  // namespace tirc::llvm_gen
