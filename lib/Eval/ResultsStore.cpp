//===- ResultsStore.cpp - The rows of the SQLite results store ------------===//
//
// Thin C++ over the sqlite3 C API for the rows: prepared statements with
// bound text, one transaction per write, the lookups eval and report make,
// and merge. Opening, the schema and the file's integrity are in
// ResultsStoreOpen.cpp.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Eval/ResultsStore.h"

#include "SQLiteStatement.h"

#include "llvm/ADT/STLExtras.h"

#include <chrono>

using namespace ptxbench::eval;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;

namespace {

/// The columns after `id`, in the order of SampleRecord's fields.
constexpr const char *columns =
    "model, context, task, sample_id, turn, solution_path, language, code, "
    "canonical_hash, arch, shapes, status, run_status, static_json, "
    "diagnostics_json, error, run_json, reused_from, reuse_key, "
    "static_seconds, run_seconds, environment_json, recorded_at, "
    "input_tokens, output_tokens, reasoning_tokens, cached_tokens, cost_usd, "
    "latency_s, usage_source";
constexpr int columnCount = 30;

/// What a store of `version` is read as: the columns it lacks as their
/// defaults (version 1 has no reuse_key, versions 1 and 2 no usage).
std::string selectColumns(int version) {
  std::string select = columns;
  auto replace = [&](llvm::StringRef column, llvm::StringRef as) {
    size_t at = select.find(column.str());
    select.replace(at, column.size(), as.str() + " AS " + column.str());
  };
  if (version < 2)
    replace("reuse_key", "''");
  if (version < 3) {
    for (const char *c : {"input_tokens", "output_tokens", "reasoning_tokens",
                          "cached_tokens", "cost_usd", "latency_s"})
      replace(c, "0");
    replace("usage_source", "''");
  }
  return select;
}

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
  r.reuseKey = s.column(c++);
  r.staticSeconds = sqlite3_column_double(s.stmt, c++);
  r.runSeconds = sqlite3_column_double(s.stmt, c++);
  r.environmentJson = s.column(c++);
  r.recordedAtMs = sqlite3_column_int64(s.stmt, c++);
  r.generation.inputTokens = sqlite3_column_int64(s.stmt, c++);
  r.generation.outputTokens = sqlite3_column_int64(s.stmt, c++);
  r.generation.reasoningTokens = sqlite3_column_int64(s.stmt, c++);
  r.generation.cachedTokens = sqlite3_column_int64(s.stmt, c++);
  r.generation.costUsd = sqlite3_column_double(s.stmt, c++);
  r.generation.latencySeconds = sqlite3_column_double(s.stmt, c++);
  r.generation.source = s.column(c++);
  return r;
}

} // namespace

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
  if (mode == Mode::Read)
    return llvm::createStringError("results store '" + filePath +
                                   "' is open for reading only");
  std::string placeholders = "?";
  for (int i = 1; i < columnCount; ++i)
    placeholders += ",?";
  std::string sql = std::string("INSERT OR REPLACE INTO samples (") + columns +
                    ") VALUES (" + placeholders + ")";
  Statement s(db, sql);
  if (!s.ok())
    return error("cannot prepare insert");
  int c = 1;
  s.text(c++, r.key.model);
  s.text(c++, r.key.context);
  s.text(c++, r.key.task);
  s.text(c++, r.key.sampleId);
  sqlite3_bind_int64(s.stmt, c++, r.key.turn);
  for (const std::string *field :
       {&r.solutionPath, &r.language, &r.code, &r.canonicalHash, &r.arch,
        &r.shapes, &r.status, &r.runStatus, &r.staticJson, &r.diagnosticsJson,
        &r.error, &r.runJson, &r.reusedFrom, &r.reuseKey})
    s.text(c++, *field);
  sqlite3_bind_double(s.stmt, c++, r.staticSeconds);
  sqlite3_bind_double(s.stmt, c++, r.runSeconds);
  s.text(c++, r.environmentJson);
  sqlite3_bind_int64(s.stmt, c++, r.recordedAtMs ? r.recordedAtMs : nowMs());
  const GenerationUsage &g = r.generation;
  for (int64_t tokens :
       {g.inputTokens, g.outputTokens, g.reasoningTokens, g.cachedTokens})
    sqlite3_bind_int64(s.stmt, c++, tokens);
  sqlite3_bind_double(s.stmt, c++, g.costUsd);
  sqlite3_bind_double(s.stmt, c++, g.latencySeconds);
  s.text(c++, g.source);
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
  std::string sql = std::string("SELECT id, ") + selectColumns(version) +
                    " FROM samples " + where.str();
  Statement s(db, sql);
  if (!s.ok())
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
ResultsStore::findReusable(StringRef reuseKey) {
  if (reuseKey.empty() || version == 1)
    return std::nullopt;
  auto rows = query("WHERE reuse_key=? AND reused_from='' AND run_status<>'' "
                    "ORDER BY recorded_at, id",
                    {reuseKey.str()});
  if (!rows)
    return rows.takeError();
  for (SampleRecord &row : *rows)
    if (reusableRun(row.runStatus))
      return std::move(row);
  return std::nullopt;
}

Error ResultsStore::putRequested(const Requested &r) {
  std::lock_guard<std::recursive_mutex> lock(mutex);
  if (mode == Mode::Read)
    return llvm::createStringError("results store '" + filePath +
                                   "' is open for reading only");
  Statement s(db, "INSERT INTO requested VALUES (?,?,?,?,?) ON CONFLICT DO "
                  "UPDATE SET samples=max(samples, excluded.samples)");
  if (!s.ok())
    return error("cannot prepare insert");
  s.text(1, r.model);
  s.text(2, r.context);
  s.text(3, r.task);
  s.text(4, r.arch);
  sqlite3_bind_int64(s.stmt, 5, r.samples);
  if (sqlite3_step(s.stmt) != SQLITE_DONE)
    return error("cannot record what was requested");
  return Error::success();
}

Expected<std::vector<ResultsStore::Requested>> ResultsStore::requested() {
  std::lock_guard<std::recursive_mutex> lock(mutex);
  std::vector<Requested> rows;
  if (version == 1)
    return rows;
  Statement s(db, "SELECT model, context, task, arch, samples FROM requested "
                  "ORDER BY model, context, task, arch");
  if (!s.ok())
    return error("cannot query");
  int rc;
  while ((rc = sqlite3_step(s.stmt)) == SQLITE_ROW)
    rows.push_back({s.column(0), s.column(1), s.column(2), s.column(3),
                    unsigned(sqlite3_column_int64(s.stmt, 4))});
  if (rc != SQLITE_DONE)
    return error("cannot read what was requested");
  return rows;
}

Expected<ResultsStore::MergeStats> ResultsStore::merge(StringRef otherPath) {
  auto other = open(otherPath, Mode::Read);
  if (!other)
    return other.takeError();
  auto rows = (*other)->all();
  if (!rows)
    return rows.takeError();
  auto requests = (*other)->requested();
  if (!requests)
    return requests.takeError();
  auto prompts = (*other)->prompts();
  if (!prompts)
    return prompts.takeError();
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
  for (const Requested &r : *requests)
    if (Error e = putRequested(r)) {
      llvm::consumeError(exec("ROLLBACK"));
      return std::move(e);
    }
  for (const PromptRow &p : *prompts)
    if (Error e = putPrompt(p)) {
      llvm::consumeError(exec("ROLLBACK"));
      return llvm::createStringError("merging '" + otherPath +
                               "': " + llvm::toString(std::move(e)));
    }
  if (Error e = exec("COMMIT"))
    return std::move(e);
  return stats;
}
