//===- SQLiteStatement.h - A prepared sqlite3 statement ---------*- C++ -*-===//
//
// The one helper the results store's files share: a prepared statement that
// is finalized on scope exit, with bound text and text columns. Private to
// lib/Eval.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_LIB_EVAL_SQLITESTATEMENT_H
#define PTXBENCH_LIB_EVAL_SQLITESTATEMENT_H

#include "llvm/ADT/StringRef.h"

#include <sqlite3.h>
#include <string>

namespace ptxbench::eval {

struct Statement {
  sqlite3_stmt *stmt = nullptr;
  Statement() = default;
  /// Prepares `sql` on `db`; `ok()` says whether it worked.
  Statement(sqlite3 *db, llvm::StringRef sql) {
    sqlite3_prepare_v2(db, sql.data(), int(sql.size()), &stmt, nullptr);
  }
  Statement(const Statement &) = delete;
  Statement &operator=(const Statement &) = delete;
  ~Statement() { sqlite3_finalize(stmt); }
  bool ok() const { return stmt; }
  void text(int i, llvm::StringRef s) {
    sqlite3_bind_text(stmt, i, s.data(), int(s.size()), SQLITE_TRANSIENT);
  }
  std::string column(int i) {
    const unsigned char *t = sqlite3_column_text(stmt, i);
    return t ? std::string(reinterpret_cast<const char *>(t),
                           sqlite3_column_bytes(stmt, i))
             : std::string();
  }
};

} // namespace ptxbench::eval

#endif // PTXBENCH_LIB_EVAL_SQLITESTATEMENT_H
