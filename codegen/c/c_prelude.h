// The fixed C99 text every emitted translation unit starts with: includes and
// static inline helpers that give C the interpreter's exact semantics where
// plain C operators differ (floor division, saturating float->int casts,
// float16/bfloat16 rounding, shifts, division by zero).
#pragma once

namespace tirc::c_emit {

// Helpers are named tirc_<op>_<suffix>, suffix one of i8 i16 i32 i64 u8 u16
// u32 u64 (see c_type_suffix in c_types.h).
const char* c_prelude();

// Declaration of the runtime's parallel-for, emitted only when a kernel has a
// parallel loop (the same prototype as runtime/tirc_runtime.h, repeated so the
// C file compiles without include paths).
const char* c_parallel_prototype();

}  // namespace tirc::c_emit
