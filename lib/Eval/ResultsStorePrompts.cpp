//===- ResultsStorePrompts.cpp - The prompts table of the results store ---===//
//
// What `generate` sent for each tag, task, arch and language: the prompt's
// sha256 and its documents with theirs. A tag is a name a study chooses;
// recording its prompt lets a resumed or merged run refuse rows written
// under the same name from other documents.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Eval/ResultsStore.h"

#include "SQLiteStatement.h"

using namespace ptxbench::eval;
using llvm::Error;
using llvm::Expected;

Error ResultsStore::putPrompt(const PromptRow &p) {
  std::lock_guard<std::recursive_mutex> lock(mutex);
  if (mode == Mode::Read)
    return llvm::createStringError("results store '" + filePath +
                                   "' is open for reading only");
  Statement find(db, "SELECT sha256 FROM prompts WHERE context=? AND task=? "
                     "AND arch=? AND language=?");
  if (!find.ok())
    return error("cannot prepare query");
  find.text(1, p.context);
  find.text(2, p.task);
  find.text(3, p.arch);
  find.text(4, p.language);
  int rc = sqlite3_step(find.stmt);
  if (rc == SQLITE_ROW) {
    std::string old = find.column(0);
    if (old == p.sha256)
      return Error::success();
    return llvm::createStringError(
        "results store '" + filePath + "' holds samples of tag '" +
        p.context + "' for " + p.task + " on " + p.arch +
        " from another prompt (sha256 " + old.substr(0, 12) + "..., now " +
        p.sha256.substr(0, 12) +
        "...): the tag's documents changed. Give the changed tag a new name, "
        "or write into a new store and sample tree");
  }
  if (rc != SQLITE_DONE)
    return error("cannot read the prompts");
  Statement s(db, "INSERT INTO prompts VALUES (?,?,?,?,?,?)");
  if (!s.ok())
    return error("cannot prepare insert");
  s.text(1, p.context);
  s.text(2, p.task);
  s.text(3, p.arch);
  s.text(4, p.language);
  s.text(5, p.sha256);
  s.text(6, p.documentsJSON);
  if (sqlite3_step(s.stmt) != SQLITE_DONE)
    return error("cannot record the prompt");
  return Error::success();
}

Expected<std::vector<ResultsStore::PromptRow>> ResultsStore::prompts() {
  std::lock_guard<std::recursive_mutex> lock(mutex);
  std::vector<PromptRow> rows;
  // A store written before the table existed has none.
  Statement has(db, "SELECT 1 FROM sqlite_master WHERE type='table' AND "
                    "name='prompts'");
  if (!has.ok() || sqlite3_step(has.stmt) != SQLITE_ROW)
    return rows;
  Statement s(db, "SELECT context, task, arch, language, sha256, "
                  "documents_json FROM prompts ORDER BY context, task, arch, "
                  "language");
  if (!s.ok())
    return error("cannot query");
  int rc;
  while ((rc = sqlite3_step(s.stmt)) == SQLITE_ROW)
    rows.push_back({s.column(0), s.column(1), s.column(2), s.column(3),
                    s.column(4), s.column(5)});
  if (rc != SQLITE_DONE)
    return error("cannot read the prompts");
  return rows;
}
