//===- ResultsStore.h - The SQLite store of evaluated samples ---*- C++ -*-===//
//
// One SQLite file per sweep (or per shard of one): ptxbench's marker in the
// header (`PRAGMA application_id`), a `schema_version` table, a `store_state`
// table, a `requested` table (what `generate` was asked for), a `prompts`
// table (each tag's prompt per task and its documents) and a `samples`
// table with one row per (model, context, task, sample_id, turn);
// docs/eval.md documents the columns. Every write is its
// own transaction in WAL mode, so a crash or Ctrl-C loses nothing already
// recorded and the next run resumes. The log is checkpointed into the file
// when a writer opens it and when it closes, so a closed store is one
// self-contained file; a copy made without its `-wal` while rows were still
// in the log is recognized and refused. One process writes a store at a
// time (a lock on `<file>-lock`; a second writer waits and says for whom).
// A store is safe to use from several threads (calls are serialized).
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_EVAL_RESULTSSTORE_H
#define PTXBENCH_EVAL_RESULTSSTORE_H

#include "ptxbench/Eval/Sample.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <mutex>
#include <optional>
#include <vector>

struct sqlite3;

namespace ptxbench::eval {

class ResultsStore {
public:
  /// The schema this build writes; it also reads versions 1 (no reuse
  /// keys) and 2 (no usage columns), and a writer migrates them.
  static constexpr int schemaVersion = 3;
  /// `PRAGMA application_id` of a ptxbench store ("PTXB").
  static constexpr int applicationId = 0x50545842;

  enum class Mode {
    /// Read and write; the file is created when missing.
    Create,
    /// Read and write an existing store.
    Write,
    /// Read only: no lock, no schema change, nothing written.
    Read,
  };

  /// Opens the store at `path`. Errors name the file: a missing file
  /// (except with Create), a file that is not SQLite, a SQLite database
  /// without ptxbench's marker, a schema of another version, a store whose
  /// rows are in a `-wal` that is not beside it (Read). Notes for the user
  /// (a writer being waited for, a store repaired by a resume) go to `log`.
  static llvm::Expected<std::unique_ptr<ResultsStore>>
  open(llvm::StringRef path, Mode mode = Mode::Create,
       llvm::raw_ostream *log = &llvm::errs());
  ~ResultsStore();

  const std::string &path() const { return filePath; }

  /// Inserts or replaces the row of `record.key`, in one transaction.
  llvm::Error put(const SampleRecord &record);
  /// Every row, ordered by key.
  llvm::Expected<std::vector<SampleRecord>> all();
  llvm::Expected<std::optional<SampleRecord>> get(const SampleKey &key);
  llvm::Expected<std::optional<SampleRecord>> byId(int64_t id);
  /// The earliest row that ran itself with this reuse key (SampleRecord's
  /// `reuseKey`) and a result another sample may take (reusableRun()).
  llvm::Expected<std::optional<SampleRecord>>
  findReusable(llvm::StringRef reuseKey);

  /// How many samples `ptxbench generate` was asked for, per model,
  /// context, task and arch: the denominator a report can compare its rows
  /// with.
  struct Requested {
    std::string model, context, task, arch;
    unsigned samples = 0;
  };
  /// Records `r`, keeping the larger count when one is there.
  llvm::Error putRequested(const Requested &r);
  llvm::Expected<std::vector<Requested>> requested();

  /// The prompt `generate` sent for a tag (`context`), task, arch and
  /// language: its sha256 and its documents ([{"name", "sha256",
  /// "bytes"}, ...] as JSON text).
  struct PromptRow {
    std::string context, task, arch, language, sha256, documentsJSON;
  };
  /// Records `p`; refused when the store holds another prompt for the same
  /// tag, task, arch and language (the tag's documents changed).
  llvm::Error putPrompt(const PromptRow &p);
  llvm::Expected<std::vector<PromptRow>> prompts();

  struct MergeStats {
    unsigned inserted = 0;
    /// Keys present in both: `replaced` took the newer incoming row,
    /// `kept` kept the newer (or equally new) existing one.
    unsigned replaced = 0, kept = 0;
  };
  /// Merges the rows of the store at `otherPath` (opened read-only) into
  /// this one in one transaction; for a key in both, the newest row
  /// (recorded_at) wins. Requested counts are merged too (the larger), and
  /// prompts (refused when the two disagree on one).
  llvm::Expected<MergeStats> merge(llvm::StringRef otherPath);

  /// Copies the log into the file (PRAGMA wal_checkpoint(TRUNCATE)).
  llvm::Error checkpoint();

private:
  ResultsStore(sqlite3 *db, std::string path, Mode mode)
      : db(db), filePath(std::move(path)), mode(mode) {}
  llvm::Error exec(llvm::StringRef sql);
  llvm::Error error(const llvm::Twine &what);
  llvm::Error putLocked(const SampleRecord &record);
  llvm::Expected<std::vector<SampleRecord>>
  query(llvm::StringRef where, llvm::ArrayRef<std::string> args);
  /// Schema creation or migration, the clean-close flag (ResultsStoreOpen).
  llvm::Error prepareForWriting(bool walWasPresent, llvm::raw_ostream *log);
  llvm::Error checkForReading(bool walWasPresent);

  sqlite3 *db;
  std::string filePath;
  Mode mode;
  /// The schema version found (1 has no reuse_key column, 1 and 2 no
  /// usage columns).
  int version = schemaVersion;
  /// The writer lock's file descriptor (Create, Write); -1 when none.
  int lockFd = -1;
  std::recursive_mutex mutex;
};

} // namespace ptxbench::eval

#endif // PTXBENCH_EVAL_RESULTSSTORE_H
