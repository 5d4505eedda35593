// Register allocation for expression trees: a pool of general-purpose and
// vector registers holding immutable temporaries, spilling the oldest
// unpinned temporary to a stack slot when a class runs out.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include <xbyak/xbyak.h>

#include "codegen/x86/target.h"

namespace tirc {

// Counters a test can read to see whether code spilled.
struct SpillStats {
  int spills = 0;        // register -> stack stores forced by register pressure
  int reloads = 0;       // stack -> register loads of spilled temporaries
  int branch_saves = 0;  // stores made so both arms of a lazy branch agree
  SpillStats& operator+=(const SpillStats& o) {
    spills += o.spills;
    reloads += o.reloads;
    branch_saves += o.branch_saves;
    return *this;
  }
};

// The stack frame of one emitted function: byte offsets from the 64-aligned
// rsp the prologue establishes. Slots are never moved; spill slots are reused.
class Frame {
 public:
  int alloc(int bytes, int align);
  int alloc_spill(int bytes);  // 64 bytes at most; from the free list first
  void free_spill(int offset, int bytes);
  int size() const { return size_; }

 private:
  int size_ = 0;
  std::multimap<int, int> free_spills_;  // bytes -> offset
};

enum class RegClass : unsigned char { Gpr, Vec };

class RegisterPool {
 public:
  // gprs / vecs: register indices the pool may hand out. Vector registers
  // with an index >= 16 are given only to temporaries that allow them.
  RegisterPool(Xbyak::CodeGenerator& code, Frame& frame, std::vector<int> gprs,
               std::vector<int> vecs);

  // A new temporary in a register of the class (pinned until unpin_all).
  // bytes: 8 for a GPR; 16, 32 or 64 for a vector register.
  // low_only: the temporary must live in a vector register below 16 (VEX-only instructions).
  int alloc(RegClass cls, int bytes = 8, bool low_only = true);
  // The register of temporary t, reloading it when spilled; pins it.
  int reg(int t);
  void release(int t);
  void unpin_all();
  bool is_live(int t) const { return temps_[t].live; }

  // Lazy branches: before one, every live temporary goes to memory; at the
  // end of each arm, register copies made inside the arm are forgotten, so
  // both arms join in the same state.
  void save_all_for_branch();
  void forget_registers();
  // A memory-only temporary (written by both arms of a branch).
  int alloc_in_memory(RegClass cls, int bytes);
  Xbyak::Address slot_of(int t) const;
  bool in_register(int t) const { return temps_[t].reg >= 0; }

  // Removes a register from the pool for a long-lived value (a loop
  // variable); -1 when taking one would leave fewer than `keep` in the pool.
  int take_gpr(int keep);
  void give_back_gpr(int r);
  int free_gpr_count() const;

  const SpillStats& stats() const { return stats_; }

 private:
  struct Temp {
    RegClass cls;
    int bytes;
    bool low_only;
    int reg = -1;
    int slot = -1;  // where it lives when not in a register (never both)
    bool pinned = false;
    bool live = true;
  };
  int find_free(RegClass cls, bool low_only);
  int evict(RegClass cls, bool low_only);
  void store(const Temp& t, int reg, int slot);
  void load(const Temp& t, int reg, int slot);
  Xbyak::Address at(int offset, int bytes) const;

  Xbyak::CodeGenerator& code_;
  Frame& frame_;
  std::vector<int> gprs_, vecs_;
  std::vector<int> gpr_owner_ = std::vector<int>(16, -2);  // -2: not in pool, -1: free
  std::vector<int> vec_owner_ = std::vector<int>(32, -2);
  std::vector<Temp> temps_;
  SpillStats stats_;
};

}  // namespace tirc
