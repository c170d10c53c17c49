//===- task-fuzzer.cpp - libFuzzer target: task files ---------------------===//
//
// A task.json as `ptxbench tasks check`, `run` and eval read it
// (checkTaskText: the JSON within its limits, then every key), on
// arbitrary bytes. A task that loads is then used as the harness uses it:
// every workload selected and every tensor's shape, the FLOP and byte
// counts evaluated for it. Checked besides crashes: a task loads exactly
// when there is no diagnostic, and every diagnostic says something.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Task/Task.h"

#include <cstdio>
#include <cstdlib>

using namespace ptxbench::runtime;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  TaskCheck check = checkTaskText(text, "task.json");
  if (check.task.has_value() == !check.diagnostics.empty()) {
    fprintf(stderr, "task-fuzzer: %s\n",
            check.task ? "a task loaded with diagnostics"
                       : "a task failed without a diagnostic");
    abort();
  }
  for (const TaskDiagnostic &d : check.diagnostics)
    if (d.message.empty()) {
      fprintf(stderr, "task-fuzzer: an empty diagnostic at %s\n",
              d.str().c_str());
      abort();
    }
  if (!check.task)
    return 0;
  const Task &task = *check.task;
  llvm::Expected<std::vector<Workload>> workloads =
      selectWorkloads(task, "all");
  if (!workloads) {
    llvm::consumeError(workloads.takeError());
    return 0;
  }
  for (const Workload &w : *workloads) {
    for (unsigned t = 0; t < task.tensors.size(); ++t)
      if (auto shape = task.shapeOf(t, w.params); !shape)
        llvm::consumeError(shape.takeError());
    for (const Expr &count : {task.flops, task.bytes})
      if (auto value = count.evaluate(w.params); !value)
        llvm::consumeError(value.takeError());
  }
  return 0;
}
