#include "tuner/space/tile_decisions.h"

#include <functional>
#include <numeric>

namespace tirc {

int64_t TileDecision::extent() const {
  return std::accumulate(factors.begin(), factors.end(), int64_t{1}, std::multiplies<>());
}

std::vector<TileDecision> tile_decisions(const Trace& t) {
  std::vector<TileDecision> out;
  for (size_t i = 0; i < t.instructions().size(); ++i) {
    const Instruction& inst = t.instructions()[i];
    if (inst.kind != "sample_perfect_tile") continue;
    const TraceValue* decision = inst.keyword("decision");
    const auto* list = decision ? std::get_if<TraceList>(&decision->v) : nullptr;
    if (!list || list->empty()) continue;
    TileDecision d;
    d.instruction = i;
    bool ints = true;
    for (const TraceValue& v : *list) {
      const auto* x = std::get_if<int64_t>(&v.v);
      ints = ints && x && *x > 0;
      if (ints) d.factors.push_back(*x);
    }
    if (!ints) continue;
    if (const TraceValue* m = inst.keyword("max_innermost_factor"))
      if (const auto* x = std::get_if<int64_t>(&m->v)) d.max_innermost = *x;
    out.push_back(std::move(d));
  }
  return out;
}

Trace with_tile_decision(const Trace& t, size_t at, const std::vector<int64_t>& factors) {
  Trace out;
  for (size_t i = 0; i < t.instructions().size(); ++i) {
    Instruction inst = t.instructions()[i];
    if (i == at) {
      TraceList values;
      for (int64_t f : factors) values.push_back(TraceValue(f));
      for (auto& [k, v] : inst.keywords)
        if (k == "decision") v = TraceValue(values);
    }
    out.append(std::move(inst));
  }
  return out;
}

std::optional<std::vector<int64_t>> moved_innermost(const TileDecision& d, bool grow) {
  if (d.factors.empty()) return std::nullopt;
  const int64_t extent = d.extent(), inner = d.factors.back();
  // The factors between the outermost and the innermost stay.
  int64_t middle = 1;
  for (size_t i = 1; i + 1 < d.factors.size(); ++i) middle *= d.factors[i];
  const int64_t limit = d.max_innermost > 0 ? d.max_innermost : extent;
  for (int64_t f = grow ? inner + 1 : inner - 1; f >= 1 && f <= limit; f += grow ? 1 : -1) {
    if (extent % (middle * f) || d.factors.size() == 1) continue;
    std::vector<int64_t> out = d.factors;
    out.front() = extent / (middle * f);
    out.back() = f;
    return out;
  }
  return std::nullopt;
}

Schedule replay_from_initial(const Schedule& sch, const Trace& t) {
  Schedule fresh(sch.initial());
  t.apply_to(fresh);
  return fresh;
}

}  // namespace tirc
