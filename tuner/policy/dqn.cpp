#include "tuner/policy/dqn.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <mutex>
#include <numeric>
#include <thread>

#include "ir/error.h"

namespace tirc {

namespace {

using Clock = std::chrono::steady_clock;

double uniform(std::mt19937_64& rng) {
  return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

// A uniformly drawn legal action (-1: none is legal).
int random_legal(const std::vector<bool>& legal, std::mt19937_64& rng) {
  std::vector<int> options;
  for (size_t a = 0; a < legal.size(); ++a)
    if (legal[a]) options.push_back(static_cast<int>(a));
  if (options.empty()) return -1;
  return options[static_cast<size_t>(rng() % options.size())];
}

std::vector<uint8_t> bytes(const std::vector<bool>& bits) {
  return std::vector<uint8_t>(bits.begin(), bits.end());
}

constexpr size_t kReturnWindow = 100;
constexpr size_t kCurveFields = 8;

}  // namespace

struct DqnTrainer::Shared {
  std::mutex replay;                // replay_, transitions_, episodes_, recent_returns_
  std::mutex weights;               // online_ while the learner writes it
  std::atomic<int64_t> version{0};  // bumped when actors should refresh
  std::mutex error_mutex;
  std::exception_ptr error;
  Clock::time_point start;
};

DqnTrainer::DqnTrainer(RlEnvironment& env, DqnOptions options)
    : env_(env),
      options_(std::move(options)),
      online_(
          make_q_network(QNetworkShape{env.observation_size(), env.action_count(), options_.hidden},
                         options_.seed, options_.episode_length)),
      target_(make_q_network(online_->shape(), options_.seed, options_.episode_length)),
      replay_(options_.replay_capacity, options_.priority_alpha),
      learner_rng_(options_.seed ^ 0x9e3779b97f4a7c15ULL),
      shared_(std::make_unique<Shared>()) {
  if (options_.episode_length < 1) throw Error("an episode needs at least one action");
  if (options_.batch < 1) throw Error("a learner batch needs at least one transition");
  if (options_.actors < 1) throw Error("training needs at least one actor");
}

DqnTrainer::~DqnTrainer() = default;

double DqnTrainer::epsilon(int actor) const {
  const int n = options_.synchronous ? 1 : options_.actors;
  if (n <= 1) return options_.epsilon_base;
  return std::pow(options_.epsilon_base,
                  1 + options_.epsilon_alpha * static_cast<double>(actor) / (n - 1));
}

double DqnTrainer::play_episode(const QNetwork& net, double epsilon, std::mt19937_64& rng) {
  std::unique_ptr<RlEpisode> ep = env_.begin(rng);
  const int length = options_.episode_length;
  std::vector<Transition> steps;
  std::vector<bool> legal = ep->legal();
  std::vector<float> obs = ep->observe(0, length);
  double total = 0;
  for (int step = 0; step < length; ++step) {
    int a = -1;
    if (uniform(rng) < epsilon) {
      a = random_legal(legal, rng);
    } else {
      a = best_legal_action(net.q_values(obs), legal);
    }
    if (a < 0) break;  // nothing is legal: the episode ends here
    const double reward = ep->act(a);
    total += reward;
    Transition t;
    t.obs = std::move(obs);
    t.action = a;
    t.reward = static_cast<float>(reward);
    t.next_obs = ep->observe(step + 1, length);
    obs = t.next_obs;
    t.done = step + 1 == length || ep->finished();
    if (!t.done) {
      legal = ep->legal();
      t.next_legal = bytes(legal);
    } else {
      t.next_legal.assign(static_cast<size_t>(env_.action_count()), 0);
    }
    const bool done = t.done;
    steps.push_back(std::move(t));
    if (done) break;
  }
  if (!steps.empty()) steps.back().done = true;
  std::lock_guard lock(shared_->replay);
  for (Transition& t : steps) replay_.add(std::move(t));
  transitions_ += static_cast<int64_t>(steps.size());
  ++episodes_;
  recent_returns_.push_back(total);
  if (recent_returns_.size() > kReturnWindow) recent_returns_.erase(recent_returns_.begin());
  return total;
}

bool DqnTrainer::learn_once() {
  LearnBatch b;
  PrioritizedReplay::Sample s;
  {
    std::lock_guard lock(shared_->replay);
    if (replay_.size() < static_cast<size_t>(options_.batch)) return false;
    double progress = 0;
    if (options_.max_episodes > 0)
      progress = static_cast<double>(episodes_) / static_cast<double>(options_.max_episodes);
    if (options_.budget_seconds > 0)
      progress =
          std::max(progress, std::chrono::duration<double>(Clock::now() - shared_->start).count() /
                                 options_.budget_seconds);
    const double beta =
        options_.priority_beta + (1 - options_.priority_beta) * std::min(1.0, progress);
    s = replay_.sample(static_cast<size_t>(options_.batch), beta, learner_rng_);
    b.n = options_.batch;
    for (size_t k = 0; k < s.index.size(); ++k) {
      const Transition& t = replay_.at(s.index[k]);
      b.obs.insert(b.obs.end(), t.obs.begin(), t.obs.end());
      b.actions.push_back(t.action);
      b.rewards.push_back(t.reward);
      b.next_obs.insert(b.next_obs.end(), t.next_obs.begin(), t.next_obs.end());
      b.next_legal.insert(b.next_legal.end(), t.next_legal.begin(), t.next_legal.end());
      b.done.push_back(t.done ? 1.0f : 0.0f);
    }
    b.weights = std::move(s.weight);
  }
  std::vector<float> td;
  double loss = 0;
  {
    std::lock_guard lock(shared_->weights);
    td = online_->learn(b, *target_, options_.gamma, options_.learning_rate, &loss);
  }
  {
    std::lock_guard lock(shared_->replay);
    replay_.update(s.index, td);
  }
  loss_sum_ += loss;
  ++loss_count_;
  const int64_t done_updates = ++updates_;
  if (done_updates % options_.target_sync == 0) sync_target();
  if (done_updates % options_.actor_sync == 0) ++shared_->version;
  return true;
}

void DqnTrainer::sync_target() {
  std::lock_guard lock(shared_->weights);
  target_->copy_weights(*online_);
}

bool DqnTrainer::ahead_of_learner() const {
  std::lock_guard lock(shared_->replay);
  return transitions_ > static_cast<int64_t>(options_.warm_up) &&
         static_cast<double>(transitions_) >
             static_cast<double>(updates_.load() + 1) * options_.transitions_per_update;
}

void DqnTrainer::actor_loop(int index, std::atomic<bool>& stop) {
  try {
    std::mt19937_64 rng(options_.seed + 0x2545f4914f6cdd1dULL * static_cast<uint64_t>(index + 1));
    std::unique_ptr<QNetwork> local = make_q_network(online_->shape(), 0, options_.episode_length);
    int64_t version = -1;
    while (!stop) {
      if (version != shared_->version) {
        std::lock_guard lock(shared_->weights);
        version = shared_->version;
        local->copy_weights(*online_);
      }
      if (ahead_of_learner()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        continue;
      }
      play_episode(*local, epsilon(index), rng);
    }
  } catch (...) {
    std::lock_guard lock(shared_->error_mutex);
    if (!shared_->error) shared_->error = std::current_exception();
    stop = true;
  }
}

DqnProgress DqnTrainer::progress_now(double evaluation) const {
  DqnProgress p;
  p.seconds =
      seconds_before_ + std::chrono::duration<double>(Clock::now() - shared_->start).count();
  std::lock_guard lock(shared_->replay);
  p.episodes = episodes_;
  p.transitions = transitions_;
  p.updates = updates_.load();
  if (!recent_returns_.empty())
    p.mean_return = std::accumulate(recent_returns_.begin(), recent_returns_.end(), 0.0) /
                    static_cast<double>(recent_returns_.size());
  p.loss = loss_count_ > 0 ? loss_sum_ / loss_count_ : 0;
  p.evaluation = evaluation;
  return p;
}

void DqnTrainer::train(const OnReport& on_report) {
  shared_->start = Clock::now();
  const int64_t episodes_at_start = episodes_;
  auto elapsed = [&] {
    return std::chrono::duration<double>(Clock::now() - shared_->start).count();
  };
  auto finished = [&] {
    if (elapsed() >= options_.budget_seconds) return true;
    std::lock_guard lock(shared_->replay);
    return options_.max_episodes >= 0 && episodes_ - episodes_at_start >= options_.max_episodes;
  };
  auto may_learn = [&] {
    std::lock_guard lock(shared_->replay);
    return replay_.size() >= std::max(options_.warm_up, static_cast<size_t>(options_.batch)) &&
           static_cast<double>(updates_.load()) <
               static_cast<double>(transitions_) * options_.updates_per_transition;
  };
  double last_report = 0;
  auto report = [&](bool last) {
    if (!last && elapsed() - last_report < options_.report_seconds) return;
    last_report = elapsed();
    DqnProgress p = progress_now(0);
    if (on_report) p.evaluation = on_report(p, *online_);
    loss_sum_ = 0;
    loss_count_ = 0;
    curve_.push_back(p);
  };

  if (options_.synchronous) {
    while (!finished()) {
      play_episode(*online_, epsilon(0), learner_rng_);
      while (may_learn() && learn_once()) {
      }
      report(false);
    }
  } else {
    std::atomic<bool> stop{false};
    std::vector<std::thread> actors;
    for (int i = 0; i < options_.actors; ++i)
      actors.emplace_back([this, i, &stop] { actor_loop(i, stop); });
    try {
      while (!stop && !finished()) {
        if (!may_learn() || !learn_once())
          std::this_thread::sleep_for(std::chrono::milliseconds(2));
        report(false);
      }
    } catch (...) {
      stop = true;
      for (std::thread& t : actors) t.join();
      throw;
    }
    stop = true;
    for (std::thread& t : actors) t.join();
    if (shared_->error) std::rethrow_exception(shared_->error);
  }
  report(true);
  seconds_before_ += elapsed();
}

void DqnTrainer::save_checkpoint(const std::string& path) const {
  std::vector<double> series;
  for (const DqnProgress& p : curve_)
    series.insert(series.end(),
                  {p.seconds, static_cast<double>(p.episodes), static_cast<double>(p.transitions),
                   static_cast<double>(p.updates), p.mean_return, p.loss, p.evaluation, 0.0});
  online_->save_checkpoint(path, *target_,
                           {{"episodes", static_cast<double>(episodes_)},
                            {"transitions", static_cast<double>(transitions_)},
                            {"updates", static_cast<double>(updates_.load())},
                            {"seconds", seconds_before_}},
                           series);
}

void DqnTrainer::load_checkpoint(const std::string& path) {
  std::vector<std::pair<std::string, double>> numbers;
  std::vector<double> series;
  online_->load_checkpoint(path, *target_, &numbers, &series);
  for (const auto& [k, v] : numbers) {
    if (k == "episodes") episodes_ = static_cast<int64_t>(v);
    if (k == "transitions") transitions_ = static_cast<int64_t>(v);
    if (k == "updates") updates_ = static_cast<int64_t>(v);
    if (k == "seconds") seconds_before_ = v;
  }
  curve_.clear();
  for (size_t i = 0; i + kCurveFields <= series.size(); i += kCurveFields) {
    DqnProgress p;
    p.seconds = series[i];
    p.episodes = static_cast<int64_t>(series[i + 1]);
    p.transitions = static_cast<int64_t>(series[i + 2]);
    p.updates = static_cast<int64_t>(series[i + 3]);
    p.mean_return = series[i + 4];
    p.loss = series[i + 5];
    p.evaluation = series[i + 6];
    curve_.push_back(p);
  }
}

}  // namespace tirc
