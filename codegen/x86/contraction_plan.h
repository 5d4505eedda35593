// LoopNest-style planning for contraction nests: a loop nest whose innermost
// statement is `C[c] = C[c] + A[a] * B[b]` (float32; a, b, c affine in the loop
// variables), or `C[c] = max(C[c], A[a])` (a max pooling window: A is the
// vector operand and there is no broadcast one). The plan decides, without
// emitting anything, where the output tile lives in vector registers and how
// the inner loops are unrolled.
//
// Rules (see contraction_plan.cpp for the reasons):
// - the vector loop has unit stride in C and in one operand (the vector
//   operand) and stride 0 in the other (the broadcast operand); the innermost
//   such loop is chosen; extent % lanes lanes make a masked last vector;
//   without such a loop, one where the vector operand has stride 2 (a
//   stride-2 convolution's input row), loaded as two vectors and permuted;
//   without that either, one with unit stride in both operands (a
//   channels-last depthwise convolution, Y[.., c] += X[.., c] * W[.., c]):
//   both are loaded as vectors, the product is lane by lane;
// - the tile scope is the outermost loop such that the C elements indexed by
//   the loops from it inward are distinct and fit in the accumulator budget
//   (vector registers - reserved); the vector loop must be inside it;
// - a loop body may be [init nest, update nest], the init writing the C tile
//   (its loops match the tile's C-varying loops one to one, with the same C
//   strides): the tile scope is then the update nest's first loop;
// - an operand may be guarded, if_then_else(cond, X[x], 0), when cond is a
//   conjunction of affine comparisons of unrolled loops (see GuardTest);
// - inside the scope, loops over which C varies are unrolled into the tile;
//   loops with C invariant (reductions) keep their relative order, the
//   innermost ones are fully unrolled while the FMA count stays within
//   max_unrolled_fmas, the next one is a counted TileLoop unrolled by a
//   divisor of its extent, the rest are counted TileLoops. Moving C-varying
//   loops inside reductions keeps every C element's summation order, so the
//   results are bit-identical to the nest as written.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "codegen/x86/target.h"
#include "ir/stmt.h"

namespace tirc {

struct ContractionPlan {
  enum class LoopRole : unsigned char {
    Outer,     // emitted as a normal counted loop, outside the register tile
    TileLoop,  // a counted loop inside the tile scope (C invariant in it: a reduction loop)
    Unrolled,  // fully unrolled inside the tile scope
    Vector,    // the vectorised loop: unit stride in C and in the vector operand
  };
  struct Loop {
    Var var;
    int64_t min = 0;  // constant loop start (folded into the offsets below)
    int64_t extent = 0;
    LoopRole role = LoopRole::Outer;
    // Element strides of each access along this loop (0: does not depend on it).
    int64_t stride_c = 0, stride_a = 0, stride_b = 0;
    // TileLoop only: iterations unrolled into one counted step (divides extent).
    int64_t unroll = 1;
    // Element stride of the init value (Init::value) along this loop.
    int64_t stride_init = 0;
  };
  // One access: element offset = offset + sum(stride * (var - min)) over the nest.
  struct Access {
    Var data;     // the storage (buffer data variable)
    Expr offset;  // invariant in the nest: constants and variables bound outside it
  };

  // How a step folds into an accumulator: acc += v * s (one rounding), or
  // acc = max(acc, v) (x86 max: the second operand when either is NaN, as the
  // interpreter's max(C, A) picks A unless C > A).
  enum class Combine : unsigned char { Fma, Max };
  Combine combine = Combine::Fma;
  std::vector<Loop> loops;  // outermost first, the whole nest
  // Index in `loops` of the tile scope: the C tile is loaded into registers
  // before loops[tile_scope] and stored after it; every loop from there on is
  // TileLoop, Unrolled or Vector.
  int tile_scope = 0;
  int vector_loop = -1;         // index in loops, or -1 (scalar FMAs)
  int vector_lanes = 0;         // float32 lanes per register (8 or 16)
  int vector_tail = 0;          // vector_loop extent % vector_lanes: a masked last vector
  int vector_stride = 1;        // elements between lanes of the vector operand (1 or 2)
  bool a_is_broadcast = true;   // A is broadcast and B loaded as vectors, or the reverse
  // Both operands vary along the vector loop (lane-by-lane products): A is
  // then "the vector operand" and B takes the broadcast operand's place,
  // loaded as a whole vector instead of broadcast. a_is_broadcast is false.
  bool both_vectors = false;
  // The reduction's init as a nest just before the update nest, writing
  // exactly the C tile (`for .. : C[c] = value`, value a constant or a load):
  // the accumulators start from the value instead of C, and the init nest is
  // not emitted (C is written once, by the tile's store).
  struct Init {
    bool present = false;
    float constant = 0;  // the value when `load` is false
    bool load = false;
    Access value;        // the loaded value's storage and invariant offset
  };
  Init init;
  // A guarded operand, if_then_else(guard, X[x], 0) (a pad inlined into a
  // convolution): the guard's conjuncts as `sum(coeff * iteration) +
  // constant <kind> 0` over loop iterations (0-based) the emitter fixes at
  // each product (unrolled loops; none is the vector loop). Where one fails
  // the operand is a zero vector: the product is still added, as written.
  struct GuardTest {
    std::vector<std::pair<int, int64_t>> coeff;  // (loop index, coefficient)
    int64_t constant = 0;
    ExprKind kind = ExprKind::LT;
    bool holds(const std::vector<int64_t>& iteration) const;
  };
  std::vector<GuardTest> guard_a, guard_b;
  int accumulators = 0;         // vector registers holding the C tile
  int unrolled_fmas = 0;        // FMAs in one iteration of the innermost TileLoop
  Access c, a, b;               // A and B as in the statement's product (Max: b is a)
  std::string summary() const;  // one line for logs and test failure messages
};

struct PlanLimits {
  int max_unrolled_fmas = 320;        // LoopNest's bound on straight-line FMAs
  int reserved_vector_registers = 4;  // operands/broadcasts beside the accumulators
};

// A plan for the nest rooted at `root`, or nullopt with *why_not set (a short
// reason, for -v logging) when the nest is not a contraction this emitter
// handles (non-constant extents, non-affine indices, statements beside the
// update, an accumulator that does not fit in registers at any scope, ...).
std::optional<ContractionPlan> plan_contraction(const ForNode& root, const Target& target,
                                                const PlanLimits& limits = {},
                                                std::string* why_not = nullptr);

}  // namespace tirc
