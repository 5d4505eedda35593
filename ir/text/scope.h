// Names visible while parsing: variables and buffers in nested scopes.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "ir/buffer.h"

namespace tirc {

// What a name refers to: exactly one of var or buffer is set.
struct Binding {
  Var var;
  Buffer buffer;
};

class Scope {
 public:
  Scope() { push(); }

  void push() { frames_.emplace_back(); }
  void pop() { frames_.pop_back(); }

  const Binding* lookup(const std::string& name) const {
    for (auto it = frames_.rbegin(); it != frames_.rend(); ++it)
      if (auto found = it->find(name); found != it->end()) return &found->second;
    return nullptr;
  }
  bool defined_in_innermost(const std::string& name) const {
    return frames_.back().count(name) > 0;
  }
  void define(const std::string& name, Binding binding) {
    frames_.back()[name] = std::move(binding);
  }

 private:
  std::vector<std::unordered_map<std::string, Binding>> frames_;
};

// Pushes a scope for the lifetime of this object.
class ScopeFrame {
 public:
  explicit ScopeFrame(Scope& scope) : scope_(scope) { scope_.push(); }
  ~ScopeFrame() { scope_.pop(); }
  ScopeFrame(const ScopeFrame&) = delete;
  ScopeFrame& operator=(const ScopeFrame&) = delete;

 private:
  Scope& scope_;
};

}  // namespace tirc
