//===- task-import-fuzzer.cpp - libFuzzer target: FlashInfer-Trace import -===//
//
// `ptxbench tasks import` on arbitrary bytes: the input up to its first
// NUL byte is the definition, the rest the workload rows
// (importFlashInferTrace), and the key-order scan on the definition alone.
// Checked besides crashes: a task is written exactly when there is no
// problem, no problem is empty, and a task written is a task the loader
// parses (its reference module aside: the loader is given none here, so
// only that diagnostic may appear).
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Reference/FlashInferImport.h"
#include "ptxbench/Task/Task.h"

#include <cstdio>
#include <cstdlib>

using namespace ptxbench;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  auto [def, rows] = text.split('\0');
  (void)reference::keysInOrder(def, "inputs");
  reference::ImportResult result =
      reference::importFlashInferTrace(def, "def.json", rows, "rows.jsonl");
  if (result.task.has_value() == !result.problems.empty()) {
    fprintf(stderr, "task-import-fuzzer: %s\n",
            result.task ? "a task written with problems"
                        : "no task and no problem");
    abort();
  }
  for (const reference::ImportMessage &p : result.problems)
    if (p.message.empty()) {
      fprintf(stderr, "task-import-fuzzer: an empty problem at %s\n",
              p.str().c_str());
      abort();
    }
  if (!result.task)
    return 0;
  runtime::TaskCheck check =
      runtime::checkTaskText(result.task->taskJSON, "/nonexistent/t/task.json");
  for (const runtime::TaskDiagnostic &d : check.diagnostics)
    if (d.path != "python.module") {
      fprintf(stderr,
              "task-import-fuzzer: the imported task does not load: "
              "%s\n",
              d.str().c_str());
      abort();
    }
  return 0;
}
