//===- TaskSolutions.h - What Fixit needs from a task folder ----*- C++ -*-===//
//
// The task's summary for a system prompt (its description and requested
// families for an arch), and its expert solution: the file that
// `tasks/<task>/solutions/manifest.json` marks as expert, analyzed like a
// sample. The manifest is `{"solutions": [{"file": "x.cu", "kind":
// "expert"}, ...]}` (a bare list, or `"expert": true`, also work).
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_EVAL_TASKSOLUTIONS_H
#define PTXBENCH_EVAL_TASKSOLUTIONS_H

#include "ptxbench/Eval/Sample.h"

#include "llvm/Support/Error.h"

#include <optional>

namespace ptxbench::eval {

/// "Task NAME on ARCH: DESCRIPTION Use the architecture-specific ...".
std::string taskSummary(llvm::StringRef tasksDir, llvm::StringRef task,
                        llvm::StringRef arch);

/// The expert solution of `task`, analyzed for `arch`; std::nullopt when the
/// task has no manifest or it marks no expert file that exists. Errors name
/// the manifest (bad JSON) or the solution (does not compile).
llvm::Expected<std::optional<SampleRecord>>
expertSolution(llvm::StringRef tasksDir, llvm::StringRef task,
               llvm::StringRef arch);

} // namespace ptxbench::eval

#endif // PTXBENCH_EVAL_TASKSOLUTIONS_H
