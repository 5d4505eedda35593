// float32 math functions built as plain LLVM IR, for the LLVM code generator.
//
// The algorithms, polynomial coefficients, fused multiply-adds and special-value
// rules are those of the x86 generator's vector math (codegen/x86/math.h), so
// the bounds documented there (vec_math_accuracy, vec_pow_accuracy) hold for
// this code too, and results are the same bits as the x86 code's (NaN payloads
// aside; see llvm_math.cpp). Where the x86 code has two variants (vscalefps or
// two multiplications for 2^n, vfixupimmps or compares for log's special
// inputs) this builds the one that needs no particular instruction; both give
// the same values for every input.
//
// Everything is straight-line IR (compares and selects, no branches), so the
// same builders serve scalar `float` and any `<N x float>`. No fast-math flags
// are set, whatever the builder's defaults are. The code uses llvm.fma exactly
// where the x86 code fuses: a target without FMA instructions lowers those to
// calls to fmaf, so such a target needs its C library at link time. Like the
// x86 code this assumes the default floating-point environment: round to
// nearest even and denormals kept (a flush-to-zero target flushes the tiny
// results of exp, erf, sigmoid and pow, which the bounds then do not cover).
#pragma once

#include "ir/intrinsic.h"

namespace llvm {
class IRBuilderBase;
class Value;
}  // namespace llvm

namespace tirc::llvm_gen {

// Whether this file implements the intrinsic for float32: Exp, Log, Tanh, Erf
// and Sigmoid through emit_f32_math, and Pow, which takes two arguments,
// through emit_f32_pow. False for everything else (Sqrt included: llvm.sqrt is
// correctly rounded already).
bool has_f32_math(IntrinsicId id);

// fn(x) for x of LLVM type float or <N x float> (any N), built with b at its
// insertion point; the result has x's type. Throws tirc::Error when id is not
// one of Exp, Log, Tanh, Erf, Sigmoid or x has another type.
llvm::Value* emit_f32_math(llvm::IRBuilderBase& b, IntrinsicId id, llvm::Value* x);

// pow(x, y) with C's powf special cases; x and y of the same type, float or
// <N x float>. Throws tirc::Error for other types.
llvm::Value* emit_f32_pow(llvm::IRBuilderBase& b, llvm::Value* x, llvm::Value* y);

}  // namespace tirc::llvm_gen
