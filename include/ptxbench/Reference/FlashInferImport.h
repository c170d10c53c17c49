//===- FlashInferImport.h - FlashInfer-Trace definitions as tasks -*- C++
//-*-===//
//
// `ptxbench tasks import DEF.json WORKLOADS.jsonl` turns a FlashInfer-Trace
// definition (a JSON object: name, op_type, axes, inputs, outputs, a Python
// reference with a `run` function, description, tags, constraints) and its
// workload rows (JSON lines: definition, workload.axes, workload.inputs,
// workload.uuid) into a ptxbench task with a Python reference: axes become
// parameters (a const axis is bound to its value in every workload), inputs
// and outputs become tensors in the definition's order, the reference is
// kept as written (reference.py, entry `run`), a scalar input whose value
// is the same in every row becomes a constant, and each row becomes a
// workload (the last quarter held out). What has no counterpart (a dtype
// ptxbench lacks, a scalar that varies, an input read from a file, an axis
// a row leaves out) is a problem naming the file, the line and the JSON
// path; what is mapped with a loss (int64 as i32, no FLOP count) is a note.
// Both texts are untrusted: sizes, depth and row counts are bounded.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_REFERENCE_FLASHINFERIMPORT_H
#define PTXBENCH_REFERENCE_FLASHINFERIMPORT_H

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace ptxbench::reference {

/// A problem or a note: the file, the 1-based line (0: the whole file),
/// the JSON path and what is wrong or was done.
struct ImportMessage {
  std::string file;
  unsigned line = 0;
  std::string path, message;
  /// "file:line: path: message", without the parts that are not known.
  std::string str() const;
};

struct ImportedTask {
  /// task.json's text, and reference.py's.
  std::string taskJSON, referencePy;
};

struct ImportResult {
  /// Set exactly when there is no problem.
  std::optional<ImportedTask> task;
  std::vector<ImportMessage> problems, notes;
};

/// The largest definition and workloads files read, and the most rows.
constexpr size_t kMaxDefinitionBytes = size_t(1) << 20;
constexpr size_t kMaxWorkloadBytes = size_t(16) << 20;
constexpr size_t kMaxWorkloadRows = 4096;

/// Imports `definition` (named `definitionFile` in messages) and its rows
/// `workloads` (`workloadsFile`); `name` (empty: the definition's) names
/// the task.
ImportResult importFlashInferTrace(llvm::StringRef definition,
                                   llvm::StringRef definitionFile,
                                   llvm::StringRef workloads,
                                   llvm::StringRef workloadsFile,
                                   llvm::StringRef name = "");

/// The keys of the object that is the value of top-level key `key` in the
/// JSON text `text` (already parsed, so valid), in the order they are
/// written; empty when there is none.
std::vector<std::string> keysInOrder(llvm::StringRef text, llvm::StringRef key);

} // namespace ptxbench::reference

#endif // PTXBENCH_REFERENCE_FLASHINFERIMPORT_H
