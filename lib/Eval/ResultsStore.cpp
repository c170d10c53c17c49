//===- ResultsStore.cpp - The SQLite store of evaluated samples -----------===//
//
// Thin C++ over the sqlite3 C API: prepared statements with bound text, one
// transaction per write, WAL journal so readers (a report while a sweep
// runs) do not block the writer.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Eval/ResultsStore.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"

#include <chrono>
#include <sqlite3.h>

using namespace ptxbench::eval;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;

namespace {

constexpr const char *schemaSQL = R"sql(
CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS samples (
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
  UNIQUE (model, context, task, sample_id, turn)
);
CREATE INDEX IF NOT EXISTS samples_by_hash
  ON samples (canonical_hash, task, arch, shapes);
)sql";

/// The columns after `id`, in the order of SampleRecord's fields.
constexpr const char *columns =
    "model, context, task, sample_id, turn, solution_path, language, code, "
    "canonical_hash, arch, shapes, status, run_status, static_json, "
    "diagnostics_json, error, run_json, reused_from, static_seconds, "
    "run_seconds, environment_json, recorded_at";

/// A prepared statement, finalized on scope exit.
struct Statement {
  sqlite3_stmt *stmt = nullptr;
  ~Statement() { sqlite3_finalize(stmt); }
  void text(int i, StringRef s) {
    sqlite3_bind_text(stmt, i, s.data(), int(s.size()), SQLITE_TRANSIENT);
  }
  std::string column(int i) {
    const unsigned char *t = sqlite3_column_text(stmt, i);
    return t ? std::string(reinterpret_cast<const char *>(t),
                           sqlite3_column_bytes(stmt, i))
             : std::string();
  }
};

int64_t nowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

SampleRecord readRow(Statement &s) {
  SampleRecord r;
  int c = 0;
  r.id = sqlite3_column_int64(s.stmt, c++);
  r.key.model = s.column(c++);
  r.key.context = s.column(c++);
  r.key.task = s.column(c++);
  r.key.sampleId = s.column(c++);
  r.key.turn = sqlite3_column_int64(s.stmt, c++);
  r.solutionPath = s.column(c++);
  r.language = s.column(c++);
  r.code = s.column(c++);
  r.canonicalHash = s.column(c++);
  r.arch = s.column(c++);
  r.shapes = s.column(c++);
  r.status = s.column(c++);
  r.runStatus = s.column(c++);
  r.staticJson = s.column(c++);
  r.diagnosticsJson = s.column(c++);
  r.error = s.column(c++);
  r.runJson = s.column(c++);
  r.reusedFrom = s.column(c++);
  r.staticSeconds = sqlite3_column_double(s.stmt, c++);
  r.runSeconds = sqlite3_column_double(s.stmt, c++);
  r.environmentJson = s.column(c++);
  r.recordedAtMs = sqlite3_column_int64(s.stmt, c++);
  return r;
}

} // namespace

Expected<std::unique_ptr<ResultsStore>> ResultsStore::open(StringRef path,
                                                           bool create) {
  if (!create && !llvm::sys::fs::exists(path))
    return llvm::createStringError("results store '" + path +
                                   "' does not exist");
  sqlite3 *db = nullptr;
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX |
              (create ? SQLITE_OPEN_CREATE : 0);
  if (sqlite3_open_v2(path.str().c_str(), &db, flags, nullptr) != SQLITE_OK) {
    std::string why = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    return llvm::createStringError("cannot open results store '" + path +
                                   "': " + why);
  }
  std::unique_ptr<ResultsStore> store(new ResultsStore(db, path.str()));
  sqlite3_busy_timeout(db, 10000);
  // WAL: a committed transaction survives a crash of this process; readers
  // do not block the writer.
  if (Error e = store->exec("PRAGMA journal_mode=WAL; "
                            "PRAGMA synchronous=NORMAL;"))
    return std::move(e);
  if (Error e = store->exec(std::string("BEGIN IMMEDIATE;") + schemaSQL))
    return std::move(e);
  Statement s;
  sqlite3_prepare_v2(db, "SELECT version FROM schema_version", -1, &s.stmt,
                     nullptr);
  int version = -1;
  if (s.stmt && sqlite3_step(s.stmt) == SQLITE_ROW)
    version = sqlite3_column_int(s.stmt, 0);
  Error result = Error::success();
  if (version == -1)
    result = store->exec("INSERT INTO schema_version VALUES (" +
                         std::to_string(schemaVersion) + ")");
  else if (version != schemaVersion)
    result = llvm::createStringError(
        "results store '" + path + "' has schema version " +
        std::to_string(version) + "; this ptxbench reads version " +
        std::to_string(schemaVersion));
  if (result) {
    llvm::consumeError(store->exec("ROLLBACK"));
    return std::move(result);
  }
  if (Error e = store->exec("COMMIT"))
    return std::move(e);
  return std::move(store);
}

ResultsStore::~ResultsStore() { sqlite3_close(db); }

Error ResultsStore::error(const llvm::Twine &what) {
  return llvm::createStringError("results store '" + filePath + "': " + what +
                                 ": " + sqlite3_errmsg(db));
}

Error ResultsStore::exec(StringRef sql) {
  char *message = nullptr;
  if (sqlite3_exec(db, sql.str().c_str(), nullptr, nullptr, &message) ==
      SQLITE_OK)
    return Error::success();
  std::string why = message ? message : "unknown error";
  sqlite3_free(message);
  if (StringRef(why).contains("file is not a database"))
    return llvm::createStringError("'" + filePath +
                                   "' is not a SQLite results store");
  return llvm::createStringError("results store '" + filePath + "': " + why);
}

Error ResultsStore::putLocked(const SampleRecord &r) {
  Statement s;
  std::string sql = std::string("INSERT OR REPLACE INTO samples (") + columns +
                    ") VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &s.stmt, nullptr) != SQLITE_OK)
    return error("cannot prepare insert");
  int c = 1;
  s.text(c++, r.key.model);
  s.text(c++, r.key.context);
  s.text(c++, r.key.task);
  s.text(c++, r.key.sampleId);
  sqlite3_bind_int64(s.stmt, c++, r.key.turn);
  for (const std::string *field :
       {&r.solutionPath, &r.language, &r.code, &r.canonicalHash, &r.arch,
        &r.shapes, &r.status, &r.runStatus, &r.staticJson,
        &r.diagnosticsJson, &r.error, &r.runJson, &r.reusedFrom})
    s.text(c++, *field);
  sqlite3_bind_double(s.stmt, c++, r.staticSeconds);
  sqlite3_bind_double(s.stmt, c++, r.runSeconds);
  s.text(c++, r.environmentJson);
  sqlite3_bind_int64(s.stmt, c++, r.recordedAtMs ? r.recordedAtMs : nowMs());
  if (sqlite3_step(s.stmt) != SQLITE_DONE)
    return error("cannot record " + r.key.str());
  return Error::success();
}

Error ResultsStore::put(const SampleRecord &record) {
  std::lock_guard<std::recursive_mutex> lock(mutex);
  // A single statement is its own transaction: committed when it returns.
  return putLocked(record);
}

Expected<std::vector<SampleRecord>>
ResultsStore::query(StringRef where, llvm::ArrayRef<std::string> args) {
  std::lock_guard<std::recursive_mutex> lock(mutex);
  Statement s;
  std::string sql = std::string("SELECT id, ") + columns + " FROM samples " +
                    where.str();
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &s.stmt, nullptr) != SQLITE_OK)
    return error("cannot query");
  for (auto [i, arg] : llvm::enumerate(args))
    s.text(int(i) + 1, arg);
  std::vector<SampleRecord> rows;
  int rc;
  while ((rc = sqlite3_step(s.stmt)) == SQLITE_ROW)
    rows.push_back(readRow(s));
  if (rc != SQLITE_DONE)
    return error("cannot read samples");
  return rows;
}

Expected<std::vector<SampleRecord>> ResultsStore::all() {
  return query("ORDER BY model, context, task, sample_id, turn", {});
}

static Expected<std::optional<SampleRecord>>
first(Expected<std::vector<SampleRecord>> rows) {
  if (!rows)
    return rows.takeError();
  if (rows->empty())
    return std::nullopt;
  return std::move(rows->front());
}

Expected<std::optional<SampleRecord>> ResultsStore::get(const SampleKey &key) {
  return first(query("WHERE model=? AND context=? AND task=? AND "
                     "sample_id=? AND turn=?",
                     {key.model, key.context, key.task, key.sampleId,
                      std::to_string(key.turn)}));
}

Expected<std::optional<SampleRecord>> ResultsStore::byId(int64_t id) {
  return first(query("WHERE id=?", {std::to_string(id)}));
}

Expected<std::optional<SampleRecord>>
ResultsStore::findByHash(StringRef hash, StringRef task, StringRef arch,
                         StringRef shapes, bool needRun) {
  return first(query(std::string("WHERE canonical_hash=? AND task=? AND "
                                 "arch=? AND shapes=? AND reused_from='' ") +
                         (needRun ? "AND run_status<>'' " : "") +
                         "ORDER BY recorded_at, id LIMIT 1",
                     {hash.str(), task.str(), arch.str(), shapes.str()}));
}

Expected<ResultsStore::MergeStats> ResultsStore::merge(StringRef otherPath) {
  auto other = open(otherPath, /*create=*/false);
  if (!other)
    return other.takeError();
  auto rows = (*other)->all();
  if (!rows)
    return rows.takeError();
  std::lock_guard<std::recursive_mutex> lock(mutex);
  if (Error e = exec("BEGIN IMMEDIATE"))
    return std::move(e);
  MergeStats stats;
  for (SampleRecord &row : *rows) {
    auto existing = get(row.key);
    if (!existing) {
      llvm::consumeError(exec("ROLLBACK"));
      return existing.takeError();
    }
    if (*existing && (*existing)->recordedAtMs >= row.recordedAtMs) {
      ++stats.kept;
      continue;
    }
    ++(*existing ? stats.replaced : stats.inserted);
    if (Error e = putLocked(row)) {
      llvm::consumeError(exec("ROLLBACK"));
      return std::move(e);
    }
  }
  if (Error e = exec("COMMIT"))
    return std::move(e);
  return stats;
}
