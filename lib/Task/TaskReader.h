//===- TaskReader.h - Reading task.json, all problems at once ---*- C++ -*-===//
//
// The task loader's private interface, shared by the files that read one
// part of a task each (TaskLoader.cpp: the document and its small sections;
// TaskTensors.cpp; TaskWorkloads.cpp; TaskChecks.cpp; TaskReferences.cpp). A
// TaskReader walks the JSON and records every problem as a TaskDiagnostic with
// the JSON path of the value and what was expected, then goes on, so one run
// reports everything wrong with a file. Accessors return nothing when a value
// is missing or malformed; the caller then skips the checks that depend on it,
// so a mistake is not reported again by every check downstream of it.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_LIB_RUNTIME_TASKREADER_H
#define PTXBENCH_LIB_RUNTIME_TASKREADER_H

#include "ptxbench/Task/Task.h"

#include "llvm/Support/JSON.h"

namespace ptxbench::runtime {

/// "parent.key", or "key" at the top level (parent "").
std::string joinPath(llvm::StringRef parent, llvm::StringRef key);
/// "parent[index]".
std::string indexPath(llvm::StringRef parent, size_t index);
/// A number as a user would write it: "0.5", "1e-06", "3".
std::string numberText(double value);
/// What a JSON value is, for "got ..." in messages: "a string", "an array".
llvm::StringRef kindOf(const llvm::json::Value &value);

/// The task's parameter names, or null where "params" is malformed (then
/// no name is reported as unknown).
using Params = std::vector<std::string>;

class TaskReader {
public:
  TaskReader(llvm::StringRef file, std::vector<TaskDiagnostic> &diagnostics)
      : file(file.str()), diagnostics(diagnostics) {}

  llvm::StringRef fileName() const { return file; }
  /// Records a problem with the value at `path`.
  void error(const llvm::Twine &path, const llvm::Twine &message);
  size_t errorCount() const { return diagnostics.size(); }

  /// `value` as an object, else an error "expected an object (what)".
  const llvm::json::Object *asObject(const llvm::json::Value &value,
                                     const llvm::Twine &path,
                                     llvm::StringRef what);
  /// o[key]: nullptr and an error when it is missing (and required) or of
  /// the wrong type. `what` says what the value is for in messages.
  const llvm::json::Object *object(const llvm::json::Object &o,
                                   llvm::StringRef key, llvm::StringRef parent,
                                   bool required, llvm::StringRef what);
  /// An array with at least `minItems` elements.
  const llvm::json::Array *array(const llvm::json::Object &o,
                                 llvm::StringRef key, llvm::StringRef parent,
                                 bool required, size_t minItems,
                                 llvm::StringRef what);
  /// A string; std::nullopt when missing (with an error when required) or
  /// not a string.
  std::optional<std::string> string(const llvm::json::Object &o,
                                    llvm::StringRef key, llvm::StringRef parent,
                                    bool required, llvm::StringRef what);
  /// A string that must be one of `allowed`; `dflt` when absent.
  std::optional<std::string> oneOf(const llvm::json::Object &o,
                                   llvm::StringRef key, llvm::StringRef parent,
                                   llvm::ArrayRef<llvm::StringRef> allowed,
                                   std::optional<llvm::StringRef> dflt);
  /// A number in [min, max] (`minExclusive`: (min, max]); `dflt` when absent
  /// and std::nullopt when malformed.
  std::optional<double> number(const llvm::json::Object &o, llvm::StringRef key,
                               llvm::StringRef parent, double dflt, double min,
                               double max, bool minExclusive = false);
  /// An integer in [min, max]; `dflt` when absent.
  std::optional<int64_t> integer(const llvm::json::Object &o,
                                 llvm::StringRef key, llvm::StringRef parent,
                                 int64_t dflt, int64_t min, int64_t max);
  /// An integer expression (a string or an integer) whose names are all in
  /// `params`; `params` null: names are not checked (the parameters
  /// themselves were malformed).
  std::optional<Expr> expr(const llvm::json::Value &value,
                           const llvm::Twine &path, const Params *params);
  /// An error for every key of `o` not in `known`.
  void unknownKeys(const llvm::json::Object &o, llvm::StringRef parent,
                   llvm::ArrayRef<llvm::StringRef> known);

  /// The whole task (TaskLoader.cpp); std::nullopt when anything is wrong.
  std::optional<Task> read(const llvm::json::Value &root);

  /// "tensors" (TaskTensors.cpp). Returns false when the list itself is
  /// missing or a tensor's name is unusable: operands cannot be resolved.
  /// `complete[i]` says whether tensor i's dtype, shape and role are valid.
  bool readTensors(const llvm::json::Object &top, const Params *params,
                   Task &task, std::vector<bool> &complete);
  /// "workloads" (TaskWorkloads.cpp), named, and evaluated against the
  /// shapes of the complete tensors.
  void readWorkloads(const llvm::json::Object &top, const Params *params,
                     const std::vector<bool> &complete, Task &task);
  /// "check" (TaskChecks.cpp), with a tolerance for the dtype of every
  /// complete output.
  /// Each tensor of `workload` (at `path`) is at most 2^40 bytes.
  void checkTensorSizes(llvm::StringRef path, const Workload &workload,
                        const std::vector<bool> &complete, const Task &task);
  /// "flops" and "bytes" evaluate (no division by zero, no overflow) to a
  /// count >= 0 for every workload.
  void checkWorkCounts(const Task &task);
  void readChecks(const llvm::json::Object &top,
                  const std::vector<bool> &complete, Task &task);
  /// "timing" and "credit" (TaskChecks.cpp).
  void readTiming(const llvm::json::Object &top, Task &task);
  /// "reference", "baseline" and "operands" (TaskReferences.cpp).
  void readReference(const llvm::json::Object &top, bool tensorsResolvable,
                     const std::vector<bool> &complete, Task &task);

private:
  std::string file;
  std::vector<TaskDiagnostic> &diagnostics;
};

} // namespace ptxbench::runtime

#endif // PTXBENCH_LIB_RUNTIME_TASKREADER_H
