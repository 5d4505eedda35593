// Small lowered-form programs that pin down the interpreter's semantics of
// integer division, narrow and unsigned integers, and float32 arithmetic and
// casts; every generator's tests run them against the interpreter.
#pragma once

namespace tirc::test {

inline const char* const kIntegerDivisionProgram =
    R"(def main(A: T.Buffer((64,), "int32"), B: T.Buffer((64,), "int32"), C: T.Buffer((256,), "int32"), D: T.Buffer((64,), "int64")):
    for i in range(64):
        C[i] = (A[i] * 7 - 3) // (B[i] * B[i] + 1) * T.Select(B[i] < 0, -1, 1)
        C[i + 64] = (A[i] * 7 - 3) % (B[i] - 5)
        C[i + 128] = T.truncdiv(A[i] * 7 - 3, B[i] - 5)
        C[i + 192] = T.truncmod(A[i] * 7 - 3, B[i] * B[i] + 1)
        D[i] = T.Cast("int64", A[i]) * T.int64(4611686018427387904) // T.Cast("int64", B[i] * B[i] + 1)
)";

inline const char* const kNarrowIntegerProgram =
    R"(def main(A: T.Buffer((32,), "int8"), B: T.Buffer((32,), "uint8"), C: T.Buffer((32,), "int16"), D: T.Buffer((32,), "uint32"), E: T.Buffer((32,), "int8")):
    for i in range(32):
        C[i] = T.Cast("int16", A[i]) * T.int16(9000) + T.Cast("int16", B[i])
        D[i] = T.Cast("uint32", A[i]) * T.uint32(3) + T.Cast("uint32", B[i]) // T.uint32(3)
        E[i] = A[i] * T.int8(100) + T.abs(A[i])
)";

inline const char* const kFloat32ArithmeticProgram =
    R"(def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32"), D: T.Buffer((64,), "int32"), E: T.Buffer((64,), "float64")):
    for i in range(64):
        C[i] = A[i] / (B[i] * B[i] + T.float32(3)) + A[i] * B[i] - T.float32(0.1) + T.Select(A[i] < B[i], A[i], B[i] * T.float32(1.5))
        D[i] = T.Cast("int32", C[i] * T.float32(1e9)) + T.Cast("int32", A[i] > B[i] and A[i] != T.float32(0))
        E[i] = T.Cast("float64", C[i]) / T.float64(3) + T.Cast("float64", D[i])
)";

}  // namespace tirc::test
