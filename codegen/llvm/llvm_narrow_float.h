// float32 <-> float16 / bfloat16 conversions built as LLVM IR on the bit
// patterns, for the LLVM code generator.
//
// Only integer operations (shifts, masks, adds, compares, selects, ctlz): no
// half or bfloat LLVM types and no library calls, so the object never needs
// compiler-rt or libgcc helpers on any target. The results are those of the C
// generator's tirc_encode_f16 / tirc_encode_bf16 / tirc_decode_f16 /
// tirc_decode_bf16 (codegen/c/c_prelude.cpp) for every float32 input and every
// 16-bit pattern, NaNs included.
//
// Every function takes a scalar or a fixed vector of any width and returns the
// same shape; straight-line code (selects, no branches).
#pragma once

namespace llvm {
class IRBuilderBase;
class Value;
}  // namespace llvm

namespace tirc::llvm_gen {

// float (or <N x float>) -> i16 (or <N x i16>) bits of float16 / bfloat16:
// rounding to nearest even, overflow to inf, underflow through the denormals to
// zero, the sign kept (-0 included). A NaN becomes the quiet NaN sign | all-ones
// exponent | top mantissa bit (0x7e00 / 0x7fc0, payload dropped). Throws
// tirc::Error for another type.
llvm::Value* emit_f32_to_f16_bits(llvm::IRBuilderBase& b, llvm::Value* x);
llvm::Value* emit_f32_to_bf16_bits(llvm::IRBuilderBase& b, llvm::Value* x);

// i16 (or <N x i16>) bits -> float (or <N x float>), exact. A NaN becomes the
// quiet NaN sign | 0x7fc00000 (payload dropped, as the C decoder's NAN).
// Throws tirc::Error for another type.
llvm::Value* emit_f16_bits_to_f32(llvm::IRBuilderBase& b, llvm::Value* bits);
llvm::Value* emit_bf16_bits_to_f32(llvm::IRBuilderBase& b, llvm::Value* bits);

}  // namespace tirc::llvm_gen
