// Prioritized experience replay (Schaul et al. 2016, proportional variant, as
// Ape-X uses it): a transition is drawn with probability p_i^alpha / sum,
// where p_i is its last absolute TD error (new ones get the largest priority
// seen, so each is drawn at least once soon), and carries the importance
// weight (N * P(i))^-beta / max_j (N * P(j))^-beta. A sum tree makes adding,
// drawing and updating O(log capacity). When full, the oldest is replaced.
// Not synchronised: the trainer holds a lock around it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace tirc {

struct Transition {
  std::vector<float> obs;
  int action = 0;
  float reward = 0;
  std::vector<float> next_obs;
  std::vector<uint8_t> next_legal;  // 1: legal in the next state
  bool done = false;                // the episode's last step
};

class PrioritizedReplay {
 public:
  PrioritizedReplay(size_t capacity, double alpha);

  void add(Transition t);
  size_t size() const { return size_; }
  size_t capacity() const { return capacity_; }
  const Transition& at(size_t i) const { return data_[i]; }

  struct Sample {
    std::vector<size_t> index;
    std::vector<float> weight;
  };
  // n draws with replacement (size() must be > 0).
  Sample sample(size_t n, double beta, std::mt19937_64& rng) const;
  // New priorities (absolute TD errors; a small epsilon keeps them above 0).
  void update(const std::vector<size_t>& index, const std::vector<float>& td_error);

  // p_i^alpha of transition i, and their sum.
  double priority(size_t i) const { return tree_[leaves_ + i]; }
  double total() const { return tree_[1]; }

 private:
  void set(size_t i, double p_alpha);
  size_t find(double mass) const;  // the transition whose prefix range holds mass

  size_t capacity_, leaves_;
  double alpha_;
  std::vector<Transition> data_;
  std::vector<double> tree_;  // 1-based heap: tree_[k] = tree_[2k] + tree_[2k+1]
  size_t size_ = 0, next_ = 0;
  double max_priority_ = 1;  // the largest priority seen (before ^alpha)
};

}  // namespace tirc
