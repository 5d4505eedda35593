#include "tuner/search.h"

#include <algorithm>
#include <random>
#include <unordered_set>

#include "ir/error.h"
#include "ir/structural.h"
#include "tuner/policy_search.h"

namespace tirc {

TuneTask::TuneTask(LoopEnv env, Evaluate evaluate, SearchOptions options,
                   std::optional<RuleSpace> space)
    : env_(std::move(env)),
      evaluate_(std::move(evaluate)),
      options_(options),
      space_(std::move(space)),
      start_(std::chrono::steady_clock::now()) {}

double TuneTask::elapsed() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

bool TuneTask::done() const {
  return trials_ >= options_.max_trials || elapsed() >= options_.budget_seconds;
}

void TuneTask::remember(size_t program_hash, const Measurement& m) {
  cache_[program_hash] = m;
}

std::optional<double> TuneTask::value(const LoopState& s) {
  ++states_;
  size_t h = structural_hash(s.program());
  auto it = cache_.find(h);
  if (it == cache_.end()) {
    if (done()) return std::nullopt;
    Measurement m = evaluate_(s.program());
    ++trials_;
    it = cache_.emplace(h, m).first;
    if (on_measured_) on_measured_(s, m, elapsed());
  }
  const Measurement& m = it->second;
  if (!m.ok() || !(m.seconds > 0)) return std::nullopt;
  if (!best_ || m.seconds < best_seconds_) {
    best_ = s;
    best_seconds_ = m.seconds;
    best_gflops_ = m.gflops;
    curve_.push_back({elapsed(), trials_, best_gflops_});
  }
  return 1 / m.seconds;
}

std::vector<LoopState> neighbours(const LoopEnv& env, const LoopState& s) {
  std::vector<LoopState> out;
  std::unordered_set<size_t> seen{structural_hash(s.program())};
  const int n = static_cast<int>(s.loops().size());
  for (int p = 0; p < n; ++p) {
    LoopState at = s;
    at.cursor = p;
    // The cursor's path, so that the history replays as a list of actions.
    for (int i = s.cursor; i != p; i += p > s.cursor ? 1 : -1)
      at.history.push_back({p > s.cursor ? ActionKind::down : ActionKind::up});
    for (const Action& a : all_actions()) {
      if (!a.changes_program()) continue;
      std::optional<LoopState> next = env.step(at, a);
      if (next && seen.insert(structural_hash(next->program())).second)
        out.push_back(std::move(*next));
    }
  }
  return out;
}

namespace {

struct Scored {
  double value;
  LoopState state;
};

void sort_best_first(std::vector<Scored>& v) {
  std::stable_sort(v.begin(), v.end(),
                   [](const Scored& a, const Scored& b) { return a.value > b.value; });
}

// The measured neighbours of s, best first; stops early when the task is done.
std::vector<Scored> scored_neighbours(TuneTask& task, const LoopState& s) {
  std::vector<Scored> out;
  for (LoopState& next : neighbours(task.env(), s)) {
    if (task.done()) break;
    if (std::optional<double> v = task.value(next)) out.push_back({*v, std::move(next)});
  }
  sort_best_first(out);
  return out;
}

// Measurements vary by a few per cent: a step must gain more than that.
constexpr double kMinGain = 1.01;

void beam_dfs(TuneTask& task, const LoopState& s, int depth) {
  if (depth >= task.options().max_depth || task.done()) return;
  std::vector<Scored> next = scored_neighbours(task, s);
  for (size_t i = 0; i < next.size() && i < static_cast<size_t>(task.options().beam_width); ++i)
    beam_dfs(task, next[i].state, depth + 1);
}

}  // namespace

void greedy_search(TuneTask& task, const LoopState& start, int lookahead) {
  std::optional<double> current = task.value(start);
  if (!current) return;
  LoopState state = start;
  while (!task.done()) {
    std::vector<Scored> level = scored_neighbours(task, state);
    if (level.empty()) return;
    // The first step toward the best state within the lookahead.
    double best = level.front().value;
    const LoopState* step = &level.front().state;
    if (lookahead >= 2) {
      size_t fanout = std::min<size_t>(level.size(), task.options().lookahead_fanout);
      for (size_t i = 0; i < fanout && !task.done(); ++i) {
        std::vector<Scored> deeper = scored_neighbours(task, level[i].state);
        if (!deeper.empty() && deeper.front().value > best) {
          best = deeper.front().value;
          step = &level[i].state;
        }
      }
    }
    if (best <= *current * kMinGain) return;  // no neighbour is better: converged
    state = *step;
    current = task.value(state);
    if (!current) return;
  }
}

void beam_search(TuneTask& task, const LoopState& start, bool depth_first) {
  if (!task.value(start)) return;
  if (depth_first) {
    beam_dfs(task, start, 0);
    return;
  }
  std::vector<LoopState> frontier{start};
  for (int depth = 0; depth < task.options().max_depth && !task.done(); ++depth) {
    std::vector<Scored> level;
    std::unordered_set<size_t> seen;
    for (const LoopState& s : frontier)
      for (Scored& n : scored_neighbours(task, s))
        if (seen.insert(structural_hash(n.state.program())).second) level.push_back(std::move(n));
    sort_best_first(level);
    frontier.clear();
    for (size_t i = 0; i < level.size() && i < static_cast<size_t>(task.options().beam_width); ++i)
      frontier.push_back(std::move(level[i].state));
    if (frontier.empty()) return;
  }
}

void random_search(TuneTask& task, const LoopState& start) {
  if (!task.value(start)) return;
  std::mt19937_64 rng(task.options().seed);
  const std::vector<Action>& actions = all_actions();
  while (!task.done()) {
    LoopState s = start;
    int changes = 0;
    // A walk: random legal actions (cursor moves included, as LoopTune's
    // random agent takes them) until max_depth program changes.
    for (int steps = 0;
         changes < task.options().max_depth && steps < 8 * task.options().max_depth && !task.done();
         ++steps) {
      std::vector<size_t> order(actions.size());
      for (size_t i = 0; i < order.size(); ++i) order[i] = i;
      std::shuffle(order.begin(), order.end(), rng);
      std::optional<LoopState> next;
      Action taken{};
      for (size_t i : order)
        if ((next = task.env().step(s, actions[i]))) {
          taken = actions[i];
          break;
        }
      if (!next) break;  // nothing applies
      s = std::move(*next);
      if (taken.changes_program()) {
        ++changes;
        task.value(s);
      }
    }
  }
}

const std::vector<std::string>& strategy_names() {
  static const std::vector<std::string> names{"greedy", "greedy2",      "beam",   "beam-dfs",
                                              "random", "evolutionary", "policy", "policy-beam"};
  return names;
}

void run_strategy(const std::string& name, TuneTask& task, const LoopState& start) {
  if (name == "greedy" || name == "greedy2") {
    greedy_search(task, start, name == "greedy2" ? 2 : 1);
  } else if (name == "beam" || name == "beam-dfs") {
    beam_search(task, start, name == "beam-dfs");
  } else if (name == "random") {
    random_search(task, start);
  } else if (name == "evolutionary") {
    evolutionary_search(task, start);
  } else if (name == "policy") {
    policy_search(task, start);
  } else if (name == "policy-beam") {
    policy_beam_search(task, start);
  } else {
    std::string list;
    for (const std::string& s : strategy_names()) list += (list.empty() ? "" : ", ") + s;
    throw Error("unknown strategy '" + name + "' (known: " + list + ")");
  }
}

}  // namespace tirc
