// The intrinsic registry: every intrinsic a Call may name, in one immutable
// table (intrinsics() in intrinsic.cpp). The parser accepts exactly these
// names with their arity; the verifier reports any other name or arity; the
// interpreter and the four generators look a call up here and dispatch on
// its IntrinsicId, never on the name.
//
// Adding an intrinsic: add its IntrinsicId below and one row per name to the
// table in intrinsic.cpp (name, id, arity, dtype rule, the interpreter's
// function for float math and predicates, the C spelling, and the backends
// that take it). That is all the parser, the verifier and, for float math and
// predicates, the interpreter and the C generator need (a `tirc_` C spelling
// also needs its definition in codegen/c/c_prelude.cpp). An integer operation
// also needs a case in the interpreter's IIntrinsic (ir/eval/compile_expr.cpp)
// and in the C generator's call() (codegen/c/c_expr.cpp); an intrinsic the
// x86 generator takes needs a case in FunctionEmitter::eval_call
// (codegen/x86/emitter_scalar.cpp) and, for vector loops, in the rule and the
// emission of codegen/x86/emitter_vector.cpp (vec_math_fn_of in
// codegen/x86/math.h when it is one of the vector math kernels); one the LLVM
// generator takes needs a case in codegen/llvm/llvm_expr.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace tirc {

class Expr;
struct CallNode;

// One per operation: aliases (abs and fabs, round and nearbyint) share it.
enum class IntrinsicId : uint8_t {
  // structure
  IfThenElse,
  Likely,
  CallKernel,
  AddressOf,
  // float math, one argument
  Exp,
  Exp2,
  Exp10,
  Log,
  Log2,
  Log10,
  Log1p,
  Sqrt,
  Rsqrt,
  Tanh,
  Erf,
  Sigmoid,
  Abs,
  Floor,
  Ceil,
  Round,  // to nearest, halfway cases to even
  Trunc,
  Sin,
  Cos,
  Tan,
  Sinh,
  Cosh,
  Asin,
  Acos,
  Atan,
  Sign,
  // float math, two arguments
  Pow,
  Atan2,
  Fmod,
  Hypot,
  Copysign,
  Nextafter,
  Ldexp,
  // float -> bool
  IsNan,
  IsInf,
  IsFinite,
  // integer bits
  Popcount,
  Clz,
  BitwiseAnd,
  BitwiseOr,
  BitwiseXor,
  BitwiseNot,
  ShiftLeft,
  ShiftRight,
  // warp matrix operations on 16x16 tiles (statements; DtypeRule::WarpMatrix)
  MmaFill,
  MmaSync,
  MmaStore,
};

// The argument and result types an intrinsic takes.
enum class DtypeRule : uint8_t {
  FloatMath,       // float arguments; the result has their type
  Numeric,         // abs: one integer or float argument; the result has its type
  IntegerBits,     // integer arguments; the result has their type
  FloatPredicate,  // one float argument; the result is bool with its lanes
  Choice,          // (bool condition, T, T) -> T; only the chosen arm is evaluated
  Condition,       // bool -> bool: a hint on a condition
  Structural,      // call_kernel, address_of: the verifier's own rules (ir/function.h)
  WarpMatrix,      // mma_fill, mma_sync, mma_store: statements on 16x16 tiles (below)
};

// The warp matrix operations (TensorIR's tensor-core intrinsics; tensorize
// swaps them in, schedule/tensor_intrin.cpp). Each is the whole value of a
// T.evaluate statement (type int32, no result) and works on 16x16 tiles given
// as T.address_of(buf[...]) of the tile's first element and the tile's row
// stride in elements (a row-major tile: element (r, c) at r * ld + c):
//   T.mma_fill(acc, ld_acc, value)        acc = value            (float32 tile)
//   T.mma_sync(acc, ld_acc, a, ld_a, b, ld_b)
//                                         acc += a @ b           (a, b float16 or
//                                         bfloat16 alike; acc float32; each
//                                         product and sum in float32)
//   T.mma_store(dst, ld_dst, acc, ld_acc) dst = acc              (float32 tiles)
// On a GPU the 32 threads of a warp perform each one together (the CUDA
// generator's tensor-core code, codegen/llvm/cuda_mma.cpp); everywhere else
// an operation is one statement's effect on memory, which is how the
// interpreter and its race checker see it.
inline constexpr int64_t kMmaTile = 16;
// How many tiles a warp matrix operation takes (fill 1, sync 3, store 2):
// arguments 0, 2, .., each followed by its row stride; the first is the one
// it writes.
size_t warp_matrix_tiles(IntrinsicId id);

// The consumers that evaluate or emit an intrinsic.
enum class Backend : uint8_t {
  Interpreter = 1,
  X86Scalar = 2,
  X86Vector = 4,
  C = 8,
  Llvm = 16,  // codegen/llvm (AArch64, x86-64 through LLVM)
  Cuda = 32,  // codegen/llvm for --target cuda only
};

inline constexpr int kVariadicArity = -1;

struct Intrinsic {
  std::string_view name;  // as written after `T.`
  IntrinsicId id;
  int arity;  // kVariadicArity: any number of arguments
  DtypeRule rule;
  uint8_t backends;  // Backend bits
  // The interpreter's function: float math of one or two arguments, or a
  // predicate; null for the others (integer operations dispatch on the id).
  double (*unary)(double);
  double (*binary)(double, double);
  bool (*predicate)(double);
  // The C function taking and returning double (or int for a predicate) that
  // the C generator calls; null where it emits the operation itself.
  const char* c_function;

  bool supports(Backend b) const { return (backends & static_cast<uint8_t>(b)) != 0; }
  // Whether it is an integer operation (abs of an integer included).
  bool on_integers() const { return rule == DtypeRule::IntegerBits || rule == DtypeRule::Numeric; }
};

// Every entry, one per name.
std::span<const Intrinsic> intrinsics();

// The entry named exactly `name` (no `T.` / `tir.` namespace), or null.
const Intrinsic* find_intrinsic(std::string_view name);
// The entry of a call's intrinsic_name (ir/expr.h), or null.
const Intrinsic* find_intrinsic(const CallNode& c);
// The same, null unless `backend` takes it.
const Intrinsic* find_intrinsic(const CallNode& c, Backend backend);
// The warp matrix operation a call (or `e`, where it is a call) is, or null.
const Intrinsic* find_warp_matrix(const CallNode& c);
const Intrinsic* find_warp_matrix(const Expr& e);
// Why a CPU generator cannot take c when it is a warp matrix operation
// ("T.mma_sync is a tensor-core operation: only --target cuda runs it"), else "".
std::string cuda_only(const CallNode& c);

}  // namespace tirc
