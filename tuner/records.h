// Tuning records: what the tuner measured, kept in an SQLite file so later
// compiles reuse the best schedule found and later tunes never measure a
// candidate twice. Several `tirc tune` processes may share one file at once
// (WAL journal, busy timeout); a process killed mid-tune loses nothing it had
// committed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tirc {

struct TuningRecord {
  // Key: the hex structural hash of the unscheduled kernel (the caller computes
  // it), the target name ("x86-64-avx512") and the CPU model name.
  std::string workload;
  std::string target;
  std::string cpu;
  // Hex structural hash of the scheduled program: the measurement cache key.
  std::string candidate;
  std::string trace_json;  // the schedule trace, Trace::to_json
  // Best measured latency. A measured record (failed == false) needs a finite
  // value >= 0; a failed one may hold anything, NaN and +inf included (NaN is
  // stored as NULL and read back as NaN).
  double seconds = 0;
  double gflops = 0;
  double found_after = 0;  // seconds into the tune when it was measured
  std::string strategy;    // "greedy", "beam", ...
  // Crashed, timed out or refused: recorded so it is never retried, never
  // returned by best().
  bool failed = false;
  std::string note;     // why it failed; empty otherwise
  int64_t created = 0;  // unix time; add() sets it when 0
};

class TuningDatabase {
 public:
  // Opens `path`, creating it (and its schema) when it does not exist, is a
  // zero-length file (what SQLite itself creates first, so it is initialised
  // like a new one) or an SQLite database with nothing in it. A file that is not SQLite, is
  // corrupt, or is an SQLite database of another application or another schema version throws
  // tirc::Error naming the path and the reason, and is left untouched.
  explicit TuningDatabase(const std::string& path);
  ~TuningDatabase();
  TuningDatabase(TuningDatabase&&) noexcept;
  TuningDatabase& operator=(TuningDatabase&&) noexcept;
  TuningDatabase(const TuningDatabase&) = delete;
  TuningDatabase& operator=(const TuningDatabase&) = delete;

  const std::string& path() const;

  // Durable (committed) when they return; the vector form is one transaction.
  void add(const TuningRecord& r);
  void add(const std::vector<TuningRecord>& rs);

  // The fastest record that did not fail for this key.
  std::optional<TuningRecord> best(const std::string& workload, const std::string& target,
                                   const std::string& cpu) const;
  // A record of this candidate under this key, if it was ever measured (a
  // successful measurement wins over a failed one, the fastest over others).
  std::optional<TuningRecord> find_candidate(const std::string& workload, const std::string& target,
                                             const std::string& cpu,
                                             const std::string& candidate) const;
  // Every record of this key, in insertion order.
  std::vector<TuningRecord> records(const std::string& workload, const std::string& target,
                                    const std::string& cpu) const;
  size_t size() const;

 private:
  struct Impl;
  Impl& impl() const;  // throws on a moved-from database
  std::unique_ptr<Impl> impl_;
};

}  // namespace tirc
