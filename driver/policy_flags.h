// Finding and loading a learned loop policy (tuner/policy/q_network.h) for
// `tirc tune --strategy policy|policy-beam` and `tirc compile|run --policy`.
#pragma once

#include <memory>
#include <string>

#include "tuner/policy_search.h"

namespace tirc::driver {

// The value of --policy that names the policy shipped with tirc.
inline constexpr const char* kShippedPolicy = "shipped";

// Where the shipped policy is: $TIRC_SHIPPED_POLICY when set, else next to
// the installed binary (<prefix>/share/tirc/policies/), else in the source
// tree it was built from.
std::string shipped_policy_path();

// The policy `spec` names: a file, or kShippedPolicy (also for an empty
// spec). A file the user named that does not load is an error (tirc::Error,
// with the reason). The shipped policy missing or not loading is not: it
// logs a warning that says why and that the rules schedule instead, and
// returns null.
std::shared_ptr<const LoopPolicy> load_policy(const std::string& spec);

}  // namespace tirc::driver
