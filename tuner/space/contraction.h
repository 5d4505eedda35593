// The contraction recognizer the CPU and GPU contraction rules share
// (tile_contraction.cpp, gpu_tile_contraction.cpp): which blocks are
// C[..] = C[..] + A[..] * B[..] (or max pooling), and which of their loops
// are the output's rows and columns.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "ir/function.h"
#include "tuner/space/block_nest.h"

namespace tirc {

struct ContractionUpdate {
  const BufferStoreNode* store = nullptr;  // null: not a contraction
  const BufferLoadNode* a = nullptr;
  const BufferLoadNode* b = nullptr;  // null for max(C, A)
  std::vector<Expr> guards;           // of zero-guarded operands (an inlined pad)
};

// Which statements count as a contraction's update.
enum class ContractionTypes {
  // float32 only, each operand a load or a zero-guarded load: what the x86
  // contraction emitter keeps in registers.
  float32,
  // Also any other scalar type (int32 += int8 * int8), an operand also
  // under a cast: any accumulation the GPU rule can keep in registers.
  any,
};

// C[c] = C[c] + A[a] * B[b] (either order of the sum), with an init; or
// C[c] = max(C[c], A[a]) (max pooling), with b null. store is null when the
// block's body is neither.
ContractionUpdate contraction_update(const BlockNode& b,
                                     ContractionTypes types = ContractionTypes::float32);

// Whether an index of `load` uses v.
bool load_uses(const BufferLoadNode& load, const VarNode* v);

// The loop of nest whose iteration variable is `v`, or -1.
int loop_for_var(const BlockNest& nest, const ExprNode* v);

// The loop of C's columns: the one whose variable is C's last index, or v
// where C is indexed [.., v // E, v % E] (a convolution over flattened
// output pixels, contiguous along v), or b where the last index is a * E + b
// with b of extent E (channels in blocks of E, as blocked weights are read:
// *blocks is then a's loop). Sets *dims to the indices it spans. -1 when
// there is none.
int columns_loop(const BlockNest& nest, const BufferStoreNode& st, size_t* dims, int* blocks);

// The loop of a register tile's rows, given the columns loop jl. The vector
// operand (the one that varies along the columns) should be invariant along
// the rows and the other, broadcast, operand vary: then one load of the
// vector operand serves every row, as B's row does in a matmul. For a
// convolution, Y[n, m, oh, ow] += Xp[n, c, oh + r, ow + s] * W[m, c, r, s],
// that is the output channel m, not oh (the index before the columns).
// Without such a loop (depthwise: both operands follow the channel; max
// pooling), `fallback`.
int rows_loop(const BlockNest& nest, const ContractionUpdate& u, int jl, int fallback);

// The producer of `block` that is a zero pad of one of its operands
// (`P[..] = if_then_else(cond, X[..], 0)`), if any: the contraction rules
// inline it, so that its guard is tested in the contraction's loads.
std::optional<BlockRV> zero_pad_producer(Schedule& sch, BlockRV block, const ContractionUpdate& u);

}  // namespace tirc
