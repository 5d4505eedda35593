// The constants of the float32 math kernels (exp, log, tanh, erf, sigmoid,
// pow) that both generators build: codegen/x86/math_*.cpp emits them with
// xbyak, codegen/llvm/llvm_math.cpp as LLVM IR, so both compute the same bits
// and share the bounds codegen/x86/math.h documents.
#pragma once

#include <array>
#include <cstdint>

namespace tirc::math_constants {

// ln 2 split for Cody-Waite reduction: kLn2Hi is ln 2 rounded to float and
// kLn2Lo the rest, so x - n*ln2 is formed with two fused multiply-adds and
// loses almost nothing even for |n| ~ 150.
constexpr float kLn2Hi = 6.931471825e-01f;
constexpr float kLn2Lo = -1.904654212e-09f;
constexpr float kLog2e = 1.442695022e+00f;

// exp(x) overflows above ln(FLT_MAX) ~ 88.72 and rounds to zero below
// ln(2^-150) ~ -103.97; clamping to [kExpLo, kExpHi] keeps n = round(x/ln2)
// within [-150, 128] so 2^n can be applied in two normal halves.
constexpr float kExpHi = 89.0f;
constexpr float kExpLo = -104.0f;

// e^r ~= 1 + r + r^2 * P(r) on |r| <= ln2/2: P is a degree-4 fit of
// (e^r - 1 - r) / r^2 at Chebyshev nodes (near-minimax, relative error of the
// whole approximation ~1e-9 before float rounding).
constexpr std::array<float, 5> kExpPoly = {1.392617589e-03f, 8.363173343e-03f, 4.166655615e-02f,
                                           1.666657776e-01f, 5.000000000e-01f};

// log(1+f) ~= f - f^2/2 + f^3 * Q(f) on f in [sqrt(1/2)-1, sqrt(2)-1]; Q is a
// degree-8 fit of (log1p(f) - f + f^2/2) / f^3 at Chebyshev nodes.
constexpr std::array<float, 9> kLogPoly = {6.971611828e-02f,  -1.147973388e-01f, 1.168541983e-01f,
                                           -1.242568716e-01f, 1.424905807e-01f,  -1.666780263e-01f,
                                           2.000071555e-01f,  -2.499999702e-01f, 3.333333135e-01f};

// Bits of float sqrt(1/2): subtracting them from a float's bits makes the
// exponent field floor(log2(x / sqrt(1/2))), so the mantissa lands in
// [sqrt(1/2), sqrt(2)) where log1p's argument is smallest.
constexpr uint32_t kSqrtHalfBits = 0x3f3504f3u;
constexpr float kFltMin = 1.17549435e-38f;  // smallest normal
constexpr float kTwo23 = 8388608.0f;

// Below kTanhSmall, tanh(x) ~= x + x^3 * T(x^2) with T a degree-5 fit of
// (tanh(x) - x) / x^3 in u = x^2 at Chebyshev nodes on [0, 0.55^2]. Above it,
// tanh|x| = (1 - t) / (1 + t) with t = exp(-2|x|) <= 1/3, which cancels
// nothing; that form saturates to 1 on its own as t underflows.
constexpr float kTanhSmall = 0.55f;
constexpr std::array<float, 6> kTanhPoly = {2.526390599e-03f, -8.526332676e-03f,
                                            2.181844972e-02f, -5.396470055e-02f,
                                            1.333332360e-01f, -3.333333433e-01f};

// Below kErfSmall, erf(x) ~= x * P(x^2) with P a degree-7 fit of erf(x)/x in
// u = x^2 on [0, 1]. Above it, erf(a) = 1 - exp(-a^2) * H(a) where
// H(a) = erfc(a) * exp(a^2) is smooth and fitted (degree 10 in a - 2.5) on
// [1, 4]; erfc(4) ~ 1.5e-8 is below half an ulp of 1, so a is clamped to 4.
constexpr float kErfSmall = 1.0f;
constexpr float kErfClamp = 4.0f;
constexpr float kErfCenter = 2.5f;
constexpr std::array<float, 8> kErfPoly = {-9.667044651e-06f, 1.126595889e-04f,  -8.484080317e-04f,
                                           5.221031606e-03f,  -2.686543018e-02f, 1.128378212e-01f,
                                           -3.761263788e-01f, 1.128379226e+00f};
constexpr std::array<float, 11> kErfcScaledPoly = {
    1.611890752e-06f, -6.377862064e-06f, 1.468955725e-05f, -5.362729280e-05f,
    2.123135637e-04f, -7.389278617e-04f, 2.466508653e-03f, -7.999388501e-03f,
    2.493805625e-02f, -7.434759289e-02f, 2.108063698e-01f};

}  // namespace tirc::math_constants
