#include "tuner/policy/replay.h"

#include <algorithm>
#include <cmath>

#include "ir/error.h"

namespace tirc {

namespace {
constexpr double kMinPriority = 1e-4;

// A uniform double in [0, 1) from 53 random bits: the same draws on every
// standard library (uniform_real_distribution's are not).
double uniform(std::mt19937_64& rng) {
  return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}
}  // namespace

PrioritizedReplay::PrioritizedReplay(size_t capacity, double alpha)
    : capacity_(capacity), leaves_(1), alpha_(alpha) {
  if (capacity == 0) throw Error("a replay buffer needs room for one transition");
  while (leaves_ < capacity) leaves_ *= 2;
  data_.resize(capacity);
  tree_.assign(2 * leaves_, 0.0);
}

void PrioritizedReplay::set(size_t i, double p_alpha) {
  size_t k = leaves_ + i;
  tree_[k] = p_alpha;
  for (k /= 2; k >= 1; k /= 2) tree_[k] = tree_[2 * k] + tree_[2 * k + 1];
}

void PrioritizedReplay::add(Transition t) {
  data_[next_] = std::move(t);
  set(next_, std::pow(max_priority_, alpha_));
  next_ = (next_ + 1) % capacity_;
  size_ = std::min(size_ + 1, capacity_);
}

size_t PrioritizedReplay::find(double mass) const {
  size_t k = 1;
  while (k < leaves_) {
    if (mass < tree_[2 * k] || tree_[2 * k + 1] <= 0) {
      k = 2 * k;
    } else {
      mass -= tree_[2 * k];
      k = 2 * k + 1;
    }
  }
  return std::min(k - leaves_, size_ - 1);
}

PrioritizedReplay::Sample PrioritizedReplay::sample(size_t n, double beta,
                                                    std::mt19937_64& rng) const {
  if (size_ == 0) throw Error("sampling an empty replay buffer");
  Sample s;
  const double sum = total();
  // The smallest probability gives the largest weight, which normalises.
  double min_p = sum;
  for (size_t i = 0; i < size_; ++i)
    if (tree_[leaves_ + i] > 0) min_p = std::min(min_p, tree_[leaves_ + i]);
  const double n_items = static_cast<double>(size_);
  const double max_w = std::pow(n_items * min_p / sum, -beta);
  for (size_t d = 0; d < n; ++d) {
    // Stratified: draw d falls in the d-th of n equal slices of the mass.
    const double mass = (static_cast<double>(d) + uniform(rng)) * sum / static_cast<double>(n);
    const size_t i = find(mass);
    s.index.push_back(i);
    s.weight.push_back(
        static_cast<float>(std::pow(n_items * tree_[leaves_ + i] / sum, -beta) / max_w));
  }
  return s;
}

void PrioritizedReplay::update(const std::vector<size_t>& index,
                               const std::vector<float>& td_error) {
  for (size_t k = 0; k < index.size() && k < td_error.size(); ++k) {
    const double p = std::max(kMinPriority, static_cast<double>(std::abs(td_error[k])));
    max_priority_ = std::max(max_priority_, p);
    set(index[k], std::pow(p, alpha_));
  }
}

}  // namespace tirc
