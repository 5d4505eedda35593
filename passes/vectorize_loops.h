// vectorize-loops: Vectorized loops of the lowered form (passes/LOWERED.md)
// rewritten into explicit vector TIR (T.Ramp, T.Broadcast, vector loads and
// stores), for a code generator that emits vector instructions from them.
//
// A Vectorized loop `for v in T.vectorized(min, min + extent)` is rewritten
// only when running its iterations lane by lane, one statement of its body at
// a time for all lanes, computes exactly what the serial loop computes:
//   - v is int32 or int64;
//   - the body is straight-line: one BufferStore, a SeqStmt of them, and
//     LetStmts of scalar values that do not depend on v;
//   - nothing in it is a vector already; every value, and every stored or
//     loaded element, is int8/16/32/64, uint8/16/32/64, float32, float64 or
//     bool (bool buffers are neither stored nor loaded at an index that moves
//     with v: memory holds them as bytes, vectors as bits); no float16,
//     bfloat16 or handle;
//   - every store's index is linear in v with a constant nonzero coefficient
//     (lanes write distinct elements), each storage (a buffer's `data`; flat
//     buffers may share one) is stored at one index only, and a storage the
//     body stores is loaded only at exactly that index (structurally), through
//     a buffer of the same element size: no lane reads what another lane writes;
//   - loads of other storage may be at any index (linear: a Ramp, anything
//     else: a vector index the generator gathers lane by lane);
//   - if_then_else that depends on v has arms that cannot fault (no loads, no
//     integer division or modulo), since the vector form evaluates both arms
//     for every lane (Select always evaluates both);
//   - calls are lane-wise intrinsics (float math, predicates, integer bits);
//     call_kernel and address_of are refused.
// Any other Vectorized loop becomes a Serial loop unchanged, with the reason.
//
// A constant extent of at most 4 full vectors becomes straight-line code: its
// full vectors, then the rest as narrower power-of-two vectors (16 + 8 + 2 for
// 26 at 16 lanes) and at most one scalar iteration, each copy of the body
// with new variables for its lets. A loop around such code holds no loop, so
// a code generator can unroll it (the rows of a register tile) and keep what
// it accumulates in registers. Any other rewritten loop becomes two Serial
// loops with new variables:
//   for v_vec in range(extent / lanes):                      # full vectors
//       body[v := T.Ramp(min + v_vec * lanes, 1, lanes)]
//   for v_tail in range(min + extent / lanes * lanes, ...):  # extent % lanes left
//       body[v := v_tail]                                    # the scalar body
// where `/` and `%` truncate (T.truncdiv, T.truncmod: for extent >= 0, as the
// lowered form has, the same as floordiv/floormod; a negative extent still runs
// nothing). In the vector body an index linear in v becomes
// T.Ramp(index[v := base], coefficient, lanes); every other expression that
// depends on v gets the vector type of its lanes, and the scalar operands it
// meets (values that do not depend on v stay scalar, evaluated once per vector)
// are wrapped in T.Broadcast. With a constant extent, a loop with no
// iteration is left out (a multiple of lanes: no tail; fewer than 2
// iterations: only the tail), and a single full vector is its body alone, at
// v := T.Ramp(min, 1, lanes). Let variables of the tail are new too: each
// variable is defined once.
//
// Lanes: vector_bytes / (the largest element size, in bytes, of the buffers
// the loop stores), at least 2; for a constant extent smaller than that, the
// largest power of two not above the extent (at least 2), so that a short loop
// still fills one narrower vector (extent 8 of float32 with 64-byte vectors: 8
// lanes). vector_bytes is the register width (16 for SSE/NEON, 32 for AVX2, 64
// for AVX-512); pass a multiple of it for several registers per vector
// (2 * width: two independent operations per step).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/function.h"

namespace tirc {

struct VectorizeStats {
  int vectorized = 0;  // loops rewritten
  std::vector<std::string>
      refused;  // one line per Vectorized loop left serial: "loop <var>: <why>"
};

// The lanes vectorize_loops gives a loop whose stores have at most
// `max_store_bytes`-byte elements (and whose extent is `extent`, when constant).
int vector_lanes(int vector_bytes, int max_store_bytes,
                 std::optional<int64_t> extent = std::nullopt);

// Throws tirc::Error when vector_bytes is not in [1, 4096].
Stmt vectorize_loops(const Stmt& body, int vector_bytes, VectorizeStats* stats = nullptr);
PrimFunc vectorize_loops(const PrimFunc& f, int vector_bytes, VectorizeStats* stats = nullptr);

}  // namespace tirc
