//===- ResultsStoreOpen.cpp - Opening a results store, and closing it -----===//
//
// What a store must be before ptxbench reads or writes it: a SQLite file
// with ptxbench's marker (or a version-1 store of ours, which had none), of
// a schema version this build knows, and whole, meaning its rows are in the
// file or in the `-wal` beside it. A writer holds `<file>-lock` (flock, so a
// killed process lets go), migrates an older schema, checkpoints the log
// into the file and marks the store open; closing marks it closed cleanly
// and checkpoints again. A store marked open, with no writer holding its
// lock and no rows in a `-wal` beside it, was copied without its log (or
// the log was lost after a crash): a reader refuses it, a writer says so
// and goes on (a resumed sweep records the missing rows again).
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Eval/ResultsStore.h"

#include "SQLiteStatement.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Chrono.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <set>
#include <sys/file.h>
#include <unistd.h>

using namespace ptxbench::eval;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;

namespace {

constexpr const char *schemaSQL = R"sql(
CREATE TABLE schema_version (version INTEGER NOT NULL);
CREATE TABLE samples (
  id INTEGER PRIMARY KEY,
  model TEXT NOT NULL,
  context TEXT NOT NULL,
  task TEXT NOT NULL,
  sample_id TEXT NOT NULL,
  turn INTEGER NOT NULL,
  solution_path TEXT NOT NULL DEFAULT '',
  language TEXT NOT NULL DEFAULT '',
  code TEXT NOT NULL DEFAULT '',
  canonical_hash TEXT NOT NULL DEFAULT '',
  arch TEXT NOT NULL DEFAULT '',
  shapes TEXT NOT NULL DEFAULT '',
  status TEXT NOT NULL,
  run_status TEXT NOT NULL DEFAULT '',
  static_json TEXT NOT NULL DEFAULT '',
  diagnostics_json TEXT NOT NULL DEFAULT '',
  error TEXT NOT NULL DEFAULT '',
  run_json TEXT NOT NULL DEFAULT '',
  reused_from TEXT NOT NULL DEFAULT '',
  static_seconds REAL NOT NULL DEFAULT 0,
  run_seconds REAL NOT NULL DEFAULT 0,
  environment_json TEXT NOT NULL DEFAULT '',
  recorded_at INTEGER NOT NULL,
  reuse_key TEXT NOT NULL DEFAULT '',
  input_tokens INTEGER NOT NULL DEFAULT 0,
  output_tokens INTEGER NOT NULL DEFAULT 0,
  reasoning_tokens INTEGER NOT NULL DEFAULT 0,
  cached_tokens INTEGER NOT NULL DEFAULT 0,
  cost_usd REAL NOT NULL DEFAULT 0,
  latency_s REAL NOT NULL DEFAULT 0,
  usage_source TEXT NOT NULL DEFAULT '',
  UNIQUE (model, context, task, sample_id, turn)
);
)sql";

/// Version 1 to 2: the reuse key (and the store's state, stateSQL).
constexpr const char *upgradeTo2SQL = R"sql(
ALTER TABLE samples ADD COLUMN reuse_key TEXT NOT NULL DEFAULT '';
UPDATE schema_version SET version = 2;
)sql";

/// Version 2 to 3: what the answer cost, from generation.json.
constexpr const char *upgradeTo3SQL = R"sql(
ALTER TABLE samples ADD COLUMN input_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE samples ADD COLUMN output_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE samples ADD COLUMN reasoning_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE samples ADD COLUMN cached_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE samples ADD COLUMN cost_usd REAL NOT NULL DEFAULT 0;
ALTER TABLE samples ADD COLUMN latency_s REAL NOT NULL DEFAULT 0;
ALTER TABLE samples ADD COLUMN usage_source TEXT NOT NULL DEFAULT '';
UPDATE schema_version SET version = 3;
)sql";

/// What version 2 has beyond version 1's tables.
constexpr const char *stateSQL = R"sql(
CREATE INDEX IF NOT EXISTS samples_by_reuse_key ON samples (reuse_key);
CREATE TABLE IF NOT EXISTS store_state (name TEXT PRIMARY KEY,
                                        value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS requested (
  model TEXT NOT NULL,
  context TEXT NOT NULL,
  task TEXT NOT NULL,
  arch TEXT NOT NULL,
  samples INTEGER NOT NULL,
  PRIMARY KEY (model, context, task, arch)
);
CREATE TABLE IF NOT EXISTS prompts (
  context TEXT NOT NULL,
  task TEXT NOT NULL,
  arch TEXT NOT NULL,
  language TEXT NOT NULL,
  sha256 TEXT NOT NULL,
  documents_json TEXT NOT NULL,
  PRIMARY KEY (context, task, arch, language)
);
)sql";

/// What the file holds before anything is changed.
struct Contents {
  int applicationId = 0;
  std::set<std::string> tables;
  /// The file's header says WAL journal (bytes 18 and 19 are 2).
  bool walHeader = false;
};

Contents inspect(sqlite3 *db, StringRef path) {
  Contents c;
  Statement id(db, "PRAGMA application_id");
  if (id.ok() && sqlite3_step(id.stmt) == SQLITE_ROW)
    c.applicationId = sqlite3_column_int(id.stmt, 0);
  Statement tables(db, "SELECT name FROM sqlite_master WHERE type='table'");
  while (tables.ok() && sqlite3_step(tables.stmt) == SQLITE_ROW)
    c.tables.insert(tables.column(0));
  if (auto buffer = llvm::MemoryBuffer::getFileSlice(path, 20, 0))
    c.walHeader = (*buffer)->getBuffer().size() == 20 &&
                  (*buffer)->getBuffer()[18] == 2 &&
                  (*buffer)->getBuffer()[19] == 2;
  return c;
}

/// Why `c` is not a store ptxbench may open; empty when it is one (or an
/// empty database a writer may turn into one).
std::string refusal(const Contents &c, StringRef path, bool walPresent) {
  bool legacy = c.applicationId == 0 && c.tables.count("schema_version") &&
                c.tables.count("samples");
  if (c.applicationId == ResultsStore::applicationId || legacy)
    return "";
  if (c.tables.empty() && c.applicationId == 0) {
    if (c.walHeader && !walPresent)
      return ("'" + path +
              "' holds no tables, and it is a WAL database whose "
              "log '" +
              path +
              "-wal' is not beside it: it was probably "
              "copied without its -wal file, which holds every row. Copy '" +
              path + "-wal' next to it")
          .str();
    return "";
  }
  std::string what =
      c.applicationId
          ? llvm::formatv("its application id is {0:x}", c.applicationId).str()
          : "its tables: " + llvm::join(c.tables, ", ");
  return ("'" + path +
          "' is a SQLite database but not a ptxbench results "
          "store (no ptxbench schema marker; " +
          what + "); ptxbench neither reads nor writes it: give a new file")
      .str();
}

/// Takes `<path>-lock` for writing, waiting (with a note) while another
/// process holds it. Returns the descriptor, held until closed.
Expected<int> lockForWriting(StringRef path, llvm::raw_ostream *log) {
  std::string lockPath = (path + "-lock").str();
  int fd = ::open(lockPath.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0)
    return llvm::createStringError("cannot create the lock file '" + lockPath +
                                   "': " + std::strerror(errno));
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK) {
      std::string why = std::strerror(errno);
      ::close(fd);
      return llvm::createStringError("cannot lock '" + lockPath + "': " + why);
    }
    char holder[256] = {};
    ssize_t n = ::pread(fd, holder, sizeof(holder) - 1, 0);
    StringRef who = StringRef(holder, n > 0 ? n : 0).trim();
    if (log) {
      *log << "ptxbench: waiting for the other ptxbench writing '" << path
           << "' (" << (who.empty() ? "holder unknown" : who)
           << ") to finish; one process writes a store at a time\n";
      log->flush();
    }
    while (::flock(fd, LOCK_EX) != 0)
      if (errno != EINTR) {
        std::string why = std::strerror(errno);
        ::close(fd);
        return llvm::createStringError("cannot lock '" + lockPath +
                                       "': " + why);
      }
  }
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  std::string me = llvm::formatv("pid {0} on {1}, since {2:%Y-%m-%d %H:%M:%S}",
                                 llvm::sys::Process::getProcessId(), host,
                                 std::chrono::system_clock::now())
                       .str();
  if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, me.data(), me.size(), 0) < 0) {
    // The note for a waiting process is a courtesy; the lock is held.
  }
  return fd;
}

/// Whether a writer holds `<path>-lock` now (a sweep writing the store: its
/// rows since the last checkpoint are in a log it is still writing).
bool writerRunning(StringRef path) {
  int fd = ::open((path + "-lock").str().c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  bool held = ::flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  ::close(fd);
  return held;
}

} // namespace

Expected<std::unique_ptr<ResultsStore>>
ResultsStore::open(StringRef path, Mode mode, llvm::raw_ostream *log) {
  bool exists = llvm::sys::fs::exists(path);
  if (!exists && mode != Mode::Create)
    return llvm::createStringError("results store '" + path +
                                   "' does not exist");
  // A log with rows in it. (A reader leaves an empty one behind: SQLite
  // creates it and a read-only connection cannot remove it.)
  uint64_t walSize = 0;
  bool walPresent =
      !llvm::sys::fs::file_size(path + "-wal", walSize) && walSize > 0;
  sqlite3 *db = nullptr;
  int flags =
      SQLITE_OPEN_NOMUTEX |
      (mode == Mode::Read ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE) |
      (mode == Mode::Create ? SQLITE_OPEN_CREATE : 0);
  if (sqlite3_open_v2(path.str().c_str(), &db, flags, nullptr) != SQLITE_OK) {
    std::string why = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    return llvm::createStringError("cannot open results store '" + path +
                                   "': " + why);
  }
  std::unique_ptr<ResultsStore> store(new ResultsStore(db, path.str(), mode));
  sqlite3_busy_timeout(db, 10000);
  // A file that is not SQLite fails here, before anything is written.
  if (Error e = store->exec("SELECT count(*) FROM sqlite_master"))
    return std::move(e);
  if (std::string why = refusal(inspect(db, path), path, walPresent);
      !why.empty())
    return llvm::createStringError(why);
  if (mode == Mode::Read) {
    if (Error e = store->checkForReading(walPresent))
      return std::move(e);
    return std::move(store);
  }
  auto lock = lockForWriting(path, log);
  if (!lock)
    return lock.takeError();
  store->lockFd = *lock;
  if (Error e = store->prepareForWriting(walPresent, log))
    return std::move(e);
  return std::move(store);
}

Error ResultsStore::checkForReading(bool walPresent) {
  Contents c = inspect(db, filePath);
  if (!c.tables.count("samples"))
    return llvm::createStringError("'" + filePath +
                                   "' is an empty database, not a ptxbench "
                                   "results store");
  Statement v(db, "SELECT version FROM schema_version");
  version = v.ok() && sqlite3_step(v.stmt) == SQLITE_ROW
                ? sqlite3_column_int(v.stmt, 0)
                : -1;
  if (version < 1 || version > schemaVersion)
    return llvm::createStringError(
        "results store '" + filePath + "' has schema version " +
        std::to_string(version) + "; this ptxbench reads versions 1 to " +
        std::to_string(schemaVersion));
  Statement clean(db,
                  "SELECT value FROM store_state WHERE name='closed_cleanly'");
  if (!walPresent && clean.ok() && sqlite3_step(clean.stmt) == SQLITE_ROW &&
      clean.column(0) == "0" && !writerRunning(filePath))
    return llvm::createStringError(
        "results store '" + filePath +
        "' was left open by a ptxbench run (still running, or killed) and "
        "its write-ahead log '" +
        filePath +
        "-wal' is not beside it: the rows recorded since its last checkpoint "
        "are in that log, so this file alone is not the whole store. Copy '" +
        filePath +
        "-wal' next to it, or run the same ptxbench eval (or "
        "generate) on it again, which records what is missing");
  return Error::success();
}

Error ResultsStore::prepareForWriting(bool walPresent, llvm::raw_ostream *log) {
  // WAL: a committed transaction survives a crash of this process; readers
  // do not block the writer.
  if (Error e = exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"))
    return e;
  if (Error e = exec("BEGIN IMMEDIATE"))
    return e;
  auto fail = [&](Error e) {
    llvm::consumeError(exec("ROLLBACK"));
    return e;
  };
  Contents c = inspect(db, filePath);
  if (c.tables.empty()) {
    if (Error e = exec(std::string(schemaSQL) +
                       "INSERT INTO schema_version VALUES (" +
                       std::to_string(schemaVersion) + ");"))
      return fail(std::move(e));
    version = schemaVersion;
  } else {
    Statement v(db, "SELECT version FROM schema_version");
    version = v.ok() && sqlite3_step(v.stmt) == SQLITE_ROW
                  ? sqlite3_column_int(v.stmt, 0)
                  : -1;
    if (version == 1) {
      if (Error e = exec(upgradeTo2SQL))
        return fail(std::move(e));
      version = 2;
    }
    if (version == 2) {
      if (Error e = exec(upgradeTo3SQL))
        return fail(std::move(e));
      version = 3;
    }
    if (version != schemaVersion) {
      return fail(llvm::createStringError(
          "results store '" + filePath + "' has schema version " +
          std::to_string(version) + "; this ptxbench writes version " +
          std::to_string(schemaVersion)));
    }
  }
  if (Error e = exec(std::string(stateSQL) + "PRAGMA application_id=" +
                     std::to_string(applicationId) + ";"))
    return fail(std::move(e));
  Statement clean(db,
                  "SELECT value FROM store_state WHERE name='closed_cleanly'");
  if (!walPresent && log && clean.ok() &&
      sqlite3_step(clean.stmt) == SQLITE_ROW && clean.column(0) == "0")
    *log << "ptxbench: results store '" << filePath
         << "' was not closed cleanly and its write-ahead log is missing: "
            "rows recorded after its last checkpoint may be lost; they are "
            "recorded again as their samples are evaluated again\n";
  sqlite3_reset(clean.stmt);
  if (Error e = exec("INSERT OR REPLACE INTO store_state VALUES "
                     "('closed_cleanly', '0')"))
    return fail(std::move(e));
  if (Error e = exec("COMMIT"))
    return e;
  // The schema and the mark are in the file itself from here on.
  return checkpoint();
}

Error ResultsStore::checkpoint() {
  std::lock_guard<std::recursive_mutex> lock(mutex);
  return exec("PRAGMA wal_checkpoint(TRUNCATE)");
}

ResultsStore::~ResultsStore() {
  if (mode != Mode::Read) {
    llvm::consumeError(exec("INSERT OR REPLACE INTO store_state VALUES "
                            "('closed_cleanly', '1')"));
    llvm::consumeError(checkpoint());
  }
  sqlite3_close(db);
  if (lockFd >= 0)
    ::close(lockFd);
}
