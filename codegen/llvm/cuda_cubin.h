// The kernels' machine code for the --mcpu GPU, made by the CUDA toolkit's
// ptxas where CMake found it when tirc was built (TIRC_PTXAS), packed with
// the PTX into one fat binary by its fatbinary (TIRC_FATBINARY): the driver
// loads the machine code on that GPU instead of compiling the PTX on the
// first call, and compiles the PTX on any other (cuda.h).
#pragma once

#include <optional>
#include <string>

namespace tirc {

// The paths of ptxas and fatbinary tirc was built with, or "" where there was none.
std::string ptxas_path();
std::string fatbinary_path();

// `ptx` assembled by ptxas for `sm` ("sm_90"); nullopt, with the reason in
// *why, when there is no ptxas or it fails.
std::optional<std::string> assemble_cubin(const std::string& ptx, const std::string& sm,
                                          std::string* why);

// A fat binary holding `ptx` assembled for `sm` and `ptx` itself, as
// cuModuleLoadData takes it; nullopt, with the reason in *why, when either
// tool is missing or fails.
std::optional<std::string> cuda_fat_binary(const std::string& ptx, const std::string& sm,
                                           std::string* why);

}  // namespace tirc
