// The evolutionary search over the rule space (declared in tuner/search.h).
#include <algorithm>
#include <random>
#include <unordered_set>

#include "ir/error.h"
#include "ir/structural.h"
#include "schedule/trace.h"
#include "tuner/auto_schedule.h"
#include "tuner/cost_model.h"
#include "tuner/features.h"
#include "tuner/search.h"
#include "tuner/space/tile_decisions.h"

namespace tirc {

namespace {

using Rng = std::mt19937_64;

// Every way to write `product` as n factors in order, the last at most
// max_innermost (when positive).
void factorizations(int64_t product, int n, int64_t max_innermost, std::vector<int64_t>& prefix,
                    std::vector<std::vector<int64_t>>& out) {
  if (n == 1) {
    if (max_innermost <= 0 || product <= max_innermost) {
      prefix.push_back(product);
      out.push_back(prefix);
      prefix.pop_back();
    }
    return;
  }
  for (int64_t f = 1; f <= product; ++f) {
    if (product % f) continue;
    prefix.push_back(f);
    factorizations(product / f, n - 1, max_innermost, prefix, out);
    prefix.pop_back();
  }
}

// The trace with one sample_perfect_tile decision drawn again (another
// factorization of the same extent); nullopt when it has none to change.
std::optional<Trace> redraw_tile(const Trace& t, Rng& rng) {
  const std::vector<TileDecision> tiles = tile_decisions(t);
  if (tiles.empty()) return std::nullopt;
  const TileDecision& d = tiles[std::uniform_int_distribution<size_t>(0, tiles.size() - 1)(rng)];
  std::vector<std::vector<int64_t>> options;
  std::vector<int64_t> prefix;
  factorizations(d.extent(), static_cast<int>(d.factors.size()), d.max_innermost, prefix, options);
  options.erase(std::remove(options.begin(), options.end(), d.factors), options.end());
  if (options.empty()) return std::nullopt;
  return with_tile_decision(
      t, d.instruction, options[std::uniform_int_distribution<size_t>(0, options.size() - 1)(rng)]);
}

class Evolution {
 public:
  Evolution(TuneTask& task, const RuleSpace& space)
      : task_(task), space_(space), rng_(task.options().seed) {}

  void run(const LoopState& start) {
    const SearchOptions& o = task_.options();
    measure(start, program_features(start.program()));
    // A first generation drawn from the rule space.
    for (int tries = 0, drawn = 0; drawn < o.batch && tries < 4 * o.batch && !task_.done(); ++tries)
      if (std::optional<LoopState> s = sample()) {
        measure(*s, program_features(s->program()));
        ++drawn;
      }
    while (!task_.done()) {
      model_.train();
      std::vector<LoopState> children = offspring(8 * o.batch);
      if (children.empty()) break;  // the space is exhausted
      std::vector<std::vector<float>> features;
      for (const LoopState& c : children) features.push_back(program_features(c.program()));
      std::vector<double> predicted = model_.predict(features);
      std::vector<size_t> order(children.size());
      for (size_t i = 0; i < order.size(); ++i) order[i] = i;
      std::stable_sort(order.begin(), order.end(),
                       [&](size_t a, size_t b) { return predicted[a] > predicted[b]; });
      // Most of the batch by the model, the rest at random (the model only
      // knows what it has seen).
      const size_t batch = std::min(order.size(), static_cast<size_t>(o.batch));
      const size_t by_model = batch - static_cast<size_t>(o.epsilon * static_cast<double>(batch));
      std::shuffle(order.begin() + static_cast<std::ptrdiff_t>(by_model), order.end(), rng_);
      for (size_t i = 0; i < batch && !task_.done(); ++i)
        measure(children[order[i]], std::move(features[order[i]]));
    }
  }

 private:
  // Measures s (whose program_features are `features`) into the model and
  // the population.
  void measure(const LoopState& s, std::vector<float> features) {
    seen_.insert(structural_hash(s.program()));
    std::optional<double> v = task_.value(s);
    if (!v) return;
    model_.add(std::move(features), 1 / *v);
    population_.push_back({*v, s});
    std::stable_sort(population_.begin(), population_.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    if (population_.size() > kPopulation)
      population_.erase(population_.begin() + kPopulation, population_.end());
  }

  // A fresh draw of the rule space.
  std::optional<LoopState> sample() {
    RuleContext cx = space_.rules;
    cx.decisions = Decisions::Random;
    try {
      Schedule sch = auto_schedule(space_.plain, cx, {}, rng_()).schedule;
      return fresh(task_.env().start(std::move(sch), space_.func));
    } catch (const Error&) {
      return std::nullopt;
    }
  }

  std::optional<LoopState> fresh(LoopState s) {
    if (seen_.count(structural_hash(s.program()))) return std::nullopt;
    return s;
  }

  // A parent's tile decision drawn again, the trace replayed on the plain kernel.
  std::optional<LoopState> redraw(const LoopState& parent) {
    std::optional<Trace> t = redraw_tile(parent.sch.trace(), rng_);
    if (!t) return std::nullopt;
    try {
      return fresh(task_.env().start(replay_from_initial(parent.sch, *t), space_.func));
    } catch (const Error&) {
      return std::nullopt;  // the rest of the trace no longer applies
    }
  }

  // One program-changing loop action at a random cursor.
  std::optional<LoopState> act(const LoopState& parent) {
    std::vector<LoopState> next = neighbours(task_.env(), parent);
    if (next.empty()) return std::nullopt;
    return fresh(std::move(next[std::uniform_int_distribution<size_t>(0, next.size() - 1)(rng_)]));
  }

  std::vector<LoopState> offspring(int want) {
    std::vector<LoopState> out;
    std::unordered_set<size_t> picked;
    for (int tries = 0; static_cast<int>(out.size()) < want && tries < 4 * want; ++tries) {
      std::optional<LoopState> child;
      const double r = std::uniform_real_distribution<double>(0, 1)(rng_);
      if (population_.empty() || r < 0.1) {
        child = sample();
      } else {
        // Parents: the fitter, the likelier (rank-weighted).
        std::vector<double> weights;
        for (size_t i = 0; i < population_.size(); ++i)
          weights.push_back(1.0 / static_cast<double>(i + 1));
        const LoopState& parent =
            population_[std::discrete_distribution<size_t>(weights.begin(), weights.end())(rng_)]
                .second;
        child = task_.options().evolve_actions && r > 0.55 ? act(parent) : redraw(parent);
      }
      if (child && picked.insert(structural_hash(child->program())).second)
        out.push_back(std::move(*child));
    }
    return out;
  }

  static constexpr size_t kPopulation = 32;
  TuneTask& task_;
  const RuleSpace& space_;
  Rng rng_;
  CostModel model_;
  std::vector<std::pair<double, LoopState>> population_;  // best first
  std::unordered_set<size_t> seen_;
};

}  // namespace

void evolutionary_search(TuneTask& task, const LoopState& start) {
  if (!task.space())
    throw Error("the evolutionary search needs the kernel's rule space (tune_module gives it)");
  Evolution(task, *task.space()).run(start);
}

}  // namespace tirc
