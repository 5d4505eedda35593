// The reference interpreter: runs any PrimFunc on host buffers. It is the
// oracle every schedule primitive, pass and code generator is tested against.
//
// It runs every loop serially, so on its own it cannot tell that a parallel
// loop's iterations conflict. Its checking mode (RunOptions) can: for each
// parallel, vectorized and thread-bound loop it records the elements every
// iteration writes and reads (in nested loops, blocks and called kernels too;
// storage allocated inside an iteration is that iteration's own) and throws a
// tirc::Error naming the loop, the buffer element and the two iterations when
// two iterations write one element, or one writes what another reads:
//   race in parallel loop i: iterations i=0 and i=1 both write C[1]
//   race in parallel loop i: iteration i=2 writes B[5] that iteration i=3 reads
// It also runs parallel and thread-bound iterations in a permuted order,
// deterministic in a seed, so order-dependent results differ. The mode is a
// separately compiled program: the normal one pays nothing for it.
// check_equivalent runs both programs in checking mode by default.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ir/ndarray.h"
#include "ir/function.h"

namespace tirc {

// One argument per parameter, in order: an NDArray for a buffer parameter
// (shape and dtype must match the buffer), a scalar for a scalar parameter.
struct Argument {
  NDArray* array = nullptr;
  int64_t int_value = 0;
  double float_value = 0;
};

namespace eval {
struct Program;
class ModuleLink;
}

// How a run goes; the default is the plain serial interpreter.
struct RunOptions {
  // Report two iterations of a parallel, vectorized or thread-bound loop that
  // write the same element, or where one writes what another reads.
  bool check_races = false;
  // Whether check_races covers vectorized loops. Off for a program whose
  // vectorized loop depends on its order on purpose (LOWERED.md: a vectorized
  // loop computes like the serial loop; the x86 generator then falls back to
  // it), which the checker would report.
  bool check_vectorized = true;
  // Run the iterations of parallel and thread-bound loops in a pseudo-random
  // order, deterministic in shuffle_seed.
  bool shuffle_parallel = false;
  uint64_t shuffle_seed = 0;
  // When set, receives the race's message before it is thrown, so a caller
  // can tell a race from the run's other errors.
  std::string* race = nullptr;

  bool checking() const { return check_races || shuffle_parallel; }
  // Both checks on.
  static RunOptions checked(uint64_t seed = 0) { return {true, true, true, seed, nullptr}; }
};

// A PrimFunc compiled once into the interpreter's executable form, for
// running many times (check_equivalent, tests on many inputs). Compiling
// checks scoping and types and throws tirc::Error for anything unsupported.
class CompiledFunc {
 public:
  explicit CompiledFunc(const PrimFunc& f);
  ~CompiledFunc();
  CompiledFunc(CompiledFunc&&) noexcept;
  CompiledFunc& operator=(CompiledFunc&&) noexcept;

  void run(const std::vector<Argument>& args, const RunOptions& options = {}) const;

 private:
  PrimFunc func_;
  std::unique_ptr<const eval::Program> program_;
  // The checking-mode program, compiled on the first checked run (so, like
  // CompiledModule's lazily compiled functions, a first checked run must not
  // race with another run of the same object).
  mutable std::unique_ptr<const eval::Program> checked_;
};

// Runs f. Throws tirc::Error on out-of-bounds accesses, division by zero,
// shape mismatches, and anything the IR does not define.
void run(const PrimFunc& f, const std::vector<Argument>& args, const RunOptions& options = {});

// Runs function `name` of module m (a model's entry function, or any other).
// `T.call_kernel` runs the callee with its buffers viewing the storage the
// handles point at (a parameter, an allocation, a constant, an address_of into
// one); AllocateConst binds m's constants (read-only). Plain run(f) refuses
// functions that contain call_kernel or allocate_const.
void run_module(const IRModule& m, std::string_view name, const std::vector<Argument>& args,
                const RunOptions& options = {});

// One argument of a T.call_kernel as a KernelHook sees it: the storage a
// buffer handle points at, or a scalar's value.
struct KernelCallArg {
  uint8_t* data = nullptr;  // null for a scalar
  size_t bytes = 0;
  int64_t int_value = 0;
  double float_value = 0;
};
// Runs one T.call_kernel in place of the interpreter: given the callee's name
// and one argument per parameter.
using KernelHook =
    std::function<void(const std::string& callee, const std::vector<KernelCallArg>& args)>;

// run_module, but every T.call_kernel of function `name` goes to `hook`
// instead of being interpreted; the interpreter only provides the storage
// (parameters, allocations, constants) and the order of calls. This lets a
// profiler run compiled kernels one by one with the entry's own buffers.
void run_module_with_hook(const IRModule& m, std::string_view name,
                          const std::vector<Argument>& args, const KernelHook& hook);

// run_module for running many times: each function is compiled once, on its
// first run or call. Keeps a reference to m, which must outlive it.
class CompiledModule {
 public:
  explicit CompiledModule(const IRModule& m);
  ~CompiledModule();
  CompiledModule(CompiledModule&&) noexcept;
  CompiledModule& operator=(CompiledModule&&) noexcept;

  void run(std::string_view name, const std::vector<Argument>& args,
           const RunOptions& options = {}) const;

 private:
  std::unique_ptr<const eval::ModuleLink> runner_;
};

// Whether f contains T.call_kernel or T.allocate_const, so only run_module
// can run it.
bool needs_module(const PrimFunc& f);

// Random inputs for every buffer parameter of f, deterministic in seed.
// small_ints: floats hold small integers (-4..4), so sums of products are
// exact and results can be compared bit for bit.
std::vector<NDArray> random_inputs(const PrimFunc& f, uint64_t seed, bool small_ints = true);

struct EquivResult {
  bool equal = true;
  std::string message;  // the first differing element, when not equal
};

struct EquivOptions {
  int trials = 3;  // random input sets, seeds seed, seed+1, ...
  uint64_t seed = 0;
  bool small_ints = true;     // see random_inputs
  double rtol = 0, atol = 0;  // 0 and 0: bit for bit
  // How each program runs (the shuffle seed is replaced by each trial's).
  // Checking mode by default: a transformed program with a race, or with a
  // result that depends on the order of parallel iterations, is not
  // equivalent; an unscheduled one has no parallel loops and costs nothing.
  RunOptions run_a = RunOptions::checked(), run_b = RunOptions::checked();
};

// Runs a and b on the same random inputs `trials` times (seeds seed..) and
// compares every buffer parameter afterwards. The functions must have the same
// parameter shapes and types. A race found in either (see RunOptions) makes
// the result not equal, with the race as the message; other errors of a run
// are thrown.
EquivResult check_equivalent(const PrimFunc& a, const PrimFunc& b, const EquivOptions& options);
// The same for function `a` of module ma and `b` of mb, run with run_module
// (so entries that call kernels and bind constants can be compared).
EquivResult check_equivalent(const IRModule& ma, std::string_view a, const IRModule& mb,
                             std::string_view b, const EquivOptions& options);

// The same with the default run options. rtol/atol of 0 means bit-for-bit.
EquivResult check_equivalent(const PrimFunc& a, const PrimFunc& b, int trials = 3,
                             uint64_t seed = 0, bool small_ints = true, double rtol = 0,
                             double atol = 0);
EquivResult check_equivalent(const IRModule& ma, std::string_view a, const IRModule& mb,
                             std::string_view b, int trials = 3, uint64_t seed = 0,
                             bool small_ints = true, double rtol = 0, double atol = 0);

}  // namespace tirc
