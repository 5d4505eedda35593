// The reference interpreter: runs any PrimFunc on host buffers. It is the
// oracle every schedule primitive, pass and code generator is tested against.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ir/eval/ndarray.h"
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

// A PrimFunc compiled once into the interpreter's executable form, for
// running many times (check_equivalent, tests on many inputs). Compiling
// checks scoping and types and throws tirc::Error for anything unsupported.
class CompiledFunc {
 public:
  explicit CompiledFunc(const PrimFunc& f);
  ~CompiledFunc();
  CompiledFunc(CompiledFunc&&) noexcept;
  CompiledFunc& operator=(CompiledFunc&&) noexcept;

  void run(const std::vector<Argument>& args) const;

 private:
  std::unique_ptr<const eval::Program> program_;
};

// Runs f. Throws tirc::Error on out-of-bounds accesses, division by zero,
// shape mismatches, and anything the IR does not define.
void run(const PrimFunc& f, const std::vector<Argument>& args);

// Runs function `name` of module m (a model's entry function, or any other).
// `T.call_kernel` runs the callee with its buffers viewing the storage the
// handles point at (a parameter, an allocation, a constant, an address_of into
// one); AllocateConst binds m's constants (read-only). Plain run(f) refuses
// functions that contain call_kernel or allocate_const.
void run_module(const IRModule& m, std::string_view name, const std::vector<Argument>& args);

// run_module for running many times: each function is compiled once, on its
// first run or call. Keeps a reference to m, which must outlive it.
class CompiledModule {
 public:
  explicit CompiledModule(const IRModule& m);
  ~CompiledModule();
  CompiledModule(CompiledModule&&) noexcept;
  CompiledModule& operator=(CompiledModule&&) noexcept;

  void run(std::string_view name, const std::vector<Argument>& args) const;

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

// Runs a and b on the same random inputs `trials` times (seeds seed..) and
// compares every buffer parameter afterwards. The functions must have the same
// parameter shapes and types. rtol/atol of 0 means bit-for-bit.
EquivResult check_equivalent(const PrimFunc& a, const PrimFunc& b, int trials = 3,
                             uint64_t seed = 0, bool small_ints = true, double rtol = 0,
                             double atol = 0);
// The same for function `a` of module ma and `b` of mb, run with run_module
// (so entries that call kernels and bind constants can be compared).
EquivResult check_equivalent(const IRModule& ma, std::string_view a, const IRModule& mb,
                             std::string_view b, int trials = 3, uint64_t seed = 0,
                             bool small_ints = true, double rtol = 0, double atol = 0);

}  // namespace tirc
