#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "runtime/tirc_runtime.h"

namespace {

// Restores the default thread count whatever a test set.
struct ThreadCountGuard {
  ~ThreadCountGuard() { tirc_set_num_threads(0); }
};

struct Coverage {
  std::vector<std::atomic<int>> hits;
  std::atomic<int> calls{0};
  std::mutex lock;
  std::set<std::thread::id> threads;
  explicit Coverage(int64_t n) : hits(static_cast<size_t>(n)) {}
};

void count_range(int64_t begin, int64_t end, void* closure) {
  auto* c = static_cast<Coverage*>(closure);
  ++c->calls;
  for (int64_t i = begin; i < end; ++i) ++c->hits[static_cast<size_t>(i)];
  std::lock_guard<std::mutex> hold(c->lock);
  c->threads.insert(std::this_thread::get_id());
}

}  // namespace

TEST_CASE("parallel_for covers every index exactly once", "[runtime]") {
  ThreadCountGuard guard;
  for (int threads : {1, 2, 4, 8}) {
    tirc_set_num_threads(threads);
    REQUIRE(tirc_get_num_threads() == threads);
    for (int64_t n : {1, 2, 3, 7, 1000}) {
      INFO("threads " << threads << ", n " << n);
      Coverage c(n);
      CHECK(tirc_parallel_for(n, count_range, &c) == 0);
      for (int64_t i = 0; i < n; ++i) REQUIRE(c.hits[static_cast<size_t>(i)] == 1);
      // One chunk per thread at most, and never more threads than asked for.
      CHECK(c.calls <= threads);
      CHECK(static_cast<int>(c.threads.size()) <= threads);
    }
  }
}

TEST_CASE("parallel_for with nothing to do never calls the body", "[runtime]") {
  Coverage c(1);
  CHECK(tirc_parallel_for(0, count_range, &c) == 0);
  CHECK(tirc_parallel_for(-5, count_range, &c) == 0);
  CHECK(c.calls == 0);
}

namespace {

struct Nested {
  std::atomic<int> outer_calls{0};
  std::atomic<int> inner_indices{0};
  std::atomic<int> inner_calls{0};
  std::atomic<int> inner_on_other_thread{0};
};

struct InnerClosure {
  Nested* nested;
  std::thread::id caller;
};

void inner_body(int64_t begin, int64_t end, void* closure) {
  auto* c = static_cast<InnerClosure*>(closure);
  ++c->nested->inner_calls;
  c->nested->inner_indices += static_cast<int>(end - begin);
  if (std::this_thread::get_id() != c->caller) ++c->nested->inner_on_other_thread;
}

void outer_body(int64_t begin, int64_t end, void* closure) {
  auto* n = static_cast<Nested*>(closure);
  for (int64_t i = begin; i < end; ++i) {
    ++n->outer_calls;
    InnerClosure inner{n, std::this_thread::get_id()};
    tirc_parallel_for(10, inner_body, &inner);
  }
}

}  // namespace

TEST_CASE("nested parallel_for runs serially on the calling thread", "[runtime]") {
  ThreadCountGuard guard;
  tirc_set_num_threads(4);
  Nested n;
  CHECK(tirc_parallel_for(8, outer_body, &n) == 0);
  CHECK(n.outer_calls == 8);
  CHECK(n.inner_indices == 80);
  CHECK(n.inner_calls == 8);  // one whole-range call per nested loop
  CHECK(n.inner_on_other_thread == 0);
}

TEST_CASE("TIRC_NUM_THREADS and tirc_set_num_threads", "[runtime]") {
  ThreadCountGuard guard;
  const char* saved = getenv("TIRC_NUM_THREADS");
  const std::string saved_value = saved ? saved : "";

  setenv("TIRC_NUM_THREADS", "3", 1);
  tirc_set_num_threads(0);
  CHECK(tirc_get_num_threads() == 3);
  Coverage c(1000);
  tirc_parallel_for(1000, count_range, &c);
  CHECK(c.calls <= 3);
  CHECK(c.threads.size() <= 3);

  tirc_set_num_threads(5);
  CHECK(tirc_get_num_threads() == 5);
  tirc_set_num_threads(100000);
  CHECK(tirc_get_num_threads() == 256);

  setenv("TIRC_NUM_THREADS", "0", 1);  // not >= 1: ignored
  tirc_set_num_threads(-1);
  CHECK(tirc_get_num_threads() == static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN)));
  setenv("TIRC_NUM_THREADS", "junk", 1);
  tirc_set_num_threads(0);
  CHECK(tirc_get_num_threads() == static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN)));

  if (saved)
    setenv("TIRC_NUM_THREADS", saved_value.c_str(), 1);
  else
    unsetenv("TIRC_NUM_THREADS");
  tirc_set_num_threads(0);
}

namespace {

void add_range(int64_t begin, int64_t end, void* closure) {
  auto* sum = static_cast<std::atomic<int64_t>*>(closure);
  int64_t local = 0;
  for (int64_t i = begin; i < end; ++i) local += i;
  *sum += local;
}

}  // namespace

TEST_CASE("many back-to-back parallel_for calls", "[runtime]") {
  ThreadCountGuard guard;
  tirc_set_num_threads(4);
  int wrong = 0;
  for (int call = 0; call < 10000; ++call) {
    const int64_t n = 1 + call % 13;
    std::atomic<int64_t> sum{0};
    tirc_parallel_for(n, add_range, &sum);
    if (sum != n * (n - 1) / 2) ++wrong;
  }
  CHECK(wrong == 0);
}

TEST_CASE("parallel_for from several threads at once, with resizing", "[runtime]") {
  ThreadCountGuard guard;
  std::atomic<int> wrong{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < 4; ++t) {
    callers.emplace_back([t, &wrong] {
      for (int call = 0; call < 500; ++call) {
        if (t == 0 && call % 50 == 0) tirc_set_num_threads(1 + call / 50 % 4);
        const int64_t n = 1 + (call * 7 + t) % 100;
        std::atomic<int64_t> sum{0};
        tirc_parallel_for(n, add_range, &sum);
        if (sum != n * (n - 1) / 2) ++wrong;
      }
    });
  }
  for (auto& c : callers) c.join();
  CHECK(wrong == 0);
}

namespace {

void nothing(int64_t, int64_t, void*) {}

}  // namespace

TEST_CASE("the default thread count is not recomputed on every call", "[runtime]") {
  // Reading the CPU count costs about 10 us (a file read); once per call it
  // made a 1-iteration parallel loop 1000 times slower than it is.
  tirc_set_num_threads(0);
  tirc_parallel_for(1, nothing, nullptr);
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 10000; ++i) tirc_parallel_for(1, nothing, nullptr);
  const auto elapsed = std::chrono::steady_clock::now() - start;
  CHECK(elapsed < std::chrono::milliseconds(30));
}
