// The rules' context of a fixed machine (L1d 32K, L2 1M, L3 32M), so that
// tests get the same schedules on every host.
#pragma once

#include <string>

#include "tuner/space/rules.h"

namespace tirc::test {

inline RuleContext fixed_rules(Isa isa, int threads, Decisions decisions = Decisions::Model) {
  CpuModel base;
  base.target = Target{isa};
  RuleContext cx;
  cx.cpu = parse_cpu_model("l1d=32K,l2=1M,l3=32M,threads=" + std::to_string(threads), base);
  cx.decisions = decisions;
  return cx;
}

}  // namespace tirc::test
