// Printed names for variables and buffers: each distinct object gets one name,
// unique within a function; later objects sharing a name hint get `_1`, `_2`...
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace tirc {

class NameTable {
 public:
  // The name of `key`, choosing a fresh one from `hint` on first definition.
  // Defining the same key again returns the name it already has.
  const std::string& define(const void* key, std::string_view hint);
  // The name given to `key`, or nullptr when it was never defined.
  const std::string* find(const void* key) const;

  // `hint` made a valid, non-reserved Python identifier ("threadIdx.x" -> "threadIdx_x").
  static std::string sanitize(std::string_view hint);

 private:
  std::unordered_map<const void*, std::string> names_;
  std::unordered_set<std::string> used_;
};

}  // namespace tirc
