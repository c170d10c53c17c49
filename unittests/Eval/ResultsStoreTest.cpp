//===- ResultsStoreTest.cpp - The results store's file and its rows -------===//
//
// A store is refused when it is not ptxbench's or not whole (a copy made
// without its -wal while a writer had rows in the log), read without being
// changed, migrated when written, and written by one process at a time.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Eval/ResultsStore.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include "gtest/gtest.h"

#include <atomic>
#include <chrono>
#include <sqlite3.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace ptxbench::eval;
using Mode = ResultsStore::Mode;

namespace {

class ResultsStoreTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("ptxbench-store", dir));
  }
  void TearDown() override { llvm::sys::fs::remove_directories(dir); }
  std::string file(llvm::StringRef name) {
    llvm::SmallString<128> p(dir);
    llvm::sys::path::append(p, name);
    return std::string(p);
  }
  /// Runs `sql` on `path` with the plain sqlite3 API.
  static std::string sql(llvm::StringRef path, llvm::StringRef statement) {
    sqlite3 *db = nullptr;
    sqlite3_open(path.str().c_str(), &db);
    std::string out;
    sqlite3_exec(
        db, statement.str().c_str(),
        [](void *out, int n, char **values, char **) {
          auto &s = *static_cast<std::string *>(out);
          for (int i = 0; i < n; ++i)
            s += std::string(values[i] ? values[i] : "") +
                 (i + 1 < n ? "|" : "\n");
          return 0;
        },
        &out, nullptr);
    sqlite3_close(db);
    return out;
  }
  /// The samples table of schema version 1 (no reuse_key) or 2.
  static std::string olderSamplesTable(bool reuseKey) {
    return std::string(
               "CREATE TABLE samples (id INTEGER PRIMARY KEY, model TEXT NOT "
               "NULL, context TEXT NOT NULL, task TEXT NOT NULL, sample_id "
               "TEXT NOT NULL,"
               " turn INTEGER NOT NULL, solution_path TEXT NOT NULL DEFAULT '',"
               " language TEXT NOT NULL DEFAULT '', code TEXT NOT NULL DEFAULT '',"
               " canonical_hash TEXT NOT NULL DEFAULT '',"
               " arch TEXT NOT NULL DEFAULT '', shapes TEXT NOT NULL DEFAULT '',"
               " status TEXT NOT NULL, run_status TEXT NOT NULL DEFAULT '',"
               " static_json TEXT NOT NULL DEFAULT '',"
               " diagnostics_json TEXT NOT NULL DEFAULT '',"
               " error TEXT NOT NULL DEFAULT '', run_json TEXT NOT NULL DEFAULT '',"
               " reused_from TEXT NOT NULL DEFAULT '',"
               " static_seconds REAL NOT NULL DEFAULT 0,"
               " run_seconds REAL NOT NULL DEFAULT 0,"
               " environment_json TEXT NOT NULL DEFAULT '',"
               " recorded_at INTEGER NOT NULL,"
               ) +
           (reuseKey ? " reuse_key TEXT NOT NULL DEFAULT ''," : "") +
           " UNIQUE (model, context, task, sample_id, turn));";
  }
  static SampleRecord record(llvm::StringRef id, llvm::StringRef runStatus = "",
                             llvm::StringRef reuseKey = "") {
    SampleRecord r;
    r.key = {"m", "none", "t", id.str(), 0};
    r.status = "analyzed";
    r.runStatus = runStatus.str();
    r.reuseKey = reuseKey.str();
    return r;
  }
  llvm::SmallString<128> dir;
};

TEST_F(ResultsStoreTest, CopyWithoutItsLogIsRefusedThenRepairedByAWriter) {
  std::string original = file("r.sqlite"), copy = file("copy.sqlite");
  {
    auto store = ResultsStore::open(original, Mode::Create, nullptr);
    ASSERT_TRUE(bool(store)) << llvm::toString(store.takeError());
    ASSERT_FALSE(bool((*store)->put(record("s0"))));
    // What a job that moves a shard copies while the writer runs (or after
    // it was killed): the file without its -wal, whose rows are in the log.
    ASSERT_FALSE(llvm::sys::fs::copy_file(original, copy));
    auto read = ResultsStore::open(copy, Mode::Read, nullptr);
    ASSERT_FALSE(bool(read));
    std::string why = llvm::toString(read.takeError());
    EXPECT_NE(why.find("copy.sqlite-wal' is not beside it"), std::string::npos)
        << why;
    // The store itself, with its writer at work, reads fine.
    auto live = ResultsStore::open(original, Mode::Read, nullptr);
    ASSERT_TRUE(bool(live)) << llvm::toString(live.takeError());
    EXPECT_EQ((*live)->all()->size(), 1u);
    // A reader leaves an empty log behind; asking again is refused again.
    auto again = ResultsStore::open(copy, Mode::Read, nullptr);
    ASSERT_FALSE(bool(again));
    llvm::consumeError(again.takeError());
  }
  // A writer goes on with a note; what is missing is recorded again.
  std::string notes;
  llvm::raw_string_ostream log(notes);
  {
    auto store = ResultsStore::open(copy, Mode::Write, &log);
    ASSERT_TRUE(bool(store)) << llvm::toString(store.takeError());
    EXPECT_TRUE((*store)->all()->empty());
  }
  EXPECT_NE(notes.find("was not closed cleanly and its write-ahead log is "
                       "missing: rows recorded after its last checkpoint may "
                       "be lost"),
            std::string::npos)
      << notes;
  // Closed, the copy is whole on its own.
  EXPECT_TRUE(bool(ResultsStore::open(copy, Mode::Read, nullptr)));
}

TEST_F(ResultsStoreTest,
       AKilledWritersRowsAreInItsLogAndACopyWithoutItIsRefused) {
  std::string original = file("r.sqlite"), copy = file("copy.sqlite");
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // A writer that dies without closing (as kill -9 leaves it).
    auto store = ResultsStore::open(original, Mode::Create, nullptr);
    if (!store || (*store)->put(record("s0")))
      _exit(1);
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  ASSERT_FALSE(llvm::sys::fs::copy_file(original, copy));
  auto read = ResultsStore::open(copy, Mode::Read, nullptr);
  ASSERT_FALSE(bool(read));
  EXPECT_NE(llvm::toString(read.takeError())
                .find("was left open by a ptxbench run (still running, or "
                      "killed)"),
            std::string::npos);
  // The store with its log is whole: the resume reads every row.
  auto resumed = ResultsStore::open(original, Mode::Read, nullptr);
  ASSERT_TRUE(bool(resumed)) << llvm::toString(resumed.takeError());
  EXPECT_EQ((*resumed)->all()->size(), 1u);
}

TEST_F(ResultsStoreTest, AClosedStoreIsOneFile) {
  std::string original = file("r.sqlite"), copy = file("copy.sqlite");
  {
    auto store = ResultsStore::open(original, Mode::Create, nullptr);
    ASSERT_TRUE(bool(store));
    ASSERT_FALSE(bool((*store)->put(record("s0"))));
  }
  EXPECT_FALSE(llvm::sys::fs::exists(original + "-wal"));
  ASSERT_FALSE(llvm::sys::fs::copy_file(original, copy));
  auto read = ResultsStore::open(copy, Mode::Read, nullptr);
  ASSERT_TRUE(bool(read)) << llvm::toString(read.takeError());
  EXPECT_EQ((*read)->all()->size(), 1u);
}

TEST_F(ResultsStoreTest, AForeignDatabaseIsNeitherReadNorWritten) {
  std::string foreign = file("foreign.sqlite");
  sql(foreign, "CREATE TABLE t (x); INSERT INTO t VALUES (1);");
  for (Mode mode : {Mode::Create, Mode::Write, Mode::Read}) {
    auto store = ResultsStore::open(foreign, mode, nullptr);
    ASSERT_FALSE(bool(store));
    std::string why = llvm::toString(store.takeError());
    EXPECT_NE(why.find("is a SQLite database but not a ptxbench results "
                       "store (no ptxbench schema marker; its tables: t)"),
              std::string::npos)
        << why;
  }
  EXPECT_EQ(sql(foreign, "SELECT name FROM sqlite_master"), "t\n");
  EXPECT_FALSE(llvm::sys::fs::exists(foreign + "-lock"));
  // Another application's marker is named.
  std::string other = file("other.sqlite");
  sql(other, "PRAGMA application_id=1234; CREATE TABLE samples (x);"
             "CREATE TABLE schema_version (version);");
  auto store = ResultsStore::open(other, Mode::Create, nullptr);
  ASSERT_FALSE(bool(store));
  EXPECT_NE(
      llvm::toString(store.takeError()).find("its application id is 0x4d2"),
      std::string::npos);
}

TEST_F(ResultsStoreTest, AVersionOneStoreIsReadAsItIsAndMigratedByAWriter) {
  std::string v1 = file("v1.sqlite");
  sql(v1, "CREATE TABLE schema_version (version INTEGER NOT NULL);"
          "INSERT INTO schema_version VALUES (1);" +
              olderSamplesTable(/*reuseKey=*/false) +
              "INSERT INTO samples (model, context, task, sample_id, turn, status,"
          " run_status, recorded_at) VALUES"
          " ('m', 'none', 't', 's0', 0, 'analyzed', 'PASSED', 1);");
  std::string before = sql(v1, "SELECT sql FROM sqlite_master");
  {
    auto store = ResultsStore::open(v1, Mode::Read, nullptr);
    ASSERT_TRUE(bool(store)) << llvm::toString(store.takeError());
    auto rows = (*store)->all();
    ASSERT_EQ(rows->size(), 1u);
    EXPECT_EQ(rows->front().runStatus, "PASSED");
    EXPECT_EQ(rows->front().reuseKey, "");
    llvm::Error readOnly = (*store)->put(record("s1"));
    EXPECT_TRUE(bool(readOnly));
    llvm::consumeError(std::move(readOnly));
  }
  EXPECT_EQ(sql(v1, "SELECT sql FROM sqlite_master"), before);
  EXPECT_EQ(sql(v1, "PRAGMA application_id"), "0\n");
  {
    auto store = ResultsStore::open(v1, Mode::Write, nullptr);
    ASSERT_TRUE(bool(store)) << llvm::toString(store.takeError());
    ASSERT_FALSE(bool((*store)->put(record("s1", "PASSED", "k"))));
  }
  EXPECT_EQ(sql(v1, "SELECT version FROM schema_version"), "3\n");
  EXPECT_EQ(sql(v1, "PRAGMA application_id"),
            std::to_string(ResultsStore::applicationId) + "\n");
  EXPECT_EQ(sql(v1, "SELECT sample_id, reuse_key FROM samples ORDER BY id"),
            "s0|\ns1|k\n");
}

TEST_F(ResultsStoreTest, AVersionTwoStoreGainsTheUsageColumnsWhenWritten) {
  std::string v2 = file("v2.sqlite");
  sql(v2, "PRAGMA application_id=1347704898;"
          "CREATE TABLE schema_version (version INTEGER NOT NULL);"
          "INSERT INTO schema_version VALUES (2);" +
              olderSamplesTable(/*reuseKey=*/true) +
              "CREATE TABLE store_state (name TEXT PRIMARY KEY, value TEXT NOT "
          "NULL);"
          "INSERT INTO store_state VALUES ('closed_cleanly', '1');"
          "INSERT INTO samples (model, context, task, sample_id, turn, status,"
          " recorded_at) VALUES ('m', 'none', 't', 's0', 0, 'analyzed', 1);");
  {
    auto store = ResultsStore::open(v2, Mode::Read, nullptr);
    ASSERT_TRUE(bool(store)) << llvm::toString(store.takeError());
    auto rows = (*store)->all();
    ASSERT_TRUE(bool(rows)) << llvm::toString(rows.takeError());
    ASSERT_EQ(rows->size(), 1u);
    EXPECT_FALSE(rows->front().generation.known());
  }
  EXPECT_EQ(sql(v2, "SELECT version FROM schema_version"), "2\n");
  {
    auto store = ResultsStore::open(v2, Mode::Write, nullptr);
    ASSERT_TRUE(bool(store)) << llvm::toString(store.takeError());
    SampleRecord r = record("s1");
    r.generation = {1200, 300, 120, 200, 0.0125, 4.5, "reported"};
    ASSERT_FALSE(bool((*store)->put(r)));
    auto back = (*store)->get(r.key);
    ASSERT_TRUE(back && *back);
    const GenerationUsage &g = (*back)->generation;
    EXPECT_EQ(g.inputTokens, 1200);
    EXPECT_EQ(g.outputTokens, 300);
    EXPECT_EQ(g.reasoningTokens, 120);
    EXPECT_EQ(g.cachedTokens, 200);
    EXPECT_DOUBLE_EQ(g.costUsd, 0.0125);
    EXPECT_DOUBLE_EQ(g.latencySeconds, 4.5);
    EXPECT_EQ(g.source, "reported");
  }
  EXPECT_EQ(sql(v2, "SELECT version FROM schema_version"), "3\n");
  EXPECT_EQ(sql(v2, "SELECT sample_id, input_tokens, usage_source FROM "
                    "samples ORDER BY id"),
            "s0|0|\ns1|1200|reported\n");
}

TEST_F(ResultsStoreTest, ASecondWriterWaitsForTheFirstAndSaysSo) {
  std::string path = file("r.sqlite");
  auto first = ResultsStore::open(path, Mode::Create, nullptr);
  ASSERT_TRUE(bool(first));
  std::string notes;
  llvm::raw_string_ostream log(notes);
  std::atomic<bool> opened{false};
  std::thread second([&] {
    auto store = ResultsStore::open(path, Mode::Create, &log);
    EXPECT_TRUE(bool(store));
    if (!store)
      llvm::consumeError(store.takeError());
    opened = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_FALSE(opened);
  // A reader does not wait.
  EXPECT_TRUE(bool(ResultsStore::open(path, Mode::Read, nullptr)));
  first->reset();
  second.join();
  EXPECT_TRUE(opened);
  EXPECT_NE(notes.find("waiting for the other ptxbench writing"),
            std::string::npos)
      << notes;
  EXPECT_NE(notes.find("pid "), std::string::npos) << notes;
}

TEST_F(ResultsStoreTest, OnlyARunThatRanItselfAndDependsOnNoPositionIsReused) {
  auto store = ResultsStore::open(file("r.sqlite"), Mode::Create, nullptr);
  ASSERT_TRUE(bool(store));
  ASSERT_FALSE(bool((*store)->put(record("plan", "PLAN_ERROR", "k"))));
  ASSERT_FALSE(bool((*store)->put(record("harness", "HARNESS_ERROR", "k"))));
  SampleRecord copied = record("copied", "PASSED", "k");
  copied.reusedFrom = "m/none/t/elsewhere@0";
  ASSERT_FALSE(bool((*store)->put(copied)));
  ASSERT_FALSE(bool((*store)->put(record("other", "PASSED", "other-key"))));
  auto none = (*store)->findReusable("k");
  ASSERT_TRUE(bool(none));
  EXPECT_FALSE(bool(*none));
  ASSERT_FALSE(bool((*store)->put(record("ran", "INCORRECT", "k"))));
  auto found = (*store)->findReusable("k");
  ASSERT_TRUE(found && *found);
  EXPECT_EQ((*found)->key.sampleId, "ran");
  auto empty = (*store)->findReusable("");
  EXPECT_TRUE(empty && !*empty);
}

} // namespace
