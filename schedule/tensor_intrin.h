// Tensor intrinsics: a computation pattern (desc) and its implementation
// (impl), both PrimFuncs, that tensorize swaps in for a matching block.
//
// Format (how to add one):
//  - desc and impl are TVMScript functions with the same buffer parameters in
//    the same order (same dtypes and shapes). Parameter i of desc corresponds
//    to parameter i of impl.
//  - desc's body (inside the implicit root block) is the computation to
//    recognize: loops and blocks over desc's buffers, indices relative to the
//    buffers' origin. tensorize compares it with the body of the target block
//    up to renaming of loop and iteration variables, desc buffer -> block
//    buffer, and a constant-per-block offset of every index (the min of the
//    block's region of that buffer; leading region dimensions of extent 1
//    are dropped).
//  - impl's body (no blocks; vector ops such as T.Ramp/T.Broadcast, or calls)
//    replaces the block's body; impl's buffers are bound to the block's
//    regions with T.match_buffer. An impl buffer declared with
//    T.match_buffer(handle, shape, dtype, strides=(ld, 1)) names its row
//    stride `ld`, which the body may pass to a call: the match binds it to
//    the region's actual stride (each tensorized block gets its own variable).
// Registered: vec16_fma_f32 (portable vector code) and the tensor-core tiles
// mma_fill_16x16_f32, mma_sync_16x16x16_f16_f32, mma_sync_16x16x16_bf16_f32
// and mma_store_16x16_f32 (ir/intrinsic.h's warp matrix operations: tensor
// cores in the CUDA generator, one statement each in the interpreter; the CPU
// generators refuse them).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ir/function.h"

namespace tirc {

struct TensorIntrin {
  std::string name;
  PrimFunc desc;
  PrimFunc impl;
};

// The registered intrinsic with this name, or nullptr. The registry is built
// once, on first use, and never changes.
const TensorIntrin* find_tensor_intrin(std::string_view name);
// Names of all registered intrinsics, sorted.
std::vector<std::string> tensor_intrin_names();

}  // namespace tirc
