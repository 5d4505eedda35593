// `tirc run --profile`: where a compiled entry's time goes, kernel by kernel.
#pragma once

#include <ostream>
#include <vector>

#include "driver/model_io.h"

namespace tirc::driver {

// Runs the entry of `scheduled` (compiled for `target`) `repeat` times after a
// warm-up and prints one row per kernel, slowest first: calls, best time per
// call, share of the kernels' total, and GFLOPS where the kernel's
// multiply-adds are known (counted on `plain`, the module before scheduling).
// Outputs are written to args as by run_entry.
void profile_entry(const IRModule& scheduled, const IRModule& plain, const EntryInfo& entry,
                   std::vector<NDArray>& args, const Target& target, int repeat, std::ostream& out);

}  // namespace tirc::driver
