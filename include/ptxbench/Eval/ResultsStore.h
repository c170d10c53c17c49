//===- ResultsStore.h - The SQLite store of evaluated samples ---*- C++ -*-===//
//
// One SQLite file per sweep (or per shard of one): a `schema_version` table
// and a `samples` table with one row per (model, context, task, sample_id,
// turn); docs/eval.md documents the columns. Every write is its own
// transaction in WAL mode, so a crash or Ctrl-C loses nothing already
// recorded and the next run resumes. A store is safe to use from several
// threads (calls are serialized).
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_EVAL_RESULTSSTORE_H
#define PTXBENCH_EVAL_RESULTSSTORE_H

#include "ptxbench/Eval/Sample.h"

#include "llvm/Support/Error.h"

#include <memory>
#include <mutex>
#include <optional>
#include <vector>

struct sqlite3;

namespace ptxbench::eval {

class ResultsStore {
public:
  /// The schema this build reads and writes.
  static constexpr int schemaVersion = 1;

  /// Opens (and with `create`, creates) the store at `path`. Errors name the
  /// file: a missing file without `create`, a file that is not SQLite, a
  /// schema of another version.
  static llvm::Expected<std::unique_ptr<ResultsStore>>
  open(llvm::StringRef path, bool create = true);
  ~ResultsStore();

  const std::string &path() const { return filePath; }

  /// Inserts or replaces the row of `record.key`, in one transaction.
  llvm::Error put(const SampleRecord &record);
  /// Every row, ordered by key.
  llvm::Expected<std::vector<SampleRecord>> all();
  llvm::Expected<std::optional<SampleRecord>> get(const SampleKey &key);
  llvm::Expected<std::optional<SampleRecord>> byId(int64_t id);
  /// An evaluated row with the same canonical hash, task, arch and shapes
  /// (and, with `needRun`, a run result) whose result can stand for a new
  /// sample; the earliest recorded one.
  llvm::Expected<std::optional<SampleRecord>>
  findByHash(llvm::StringRef hash, llvm::StringRef task, llvm::StringRef arch,
             llvm::StringRef shapes, bool needRun);

  struct MergeStats {
    unsigned inserted = 0;
    /// Keys present in both: `replaced` took the newer incoming row,
    /// `kept` kept the newer (or equally new) existing one.
    unsigned replaced = 0, kept = 0;
  };
  /// Merges the rows of the store at `otherPath` into this one in one
  /// transaction; for a key in both, the newest row (recorded_at) wins.
  llvm::Expected<MergeStats> merge(llvm::StringRef otherPath);

private:
  ResultsStore(sqlite3 *db, std::string path)
      : db(db), filePath(std::move(path)) {}
  llvm::Error exec(llvm::StringRef sql);
  llvm::Error error(const llvm::Twine &what);
  llvm::Error putLocked(const SampleRecord &record);
  llvm::Expected<std::vector<SampleRecord>>
  query(llvm::StringRef where, llvm::ArrayRef<std::string> args);

  sqlite3 *db;
  std::string filePath;
  std::recursive_mutex mutex;
};

} // namespace ptxbench::eval

#endif // PTXBENCH_EVAL_RESULTSSTORE_H
