// ELF64 x86-64 relocatable objects from machine code.
#pragma once

#include <cstdint>
#include <vector>

#include "codegen/x86/machine_code.h"

namespace tirc {

// A relocatable object (ET_REL) with `.text` (code.text, aligned as
// code.text_alignment), `.symtab`/`.strtab` (an STT_FUNC symbol per
// code.symbols entry, global or local), `.rela.text` (R_X86_64_PLT32, addend -4,
// against an undefined global per external call; R_X86_64_PC32 against the
// .rodata section symbol, addend rodata_offset - 4, per data reference),
// `.shstrtab`, an empty `.note.GNU-stack` (non-executable stack) and, when
// there is read-only data, `.rodata` (SHF_ALLOC, aligned as
// code.rodata_alignment) as the last section. Links with ld, gold and lld.
std::vector<uint8_t> write_elf_object(const MachineCode& code);

}  // namespace tirc
