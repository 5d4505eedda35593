// Tuning records in SQLite (see records.h). Durability and sharing come from
// SQLite itself: WAL journal (readers never block the writer, a killed writer
// leaves only an uncommitted WAL tail that the next open discards), a busy
// timeout, and BEGIN IMMEDIATE so a writer takes the write lock up front rather
// than failing to upgrade a read lock half-way through.
#include "tuner/records.h"

#include <sqlite3.h>

#include <chrono>
#include <cmath>
#include <ctime>
#include <limits>
#include <mutex>
#include <thread>

#include "ir/error.h"

namespace tirc {

namespace {

// 'tirc' in ASCII: PRAGMA application_id marks the file as ours, so a foreign
// SQLite database is recognised and refused instead of having tables added.
constexpr int kApplicationId = 0x74697263;
// PRAGMA user_version: bump when the schema changes.
constexpr int kSchemaVersion = 1;
constexpr int kBusyTimeoutMs = 10000;

// `id` is the rowid: rows are never deleted, so it gives insertion order. One
// index serves every query: all are prefixes of (workload, target, cpu,
// candidate).
constexpr const char* kSchema = R"sql(
CREATE TABLE tuning_records (
  id INTEGER PRIMARY KEY,
  workload TEXT NOT NULL,
  target TEXT NOT NULL,
  cpu TEXT NOT NULL,
  candidate TEXT NOT NULL,
  trace_json TEXT NOT NULL,
  seconds REAL,
  gflops REAL,
  found_after REAL,
  strategy TEXT NOT NULL,
  failed INTEGER NOT NULL CHECK (failed IN (0, 1)),
  note TEXT NOT NULL,
  created INTEGER NOT NULL
);
CREATE INDEX tuning_records_key ON tuning_records (workload, target, cpu, candidate);
)sql";

constexpr const char* kColumns =
    "workload, target, cpu, candidate, trace_json, seconds, gflops, found_after, strategy, "
    "failed, note, created";

struct CloseDb {
  // close_v2: safe even if a statement were still alive (it closes once the
  // last one is finalized).
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
struct FinalizeStmt {
  void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
};
using Stmt = std::unique_ptr<sqlite3_stmt, FinalizeStmt>;

bool busy(int rc) {
  int primary = rc & 0xff;
  return primary == SQLITE_BUSY || primary == SQLITE_LOCKED;
}

// Resets a cached statement when a query ends, however it ends: an unreset
// SELECT keeps its read snapshot open, which would hide later commits from
// this connection and block WAL checkpoints.
struct ResetOnExit {
  sqlite3_stmt* s;
  ~ResetOnExit() {
    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
  }
};

}  // namespace

struct TuningDatabase::Impl {
  std::string path;
  std::unique_ptr<sqlite3, CloseDb> db;  // declared before the statements: closed after them
  Stmt insert, best, find, all, count;
  std::mutex mutex;  // one connection, shared statements: one user at a time

  [[noreturn]] void fail(const std::string& what) const {
    std::string msg = "tuning database '" + path + "': " + what;
    if (db) msg += ": " + std::string(sqlite3_errmsg(db.get()));
    throw Error(msg);
  }

  void check(int rc, const std::string& what) const {
    if (rc != SQLITE_OK) fail(what);
  }

  // sqlite3_step with retries on SQLITE_BUSY: the busy timeout covers most
  // waits, but WAL mode returns SQLITE_BUSY without calling the busy handler in
  // a few cases (another connection running recovery, for example). Only for
  // the first step of a statement, so a retry restarts nothing half-done.
  int step(sqlite3_stmt* s) const {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kBusyTimeoutMs);
    for (int attempt = 0;; ++attempt) {
      int rc = sqlite3_step(s);
      if (!busy(rc) || std::chrono::steady_clock::now() > deadline) return rc;
      sqlite3_reset(s);
      std::this_thread::sleep_for(std::chrono::milliseconds(1 + attempt % 20));
    }
  }

  void exec(const char* sql, const std::string& what) {
    Stmt s = prepare(sql, what);
    ResetOnExit reset{s.get()};
    int rc = step(s.get());
    while (rc == SQLITE_ROW) rc = sqlite3_step(s.get());
    if (rc != SQLITE_DONE) fail(what);
  }

  Stmt prepare(const char* sql, const std::string& what, bool persistent = false) const {
    sqlite3_stmt* s = nullptr;
    int rc = sqlite3_prepare_v3(db.get(), sql, -1, persistent ? SQLITE_PREPARE_PERSISTENT : 0, &s,
                                nullptr);
    Stmt owned(s);
    if (rc != SQLITE_OK) fail(what);
    return owned;
  }

  // What the file holds now: ours (true), new and empty (false), or throws.
  // One statement, so one snapshot: read separately, the header fields and the
  // schema could straddle another process's initialisation.
  bool inspect() {
    Stmt s = prepare(
        "SELECT (SELECT application_id FROM pragma_application_id), "
        "(SELECT user_version FROM pragma_user_version), (SELECT count(*) FROM sqlite_master)",
        "cannot read it (not an SQLite database, or corrupt)");
    ResetOnExit reset{s.get()};
    if (step(s.get()) != SQLITE_ROW) fail("cannot read it (not an SQLite database, or corrupt)");
    int app = sqlite3_column_int(s.get(), 0);
    int version = sqlite3_column_int(s.get(), 1);
    int64_t objects = sqlite3_column_int64(s.get(), 2);
    if (app == kApplicationId) {
      if (version != kSchemaVersion)
        throw Error("tuning database '" + path + "': written with schema version " +
                    std::to_string(version) + ", this tirc reads version " +
                    std::to_string(kSchemaVersion));
      return true;
    }
    if (app == 0 && version == 0 && objects == 0) return false;
    throw Error("tuning database '" + path +
                "': an SQLite database of another application (application_id " +
                std::to_string(app) + ", " + std::to_string(objects) +
                " tables and indexes), not tirc's tuning records; refusing to modify it");
  }

  void begin() { exec("BEGIN IMMEDIATE", "cannot start a write transaction"); }
  void commit() { exec("COMMIT", "cannot commit"); }
  void rollback() noexcept {
    // Also fine when no transaction is open (a failed BEGIN): the error is ignored.
    sqlite3_exec(db.get(), "ROLLBACK", nullptr, nullptr, nullptr);
  }

  void open() {
    sqlite3* raw = nullptr;
    int rc =
        sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
    db.reset(raw);  // a handle comes back even on failure and must be closed
    if (rc != SQLITE_OK) {
      if (!db) throw Error("tuning database '" + path + "': cannot open: out of memory");
      fail("cannot open");
    }
    check(sqlite3_extended_result_codes(db.get(), 1), "cannot configure");
    check(sqlite3_busy_timeout(db.get(), kBusyTimeoutMs), "cannot set a busy timeout");

    // Read-only checks first: nothing is written to a file that is not ours.
    bool ours = inspect();
    // WAL is persistent in the file; switching needs no transaction open, so it
    // comes before the schema. Another process may be switching at the same
    // time: the pragma then reports busy and is retried.
    Stmt wal = prepare("PRAGMA journal_mode=WAL", "cannot set the WAL journal mode");
    {
      ResetOnExit reset{wal.get()};
      if (step(wal.get()) != SQLITE_ROW) fail("cannot set the WAL journal mode");
      const char* mode = reinterpret_cast<const char*>(sqlite3_column_text(wal.get(), 0));
      if (!mode || std::string(mode) != "wal")
        throw Error("tuning database '" + path + "': the WAL journal mode is not available (got '" +
                    (mode ? mode : "") + "'); is the file on a network filesystem?");
    }
    // FULL: a record is on disk when add() returns, power loss included (NORMAL
    // would survive only a process crash).
    exec("PRAGMA synchronous=FULL", "cannot set synchronous mode");

    if (!ours) {
      // Another process may have initialised the file since inspect(): look
      // again under the write lock.
      begin();
      try {
        if (!inspect()) {
          check(sqlite3_exec(db.get(), kSchema, nullptr, nullptr, nullptr),
                "cannot create the schema");
          exec(("PRAGMA application_id=" + std::to_string(kApplicationId)).c_str(),
               "cannot set the application id");
          exec(("PRAGMA user_version=" + std::to_string(kSchemaVersion)).c_str(),
               "cannot set the schema version");
        }
        commit();
      } catch (...) {
        rollback();
        throw;
      }
    }

    std::string cols = kColumns;
    std::string select =
        "SELECT " + cols + " FROM tuning_records WHERE workload = ?1 AND target = ?2 AND cpu = ?3";
    insert = prepare(("INSERT INTO tuning_records (" + cols +
                      ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)")
                         .c_str(),
                     "cannot prepare a statement", true);
    best = prepare((select + " AND failed = 0 ORDER BY seconds, id LIMIT 1").c_str(),
                   "cannot prepare a statement", true);
    find = prepare((select + " AND candidate = ?4 ORDER BY failed, seconds, id LIMIT 1").c_str(),
                   "cannot prepare a statement", true);
    all = prepare((select + " ORDER BY id").c_str(), "cannot prepare a statement", true);
    count = prepare("SELECT count(*) FROM tuning_records", "cannot prepare a statement", true);
  }

  void bind_text(sqlite3_stmt* s, int i, const std::string& v) {
    check(sqlite3_bind_text64(s, i, v.data(), v.size(), SQLITE_TRANSIENT, SQLITE_UTF8),
          "cannot bind a value");
  }
  // SQLite stores NaN as NULL; read_record maps NULL back to NaN.
  void bind_real(sqlite3_stmt* s, int i, double v) {
    check(std::isnan(v) ? sqlite3_bind_null(s, i) : sqlite3_bind_double(s, i, v),
          "cannot bind a value");
  }

  void bind_key(sqlite3_stmt* s, const std::string& workload, const std::string& target,
                const std::string& cpu) {
    bind_text(s, 1, workload);
    bind_text(s, 2, target);
    bind_text(s, 3, cpu);
  }

  void insert_one(const TuningRecord& r, int64_t now) {
    sqlite3_stmt* s = insert.get();
    ResetOnExit reset{s};
    bind_key(s, r.workload, r.target, r.cpu);
    bind_text(s, 4, r.candidate);
    bind_text(s, 5, r.trace_json);
    bind_real(s, 6, r.seconds);
    bind_real(s, 7, r.gflops);
    bind_real(s, 8, r.found_after);
    bind_text(s, 9, r.strategy);
    check(sqlite3_bind_int(s, 10, r.failed ? 1 : 0), "cannot bind a value");
    bind_text(s, 11, r.note);
    check(sqlite3_bind_int64(s, 12, r.created != 0 ? r.created : now), "cannot bind a value");
    if (sqlite3_step(s) != SQLITE_DONE) fail("cannot add a record");
  }

  static std::string text(sqlite3_stmt* s, int i) {
    const unsigned char* p = sqlite3_column_text(s, i);
    int n = sqlite3_column_bytes(s, i);  // after column_text: the size of its result
    return p ? std::string(reinterpret_cast<const char*>(p), static_cast<size_t>(n)) : "";
  }
  static double real(sqlite3_stmt* s, int i) {
    return sqlite3_column_type(s, i) == SQLITE_NULL ? std::numeric_limits<double>::quiet_NaN()
                                                    : sqlite3_column_double(s, i);
  }

  static TuningRecord read_record(sqlite3_stmt* s) {
    TuningRecord r;
    r.workload = text(s, 0);
    r.target = text(s, 1);
    r.cpu = text(s, 2);
    r.candidate = text(s, 3);
    r.trace_json = text(s, 4);
    r.seconds = real(s, 5);
    r.gflops = real(s, 6);
    r.found_after = real(s, 7);
    r.strategy = text(s, 8);
    r.failed = sqlite3_column_int(s, 9) != 0;
    r.note = text(s, 10);
    r.created = sqlite3_column_int64(s, 11);
    return r;
  }

  std::optional<TuningRecord> query_one(sqlite3_stmt* s) {
    int rc = step(s);
    if (rc == SQLITE_DONE) return std::nullopt;
    if (rc != SQLITE_ROW) fail("cannot read records");
    return read_record(s);
  }
};

TuningDatabase::TuningDatabase(const std::string& path) : impl_(std::make_unique<Impl>()) {
  impl_->path = path;
  impl_->open();
}

TuningDatabase::~TuningDatabase() = default;
TuningDatabase::TuningDatabase(TuningDatabase&&) noexcept = default;
TuningDatabase& TuningDatabase::operator=(TuningDatabase&&) noexcept = default;

namespace {

void validate(const TuningRecord& r) {
  if (r.workload.empty() || r.target.empty() || r.cpu.empty() || r.candidate.empty())
    throw Error("tuning record: workload, target, cpu and candidate must not be empty");
  // best() orders by seconds: a measured record without a real time would
  // either win or vanish from the ordering.
  if (!r.failed && !(std::isfinite(r.seconds) && r.seconds >= 0))
    throw Error("tuning record of candidate " + r.candidate +
                ": a measured record needs a finite latency >= 0 (mark it failed otherwise)");
}

}  // namespace

TuningDatabase::Impl& TuningDatabase::impl() const {
  if (!impl_) throw Error("use of a moved-from TuningDatabase");
  return *impl_;
}

const std::string& TuningDatabase::path() const {
  return impl().path;
}

void TuningDatabase::add(const TuningRecord& r) {
  add(std::vector<TuningRecord>{r});
}

void TuningDatabase::add(const std::vector<TuningRecord>& rs) {
  Impl& d = impl();
  for (const TuningRecord& r : rs) validate(r);
  if (rs.empty()) return;
  std::lock_guard lock(d.mutex);
  int64_t now = static_cast<int64_t>(std::time(nullptr));
  d.begin();
  try {
    for (const TuningRecord& r : rs) d.insert_one(r, now);
    d.commit();
  } catch (...) {
    d.rollback();
    throw;
  }
}

std::optional<TuningRecord> TuningDatabase::best(const std::string& workload,
                                                 const std::string& target,
                                                 const std::string& cpu) const {
  Impl& d = impl();
  std::lock_guard lock(d.mutex);
  ResetOnExit reset{d.best.get()};
  d.bind_key(d.best.get(), workload, target, cpu);
  return d.query_one(d.best.get());
}

std::optional<TuningRecord> TuningDatabase::find_candidate(const std::string& workload,
                                                           const std::string& target,
                                                           const std::string& cpu,
                                                           const std::string& candidate) const {
  Impl& d = impl();
  std::lock_guard lock(d.mutex);
  ResetOnExit reset{d.find.get()};
  d.bind_key(d.find.get(), workload, target, cpu);
  d.bind_text(d.find.get(), 4, candidate);
  return d.query_one(d.find.get());
}

std::vector<TuningRecord> TuningDatabase::records(const std::string& workload,
                                                  const std::string& target,
                                                  const std::string& cpu) const {
  Impl& d = impl();
  std::lock_guard lock(d.mutex);
  sqlite3_stmt* s = d.all.get();
  ResetOnExit reset{s};
  d.bind_key(s, workload, target, cpu);
  std::vector<TuningRecord> out;
  int rc = d.step(s);
  for (; rc == SQLITE_ROW; rc = sqlite3_step(s)) out.push_back(Impl::read_record(s));
  if (rc != SQLITE_DONE) d.fail("cannot read records");
  return out;
}

size_t TuningDatabase::size() const {
  Impl& d = impl();
  std::lock_guard lock(d.mutex);
  ResetOnExit reset{d.count.get()};
  if (d.step(d.count.get()) != SQLITE_ROW) d.fail("cannot count records");
  return static_cast<size_t>(sqlite3_column_int64(d.count.get(), 0));
}

}  // namespace tirc
