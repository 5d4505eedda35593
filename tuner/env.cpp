#include "tuner/env.h"

#include <algorithm>

#include "ir/error.h"
#include "schedule/state.h"
#include "tuner/space/tile_decisions.h"

namespace tirc {

std::string Action::name() const {
  switch (kind) {
    case ActionKind::up:
      return "up";
    case ActionKind::down:
      return "down";
    case ActionKind::swap_up:
      return "swap_up";
    case ActionKind::swap_down:
      return "swap_down";
    case ActionKind::split:
      return "split_" + std::to_string(factor);
    case ActionKind::vectorize:
      return "vectorize";
    case ActionKind::parallel:
      return "parallel";
    case ActionKind::unroll:
      return "unroll";
    case ActionKind::cache_write:
      return "cache_write";
    case ActionKind::fuse_consumers:
      return "fuse_consumers";
    case ActionKind::grow_tile:
      return "grow_tile_" + std::to_string(tile);
    case ActionKind::shrink_tile:
      return "shrink_tile_" + std::to_string(tile);
  }
  return "?";
}

const std::vector<Action>& all_actions() {
  static const std::vector<Action> actions = [] {
    std::vector<Action> a{
        {ActionKind::up}, {ActionKind::down}, {ActionKind::swap_up}, {ActionKind::swap_down}};
    for (int f : {2, 4, 8, 16, 32, 64}) a.push_back({ActionKind::split, f});
    for (ActionKind k : {ActionKind::vectorize, ActionKind::parallel, ActionKind::unroll,
                         ActionKind::cache_write, ActionKind::fuse_consumers})
      a.push_back({k});
    for (int t = 0; t < kTileActions; ++t) {
      a.push_back({.kind = ActionKind::grow_tile, .tile = t});
      a.push_back({.kind = ActionKind::shrink_tile, .tile = t});
    }
    return a;
  }();
  return actions;
}

size_t action_index(const Action& a) {
  const std::vector<Action>& all = all_actions();
  const auto it = std::find(all.begin(), all.end(), a);
  if (it == all.end()) throw Error("tuner: the action " + a.name() + " is not one of the actions");
  return static_cast<size_t>(it - all.begin());
}

std::optional<Action> parse_action(const std::string& name) {
  for (const Action& a : all_actions())
    if (a.name() == name) return a;
  return std::nullopt;
}

std::string main_block(const PrimFunc& f) {
  std::string best;
  bool best_reduce = false;
  double best_size = -1;
  for (const BlockRealizeNode* r : collect_blocks(f->body)) {
    const BlockNode& b = *r->block;
    if (b.name == "root") continue;
    bool reduce = false;
    double size = 1;
    for (const IterVar& iv : b.iter_vars) {
      reduce |= iv.kind == IterKind::Reduce;
      size *= static_cast<double>(as_const_int(iv.dom.extent).value_or(1));
    }
    if (std::pair(reduce, size) >= std::pair(best_reduce, best_size)) {
      best = b.name;
      best_reduce = reduce;
      best_size = size;
    }
  }
  if (best.empty()) throw Error("tuner: the function has no block to tune");
  return best;
}

LoopState LoopEnv::start(Schedule sch, const std::string& func, const std::string& block) const {
  std::string name = block.empty() ? main_block(sch.func(func)) : block;
  BlockRV rv = sch.get_block(name, func);
  return LoopState{std::move(sch), func, rv, 0, {}};
}

namespace {

bool plain_loop(const LoopInfo& l) {
  return (l.kind == ForKind::Serial || l.kind == ForKind::Unrolled) && l.annotations.empty();
}

int64_t extent_or(const LoopInfo& l, int64_t otherwise) {
  return l.const_extent.value_or(otherwise);
}

// The blocks fuse_consumers moves: the block's consumers and, when the block
// writes through a cache, the consumers of the cache's write-back too.
std::vector<BlockRV> consumers_to_fuse(Schedule& sch, BlockRV block, bool cached) {
  std::vector<BlockRV> out = sch.get_consumers(block);
  if (cached) {
    size_t direct = out.size();
    for (size_t i = 0; i < direct; ++i)
      for (BlockRV c : sch.get_consumers(out[i])) out.push_back(c);
  }
  return out;
}

// s with its `tile`-th decision moved (ActionKind::grow_tile/shrink_tile):
// the trace replayed from the initial module, the cursor kept on the same
// position of the block's loops where it still exists.
std::optional<LoopState> move_tile(const LoopState& s, const Action& a) {
  const std::vector<TileDecision> tiles = tile_decisions(s.sch.trace());
  if (a.tile < 0 || a.tile >= static_cast<int>(tiles.size())) return std::nullopt;
  const TileDecision& d = tiles[static_cast<size_t>(a.tile)];
  std::optional<std::vector<int64_t>> factors = moved_innermost(d, a.kind == ActionKind::grow_tile);
  if (!factors) return std::nullopt;
  LoopState next = s;
  next.sch = replay_from_initial(s.sch, with_tile_decision(s.sch.trace(), d.instruction, *factors));
  next.block = next.sch.get_block(s.sch.get(s.block), s.func);
  next.history.push_back(a);
  const int after = static_cast<int>(next.loops().size());
  next.cursor = std::clamp(s.cursor, 0, std::max(0, after - 1));
  return next;
}

}  // namespace

std::optional<LoopState> LoopEnv::step(const LoopState& s, const Action& a) const {
  if (a.kind == ActionKind::grow_tile || a.kind == ActionKind::shrink_tile) {
    try {
      return move_tile(s, a);
    } catch (const Error&) {
      return std::nullopt;  // the rest of the trace no longer applies
    }
  }
  const std::vector<LoopInfo> info = s.loops();
  const int n = static_cast<int>(info.size());
  if (n == 0) return std::nullopt;
  const int c = std::clamp(s.cursor, 0, n - 1);
  LoopState next = s;
  next.cursor = c;
  next.history.push_back(a);
  auto has = [&](ActionKind k) {
    return std::any_of(s.history.begin(), s.history.end(),
                       [&](const Action& h) { return h.kind == k; });
  };
  try {
    Schedule& sch = next.sch;
    switch (a.kind) {
      case ActionKind::up:
        if (c == 0) return std::nullopt;
        next.cursor = c - 1;
        return next;
      case ActionKind::down:
        if (c + 1 >= n) return std::nullopt;
        next.cursor = c + 1;
        return next;
      case ActionKind::swap_up:
      case ActionKind::swap_down: {
        int other = a.kind == ActionKind::swap_up ? c - 1 : c + 1;
        if (other < 0 || other >= n || !plain_loop(info[c]) || !plain_loop(info[other]))
          return std::nullopt;
        std::vector<LoopRV> l = sch.get_loops(s.block);
        sch.reorder({l[std::max(c, other)], l[std::min(c, other)]});
        next.cursor = other;
        break;
      }
      case ActionKind::split: {
        if (!plain_loop(info[c]) || extent_or(info[c], 0) <= a.factor) return std::nullopt;
        std::vector<LoopRV> l = sch.get_loops(s.block);
        sch.split(l[c], {nullptr, a.factor});
        break;
      }
      case ActionKind::vectorize: {
        const LoopInfo& inner = info[n - 1];
        int64_t e = extent_or(inner, 0);
        if (inner.kind != ForKind::Serial || e < 2 || e > options_.max_vector) return std::nullopt;
        sch.vectorize(sch.get_loops(s.block)[n - 1]);
        break;
      }
      case ActionKind::parallel: {
        if (options_.threads <= 1) return std::nullopt;
        for (const LoopInfo& l : info)
          if (l.kind == ForKind::Parallel) return std::nullopt;
        // The fewest leading serial loops with 4 iterations per thread; fewer
        // when the primitive refuses (a reduction loop among them).
        int k = 0;
        int64_t iterations = 1;
        while (k < n && info[k].kind == ForKind::Serial && info[k].const_extent) {
          iterations *= *info[k].const_extent;
          ++k;
          if (iterations >= 4 * options_.threads) break;
        }
        for (; k >= 1; --k) {
          Schedule trial = sch;
          try {
            std::vector<LoopRV> l = trial.get_loops(s.block);
            LoopRV outer =
                k == 1 ? l[0] : trial.fuse(std::vector<LoopRV>(l.begin(), l.begin() + k));
            trial.parallel(outer);
          } catch (const Error&) {
            continue;
          }
          sch = std::move(trial);
          next.cursor = std::max(0, c - (k - 1));
          break;
        }
        if (k == 0) return std::nullopt;
        break;
      }
      case ActionKind::unroll: {
        int64_t e = extent_or(info[c], 0);
        if (info[c].kind != ForKind::Serial || e < 2 || e > options_.max_unroll)
          return std::nullopt;
        sch.unroll(sch.get_loops(s.block)[c]);
        break;
      }
      case ActionKind::cache_write: {
        if (has(ActionKind::cache_write)) return std::nullopt;
        std::vector<LoopRV> l = sch.get_loops(s.block);
        BlockRV wb = sch.cache_write(s.block, 0, "local");
        sch.reverse_compute_at(wb, l[c]);
        break;
      }
      case ActionKind::fuse_consumers: {
        std::vector<LoopRV> l = sch.get_loops(s.block);
        std::vector<BlockRV> consumers =
            consumers_to_fuse(sch, s.block, has(ActionKind::cache_write));
        if (consumers.empty()) return std::nullopt;
        for (BlockRV b : consumers) sch.reverse_compute_at(b, l[c]);
        break;
      }
      case ActionKind::grow_tile:
      case ActionKind::shrink_tile:
        return std::nullopt;  // handled above
    }
  } catch (const Error&) {
    return std::nullopt;
  }
  const int after = static_cast<int>(next.loops().size());
  next.cursor = std::clamp(next.cursor, 0, std::max(0, after - 1));
  return next;
}

std::vector<std::pair<Action, LoopState>> LoopEnv::children(const LoopState& s) const {
  std::vector<std::pair<Action, LoopState>> out;
  for (const Action& a : all_actions())
    if (std::optional<LoopState> next = step(s, a)) out.emplace_back(a, std::move(*next));
  return out;
}

std::vector<bool> LoopEnv::mask(const LoopState& s) const {
  std::vector<bool> m;
  for (const Action& a : all_actions()) m.push_back(step(s, a).has_value());
  return m;
}

}  // namespace tirc
