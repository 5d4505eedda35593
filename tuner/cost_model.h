// The evolutionary search's cost model: gradient-boosted trees (XGBoost)
// from a program's features (tuner/features.h program_features) to how fast
// it runs, trained online from the measurements of the search. It ranks
// candidates; it is never taken for a measurement.
#pragma once

#include <memory>
#include <vector>

namespace tirc {

class CostModel {
 public:
  CostModel();
  ~CostModel();
  CostModel(CostModel&&) noexcept;
  CostModel& operator=(CostModel&&) noexcept;

  // A measured program: its features and its latency in seconds.
  void add(std::vector<float> features, double seconds);
  // Trains on everything added so far (a fresh model each time: a few
  // hundred samples train in milliseconds).
  void train();
  // Predicted speed of each program: higher is faster (a log throughput
  // relative to the fastest measured). Zeros before the first train().
  std::vector<double> predict(const std::vector<std::vector<float>>& features) const;

  size_t size() const;
  bool trained() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tirc
