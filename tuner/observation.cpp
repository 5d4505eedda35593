#include "tuner/observation.h"

#include <algorithm>
#include <cmath>
#include <unordered_set>

#include "tuner/features.h"
#include "tuner/space/tile_decisions.h"

namespace tirc {

std::vector<float> observe(const LoopState& s, const EnvOptions& env, int steps,
                           int episode_length) {
  const std::vector<LoopInfo> walked = s.loops();
  std::unordered_set<const VarNode*> walked_vars;
  for (const LoopInfo& l : walked) walked_vars.insert(l.var.get());
  const VarNode* cursor_var = walked.empty()
                                  ? nullptr
                                  : walked[static_cast<size_t>(std::clamp(
                                               s.cursor, 0, static_cast<int>(walked.size()) - 1))]
                                        .var.get();

  // The cursor's index in pre-order is only known after the walk: the
  // features are taken without one and the bit set below.
  std::vector<const ForNode*> loops;
  std::vector<LoopFeatures> feats = loop_features(s.program(), -1, &loops);
  const int n = static_cast<int>(loops.size());
  int cursor = -1;
  for (int i = 0; i < n; ++i)
    if (loops[static_cast<size_t>(i)]->loop_var.get() == cursor_var) cursor = i;
  const int first = std::clamp(cursor - kObservedLoops / 2, 0, std::max(0, n - kObservedLoops));

  std::vector<float> out(static_cast<size_t>(observation_size()), 0.0f);
  auto scaled = [](float x) { return static_cast<float>(std::log2(1.0 + std::max(0.0f, x)) / 8); };
  for (int slot = 0; slot < kObservedLoops && first + slot < n; ++slot) {
    const size_t i = static_cast<size_t>(first + slot);
    float* v = &out[static_cast<size_t>(slot * kObservedLoopWidth)];
    LoopFeatures f = feats[i];
    f.v[kFeatCursor] = static_cast<int>(i) == cursor ? 1.0f : 0.0f;
    f.v[kFeatSize] = scaled(f.v[kFeatSize]);
    f.v[kFeatTail] = scaled(f.v[kFeatTail]);
    std::copy(f.v.begin(), f.v.end(), v);
    const ForKind kind = loops[i]->for_kind;
    v[kLoopFeatureCount + 0] = kind == ForKind::Vectorized ? 1.0f : 0.0f;
    v[kLoopFeatureCount + 1] = kind == ForKind::Parallel ? 1.0f : 0.0f;
    v[kLoopFeatureCount + 2] = kind == ForKind::Unrolled ? 1.0f : 0.0f;
    v[kLoopFeatureCount + 3] = walked_vars.count(loops[i]->loop_var.get()) ? 1.0f : 0.0f;
  }
  float* g = &out[static_cast<size_t>(kObservedLoops * kObservedLoopWidth)];
  g[0] = episode_length > 0 ? std::min(1.0f, static_cast<float>(steps) / episode_length) : 0.0f;
  g[1] = std::any_of(s.history.begin(), s.history.end(),
                     [](const Action& a) { return a.kind == ActionKind::cache_write; })
             ? 1.0f
             : 0.0f;
  g[2] = env.threads > 1 ? 1.0f : 0.0f;
  const std::vector<TileDecision> tiles = tile_decisions(s.sch.trace());
  for (size_t t = 0; t < tiles.size() && t < kTileActions; ++t) {
    g[3 + 2 * t] = scaled(static_cast<float>(tiles[t].factors.back()));
    g[4 + 2 * t] = scaled(static_cast<float>(tiles[t].factors.front()));
  }
  return out;
}

}  // namespace tirc
