// How many iterations a randomized test runs: an environment variable set
// for a long run (the closing notes' figures), else CI's count; and the sample
// of a long suite that the sanitized CI run takes.
#pragma once

#include <cstdlib>
#include <utility>
#include <vector>

namespace tirc::test {

inline int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoi(v) : fallback;
}

// Every n-th item (from the first), n from the environment variable `name`;
// all of them where it is unset or below 2.
template <class T>
std::vector<T> every_nth(std::vector<T> items, const char* name) {
  const int stride = env_int(name, 1);
  if (stride < 2) return items;
  std::vector<T> some;
  for (size_t i = 0; i < items.size(); i += static_cast<size_t>(stride))
    some.push_back(std::move(items[i]));
  return some;
}

}  // namespace tirc::test
