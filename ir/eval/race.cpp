#include "ir/eval/race.h"

#include <algorithm>
#include <numeric>

#include "ir/eval/runtime.h"

namespace tirc::eval {

std::string CheckedLoop::describe() const {
  return std::string(kind_in_prose(kind)) + " loop " + var +
         (thread_tag.empty() ? "" : " (" + thread_tag + ")");
}

RaceChecker::RaceChecker(bool check, bool check_vectorized, bool shuffle, uint64_t seed)
    : check_(check), check_vectorized_(check_vectorized), shuffle_(shuffle), state_(seed) {}

uint64_t RaceChecker::next_random() {
  // splitmix64: tiny, and the same sequence on every platform for a seed
  // (std:: distributions are not), so a shuffled failure reproduces anywhere.
  uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

void RaceChecker::SeenTable::clear() {
  live_ = 0;
  if (++gen_ != 0) return;
  // The generation wrapped (once in 2^32 clears): reset every slot's.
  for (Slot& s : slots_) s.gen = 0;
  gen_ = 1;
}

size_t RaceChecker::SeenTable::home(uintptr_t key) const {
  // Fibonacci hashing: addresses of neighbouring elements differ in their
  // low bits only, and the multiply spreads those over the high bits taken.
  const uint64_t h = static_cast<uint64_t>(key) * 0x9e3779b97f4a7c15ull;
  return static_cast<size_t>(h >> 32) & (slots_.size() - 1);
}

RaceChecker::Seen& RaceChecker::SeenTable::operator[](uintptr_t key) {
  if (2 * (live_ + 1) > slots_.size()) grow();
  const size_t mask = slots_.size() - 1;
  size_t i = home(key);
  while (slots_[i].gen == gen_) {
    if (slots_[i].key == key) return slots_[i].seen;
    i = (i + 1) & mask;
  }
  ++live_;
  slots_[i] = Slot{key, gen_, Seen{}};
  return slots_[i].seen;
}

void RaceChecker::SeenTable::grow() {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(std::max<size_t>(64, 2 * old.size()), Slot{});
  const size_t mask = slots_.size() - 1;
  for (const Slot& s : old) {
    if (s.gen != gen_) continue;
    size_t i = home(s.key);
    while (slots_[i].gen == gen_) i = (i + 1) & mask;
    slots_[i] = s;
  }
}

void RaceChecker::enter(const CheckedLoop& loop, int64_t extent, std::vector<int64_t>& order) {
  if (active_ == scopes_.size()) scopes_.emplace_back();
  Scope& s = scopes_[active_++];
  s.loop = &loop;
  s.checked = check_vectorized_ || loop.kind != ForKind::Vectorized;
  s.seen.clear();
  order.resize(static_cast<size_t>(std::max<int64_t>(extent, 0)));
  std::iota(order.begin(), order.end(), int64_t{0});
  if (!shuffle_ || !loop.shuffled()) return;
  for (size_t k = order.size(); k > 1; --k) std::swap(order[k - 1], order[next_random() % k]);
}

void RaceChecker::allocated(const uint8_t* data, size_t bytes) {
  if (active_ == 0 || !data) return;
  const auto start = reinterpret_cast<uintptr_t>(data);
  private_[start] = Private{start + bytes, active_};
}

void RaceChecker::released(const uint8_t* data) {
  if (!private_.empty()) private_.erase(reinterpret_cast<uintptr_t>(data));
}

size_t RaceChecker::private_depth(uintptr_t addr) const {
  auto it = private_.upper_bound(addr);
  if (it == private_.begin()) return 0;
  --it;
  return addr < it->second.end ? it->second.depth : 0;
}

void RaceChecker::record(const Access& a, Frame& f, int lane, const uint8_t* addr, bool write) {
  const auto key = reinterpret_cast<uintptr_t>(addr);
  // Loops entered after the storage was allocated share it; the loops around
  // the allocation each see a fresh copy per iteration.
  const size_t first = private_.empty() ? 0 : private_depth(key);
  for (size_t k = first; k < active_; ++k) {
    Scope& s = scopes_[k];
    if (!s.checked || (a.gpu_block_own && s.loop->gpu_block())) continue;
    Seen& e = s.seen[key];
    const int64_t t = s.iter;
    const std::string& v = s.loop->var;
    auto it = [&](int64_t x) { return v + "=" + std::to_string(x); };
    // Built only for a report: this runs on every access.
    auto element = [&] { return a.element(f, lane); };
    auto in = [&] { return a.where ? a.where->describe() : std::string(); };
    if (write) {
      if (e.writer != kNone && e.writer != t)
        race(s, "iterations " + it(std::min(e.writer, t)) + " and " + it(std::max(e.writer, t)) +
                    " both write " + element() + in());
      for (int64_t r : e.readers)
        if (r != kNone && r != t)
          race(s, "iteration " + it(t) + " writes " + element() + " that iteration " + it(r) +
                      " reads" + in());
      e.writer = t;
    } else {
      if (e.writer != kNone && e.writer != t)
        race(s, "iteration " + it(e.writer) + " writes " + element() + " that iteration " + it(t) +
                    " reads" + in());
      if (e.readers[0] == kNone)
        e.readers[0] = t;
      else if (e.readers[0] != t && e.readers[1] == kNone)
        e.readers[1] = t;
    }
  }
}

void RaceChecker::race(const Scope& s, const std::string& what) const {
  const std::string message = "race in " + s.loop->describe() + ": " + what;
  if (race_out) *race_out = message;
  throw Error(message, s.loop->loc);
}

}  // namespace tirc::eval
