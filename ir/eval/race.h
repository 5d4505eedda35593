// The interpreter's checking mode (RunOptions in interpreter.h): a race
// detector for loops whose iterations a code generator may run in any order
// or at once (parallel, vectorized, thread-bound), and a shuffled order for
// parallel and thread-bound iterations.
//
// The serial interpreter alone cannot see a parallel loop whose iterations
// write the same element: it computes the serial answer, which is what every
// test compares against. The detector records, per iteration of each active
// checked loop, the elements written and read (by address, so views, aliases
// and called kernels all meet on the same key) and throws a tirc::Error at the
// first element that two iterations write, or that one writes and another
// reads.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ir/error.h"
#include "ir/stmt.h"

namespace tirc::eval {

struct Access;
struct Frame;

// A checked loop as compiled: what a race report names.
struct CheckedLoop {
  std::string var;
  ForKind kind = ForKind::Parallel;
  std::string thread_tag;
  SourceLoc loc;
  // Parallel and thread-bound iterations may run in any order; a vectorized
  // loop's lanes still compute like the serial loop, so it is checked but not
  // shuffled.
  bool shuffled() const { return kind != ForKind::Vectorized; }
  bool gpu_block() const { return thread_tag.rfind("blockIdx.", 0) == 0; }
  std::string describe() const;  // "parallel loop i", "thread-bound loop tx (threadIdx.x)"
};

class RaceChecker {
 public:
  // check: record accesses and report races (in vectorized loops too when
  // check_vectorized). shuffle: permute the iterations of parallel and
  // thread-bound loops, deterministically in seed.
  RaceChecker(bool check, bool check_vectorized, bool shuffle, uint64_t seed);

  // The loop is entered with `extent` iterations; fills `order` with the
  // offsets 0..extent-1 in the order to run them.
  void enter(const CheckedLoop& loop, int64_t extent, std::vector<int64_t>& order);
  void iteration(int64_t value) { scopes_[active_ - 1].iter = value; }
  void leave() { --active_; }

  // An access to the element at addr (already bounds-checked) of `a` at lane.
  void note(const Access& a, Frame& f, int lane, const uint8_t* addr, bool write) {
    if (check_ && active_ > 0) record(a, f, lane, addr, write);
  }

  // Storage allocated (and released) while checked loops are active belongs
  // to their current iterations: each iteration gets its own, so accesses to
  // it are not shared among those loops' iterations.
  void allocated(const uint8_t* data, size_t bytes);
  void released(const uint8_t* data);

  // Set where a race was found (before it is thrown), so callers can tell a
  // race from other errors of the run.
  std::string* race_out = nullptr;

 private:
  static constexpr int64_t kNone = INT64_MIN;
  struct Seen {
    int64_t writer = kNone;
    int64_t readers[2] = {kNone, kNone};  // the first two distinct readers
  };
  // The elements one loop's iterations touched, by address. Open addressing
  // with a generation per slot, so clearing it (once per entry of the loop)
  // costs nothing and a lookup allocates nothing: with std::unordered_map
  // the lookups and node allocations were most of a checked run's time.
  class SeenTable {
   public:
    void clear();
    Seen& operator[](uintptr_t key);

   private:
    struct Slot {
      uintptr_t key = 0;
      uint32_t gen = 0;  // the entry is live when gen == gen_
      Seen seen;
    };
    size_t home(uintptr_t key) const;
    void grow();

    std::vector<Slot> slots_;  // a power of two long, at most half live
    uint32_t gen_ = 1;
    size_t live_ = 0;
  };
  struct Scope {
    const CheckedLoop* loop = nullptr;
    bool checked = true;  // false: a vectorized loop not checked
    int64_t iter = 0;
    SeenTable seen;
  };
  struct Private {
    uintptr_t end;
    size_t depth;  // number of checked loops active when allocated
  };

  void record(const Access& a, Frame& f, int lane, const uint8_t* addr, bool write);
  size_t private_depth(uintptr_t addr) const;
  [[noreturn]] void race(const Scope& s, const std::string& what) const;
  uint64_t next_random();

  bool check_, check_vectorized_, shuffle_;
  uint64_t state_;
  std::vector<Scope> scopes_;  // [0, active_) are the active loops, outermost first
  size_t active_ = 0;
  std::map<uintptr_t, Private> private_;  // by start address
};

}  // namespace tirc::eval
