// The learned policy's machinery (tuner/policy/): the Q-network, masking,
// prioritized replay, target syncs, checkpoints, determinism, and a short
// training run on a tiny environment whose optimal policy is known.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>

#include "ir/error.h"
#include "tuner/policy/dqn.h"
#include "tuner/policy/q_network.h"

using namespace tirc;

namespace {

// A corridor of cells 0..5 and a pit (6). From cell 0, five actions:
//   0 right: to the next cell, +0.25, or +0.5 on reaching cell 5 (illegal at
//            5 and in the pit)
//   1 left:  back one cell, 0 (legal in cells 1..5)
//   2 trap:  +0.4 at once, into the pit (legal in cells 0..4)
//   3 wait:  0 (legal only at 5 and in the pit)
//   4 never legal
// Episodes of 5 actions: the optimum is right x5 (return 1.5; right x4 then
// the trap gives 1.4); the myopic choice of every step but the last is the
// trap. Observation: one-hot cell (7) then one-hot step (6).
constexpr int kCells = 7, kPit = 6, kLength = 5, kActions = 5;

class Corridor final : public RlEpisode {
 public:
  std::vector<float> observe(int steps, int) const override {
    std::vector<float> o(kCells + kLength + 1, 0.0f);
    o[static_cast<size_t>(cell_)] = 1;
    o[static_cast<size_t>(kCells + std::min(steps, kLength))] = 1;
    return o;
  }
  std::vector<bool> legal() const override {
    return {cell_ < 5, cell_ >= 1 && cell_ <= 5, cell_ <= 4, cell_ == 5 || cell_ == kPit, false};
  }
  double act(int a) override {
    if (!legal()[static_cast<size_t>(a)])
      throw Error("illegal action " + std::to_string(a) + " in cell " + std::to_string(cell_));
    ++steps_taken;
    switch (a) {
      case 0:
        return ++cell_ == 5 ? 0.5 : 0.25;
      case 1:
        --cell_;
        return 0;
      case 2:
        cell_ = kPit;
        return 0.4;
      default:
        return 0;
    }
  }
  int steps_taken = 0;

 private:
  int cell_ = 0;
};

class CorridorEnv final : public RlEnvironment {
 public:
  int observation_size() const override { return kCells + kLength + 1; }
  int action_count() const override { return kActions; }
  std::unique_ptr<RlEpisode> begin(std::mt19937_64&) override {
    ++episodes;
    return std::make_unique<Corridor>();
  }
  std::atomic<int> episodes{0};
};

DqnOptions small_options(uint64_t seed) {
  DqnOptions o;
  o.hidden = {32, 32};
  o.episode_length = kLength;
  o.gamma = 0.95;
  o.learning_rate = 2e-3;
  o.batch = 32;
  o.replay_capacity = 5000;
  o.target_sync = 50;
  o.actor_sync = 5;
  o.warm_up = 64;
  o.updates_per_transition = 1;
  o.budget_seconds = 120;
  o.seed = seed;
  o.synchronous = true;
  o.report_seconds = 1e9;
  return o;
}

// The return of the network's greedy rollout from cell 0.
double greedy_return(const QNetwork& net) {
  Corridor c;
  double total = 0;
  for (int step = 0; step < kLength; ++step) {
    const int a = best_legal_action(net.q_values(c.observe(step, kLength)), c.legal());
    if (a < 0) break;
    total += c.act(a);
  }
  return total;
}

std::vector<float> random_observation(std::mt19937_64& rng, int n) {
  std::normal_distribution<float> d;
  std::vector<float> o(static_cast<size_t>(n));
  for (float& v : o) v = d(rng);
  return o;
}

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("tirc_policy_test_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

}  // namespace

TEST_CASE("the Q-network maps observations to one value per action", "[policy][dqn]") {
  auto net = make_q_network(QNetworkShape{13, kActions, {16, 8}}, 1, kLength);
  CHECK(net->shape().inputs == 13);
  CHECK(net->episode_length() == kLength);
  std::mt19937_64 rng(3);
  std::vector<float> a = random_observation(rng, 13), b = random_observation(rng, 13);
  std::vector<float> qa = net->q_values(a), qb = net->q_values(b);
  REQUIRE(qa.size() == kActions);
  std::vector<float> both = a;
  both.insert(both.end(), b.begin(), b.end());
  std::vector<float> q2 = net->q_batch(both, 2);
  REQUIRE(q2.size() == 2 * kActions);
  for (int i = 0; i < kActions; ++i) {
    CHECK(q2[static_cast<size_t>(i)] == Approx(qa[static_cast<size_t>(i)]).margin(1e-6));
    CHECK(q2[static_cast<size_t>(kActions + i)] == Approx(qb[static_cast<size_t>(i)]).margin(1e-6));
  }
  CHECK_THROWS_WITH(net->q_values(std::vector<float>(12, 0.0f)),
                    Catch::Contains("13 inputs") && Catch::Contains("12 floats"));
  CHECK_THROWS_AS(make_q_network(QNetworkShape{0, 3, {}}, 1, 5), Error);
}

TEST_CASE("masking: an illegal action is never chosen, whatever its value", "[policy][dqn]") {
  std::mt19937_64 rng(11);
  auto net = make_q_network(QNetworkShape{13, kActions, {16}}, 2, kLength);
  for (int trial = 0; trial < 500; ++trial) {
    std::vector<float> q = net->q_values(random_observation(rng, 13));
    std::vector<bool> legal(kActions);
    for (size_t a = 0; a < legal.size(); ++a) legal[a] = rng() % 2 == 0;
    const int pick = best_legal_action(q, legal);
    bool any = false;
    for (bool l : legal) any |= l;
    if (!any) {
      CHECK(pick == -1);
      continue;
    }
    REQUIRE(pick >= 0);
    CHECK(legal[static_cast<size_t>(pick)]);
    for (size_t a = 0; a < legal.size(); ++a)
      if (legal[a]) CHECK(q[static_cast<size_t>(pick)] >= q[a]);
  }
  // Episodes at both ends of exploration take only legal actions (the
  // corridor throws on an illegal one) and count only the actions taken.
  CorridorEnv env;
  DqnTrainer trainer(env, small_options(5));
  std::mt19937_64 play(1);
  for (double epsilon : {0.0, 1.0})
    for (int e = 0; e < 50; ++e) trainer.play_episode(trainer.online(), epsilon, play);
  CHECK(trainer.episodes() == 100);
  for (size_t i = 0; i < trainer.replay().size(); ++i) {
    const Transition& t = trainer.replay().at(i);
    CHECK(t.action != 4);
    if (!t.done) CHECK(t.next_legal[4] == 0);
  }
}

TEST_CASE("prioritized replay draws in proportion to priority^alpha", "[policy][dqn]") {
  PrioritizedReplay replay(4, 1.0);
  for (int i = 0; i < 4; ++i) {
    Transition t;
    t.action = i;
    replay.add(t);
  }
  // New transitions get the largest priority seen: all equal at first.
  CHECK(replay.priority(0) == replay.priority(3));
  replay.update({0, 1, 2, 3}, {1, 2, 3, 4});
  CHECK(replay.total() == Approx(10));
  std::mt19937_64 rng(1);
  std::map<size_t, int> counts;
  const int draws = 20000;
  PrioritizedReplay::Sample s = replay.sample(draws, 0.5, rng);
  for (size_t i : s.index) ++counts[i];
  for (size_t i = 0; i < 4; ++i)
    CHECK(counts[i] / double(draws) == Approx((i + 1) / 10.0).margin(0.01));
  // Importance weights: (N P(i))^-beta normalised by the largest (the
  // rarest transition's), so weight(i) = (p_min / p_i)^beta.
  for (size_t k = 0; k < s.index.size(); ++k)
    CHECK(s.weight[k] == Approx(std::pow(1.0 / double(s.index[k] + 1), 0.5)));
  // Full: the oldest is replaced, at the largest priority so far (4).
  Transition fifth;
  fifth.action = 4;
  replay.add(fifth);
  CHECK(replay.size() == 4);
  CHECK(replay.at(0).action == 4);
  CHECK(replay.priority(0) == Approx(4));
  // alpha flattens: at 0 every transition is as likely as any other.
  PrioritizedReplay flat(2, 0.0);
  flat.add({});
  flat.add({});
  flat.update({0, 1}, {0.01f, 100});
  CHECK(flat.priority(0) == flat.priority(1));
}

TEST_CASE("the target network changes only when synced", "[policy][dqn]") {
  CorridorEnv env;
  DqnTrainer trainer(env, small_options(7));
  CHECK(trainer.online().weight_distance(trainer.target()) == 0);
  std::mt19937_64 play(2);
  for (int e = 0; e < 20; ++e) trainer.play_episode(trainer.online(), 1.0, play);
  for (int u = 0; u < 10; ++u) REQUIRE(trainer.learn_once());
  // 10 updates < target_sync (50): the target is still the initial network.
  CHECK(trainer.online().weight_distance(trainer.target()) > 0);
  trainer.sync_target();
  CHECK(trainer.online().weight_distance(trainer.target()) == 0);
  std::mt19937_64 rng(4);
  std::vector<float> o = random_observation(rng, env.observation_size());
  CHECK(trainer.online().q_values(o) == trainer.target().q_values(o));
  // And the learner syncs by itself every target_sync updates.
  for (int u = 0; u < 50; ++u) REQUIRE(trainer.learn_once());
  CHECK(trainer.updates() == 60);
  for (int u = 0; u < 40; ++u) REQUIRE(trainer.learn_once());
  CHECK(trainer.online().weight_distance(trainer.target()) == 0);  // synced at update 100
}

TEST_CASE("training is deterministic for a seed (one thread)", "[policy][dqn]") {
  auto train = [](uint64_t seed) {
    CorridorEnv env;
    DqnOptions o = small_options(seed);
    o.max_episodes = 60;
    auto trainer = std::make_unique<DqnTrainer>(env, o);
    trainer->train();
    return trainer;
  };
  auto a = train(3), b = train(3), c = train(4);
  CHECK(a->updates() > 0);
  CHECK(a->updates() == b->updates());
  CHECK(a->online().weight_distance(b->online()) == 0);
  CHECK(a->online().weight_distance(c->online()) > 0);
}

TEST_CASE("a checkpoint and a policy file round-trip", "[policy][dqn]") {
  CorridorEnv env;
  DqnOptions o = small_options(9);
  o.max_episodes = 40;
  DqnTrainer trainer(env, o);
  trainer.train();
  const std::string ckpt = temp_path("ckpt"), policy = temp_path("policy.pt");
  trainer.save_checkpoint(ckpt);

  DqnOptions more = small_options(10);  // another seed: other initial weights
  more.max_episodes = 10;
  DqnTrainer resumed(env, more);
  CHECK(resumed.online().weight_distance(trainer.online()) > 0);
  resumed.load_checkpoint(ckpt);
  CHECK(resumed.online().weight_distance(trainer.online()) == 0);
  CHECK(resumed.target().weight_distance(trainer.target()) == 0);
  CHECK(resumed.episodes() == trainer.episodes());
  CHECK(resumed.updates() == trainer.updates());
  CHECK(resumed.curve().size() == trainer.curve().size());
  // Training goes on from there (the optimizer's state came along too).
  resumed.train();
  CHECK(resumed.episodes() > trainer.episodes());

  PolicyInfo info;
  info.actions = {"a", "b", "c", "d", "e"};
  info.command = "test";
  info.seed = 9;
  trainer.online().save(policy, info);
  // A policy for other actions than the loop environment's is refused.
  CHECK_THROWS_WITH(load_q_network(policy), Catch::Contains("was trained for the actions a,b,c"));
  CHECK_THROWS_WITH(load_q_network(temp_path("missing.pt")), Catch::Contains("does not exist"));
  {
    std::ofstream junk(ckpt);
    junk << "not a policy";
  }
  CHECK_THROWS_WITH(load_q_network(ckpt), Catch::Contains(ckpt));
  CHECK_THROWS_AS(resumed.load_checkpoint(ckpt), Error);
  std::filesystem::remove(ckpt);
  std::filesystem::remove(policy);
}

TEST_CASE("a short training run learns the corridor's optimal policy", "[policy][dqn]") {
  // Seed 2's untrained network does not find the optimum.
  for (bool synchronous : {true, false}) {
    INFO((synchronous ? "one thread" : "two actor threads and a learner"));
    CorridorEnv env;
    DqnOptions o = small_options(2);
    o.synchronous = synchronous;
    o.actors = 2;
    o.max_episodes = synchronous ? 800 : 3000;
    DqnTrainer trainer(env, o);
    CHECK(greedy_return(trainer.online()) < 1.5);
    trainer.train();
    INFO("updates " << trainer.updates() << ", mean return " << trainer.curve().back().mean_return);
    CHECK(greedy_return(trainer.online()) == Approx(1.5));
    CHECK(trainer.curve().back().episodes >= o.max_episodes);
  }
}

namespace {

// One place, two actions: 0 moves and costs 0.1 (the place stays), 1 stops
// (0, the episode ends). The optimum is to stop at once; an agent without
// the stop would have to lose 0.1 per step.
class Costly final : public RlEpisode {
 public:
  std::vector<float> observe(int steps, int length) const override {
    return {1.0f, static_cast<float>(steps) / static_cast<float>(length)};
  }
  std::vector<bool> legal() const override { return {true, true}; }
  double act(int a) override {
    if (stopped_) throw Error("an action after the stop");
    stopped_ = a == 1;
    return stopped_ ? 0 : -0.1;
  }
  bool finished() const override { return stopped_; }

 private:
  bool stopped_ = false;
};

class CostlyEnv final : public RlEnvironment {
 public:
  int observation_size() const override { return 2; }
  int action_count() const override { return 2; }
  std::unique_ptr<RlEpisode> begin(std::mt19937_64&) override { return std::make_unique<Costly>(); }
};

}  // namespace

TEST_CASE("a stop ends the episode with a terminal transition and is learned where moves cost",
          "[policy][dqn]") {
  CostlyEnv env;
  DqnOptions o = small_options(11);
  o.max_episodes = 300;
  DqnTrainer trainer(env, o);
  // Random episodes: each ends at its stop (or its length), the last
  // transition terminal and no other.
  std::mt19937_64 rng(2);
  size_t before = 0;
  for (int e = 0; e < 20; ++e) {
    const double ret = trainer.play_episode(trainer.online(), 1.0, rng);
    const PrioritizedReplay& r = trainer.replay();
    REQUIRE(r.size() > before);
    const size_t steps = r.size() - before;
    CHECK(steps <= static_cast<size_t>(kLength));
    CHECK(ret == Approx(-0.1 * static_cast<double>(steps - (r.at(r.size() - 1).action == 1))));
    for (size_t i = before; i < r.size(); ++i) {
      INFO("episode " << e << " step " << i - before);
      CHECK(r.at(i).done == (i + 1 == r.size()));
      if (i + 1 < r.size()) CHECK(r.at(i).action == 0);  // only the last may be the stop
    }
    if (steps < static_cast<size_t>(kLength)) CHECK(r.at(r.size() - 1).action == 1);
    before = r.size();
  }
  trainer.train();
  Costly c;
  CHECK(best_legal_action(trainer.online().q_values(c.observe(0, kLength)), c.legal()) == 1);
}
