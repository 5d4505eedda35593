// How many iterations a randomized test runs: an environment variable set
// for a long run (the closing notes' figures), else CI's count.
#pragma once

#include <cstdlib>

namespace tirc::test {

inline int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoi(v) : fallback;
}

}  // namespace tirc::test
