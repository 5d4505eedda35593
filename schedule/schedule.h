// A Schedule transforms the functions of an IRModule step by step with TVM's
// primitives (classic tir.Schedule names, arguments and semantics). Every
// primitive checks its preconditions and either applies completely or throws a
// ScheduleError and leaves the schedule unchanged; every applied primitive is
// recorded in the trace.
//
// Schedules are values: copying one is cheap (the IR is shared and immutable),
// so a tuner can branch from any state.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

#include "ir/function.h"
#include "schedule/rv.h"
#include "schedule/schedule_error.h"
#include "schedule/trace.h"

namespace tirc {

// A split factor: None (inferred), a constant, or a sampled value.
struct SplitFactor {
  std::optional<int64_t> value;
  std::optional<ExprRV> rv;
  SplitFactor(std::nullptr_t) {}
  SplitFactor(int v) : value(v) {}
  SplitFactor(int64_t v) : value(v) {}
  SplitFactor(ExprRV r) : rv(r) {}
  bool is_none() const { return !value && !rv; }
};

// A loop as it is now: what a tuner reads without recording anything.
struct LoopInfo {
  Var var;
  Expr min, extent;
  std::optional<int64_t> const_extent;  // the extent when it is a constant
  ForKind kind = ForKind::Serial;
  Annotations annotations;
};

// A block's buffer by position in its T.reads (is_write false) or T.writes.
struct BufferIndex {
  bool is_write = false;
  int index = 0;
};

using BlockOrLoop = std::variant<BlockRV, LoopRV>;

class Schedule {
 public:
  explicit Schedule(IRModule mod, uint64_t seed = 0);

  const IRModule& mod() const { return mod_; }
  const Trace& trace() const { return trace_; }
  // The module the schedule started from: trace() applied to it gives mod()
  // (how a tuner replays a trace with one decision changed).
  const IRModule& initial() const { return initial_; }
  // The function a block/loop lives in, as it is now.
  const PrimFunc& func(const std::string& name) const { return mod_.at(name); }

  // ---- lookup (schedule/lookup.cpp) -------------------------------------
  // func_name may be empty when the module has one function (or one named main).
  BlockRV get_block(const std::string& name, const std::string& func_name = "");
  // Loops enclosing the block, outermost first, up to the enclosing block.
  std::vector<LoopRV> get_loops(BlockRV block);
  std::vector<BlockRV> get_child_blocks(BlockOrLoop scope);
  std::vector<BlockRV> get_producers(BlockRV block);
  std::vector<BlockRV> get_consumers(BlockRV block);

  // ---- loops (schedule/split.cpp, fuse.cpp, reorder.cpp) ---------------------
  // disable_predication (TVM 0.27): the caller promises the factors cover
  // the extent exactly; a split that would need a predicate is refused
  // (TVM drops the predicate and accesses out of bounds).
  std::vector<LoopRV> split(LoopRV loop, const std::vector<SplitFactor>& factors,
                            bool preserve_unit_iters = true, bool disable_predication = false);
  LoopRV fuse(const std::vector<LoopRV>& loops, bool preserve_unit_iters = true);
  void reorder(const std::vector<LoopRV>& ordered_loops);
  LoopRV add_unit_loop(BlockOrLoop target);

  // ---- loop kinds and annotations (schedule/loop_kinds.cpp) ----------------
  void parallel(LoopRV loop);
  void vectorize(LoopRV loop);
  void unroll(LoopRV loop);
  void bind(LoopRV loop, const std::string& thread_axis);
  // value: an int, float, bool or string immediate.
  void annotate(BlockOrLoop target, const std::string& key, const Expr& value);
  void unannotate(BlockOrLoop target, const std::string& key);

  // ---- compute location (schedule/compute_at.cpp, compute_inline.cpp) -----
  void compute_at(BlockRV block, LoopRV loop, bool preserve_unit_loops = false, int index = -1);
  void reverse_compute_at(BlockRV block, LoopRV loop, bool preserve_unit_loops = false,
                          int index = -1);
  void compute_inline(BlockRV block);
  void reverse_compute_inline(BlockRV block);

  // ---- caches and layout (schedule/cache.cpp, buffer_scope.cpp, layout.cpp) -
  BlockRV cache_read(BlockRV block, int read_buffer_index, const std::string& storage_scope,
                     const std::vector<BlockRV>& consumer_blocks = {});
  BlockRV cache_write(BlockRV block, int write_buffer_index, const std::string& storage_scope,
                      const std::vector<BlockRV>& consumer_blocks = {});
  void set_scope(BlockRV block, int buffer_index, const std::string& storage_scope);
  void storage_align(BlockRV block, int buffer_index, int axis, int factor, int offset);
  void transform_layout(BlockRV block, BufferIndex buffer, const IndexMap& index_map);
  BlockRV reindex(BlockRV block, BufferIndex buffer);

  // ---- reductions (schedule/decompose_reduction.cpp, rfactor.cpp) ------------
  BlockRV decompose_reduction(BlockRV block, LoopRV loop);
  BlockRV rfactor(LoopRV loop, int factor_axis);

  // ---- tensorization (schedule/blockize.cpp, tensorize.cpp) -----------------
  BlockRV blockize(LoopRV loop, bool preserve_unit_iters = true);
  BlockRV blockize(const std::vector<BlockRV>& blocks, bool preserve_unit_iters = true);
  // intrin: a name registered in schedule/tensor_intrin.h.
  void tensorize(BlockOrLoop target, const std::string& intrin, bool preserve_unit_iters = true);

  // ---- sampling (schedule/sampling.cpp) -------------------------------------
  // n factors whose product is the loop's extent, the innermost at most
  // max_innermost_factor; `decision` forces the outcome (trace replay).
  std::vector<ExprRV> sample_perfect_tile(LoopRV loop, int n, int max_innermost_factor = 16,
                                          std::optional<std::vector<int64_t>> decision = {});
  ExprRV sample_categorical(const std::vector<int64_t>& candidates, const std::vector<double>& probs,
                            std::optional<int> decision = {});

  // ---- values of handles ----------------------------------------------------
  int64_t get(ExprRV v) const;
  std::string get(BlockRV b) const;  // the block's name
  Var get(LoopRV l) const;           // the loop's variable

  // ---- queries: read the program, record nothing (schedule/lookup.cpp) ------
  LoopInfo loop_info(LoopRV loop) const;
  // The loops around a block, outermost first (as get_loops would return them).
  std::vector<LoopInfo> loop_nest(BlockRV block) const;

  // ---- the random generator (sample_* draws from it) -----------------------
  // A seed for a copy that should draw its own samples (a tuner's child
  // state): copies share the generator's state, so without a new seed a
  // copy draws exactly what the original would. Advances this generator.
  uint64_t fork_seed();
  void seed(uint64_t seed);

  // ---- for primitive implementations ---------------------------------------
  // What a handle stands for. A loop is identified by its loop variable, a
  // block by its name; both within one function.
  struct BlockEntry {
    std::string func;
    std::string name;
  };
  struct LoopEntry {
    std::string func;
    Var var;
  };
  // Throws ScheduleError(primitive, "...") for a handle this schedule did not
  // make or whose block/loop no longer exists.
  const BlockEntry& resolve(BlockRV b, const std::string& primitive) const;
  const LoopEntry& resolve(LoopRV l, const std::string& primitive) const;

  BlockRV new_block_rv(const std::string& func, const std::string& name);
  LoopRV new_loop_rv(const std::string& func, const Var& var);
  ExprRV new_expr_rv(int64_t value);
  TraceRV trace_rv(BlockRV b) const { return {'b', b.id}; }
  TraceRV trace_rv(LoopRV l) const { return {'l', l.id}; }
  TraceRV trace_rv(ExprRV v) const { return {'v', v.id}; }
  TraceValue trace_value(BlockOrLoop t) const;

  // Replaces a function (after a primitive's checks have passed). Every
  // parallel, vectorized and thread-bound loop of the result must still be
  // proved free of conflicts between iterations (a reorder, compute_at or
  // inline can break what held when the loop was marked); otherwise the
  // primitive is refused and nothing changes.
  void update_func(const std::string& func, PrimFunc f, const std::string& primitive);
  void record(Instruction inst) { trace_.append(std::move(inst)); }
  // A fresh value of the schedule's random generator (splitmix64).
  uint64_t next_random();
  // A block name not yet used in the function: `base`, else base_1, base_2...
  std::string unique_block_name(const std::string& func, const std::string& base) const;

 private:
  IRModule initial_;
  IRModule mod_;
  Trace trace_;
  uint64_t rng_state_;
  int next_rv_ = 0;
  std::unordered_map<int, BlockEntry> blocks_;
  std::unordered_map<int, LoopEntry> loops_;
  std::unordered_map<int, int64_t> exprs_;
};

}  // namespace tirc
