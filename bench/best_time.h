// Best-of-N wall-clock timing for the benchmark programs.
#pragma once

#include <algorithm>
#include <chrono>
#include <functional>
#include <limits>

namespace tirc::bench {

// How long to measure: at least min_reps runs and min_seconds in all, and no
// more runs once max_seconds have passed.
struct Budget {
  int min_reps = 1;
  double min_seconds = 0;
  double max_seconds = std::numeric_limits<double>::infinity();
};

// The shortest run of `call` (the least disturbed), in seconds, after one
// warm-up call.
inline double best_seconds(const std::function<void()>& call, const Budget& b) {
  using Clock = std::chrono::steady_clock;
  call();
  double best = std::numeric_limits<double>::infinity(), total = 0;
  int reps = 0;
  while ((reps < b.min_reps || total < b.min_seconds) && !(reps > 0 && total >= b.max_seconds)) {
    auto t0 = Clock::now();
    call();
    double dt = std::chrono::duration<double>(Clock::now() - t0).count();
    best = std::min(best, dt);
    total += dt;
    ++reps;
  }
  return best;
}

// The shortest of `reps` runs.
inline double best_seconds(const std::function<void()>& call, int reps) {
  return best_seconds(call, Budget{reps, 0, std::numeric_limits<double>::infinity()});
}

}  // namespace tirc::bench
