#include "codegen/x86/module_codegen.h"

namespace tirc {

MachineCode generate_x86_module(const IRModule& lowered, const std::string& prefix, GeneratorOptions options) {
  std::vector<FunctionToCompile> functions;
  for (const auto& [name, f] : lowered.functions()) functions.push_back({prefix + "_" + name, f, name});
  options.module = &lowered;
  return generate_x86(functions, options);
}

}  // namespace tirc
