// The instruction kinds, one file per family of primitives (trace_kinds_*.cpp,
// grouped as TVM's schedule primitives are). trace_kinds.cpp joins the
// families into the one table that find_primitive reads.
#pragma once

#include <vector>

#include "schedule/trace_spec.h"

namespace tirc::trace_detail {

// get_block, get_loops, get_child_blocks, get_producers, get_consumers.
std::vector<InstructionKind> lookup_kinds();
// split, fuse, reorder, add_unit_loop, parallel, vectorize, unroll, bind.
std::vector<InstructionKind> loop_kinds();
// annotate, unannotate.
std::vector<InstructionKind> annotation_kinds();
// compute_at, reverse_compute_at, compute_inline, reverse_compute_inline.
std::vector<InstructionKind> compute_location_kinds();
// cache_read, cache_write, set_scope, storage_align, transform_layout, reindex.
std::vector<InstructionKind> buffer_kinds();
// decompose_reduction, rfactor, blockize, tensorize.
std::vector<InstructionKind> block_kinds();
// sample_perfect_tile, sample_categorical.
std::vector<InstructionKind> sampling_kinds();

}  // namespace tirc::trace_detail
