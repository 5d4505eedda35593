// Best-of-N wall-clock timing for the benchmark programs.
#pragma once

#include <algorithm>
#include <chrono>

namespace tirc::bench {

// The shortest of `reps` runs of f, in seconds (the least disturbed run).
template <class F>
double best_seconds(F&& f, int reps) {
  double best = 1e30;
  for (int rep = 0; rep < reps; ++rep) {
    auto t0 = std::chrono::steady_clock::now();
    f();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

}  // namespace tirc::bench
