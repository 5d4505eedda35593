// A small map that iterates in the order keys were first inserted. The
// emitter lays out a parallel body's closure by iterating its visible
// variables and storage; keyed by pointer, a std::map would order them by heap
// address, and the same program would give different bytes from run to run.
#pragma once

#include <utility>
#include <vector>

namespace tirc {

template <class K, class V>
class InsertionOrderedMap {
 public:
  using value_type = std::pair<K, V>;
  using iterator = typename std::vector<value_type>::iterator;
  using const_iterator = typename std::vector<value_type>::const_iterator;

  V& operator[](const K& key) {
    if (iterator it = find(key); it != end()) return it->second;
    items_.emplace_back(key, V{});
    return items_.back().second;
  }
  iterator find(const K& key) {
    for (iterator it = items_.begin(); it != items_.end(); ++it)
      if (it->first == key) return it;
    return items_.end();
  }
  const_iterator find(const K& key) const {
    for (const_iterator it = items_.begin(); it != items_.end(); ++it)
      if (it->first == key) return it;
    return items_.end();
  }
  size_t count(const K& key) const { return find(key) != end() ? 1 : 0; }
  void erase(iterator it) { items_.erase(it); }
  size_t erase(const K& key) {
    iterator it = find(key);
    if (it == end()) return 0;
    items_.erase(it);
    return 1;
  }
  size_t size() const { return items_.size(); }
  iterator begin() { return items_.begin(); }
  iterator end() { return items_.end(); }
  const_iterator begin() const { return items_.begin(); }
  const_iterator end() const { return items_.end(); }

 private:
  std::vector<value_type> items_;
};

}  // namespace tirc
