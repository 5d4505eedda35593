// The Q-network of the learned loop policy (issue 13), on LibTorch: a fully
// connected network from an observation (tuner/observation.h) to one value
// per output (all_actions() order, then stop: tuner/policy_search.h), its
// Double-DQN update, and the policy file. LibTorch stays inside
// torch/q_network_torch.cpp: nothing here includes it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tuner/loop_policy.h"

namespace tirc {

struct QNetworkShape {
  int inputs = 0;
  int actions = 0;
  std::vector<int> hidden;  // widths of the hidden layers (ReLU after each)
  // Spelled out: this header is also compiled as C++17 (the LibTorch module).
  bool operator==(const QNetworkShape& o) const {
    return inputs == o.inputs && actions == o.actions && hidden == o.hidden;
  }
};

// A minibatch of transitions for one update, row-major: n observations of
// shape.inputs floats, n next-state legal masks of shape.actions bytes.
struct LearnBatch {
  int n = 0;
  std::vector<float> obs;
  std::vector<int64_t> actions;
  std::vector<float> rewards;
  std::vector<float> next_obs;
  std::vector<uint8_t> next_legal;  // 1: legal in the next state
  std::vector<float> done;          // 1: the episode ended (no next value)
  std::vector<float> weights;       // importance-sampling weights
};

// What a policy file says about itself besides its weights.
struct PolicyInfo {
  std::vector<std::string> actions;  // action names, in output order
  int episode_length = 10;
  std::string target;   // what it was trained for: "x86-64-avx512 threads=1"
  std::string command;  // the command line that trained it
  uint64_t seed = 0;
  int64_t episodes = 0;  // training episodes behind these weights
};

// The network behind one interface; the LibTorch implementation is a module
// (libtirc_torch.so) loaded the first time a network is made or read, so
// that a tirc that never uses a policy never loads LibTorch (hundreds of
// shared libraries: half a second at every start).
class QNetwork : public LoopPolicy {
 public:
  virtual const QNetworkShape& shape() const = 0;

  // One observation (shape.inputs floats) -> shape.actions values. Const
  // and safe to call from several threads while nothing learns.
  std::vector<float> q_values(const std::vector<float>& observation) const override {
    return q_batch(observation, 1);
  }
  // n observations at once -> n * shape.actions values.
  virtual std::vector<float> q_batch(const std::vector<float>& observations, int n) const = 0;

  // One Double-DQN step with Adam at `learning_rate`: the target of a
  // transition is reward + gamma * target(next, argmax over the legal
  // actions of this network's values at next), reward alone when it is done
  // or nothing is legal next; Huber loss weighted by b.weights, gradient norm
  // clipped at 10. Returns the absolute TD error of each transition (the new
  // priorities) and the loss in *loss. `target` comes from the same module.
  virtual std::vector<float> learn(const LearnBatch& b, const QNetwork& target, double gamma,
                                   double learning_rate, double* loss) = 0;

  // The weights of `other` (same shape) into this network; the optimizer's
  // state is left alone.
  virtual void copy_weights(const QNetwork& other) = 0;
  // Largest absolute difference between the two networks' weights.
  virtual float weight_distance(const QNetwork& other) const = 0;

  // The policy file: the weights and `info`, in LibTorch's archive format.
  virtual void save(const std::string& path, const PolicyInfo& info) const = 0;

  // A training checkpoint: this network with its optimizer state, the target
  // network, and the trainer's own numbers (named doubles, e.g. counters)
  // and a series. Written beside the path and renamed over it: whole or absent.
  virtual void save_checkpoint(const std::string& path, const QNetwork& target,
                               const std::vector<std::pair<std::string, double>>& numbers,
                               const std::vector<double>& series) const = 0;
  // Restores what save_checkpoint wrote into this network and `target` (same
  // shapes), returning the numbers and the series.
  virtual void load_checkpoint(const std::string& path, QNetwork& target,
                               std::vector<std::pair<std::string, double>>* numbers,
                               std::vector<double>* series) = 0;
};

// A new network: weights drawn from `seed` (He-uniform, 53-bit uniforms of
// mt19937_64: the same network on every machine), biases 0. Throws
// tirc::Error when the LibTorch module cannot be loaded.
std::unique_ptr<QNetwork> make_q_network(const QNetworkShape& shape, uint64_t seed,
                                         int episode_length);
// A policy file. Throws tirc::Error naming the path and the reason when the
// file is missing, is not a tirc policy, or was made for other actions or
// another observation layout than this tirc's.
std::unique_ptr<QNetwork> load_q_network(const std::string& path, PolicyInfo* info = nullptr);

// The observation layout and actions of this tirc, as a policy for the loop
// environment must have them.
QNetworkShape loop_policy_shape(std::vector<int> hidden);

}  // namespace tirc
