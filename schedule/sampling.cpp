// sample_perfect_tile, sample_categorical: the random decisions of a schedule,
// recorded with the outcome so that replaying the trace repeats them.
#include <cmath>
#include <map>

#include "schedule/schedule.h"
#include "schedule/state.h"

namespace tirc {

namespace {

constexpr int kMaxTileFactors = 64;
constexpr int64_t kMaxTileExtent = int64_t{1} << 40;

// A uniform double in [0, 1) from 53 random bits.
double unit_interval(uint64_t bits) {
  return static_cast<double>(bits >> 11) * 0x1.0p-53;
}

std::vector<int64_t> divisors_of(int64_t n) {
  std::vector<int64_t> small, large;
  for (int64_t d = 1; d * d <= n; ++d) {
    if (n % d) continue;
    small.push_back(d);
    if (d * d != n) large.push_back(n / d);
  }
  small.insert(small.end(), large.rbegin(), large.rend());
  return small;
}

// Counts the ordered ways to write m as a product of k factors (as doubles:
// only their ratios matter, and they can exceed 64 bits).
class FactorizationCounter {
 public:
  double count(int64_t m, int k) {
    if (k == 0) return m == 1 ? 1 : 0;
    if (k == 1) return 1;
    auto key = std::pair{m, k};
    if (auto it = memo_.find(key); it != memo_.end()) return it->second;
    double total = 0;
    for (int64_t d : divisors_of(m)) total += count(m / d, k - 1);
    memo_[key] = total;
    return total;
  }

 private:
  std::map<std::pair<int64_t, int>, double> memo_;
};

std::string print_list(const std::vector<int64_t>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    out += i ? ", " : "";
    out += std::to_string(v[i]);
  }
  return out + "]";
}

}  // namespace

std::vector<ExprRV> Schedule::sample_perfect_tile(LoopRV loop, int n, int max_innermost_factor,
                                                  std::optional<std::vector<int64_t>> decision) {
  const char* prim = "sample_perfect_tile";
  const LoopEntry& entry = resolve(loop, prim);
  StmtPath path = *find_loop(mod_.at(entry.func)->body, entry.var.get());
  const auto* node = path.node().as<ForNode>();
  const std::string& name = entry.var->name;
  const auto* extent_imm = node ? node->extent.as<IntImmNode>() : nullptr;
  if (!extent_imm) throw ScheduleError(prim, "loop " + name + " has a non-constant extent");
  int64_t extent = extent_imm->value;
  if (extent < 1)
    throw ScheduleError(prim, "loop " + name + " has extent " + std::to_string(extent));
  if (n < 1) throw ScheduleError(prim, "n must be at least 1, not " + std::to_string(n));
  if (n > kMaxTileFactors)
    throw ScheduleError(prim, "n must be at most " + std::to_string(kMaxTileFactors) + ", not " +
                                  std::to_string(n));
  if (max_innermost_factor < 1 && max_innermost_factor != -1)
    throw ScheduleError(prim, "max_innermost_factor must be positive (or -1 for no bound), not " +
                                  std::to_string(max_innermost_factor));
  int64_t bound = max_innermost_factor == -1 ? extent : max_innermost_factor;

  std::vector<int64_t> factors;
  if (decision) {
    factors = *decision;
    std::string shown = print_list(factors);
    if (static_cast<int>(factors.size()) != n)
      throw ScheduleError(prim, "decision " + shown + " has " + std::to_string(factors.size()) +
                                    " factors but n is " + std::to_string(n));
    int64_t product = 1;
    for (int64_t f : factors) {
      if (f < 1) throw ScheduleError(prim, "decision " + shown + " has a factor below 1");
      if (product > extent / f)
        throw ScheduleError(prim, "decision " + shown + " does not multiply to the extent " +
                                      std::to_string(extent) + " of loop " + name);
      product *= f;
    }
    if (product != extent)
      throw ScheduleError(prim, "decision " + shown + " multiplies to " + std::to_string(product) +
                                    ", not to the extent " + std::to_string(extent) + " of loop " +
                                    name);
    if (factors.back() > bound)
      throw ScheduleError(
          prim, "decision " + shown + " has innermost factor " + std::to_string(factors.back()) +
                    " above max_innermost_factor " + std::to_string(max_innermost_factor));
  } else {
    if (extent > kMaxTileExtent)
      throw ScheduleError(prim, "loop " + name + " is too long to factorize");
    // Uniform over all factorizations: choose the innermost factor weighted by
    // how many ways the rest can be tiled, then each outer factor likewise.
    FactorizationCounter counter;
    std::vector<std::pair<int64_t, double>> inner_choices;
    double total = 0;
    for (int64_t d : divisors_of(extent)) {
      if (d > bound) break;
      double w = counter.count(extent / d, n - 1);
      inner_choices.push_back({d, w});
      total += w;
    }
    if (inner_choices.empty() || !(total > 0))
      throw ScheduleError(prim, "loop " + name + " of extent " + std::to_string(extent) +
                                    " has no tiling into " + std::to_string(n) +
                                    " factors with the innermost at most " +
                                    std::to_string(max_innermost_factor));
    auto pick = [&](const std::vector<std::pair<int64_t, double>>& choices, double sum) {
      double r = unit_interval(next_random()) * sum;
      for (const auto& [d, w] : choices) {
        if (r < w) return d;
        r -= w;
      }
      return choices.back().first;  // rounding at the very end of the range
    };
    int64_t inner = pick(inner_choices, total);
    int64_t rest = extent / inner;
    std::vector<int64_t> outer;
    for (int k = n - 1; k > 1; --k) {
      std::vector<std::pair<int64_t, double>> choices;
      double sum = 0;
      for (int64_t d : divisors_of(rest)) {
        double w = counter.count(rest / d, k - 1);
        choices.push_back({d, w});
        sum += w;
      }
      int64_t f = pick(choices, sum);
      outer.push_back(f);
      rest /= f;
    }
    if (n > 1) outer.push_back(rest);
    // outer runs from the second-innermost factor outwards.
    factors.assign(outer.rbegin(), outer.rend());
    factors.push_back(inner);
  }

  Instruction inst{prim, {}, {}, {}};
  inst.keywords = {{"loop", trace_rv(loop)},
                   {"n", n},
                   {"max_innermost_factor", max_innermost_factor},
                   {"decision", TraceList(factors.begin(), factors.end())}};
  inst.list_output = true;
  std::vector<ExprRV> out;
  for (int64_t f : factors) {
    out.push_back(new_expr_rv(f));
    inst.outputs.push_back(trace_rv(out.back()));
  }
  record(std::move(inst));
  return out;
}

ExprRV Schedule::sample_categorical(const std::vector<int64_t>& candidates,
                                    const std::vector<double>& probs, std::optional<int> decision) {
  const char* prim = "sample_categorical";
  if (candidates.empty()) throw ScheduleError(prim, "no candidates");
  if (probs.size() != candidates.size())
    throw ScheduleError(prim, std::to_string(candidates.size()) + " candidates but " +
                                  std::to_string(probs.size()) + " probabilities");
  double total = 0;
  for (double p : probs) {
    if (!std::isfinite(p) || p < 0)
      throw ScheduleError(prim, "probabilities must be finite and not negative");
    total += p;
  }
  if (!(total > 0)) throw ScheduleError(prim, "the probabilities sum to 0");
  int chosen = 0;
  if (decision) {
    if (*decision < 0 || *decision >= static_cast<int>(candidates.size()))
      throw ScheduleError(prim, "decision " + std::to_string(*decision) +
                                    " is not an index of the " + std::to_string(candidates.size()) +
                                    " candidates");
    chosen = *decision;
  } else {
    double r = unit_interval(next_random()) * total;
    chosen = -1;
    for (size_t i = 0; i < probs.size(); ++i) {
      if (probs[i] > 0)
        chosen = static_cast<int>(i);  // the last possible one, if rounding runs past
      if (r < probs[i]) break;
      r -= probs[i];
    }
  }
  Instruction inst{prim, {}, {}, {}};
  TraceList cands(candidates.begin(), candidates.end());
  TraceList ps(probs.begin(), probs.end());
  inst.keywords = {
      {"candidates", std::move(cands)}, {"probs", std::move(ps)}, {"decision", chosen}};
  ExprRV out = new_expr_rv(candidates[static_cast<size_t>(chosen)]);
  inst.outputs.push_back(trace_rv(out));
  record(std::move(inst));
  return out;
}

}  // namespace tirc
