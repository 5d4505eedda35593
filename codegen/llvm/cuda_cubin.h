// A cubin for the object beside its PTX, made by the CUDA toolkit's ptxas
// where CMake found one when tirc was built (TIRC_PTXAS): the driver then
// loads machine code for that GPU instead of compiling the PTX on the first
// call, and falls back to the PTX on any other GPU (cuda.h).
#pragma once

#include <optional>
#include <string>

namespace tirc {

// The path of ptxas tirc was built with, or "" when there was none.
std::string ptxas_path();

// `ptx` assembled by ptxas for `sm` ("sm_90"); nullopt, with the reason in
// *why, when there is no ptxas or it fails.
std::optional<std::string> assemble_cubin(const std::string& ptx, const std::string& sm,
                                          std::string* why);

}  // namespace tirc
