// TuningDatabase (tuner/records.h): tuning records in SQLite. Round trips,
// queries, two processes writing at once, a writer killed with SIGKILL, and
// files that are not ours (corrupt, foreign) refused without being touched.
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "ir/error.h"
#include "tuner/records.h"

using namespace tirc;
namespace fs = std::filesystem;

namespace {

// "k3", "k3-4": candidate names. Appending (rather than "k" + to_string(i))
// avoids GCC 12's false -Wrestrict on literal + temporary string.
std::string name(const char* prefix, int i, int j = -1) {
  std::string s = prefix;
  s += std::to_string(i);
  if (j >= 0) {
    s += '-';
    s += std::to_string(j);
  }
  return s;
}

// A fresh directory under the system temp directory, removed with its files.
struct TempDir {
  fs::path dir;
  TempDir() {
    std::random_device rd;
    dir = fs::temp_directory_path() /
          name("tirc-records-", getpid(), static_cast<int>(rd() & 0x7fffffff));
    fs::create_directories(dir);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  std::string file(const std::string& name) const { return (dir / name).string(); }
};

TuningRecord record(const std::string& candidate, double seconds,
                    const std::string& workload = "w0", const std::string& target = "x86-64-avx512",
                    const std::string& cpu = "Test CPU") {
  TuningRecord r;
  r.workload = workload;
  r.target = target;
  r.cpu = cpu;
  r.candidate = candidate;
  r.trace_json = R"({"insts": [{"kind": "split", "attrs": "\"quoted\" \u00e9"}]})";
  r.seconds = seconds;
  r.gflops = 2.0 / seconds;
  r.found_after = 1.5;
  r.strategy = "beam";
  return r;
}

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

std::string random_bytes(size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::string s(n, '\0');
  for (char& c : s) c = static_cast<char>(gen() & 0xff);
  return s;
}

// Runs SQL on a file with SQLite directly (to build foreign files and check
// integrity); returns the first column of the first row, if any.
std::string sql(const std::string& path, const std::string& query) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  std::string result;
  const char* tail = query.c_str();
  while (*tail) {
    REQUIRE(sqlite3_prepare_v2(db, tail, -1, &s, &tail) == SQLITE_OK);
    if (!s) break;
    int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW && sqlite3_column_text(s, 0))
      result = reinterpret_cast<const char*>(sqlite3_column_text(s, 0));
    CHECK((rc == SQLITE_ROW || rc == SQLITE_DONE));
    sqlite3_finalize(s);
  }
  sqlite3_close(db);
  return result;
}

void check_same(const TuningRecord& a, const TuningRecord& b) {
  CHECK(a.workload == b.workload);
  CHECK(a.target == b.target);
  CHECK(a.cpu == b.cpu);
  CHECK(a.candidate == b.candidate);
  CHECK(a.trace_json == b.trace_json);
  if (std::isnan(b.seconds))
    CHECK(std::isnan(a.seconds));
  else
    CHECK(a.seconds == b.seconds);
  CHECK(a.gflops == b.gflops);
  CHECK(a.found_after == b.found_after);
  CHECK(a.strategy == b.strategy);
  CHECK(a.failed == b.failed);
  CHECK(a.note == b.note);
}

// A child process must never return into Catch: run `body`, then _exit.
template <typename F>
pid_t spawn(F body) {
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    int code = 0;
    try {
      body();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "child %d: %s\n", static_cast<int>(getpid()), e.what());
      code = 2;
    }
    _exit(code);
  }
  return pid;
}

}  // namespace

TEST_CASE("records: every field round-trips, failed records and inf/NaN included", "[records]") {
  TempDir tmp;
  std::string path = tmp.file("tune.db");
  TuningRecord ok = record("c1", 0.25);
  ok.created = 1700000000;
  TuningRecord crashed = record("c2", std::numeric_limits<double>::quiet_NaN());
  crashed.failed = true;
  crashed.gflops = 0;
  crashed.note = "SIGSEGV in the worker";
  TuningRecord timed_out = record("c3", std::numeric_limits<double>::infinity());
  timed_out.failed = true;
  timed_out.gflops = 0;
  timed_out.note = "cut off after 10x the best";
  {
    TuningDatabase db(path);
    CHECK(db.size() == 0);
    db.add(ok);
    db.add(std::vector<TuningRecord>{crashed, timed_out});
    CHECK(db.size() == 3);
  }
  TuningDatabase db(path);
  auto all = db.records("w0", "x86-64-avx512", "Test CPU");
  REQUIRE(all.size() == 3);
  check_same(all[0], ok);
  check_same(all[1], crashed);
  check_same(all[2], timed_out);
  CHECK(all[0].created == 1700000000);
  // created is filled in when left 0.
  CHECK(all[1].created > 1700000000);
  CHECK(std::isinf(all[2].seconds));
  CHECK(db.path() == path);
}

TEST_CASE("records: best is the fastest non-failed; candidates and keys stay apart", "[records]") {
  TempDir tmp;
  TuningDatabase db(tmp.file("tune.db"));
  CHECK_FALSE(db.best("w0", "x86-64-avx512", "Test CPU"));
  TuningRecord fast_but_failed = record("c0", 0.001);
  fast_but_failed.failed = true;
  db.add(record("c1", 3.0));
  db.add(fast_but_failed);
  db.add(record("c2", 1.0));
  db.add(record("c3", 2.0));
  // Same workload, other target or CPU, even faster: a different key.
  db.add(record("c4", 0.5, "w0", "x86-64-avx2"));
  db.add(record("c5", 0.5, "w0", "x86-64-avx512", "Other CPU"));
  db.add(record("c6", 0.5, "w1"));

  auto best = db.best("w0", "x86-64-avx512", "Test CPU");
  REQUIRE(best);
  CHECK(best->candidate == "c2");
  CHECK(best->seconds == 1.0);
  CHECK(db.best("w0", "x86-64-avx2", "Test CPU")->candidate == "c4");
  CHECK(db.best("w0", "x86-64-avx512", "Other CPU")->candidate == "c5");
  CHECK(db.best("w1", "x86-64-avx512", "Test CPU")->candidate == "c6");
  CHECK_FALSE(db.best("w2", "x86-64-avx512", "Test CPU"));

  // A failed candidate is found (so it is not retried), but never best.
  auto failed = db.find_candidate("w0", "x86-64-avx512", "Test CPU", "c0");
  REQUIRE(failed);
  CHECK(failed->failed);
  CHECK(db.find_candidate("w0", "x86-64-avx512", "Test CPU", "c3")->seconds == 2.0);
  CHECK_FALSE(db.find_candidate("w0", "x86-64-avx512", "Test CPU", "c4"));
  CHECK_FALSE(db.find_candidate("w0", "x86-64-avx512", "Test CPU", "nope"));
  // Measured again later (another process): a success wins over the failure,
  // the fastest over the others.
  db.add(record("c0", 5.0));
  db.add(record("c0", 4.0));
  CHECK(db.find_candidate("w0", "x86-64-avx512", "Test CPU", "c0")->seconds == 4.0);

  auto all = db.records("w0", "x86-64-avx512", "Test CPU");
  std::vector<std::string> order;
  for (const auto& r : all) order.push_back(r.candidate);
  CHECK(order == std::vector<std::string>{"c1", "c0", "c2", "c3", "c0", "c0"});
  CHECK(db.records("w0", "x86-64-avx2", "Test CPU").size() == 1);
  CHECK(db.size() == 9);
}

TEST_CASE("records: invalid records are refused, a batch all or nothing", "[records]") {
  TempDir tmp;
  TuningDatabase db(tmp.file("tune.db"));
  TuningRecord no_time = record("c1", std::numeric_limits<double>::quiet_NaN());
  CHECK_THROWS_AS(db.add(no_time), Error);
  CHECK_THROWS_AS(db.add(record("c1", std::numeric_limits<double>::infinity())), Error);
  CHECK_THROWS_AS(db.add(record("", 1.0)), Error);
  CHECK_THROWS_AS(db.add(std::vector<TuningRecord>{record("c2", 1.0), no_time}), Error);
  CHECK(db.size() == 0);
  db.add(std::vector<TuningRecord>{});
  CHECK(db.size() == 0);

  TuningDatabase moved = std::move(db);
  moved.add(record("c3", 1.0));
  CHECK(moved.size() == 1);
  CHECK_THROWS_AS(db.size(), Error);  // NOLINT(bugprone-use-after-move): the point
}

TEST_CASE("records: reopening keeps everything", "[records]") {
  TempDir tmp;
  std::string path = tmp.file("tune.db");
  for (int round = 0; round < 3; ++round) {
    TuningDatabase db(path);
    CHECK(db.size() == static_cast<size_t>(10 * round));
    for (int i = 0; i < 10; ++i) db.add(record(name("r", round, i), 1.0 + i));
  }
  TuningDatabase db(path);
  CHECK(db.size() == 30);
  CHECK(db.best("w0", "x86-64-avx512", "Test CPU")->seconds == 1.0);
  CHECK(sql(path, "PRAGMA integrity_check") == "ok");
}

TEST_CASE("records: two processes writing one database at once lose nothing", "[records]") {
  TempDir tmp;
  std::string path = tmp.file("tune.db");
  constexpr int kEach = 200;
  std::vector<pid_t> children;
  for (int p = 0; p < 2; ++p) {
    children.push_back(spawn([&, p] {
      TuningDatabase db(path);  // both may create the file: they race on that too
      for (int i = 0; i < kEach; ++i) db.add(record(name("p", p, i), 1.0 + i));
    }));
  }
  for (pid_t pid : children) {
    int status = 0;
    REQUIRE(waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
  }
  TuningDatabase db(path);
  CHECK(db.size() == 2 * kEach);
  std::set<std::string> seen;
  for (const auto& r : db.records("w0", "x86-64-avx512", "Test CPU")) seen.insert(r.candidate);
  CHECK(seen.size() == 2 * kEach);
  CHECK(seen.count("p0-199") == 1);
  CHECK(seen.count("p1-0") == 1);
}

TEST_CASE("records: a writer killed with SIGKILL leaves its committed records", "[records]") {
  TempDir tmp;
  std::string path = tmp.file("tune.db");
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  pid_t pid = spawn([&] {
    close(fds[0]);
    TuningDatabase db(path);
    for (int i = 0;; ++i) {
      // Alternate single records and batches so the kill may land in either.
      if (i % 2 == 0) {
        db.add(record(name("k", i), 1.0));
      } else {
        std::vector<TuningRecord> batch;
        for (int j = 0; j < 5; ++j) batch.push_back(record(name("k", i, j), 1.0));
        db.add(batch);
      }
      // Reported only once committed.
      if (write(fds[1], &i, sizeof i) != sizeof i) _exit(3);
    }
  });
  close(fds[1]);
  constexpr int kCommitted = 60;
  int last = -1;
  while (last + 1 < kCommitted) REQUIRE(read(fds[0], &last, sizeof last) == sizeof last);
  kill(pid, SIGKILL);
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  close(fds[0]);
  CHECK(WIFSIGNALED(status));

  TuningDatabase db(path);
  auto all = db.records("w0", "x86-64-avx512", "Test CPU");
  CHECK(db.size() == all.size());
  // Iterations 0..last committed: 1 record for an even one, 5 for an odd one.
  size_t expected = 0;
  for (int i = 0; i <= last; ++i) expected += i % 2 == 0 ? 1 : 5;
  CHECK(all.size() >= expected);
  std::set<std::string> seen;
  for (const auto& r : all) seen.insert(r.candidate);
  for (int i = 0; i <= last; ++i)
    CHECK(seen.count(i % 2 == 0 ? name("k", i) : name("k", i, 4)) == 1);
  // A batch is all or nothing.
  CHECK(all.size() == seen.size());
  for (const auto& r : all)
    if (r.candidate.find('-') != std::string::npos && r.candidate.back() == '0')
      CHECK(seen.count(r.candidate.substr(0, r.candidate.size() - 1) + "4") == 1);
  CHECK(sql(path, "PRAGMA integrity_check") == "ok");
  db.add(record("after", 1.0));
  CHECK(db.find_candidate("w0", "x86-64-avx512", "Test CPU", "after"));
}

TEST_CASE("records: a corrupt or foreign file is refused and left untouched", "[records]") {
  TempDir tmp;
  auto refused = [&](const std::string& path, const std::string& why) {
    std::string before = read_bytes(path);
    CHECK_THROWS_WITH(TuningDatabase(path),
                      Catch::Contains(path) && Catch::Contains(why, Catch::CaseSensitive::No));
    CHECK(read_bytes(path) == before);
    CHECK_FALSE(fs::exists(path + "-wal"));
  };

  SECTION("random bytes") {
    std::string path = tmp.file("random.db");
    write_bytes(path, random_bytes(65536, 1));
    refused(path, "not a database");
  }
  SECTION("an SQLite header followed by garbage") {
    std::string path = tmp.file("garbage.db");
    write_bytes(path, std::string("SQLite format 3", 16) + random_bytes(8192, 2));
    refused(path, "database");
  }
  SECTION("another application's database") {
    std::string path = tmp.file("other.db");
    sql(path, "CREATE TABLE people (name TEXT); INSERT INTO people VALUES ('ada')");
    refused(path, "another application");
    CHECK(sql(path, "SELECT name FROM people") == "ada");
  }
  SECTION("another application's id, no tables") {
    std::string path = tmp.file("other-id.db");
    sql(path, "PRAGMA application_id = 42");
    refused(path, "another application");
  }
  SECTION("tirc's id with another schema version") {
    std::string path = tmp.file("future.db");
    sql(path, "PRAGMA application_id = 1953067619; PRAGMA user_version = 99");
    refused(path, "schema version 99");
  }
  SECTION("a directory") {
    std::string path = tmp.file("dir.db");
    fs::create_directories(path);
    CHECK_THROWS_AS(TuningDatabase(path), Error);
  }
}

TEST_CASE("records: a zero-length file is initialised like a new one", "[records]") {
  TempDir tmp;
  std::string path = tmp.file("empty.db");
  write_bytes(path, "");
  REQUIRE(fs::file_size(path) == 0);
  {
    TuningDatabase db(path);
    CHECK(db.size() == 0);
    db.add(record("c1", 1.0));
  }
  TuningDatabase db(path);
  CHECK(db.size() == 1);
  CHECK(sql(path, "PRAGMA journal_mode") == "wal");
}
