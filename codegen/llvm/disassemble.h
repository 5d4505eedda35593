// A readable assembly listing of generated machine code (`tirc compile --emit=asm`),
// decoded with LLVM's MC disassembler. LLVM headers stay inside codegen/llvm/.
#pragma once

#include <string>

#include "codegen/x86/machine_code.h"

namespace tirc {

// For each symbol in offset order, a `name:` line (`name:  # local` for a local
// helper), then one `  OFFSET: instruction` line per instruction, OFFSET in hex
// from the start of the text. AT&T syntax like objdump by default, Intel syntax
// on request. Branches show their target offset; a call whose displacement is an
// external call is printed as `call SYMBOL`. The bytes after the end of the last
// symbol (the constant pool) are listed as `.long` words (and trailing `.byte`s)
// under a `.data:` label instead of being decoded. Bytes that do not decode inside
// code are listed as `.byte`.
std::string disassemble_x86(const MachineCode& code, bool intel_syntax = false);

}  // namespace tirc
