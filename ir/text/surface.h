// The two spellings of TVMScript TIR that tirc reads and prints: the classic
// surface (TVM <= 0.23: `@T.prim_func`, `with T.block(...)`,
// `T.alloc_buffer`, `T.block_attr`) and the TIRx surface TVM 0.27 prints
// (`@T.prim_func(s_tir=True)`, `with T.sblock(...)`, `T.sblock_alloc_buffer`,
// `T.sblock_attr`, `from tvm.script import tirx as T`). Both mean the same
// IR; only the words differ (ir/text/FORMAT.md).
#pragma once

#include <optional>
#include <string_view>

namespace tirc {

enum class Surface { classic, tirx };

// "classic" / "tirx" -> the surface; nullopt for another name.
std::optional<Surface> parse_surface_name(std::string_view name);

// The classic word for a TIRx-only word after `T.` ("sblock" -> "block"),
// or nullopt when `name` is not one.
std::optional<std::string_view> classic_word(std::string_view tirx_word);
// The word to print after `T.` on `surface` for a classic word ("block" ->
// "sblock" on TIRx; every other word is the same on both).
std::string_view surface_word(std::string_view classic, Surface surface);

}  // namespace tirc
