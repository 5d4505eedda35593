// Training a Q-network by Ape-X style Double DQN (Horgan et al. 2018):
// several actor threads play episodes with their own copy of the network
// and their own epsilon, feeding one prioritized replay buffer; one learner
// samples it, updates the network, refreshes the priorities and syncs the
// target network every few updates. Actions are masked: an actor picks only
// legal actions (random ones included), an illegal action is never a step,
// and the Double-DQN target maximises over the next state's legal actions.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "tuner/policy/q_network.h"
#include "tuner/policy/replay.h"
#include "tuner/policy_search.h"

namespace tirc {

// One episode of an environment, played by one actor thread.
class RlEpisode {
 public:
  virtual ~RlEpisode() = default;
  // The observation after `steps` of `length` actions.
  virtual std::vector<float> observe(int steps, int length) const = 0;
  virtual std::vector<bool> legal() const = 0;
  // Takes a legal action; returns its reward.
  virtual double act(int action) = 0;
  // Whether the episode ended before its length (a stop action was taken):
  // its last transition is then terminal.
  virtual bool finished() const { return false; }
};

// An environment to train on. begin() is called from several threads at once.
class RlEnvironment {
 public:
  virtual ~RlEnvironment() = default;
  virtual int observation_size() const = 0;
  virtual int action_count() const = 0;
  virtual std::unique_ptr<RlEpisode> begin(std::mt19937_64& rng) = 0;
};

struct DqnOptions {
  std::vector<int> hidden{256, 256, 256};
  int episode_length = 10;
  double gamma = 0.99;
  double learning_rate = 5e-4;
  int batch = 64;
  size_t replay_capacity = 100000;
  double priority_alpha = 0.6;
  // Importance-sampling exponent, annealed from beta to 1 over the episodes
  // of max_episodes (or held when that is unlimited).
  double priority_beta = 0.4;
  int target_sync = 250;  // learner updates between target-network syncs
  int actor_sync = 25;    // learner updates between actors' weight refreshes
  size_t warm_up = 256;   // transitions in the buffer before the first update
  // The learner keeps to at most this many updates per transition collected
  // (on a small machine it would otherwise take the cores the actors need).
  double updates_per_transition = 2;
  // And the actors wait while they are this many transitions per update
  // ahead of the learner (past the warm-up): on an environment cheaper than
  // an update they would otherwise fill the buffer with a stale policy.
  double transitions_per_update = 16;
  int actors = 2;
  // Actor i of N explores with epsilon base^(1 + alpha * i / (N - 1)) (Ape-X;
  // a single actor uses base).
  double epsilon_base = 0.4;
  double epsilon_alpha = 7;
  double budget_seconds = 60;
  int64_t max_episodes = -1;  // -1: until the budget is spent
  uint64_t seed = 0;
  // One thread: each episode, then its updates. Reproducible for a seed.
  bool synchronous = false;
  double report_seconds = 10;  // how often on_report is called (and at the end)
};

// A point of the learning curve.
struct DqnProgress {
  double seconds = 0;  // training time so far (earlier runs of a resumed training included)
  int64_t episodes = 0, transitions = 0, updates = 0;
  double mean_return = 0;  // mean return of the last 100 episodes
  double loss = 0;         // mean loss of the updates since the last report
  double evaluation = 0;   // what on_report's evaluation returned (0: none)
};

class DqnTrainer {
 public:
  DqnTrainer(RlEnvironment& env, DqnOptions options);
  ~DqnTrainer();

  // Trains until the budget or max_episodes. on_report runs on the learner's
  // thread every report_seconds and at the end; what it returns (a held-out
  // evaluation of the network, or 0) goes in the curve.
  using OnReport = std::function<double(const DqnProgress&, const QNetwork& online)>;
  void train(const OnReport& on_report = {});

  QNetwork& online() { return *online_; }
  const QNetwork& target() const { return *target_; }
  const std::vector<DqnProgress>& curve() const { return curve_; }
  const PrioritizedReplay& replay() const { return replay_; }
  int64_t episodes() const { return episodes_; }
  int64_t updates() const { return updates_.load(); }
  double epsilon(int actor) const;

  // For tests: one learner update from the replay buffer (false while it
  // holds fewer than a batch), and a target sync.
  bool learn_once();
  void sync_target();
  // Plays one episode with `net` at `epsilon` and stores its transitions;
  // returns its return.
  double play_episode(const QNetwork& net, double epsilon, std::mt19937_64& rng);

  // Everything needed to go on later: both networks, the optimizer, the
  // counters and the curve (not the replay buffer: measurements are in the
  // tuning records, so refilling it costs no measurement).
  void save_checkpoint(const std::string& path) const;
  void load_checkpoint(const std::string& path);

 private:
  void actor_loop(int index, std::atomic<bool>& stop);
  bool ahead_of_learner() const;
  DqnProgress progress_now(double evaluation) const;

  RlEnvironment& env_;
  DqnOptions options_;
  std::unique_ptr<QNetwork> online_, target_;
  PrioritizedReplay replay_;
  std::mt19937_64 learner_rng_;
  struct Shared;
  std::unique_ptr<Shared> shared_;  // locks and counters the threads share
  int64_t episodes_ = 0, transitions_ = 0;
  std::atomic<int64_t> updates_{0};  // written by the learner, read by actors
  double seconds_before_ = 0;        // training time of earlier (checkpointed) runs
  double loss_sum_ = 0;
  int loss_count_ = 0;
  std::vector<double> recent_returns_;
  std::vector<DqnProgress> curve_;
};

}  // namespace tirc
