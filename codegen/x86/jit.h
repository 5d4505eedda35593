// In-process execution of generated machine code.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "codegen/x86/machine_code.h"
#include "ir/eval/interpreter.h"

namespace tirc {

class JitModule {
 public:
  using PackedFn = int (*)(void* const* args);

  // Maps a copy of code.text into executable memory (W^X: written, then
  // made read+exec) and points every external call at its target: the tirc
  // runtime's functions first, then the process's symbols (dlsym). Throws
  // tirc::Error naming an external symbol it cannot resolve.
  explicit JitModule(const MachineCode& code);
  ~JitModule();
  JitModule(JitModule&&) noexcept;
  JitModule& operator=(JitModule&&) noexcept;

  // Address of a symbol; throws tirc::Error when there is none of that name.
  void* address(std::string_view symbol) const;
  // The `<symbol>_packed` entry of a generated function.
  PackedFn packed(std::string_view symbol) const;

 private:
  struct Mapping;
  std::unique_ptr<Mapping> mapping_;
  std::vector<MachineCode::Symbol> symbols_;
};

// Calls `<symbol>_packed` with interpreter-style arguments (one per parameter of
// f, as for tirc::run), checking shapes and dtypes against f's parameters first.
// Returns the function's result (0 on success).
int call_jit(const JitModule& module, std::string_view symbol, const PrimFunc& f,
             const std::vector<Argument>& args);

}  // namespace tirc
