// LoopTune's loop features (Grubisic et al., "LoopTune: Optimizing Tensor
// Computations with Reinforcement Learning", 2023) on tirc's IR, and a
// fixed-length whole-program vector for a cost model. Read from the IR alone:
// no Schedule is needed, so any program (scheduled, parsed, lowered) has them.
//
// Per loop, 20 numbers (kLoopFeatureCount), indexed by LoopFeature:
//   cursor   1 when the agent's cursor is on this loop, else 0.
//   size     the loop's full iterations, unnormalised as in LoopTune: the
//            constant extent, or, when a block predicate under the loop cuts
//            its last iteration short (a split that does not divide), the
//            iterations that run in full (LoopTune's `for k in 6r2`: size 6,
//            tail 2). 0 when the extent is not a constant.
//   tail     the iterations of the split chain under this loop that the cut
//            last iteration still runs, in units of the innermost loop of the
//            chain (32 split by 5: size 6, tail 2); 0 when it divides. Read
//            from a conjunct `c*v + sum(c_u*u) + c0 < N` (or <=, >, >=) of a
//            block predicate whose other loops u all lie inside this loop v,
//            with positive coefficients that tile c exactly
//            (c == 1 + sum(c_u*(extent_u - 1))), constant extents and mins;
//            only the outermost loop of the chain gets a size cut and a tail,
//            as in LoopTune.
//   compute  1 for a compute loop, 0 for a write-back loop. A store is a
//            write-back when its value (casts stripped) is a load from a
//            buffer that is not a function parameter (an accumulator, a
//            cache_write buffer or other intermediate) into another buffer;
//            a loop is write-back when at least one store lies under it and
//            every store under it is a write-back, else compute. So the loops
//            cache_write adds for the copy out are 0, the loops of the block
//            that computes (and of cache_read copies, which read a parameter)
//            are 1. LoopTune sets the bit on the loops before the first
//            statement of its tree walk; this rule gives the same bits on its
//            programs and a meaningful one on any other.
//   stride0..stride15
//            a histogram of access strides, summing to 1 (all 0 when no
//            access lies under the loop). Every buffer access executed in the
//            loop's body counts: each load and store, those of the output
//            buffer included (LoopTune left them out), the store of a block
//            `init` excluded (it runs once per output point, LoopTune resets
//            its accumulator outside the loops too). The access's stride is
//            the coefficient of the loop's variable in the access's flattened
//            element offset (block iteration variables replaced by their
//            bindings, let variables by their values; dimension d weighs
//            buffer stride d: the buffer's strides, or compact row-major from
//            its shape), in elements, absolute value s. Bin 0: s == 0 (the
//            access does not move with the loop: reuse); bin b: 2^(b-1) <= s
//            < 2^b for b in 1..14 (s = 1 is bin 1, 2..3 bin 2, 4..7 bin 3,
//            ...); bin 15: s >= 2^14, and every access whose offset is not
//            affine in the loop variable (floordiv/floormod of it, a product
//            of loop variables, a load, ...) or whose stride is not a
//            constant (a symbolic buffer shape). An offset that is not affine
//            term by term is first simplified with the loops' ranges, so a
//            fused loop f with `C[f // 16, f % 16]` on a 16-wide C moves by
//            1. A vector index counts by its first lane. An access's weight
//            is the share of the loop body's dynamic accesses it makes: the
//            product of the extents of the loops around it (non-constant
//            extents and block predicates count as 1 and as true: a tail
//            does not change the weights), divided by the sum of that
//            product over every access under the loop. LoopTune bins s by
//            ceil(log2 s) and drops s == 0; tirc keeps s == 0 in bin 0
//            (register reuse of the accumulator shows there).
// Vectorized, parallel, unrolled and thread-bound loops get the same features
// as serial ones (program_features counts the kinds). Loops come in pre-order
// (outermost first, as printed), every loop of the function, under every
// block; the loops of a block's init are not walked.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "ir/function.h"

namespace tirc {

inline constexpr int kLoopFeatureCount = 20;
inline constexpr int kStrideBins = 16;

enum LoopFeature : int {
  kFeatCursor = 0,
  kFeatSize = 1,
  kFeatTail = 2,
  kFeatCompute = 3,
  kFeatStride0 = 4,  // kFeatStride0 + b: stride bin b
};

struct LoopFeatures {
  std::array<float, kLoopFeatureCount> v{};
  float cursor() const { return v[kFeatCursor]; }
  float size() const { return v[kFeatSize]; }
  float tail() const { return v[kFeatTail]; }
  float compute() const { return v[kFeatCompute]; }
  float stride_bin(int b) const { return v[static_cast<size_t>(kFeatStride0 + b)]; }
};

// The stride bin of a stride (elements, any sign), as defined above.
int stride_bin(int64_t stride);

// Features of every loop of `f` in pre-order; `cursor` is an index into that
// order (-1 or out of range: no cursor). With `loops`, the loop of each row
// is appended to it (pointers into f: valid while f lives).
std::vector<LoopFeatures> loop_features(const PrimFunc& f, int cursor,
                                        std::vector<const ForNode*>* loops = nullptr);

// A fixed-length vector (kProgramFeatureCount) for a cost model: the scalar
// summary below, then the loop features (cursor -1) of the first
// kProgramFeatureLoops loops, zero-padded. Counts that grow with the problem
// are log2(1 + x).
//   0 loops            number of loops
//   1 depth            deepest loop nesting
//   2 blocks           blocks (the implicit root not counted)
//   3 log_flops        log2(1 + count_flops) (0 when it cannot be counted)
//   4 log_bytes        log2(1 + bytes of every buffer accessed, each once)
//   5 flops_per_byte   flops / those bytes
//   6 log_dyn_bytes    log2(1 + bytes moved by all accesses executed)
//   7 dyn_flops_per_byte flops / bytes moved
//   8 bytes_per_inner  bytes moved per iteration of an innermost loop
//   9 log_vectorized   log2(1 + product of vectorized loop extents)
//  10 log_parallel     log2(1 + product of parallel loop extents)
//  11 log_unrolled     log2(1 + product of unrolled loop extents)
//  12 tails            loops with a tail
//  13 compute_share    share of loops with the compute bit
//  14 local_buffers    allocated buffers of a non-global scope
//  15 log_local_elems  log2(1 + their elements)
//  16 inner_extent     extent of the innermost loop around the most executed
//                      store (0 when it has none)
//  17..32              stride histogram of every access with respect to its
//                      innermost enclosing loop, weighted by executions
inline constexpr int kProgramFeatureLoops = 12;
inline constexpr int kProgramScalarFeatures = 33;
inline constexpr int kProgramFeatureCount =
    kProgramScalarFeatures + kProgramFeatureLoops * kLoopFeatureCount;
std::vector<float> program_features(const PrimFunc& f);
// A name per program feature ("loops", ..., "loop3.stride5"), for reports and
// a cost model's feature importance.
const std::vector<std::string>& program_feature_names();

}  // namespace tirc
