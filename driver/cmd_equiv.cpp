// tirc equiv: are two programs equivalent on random inputs?
#include <iostream>

#include "driver/commands.h"
#include "driver/session.h"
#include "ir/eval/interpreter.h"

namespace tirc::driver {

namespace {
struct EquivOptions {
  std::string a, b;
  std::string func;
  int trials = 3;
  uint64_t seed = 0;
  bool real_inputs = false;
  double rtol = 0, atol = 0;
};

int run_equiv(const EquivOptions& o) {
  IRModule ma = load_module(o.a), mb = load_module(o.b);
  if (!o.func.empty()) {
    ma.at(o.func);
    mb.at(o.func);
  }
  int status = kOk;
  for (const auto& [name, fa] : ma.functions()) {
    if (!o.func.empty() && name != o.func) continue;
    const PrimFunc* fb = mb.find(name);
    if (!fb) throw Error(o.b + ": no function named '" + name + "' (it is in " + o.a + ")");
    (void)fb;
    // In module context: entries that call kernels compare like any function.
    // check_equivalent runs both in checking mode: a race is not equivalent.
    EquivResult r =
        check_equivalent(ma, name, mb, name, o.trials, o.seed, !o.real_inputs, o.rtol, o.atol);
    if (r.equal) {
      std::cout << name << ": equivalent (" << o.trials << " trials)\n";
    } else {
      std::cout << name << ": not equivalent: " << r.message << "\n";
      status = kBadInput;
    }
  }
  return status;
}
}  // namespace

void add_equiv_command(CLI::App& app, int& status) {
  auto o = std::make_shared<EquivOptions>();
  auto* cmd = app.add_subcommand("equiv",
                                 "Check that two TensorIR files compute the same outputs on random "
                                 "inputs, races in parallel loops checked (exit 1 if not)");
  cmd->add_option("a", o->a, "First .tir file")->required();
  cmd->add_option("b", o->b, "Second .tir file")->required();
  cmd->add_option("--func", o->func, "Compare only this function (default: every function of A)");
  cmd->add_option("--trials", o->trials, "Number of random input sets")->capture_default_str()->check(
      CLI::Range(1, 1000000));
  cmd->add_option("--seed", o->seed, "Seed of the first input set")->capture_default_str();
  cmd->add_flag("--real-inputs", o->real_inputs, "Real-valued inputs (default: small integers, compared bit for bit)");
  cmd->add_option("--rtol", o->rtol, "Relative tolerance (default 0: bit for bit)");
  cmd->add_option("--atol", o->atol, "Absolute tolerance");
  cmd->callback([o, &status] { status = run_equiv(*o); });
}

}  // namespace tirc::driver
