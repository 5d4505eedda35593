// How the profile is taken: the whole module is compiled once through the JIT
// (so every kernel's `_packed` symbol is the code `tirc run` executes), and the
// entry is walked by the interpreter with a hook (run_module_with_hook) that
// calls each T.call_kernel's compiled kernel instead of interpreting it, timed
// on its own, with the buffers the entry passes. No instrumentation in the
// generated code, and the interpreter does no work inside a timed call. What
// the compiled entry would add between calls (a few pointer moves) is not
// counted.
#include "driver/profile.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <iomanip>
#include <limits>
#include <map>
#include <sstream>

#include "codegen/x86/jit.h"
#include "codegen/x86/module_codegen.h"
#include "driver/kernel_flops.h"
#include "ir/eval/interpreter.h"
#include "passes/pipeline.h"

namespace tirc::driver {

namespace {

constexpr const char* kPrefix = "tirc_profile";

// The packed-call argument block of one kernel call: a data pointer per
// buffer, a pointer to the 64-bit value per scalar (as call_jit builds it).
struct PackedArgs {
  std::vector<void*> pointers;
  std::vector<uint64_t> scalars;
};

PackedArgs pack(const PrimFunc& kernel, const std::vector<KernelCallArg>& args) {
  PackedArgs p;
  p.pointers.resize(args.size());
  p.scalars.resize(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    const Param& param = kernel->params[i];
    if (param.buffer) {
      p.pointers[i] = args[i].data;
      continue;
    }
    uint64_t bits = 0;
    DataType t = param.var->dtype;
    if (t.is_float() && t.bits() == 32) {
      float v = static_cast<float>(args[i].float_value);
      std::memcpy(&bits, &v, 4);
    } else if (t.is_float()) {
      std::memcpy(&bits, &args[i].float_value, 8);
    } else {
      std::memcpy(&bits, &args[i].int_value, 8);
    }
    p.scalars[i] = bits;
    p.pointers[i] = &p.scalars[i];
  }
  return p;
}

struct Row {
  std::string kernel;
  int calls = 0;
  double seconds = 0;  // per run of the entry: the sum of its calls' best times
  std::optional<double> macs;
};

}  // namespace

void profile_entry(const IRModule& scheduled, const IRModule& plain, const EntryInfo& entry,
                   std::vector<NDArray>& args, const Target& target, int repeat,
                   std::ostream& out) {
  GeneratorOptions options;
  options.target = target;
  IRModule lowered = lower(scheduled);
  JitModule jit(generate_x86_module(lowered, kPrefix, options));

  std::vector<Argument> call_args;
  for (NDArray& a : args) call_args.push_back(Argument{&a});

  // Best time of each call site (the i-th call of a run), over the runs.
  std::vector<std::string> callees;
  std::vector<double> best;
  for (int run = 0; run <= std::max(repeat, 1); ++run) {  // run 0 warms up
    size_t site = 0;
    run_module_with_hook(
        scheduled, entry.name, call_args,
        [&](const std::string& callee, const std::vector<KernelCallArg>& kargs) {
          const PrimFunc& kernel = lowered.at(callee);
          if (kargs.size() != kernel->params.size())
            throw Error("profile: call of '" + callee + "' passes " + std::to_string(kargs.size()) +
                        " arguments, it has " + std::to_string(kernel->params.size()) +
                        " parameters");
          PackedArgs packed = pack(kernel, kargs);
          JitModule::PackedFn fn = jit.packed(std::string(kPrefix) + "_" + callee);
          auto start = std::chrono::steady_clock::now();
          int rc = fn(packed.pointers.data());
          double dt =
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
          if (rc != 0) throw Error("kernel '" + callee + "' returned " + std::to_string(rc));
          if (site == callees.size()) {
            callees.push_back(callee);
            best.push_back(std::numeric_limits<double>::infinity());
          }
          if (run > 0) best[site] = std::min(best[site], dt);
          ++site;
        });
  }

  std::map<std::string, Row> by_kernel;
  double total = 0;
  for (size_t i = 0; i < callees.size(); ++i) {
    Row& r = by_kernel[callees[i]];
    r.kernel = callees[i];
    ++r.calls;
    r.seconds += best[i];
    total += best[i];
  }
  std::vector<Row> rows;
  for (auto& [name, r] : by_kernel) {
    if (const PrimFunc* f = plain.find(name)) r.macs = contraction_macs(*f);
    rows.push_back(r);
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const Row& a, const Row& b) { return a.seconds > b.seconds; });

  size_t width = 6;
  for (const Row& r : rows) width = std::max(width, r.kernel.size());
  std::ostringstream s;
  s << std::fixed;
  s << "profile of '" << entry.name << "': " << callees.size() << " kernel calls, best of "
    << std::max(repeat, 1) << " runs\n";
  s << std::left << std::setw(static_cast<int>(width)) << "kernel" << std::right << std::setw(7)
    << "calls" << std::setw(12) << "ms/call" << std::setw(9) << "share" << std::setw(10) << "GFLOPS"
    << "\n";
  for (const Row& r : rows) {
    s << std::left << std::setw(static_cast<int>(width)) << r.kernel << std::right << std::setw(7)
      << r.calls << std::setw(12) << std::setprecision(4) << r.seconds / r.calls * 1e3
      << std::setw(8) << std::setprecision(1) << (total > 0 ? r.seconds / total * 100 : 0) << "%";
    if (r.macs && r.seconds > 0)
      s << std::setw(10) << std::setprecision(2) << 2 * *r.macs * r.calls / r.seconds / 1e9;
    s << "\n";
  }
  s << std::left << std::setw(static_cast<int>(width)) << "total" << std::right << std::setw(7)
    << callees.size() << std::setw(12) << std::setprecision(4) << total * 1e3 << std::setw(8)
    << std::setprecision(1) << 100.0 << "%\n";
  out << s.str();
}

}  // namespace tirc::driver
