// Position-independent machine code for several functions: what the x86
// generator produces, the JIT maps into memory, and the ELF writer stores.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tirc {

struct MachineCode {
  struct Symbol {
    std::string name;
    uint64_t offset = 0;  // into text
    uint64_t size = 0;
    bool global = true;  // false: local helper (outlined parallel body, ...)
  };
  // A `call rel32` (E8 xx xx xx xx) to a function outside text: the 4 bytes at
  // `offset` are the displacement field. The JIT patches them to reach a stub;
  // the ELF writer emits an R_X86_64_PLT32 relocation (addend -4) there.
  struct ExternalCall {
    uint64_t offset = 0;
    std::string symbol;  // e.g. "tirc_parallel_for", "expf"
  };
  // A rip-relative reference from text into rodata: the 4 bytes at `offset`
  // (the last field of its instruction) hold a displacement that must become
  // (rodata + rodata_offset) - (text + offset + 4). The JIT patches it; the ELF
  // writer emits an R_X86_64_PC32 relocation against .rodata (addend
  // rodata_offset - 4).
  struct DataReference {
    uint64_t offset = 0;
    uint64_t rodata_offset = 0;
  };

  // Code and its constants (reached rip-relative); no absolute addresses.
  std::vector<uint8_t> text;
  std::vector<Symbol> symbols;
  std::vector<ExternalCall> external_calls;
  uint64_t text_alignment = 64;
  // Read-only data (a model's weights): each module constant bound by an
  // AllocateConst once, each start aligned to 64 bytes.
  std::vector<uint8_t> rodata;
  uint64_t rodata_alignment = 64;
  std::vector<DataReference> data_references;

  const Symbol* find(std::string_view name) const {
    for (const auto& s : symbols)
      if (s.name == name) return &s;
    return nullptr;
  }
};

}  // namespace tirc
