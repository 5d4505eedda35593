// Best-of-N wall-clock timing with a time limit: the one timing loop of the
// benchmarks, `tirc run` and the tuner's measurement.
#pragma once

#include <algorithm>
#include <chrono>
#include <functional>
#include <limits>

namespace tirc {

// How long to measure: at least min_reps runs and min_seconds in all, and no
// more runs once max_seconds have passed. Two timed runs both longer than
// cutoff_seconds end the measurement: the tuner's way of dropping a
// candidate far slower than the best so far (one slow run may be a
// preemption or a sleeping worker thread waking). The warm-up pays for first
// touches (page faults, a thread pool starting), so it is cut off only past
// ten times the cut-off plus warm_up_slack_seconds.
struct Budget {
  int min_reps = 1;
  double min_seconds = 0;
  double max_seconds = std::numeric_limits<double>::infinity();
  double cutoff_seconds = std::numeric_limits<double>::infinity();
  bool warm_up = true;  // one untimed call first
  double warm_up_slack_seconds = 0.005;
};

struct Timing {
  double best = std::numeric_limits<double>::infinity();  // the shortest run, seconds
  int reps = 0;                                           // timed runs
  bool cut_off = false;                                   // a run passed cutoff_seconds
};

inline Timing time_best(const std::function<void()>& call, const Budget& b) {
  using Clock = std::chrono::steady_clock;
  auto timed = [&] {
    auto t0 = Clock::now();
    call();
    return std::chrono::duration<double>(Clock::now() - t0).count();
  };
  Timing t;
  if (b.warm_up) {
    double dt = timed();
    if (dt > 10 * b.cutoff_seconds + b.warm_up_slack_seconds) {
      t.best = dt;
      t.cut_off = true;
      return t;
    }
  }
  double total = 0;
  while ((t.reps < b.min_reps || total < b.min_seconds) &&
         !(t.reps > 0 && total >= b.max_seconds)) {
    double dt = timed();
    t.best = std::min(t.best, dt);
    total += dt;
    ++t.reps;
    if (t.reps >= 2 && t.best > b.cutoff_seconds) {
      t.cut_off = true;
      break;
    }
  }
  return t;
}

// The shortest run of `call` (the least disturbed), in seconds.
inline double best_seconds(const std::function<void()>& call, const Budget& b) {
  return time_best(call, b).best;
}

// The shortest of `reps` runs after one warm-up call.
inline double best_seconds(const std::function<void()>& call, int reps) {
  return best_seconds(call, Budget{.min_reps = reps});
}

}  // namespace tirc
