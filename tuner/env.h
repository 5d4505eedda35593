// The loop-action environment (LoopTune's, on tirc's schedule primitives): a
// state is a schedule of one kernel plus a cursor on the loops around one of
// its blocks; an action moves the cursor or transforms the loop under it.
// Actions that cannot apply are masked: step() says so instead of throwing,
// and children() offers only the legal ones. Every state carries its
// schedule's trace, so whatever a search finds prints, replays
// (`tirc schedule --trace`) and compiles.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "schedule/schedule.h"

namespace tirc {

enum class ActionKind {
  up,              // cursor to the enclosing loop
  down,            // cursor to the enclosed loop
  swap_up,         // exchange the cursor loop with the one around it (the cursor follows)
  swap_down,       // exchange it with the one inside it
  split,           // split the cursor loop by `factor` (inner extent), cursor on the outer part
  vectorize,       // vectorize the innermost loop of the nest
  parallel,        // fuse the outermost serial loops (enough iterations for the threads), parallel
  unroll,          // unroll the cursor loop
  cache_write,     // accumulate in a local buffer written back under the cursor loop
  fuse_consumers,  // compute the block's consumers (an epilogue) under the cursor loop
  // The state's `tile`-th tile decision (tuner/space/tile_decisions.h: a
  // sample_perfect_tile of its trace; for a contraction scheduled by the
  // rules 0 is the register tile's rows, 1 its columns, 2 the k block) with
  // its innermost factor moved to the next divisor above or below, and the
  // whole trace replayed: what the rules decided, changed in place. Not
  // legal on a state whose trace has no such decision (the untuned nest).
  grow_tile,
  shrink_tile,
};

struct Action {
  ActionKind kind;
  int factor = 0;            // split only
  int tile = 0;              // grow_tile, shrink_tile: which decision
  std::string name() const;  // "up", "split_16", "grow_tile_0", ...
  bool changes_program() const { return kind != ActionKind::up && kind != ActionKind::down; }
  bool operator==(const Action&) const = default;
};

// Every action, in a fixed order (the index is what a policy outputs):
// up, down, swap_up, swap_down, split_{2,4,8,16,32,64}, vectorize, parallel,
// unroll, cache_write, fuse_consumers, then grow_tile_N and shrink_tile_N for
// the first kTileActions decisions.
inline constexpr int kTileActions = 3;
const std::vector<Action>& all_actions();
std::optional<Action> parse_action(const std::string& name);
// The index of `a` in all_actions() (what a policy's output is indexed by).
size_t action_index(const Action& a);

struct LoopState {
  Schedule sch;
  std::string func;
  BlockRV block;   // the block whose loops the cursor walks
  int cursor = 0;  // index into the loops around the block, outermost first
  std::vector<Action> history;

  const PrimFunc& program() const { return sch.func(func); }
  std::vector<LoopInfo> loops() const { return sch.loop_nest(block); }
};

struct EnvOptions {
  int threads = 1;      // parallel: fuse outer loops until 4 iterations per thread
  int max_vector = 64;  // vectorize: at most this many lanes (the generator splits them)
  int max_unroll = 32;  // unroll: at most this many iterations
};

// The block a tuner works on in f: the reduction with the largest iteration
// domain, else the block with the largest domain (ties: the last). Throws
// tirc::Error when f has no block.
std::string main_block(const PrimFunc& f);

class LoopEnv {
 public:
  explicit LoopEnv(EnvOptions options = {}) : options_(options) {}

  // The state with the cursor on the outermost loop of `block` (main_block
  // when empty) in function `func` of the schedule.
  LoopState start(Schedule sch, const std::string& func, const std::string& block = "") const;

  // The state after `a`, or nullopt when the action cannot apply here (the
  // primitive refused, the cursor is at an end, a loop is too long...).
  std::optional<LoopState> step(const LoopState& s, const Action& a) const;
  // The legal actions and their results, in all_actions() order.
  std::vector<std::pair<Action, LoopState>> children(const LoopState& s) const;
  std::vector<bool> mask(const LoopState& s) const;

  const EnvOptions& options() const { return options_; }

 private:
  EnvOptions options_;
};

}  // namespace tirc
