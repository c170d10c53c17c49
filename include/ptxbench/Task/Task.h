//===- Task.h - A benchmark task: tensors, shapes, checks -------*- C++ -*-===//
//
// A task is data (tasks/<name>/task.json; docs/tasks.md describes the
// format and tasks/task.schema.json is its JSON Schema): its shape
// parameters, tensors with shape expressions, role and input distribution,
// development and held-out workloads, tolerances, FLOP and byte counts, the
// built-in reference, the baseline library and the requested feature
// families per architecture.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_TASK_TASK_H
#define PTXBENCH_TASK_TASK_H

#include "ptxbench/Task/Expr.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/JSON.h"

#include <map>
#include <optional>

namespace ptxbench::runtime {

/// Element types. The order is the code the harness's own kernels use.
enum class DType { BF16, F16, F32, I32, E4M3 };
llvm::StringRef dtypeName(DType dtype);
std::optional<DType> parseDType(llvm::StringRef name);
unsigned dtypeSize(DType dtype);
/// Triton's name of an element type (`bf16`, `fp32`, `fp8e4nv`); a task
/// tensor is a pointer to it (`*bf16`).
llvm::StringRef tritonTypeName(DType dtype);

enum class Role { Input, Output };

/// How inputs are drawn. `spiky` is normal(mean, std) where a fraction
/// `spikeProb` of the values is multiplied by `spikeScale`; `ints` is
/// uniform over the integers [low, high]; `derived` inputs are computed by
/// the task's reference from the other inputs (the forward output O and LSE
/// an attention backward task is given); `permutation` (i32 only) holds each
/// of 0 .. n-1 once, n the tensor's element count, in a scrambled order (a
/// page table that names every page once).
struct Distribution {
  enum class Kind {
    Normal,
    Uniform,
    Ints,
    Spiky,
    Derived,
    Permutation
  } kind = Kind::Normal;
  double mean = 0, std = 1;  // normal, spiky
  double low = -1, high = 1; // uniform, ints
  double spikeProb = 1e-3, spikeScale = 100;
};

struct TensorSpec {
  std::string name;
  DType dtype = DType::F32;
  std::vector<Expr> shape; // outermost first, row-major
  Role role = Role::Input;
  Distribution dist;
};

struct Tolerance {
  double atol = 0, rtol = 0;
};

struct Workload {
  std::string name;
  Bindings params;
};

/// A reference given as Python ("reference": "python", docs/tasks.md): a
/// module beside task.json whose entry function takes the task's inputs,
/// parameters and constants by name and returns its outputs, computed in a
/// contained child (Reference/PythonReference.h).
struct PythonReference {
  /// The module's path (the task's folder joined with "module").
  std::string module;
  std::string entry = "run";
  /// The precision float inputs are widened to: fp64 (default) or fp32.
  bool f64 = true;
  /// Values the entry function is called with beyond tensors and
  /// parameters (a softmax scale): numbers or booleans.
  std::map<std::string, llvm::json::Value> constants;
};

struct Task {
  std::string name;
  /// The family the task is a variant of ("gqa_paged_decode"); empty when
  /// it stands alone. `heldoutVariant`: a variant no development data may
  /// come from (a head dimension, a page size, a head ratio), for
  /// `fixit --heldout-tasks` and `report --compare`.
  std::string family;
  bool heldoutVariant = false;
  std::string description;
  std::string dir; // the folder of task.json
  std::vector<std::string> params;
  std::vector<TensorSpec> tensors;
  std::vector<Workload> dev, heldout;
  /// Per-element tolerance per output dtype; absent = no elementwise check.
  std::map<DType, Tolerance> tolerances;
  /// Relative L2 norm bound; absent = not checked.
  std::optional<double> relL2;
  unsigned trials = 1;
  Expr flops, bytes;
  /// Built-in reference and baseline (e.g. "cublaslt_gemm", or "none"),
  /// each over tensors named in `operands` (docs/harness.md):
  ///   gemm:          a, b, c, optional scale_a, scale_b (one-element f32);
  ///   rmsnorm:       x, w, y (y[T,H] = x / sqrt(mean(x^2) + eps) * w);
  ///   attention_fwd: q, k, v -> o, lse ([B,H,S,D] and [B,H,S]);
  ///   attention_bwd: q, k, v, o, lse, do -> dq, dk, dv.
  std::string reference, baseline;
  llvm::StringMap<std::string> operands;
  /// Set when "reference" is "python".
  std::optional<PythonReference> python;
  /// The layout of operand b: false = [K, N] (C = A*B), true = [N, K]
  /// (C = A*B^T, "operands": {"b_layout": "nk"}), the usual layout of a
  /// model layer's weight.
  bool bTransposed = false;
  /// rmsnorm's epsilon ("operands": {"eps": 1e-6}).
  double eps = 1e-6;
  /// The attention tasks' causal switch: the parameter that is 1 for a
  /// causal (top-left aligned) mask, 0 for none ("operands": {"causal":
  /// "CAUSAL"}); empty = never causal.
  std::string causalParam;
  /// Requested feature families per architecture (e.g. sm_90a).
  std::map<std::string, std::vector<std::string>> features;
  /// Families a good solution may also use (e.g. setmaxnreg), per
  /// architecture: shown to models, not required ("encouraged" in JSON).
  std::map<std::string, std::vector<std::string>> encouraged;
  /// The share of the task's work a requested family must do to count as
  /// used at run time ("credit" in task.json): of the FLOPs for matrix
  /// families (wgmma, mma_sync, wmma, tcgen05, tmem), of the bytes loaded
  /// from global memory for tma, bulk_copy and mbarrier_tx.
  double creditFlops = 0.9, creditBytes = 0.5;
  /// The accumulator precision the task requires ("accumulate": "f32"
  /// flags f16 accumulators of mma/wmma/wgmma); "any" or empty: none.
  std::string accumulate;
  struct Timing {
    unsigned warmup = 3, minSamples = 10, maxSamples = 100;
    double maxSeconds = 2.0, targetRse = 0.005;
  } timing;

  int tensorIndex(llvm::StringRef name) const;
  /// The tensor's shape for one workload.
  llvm::Expected<std::vector<int64_t>> shapeOf(unsigned tensor,
                                               const Bindings &params) const;
};

/// One thing wrong with a task file: the file, the JSON path of the value
/// ("tensors[1].dtype", "workloads.dev[0].M"; "(top)" for the document
/// itself; "[line:col, byte=N]" for a syntax error; empty when the file
/// cannot be read) and what is wrong, saying what is expected.
struct TaskDiagnostic {
  std::string file, path, message;
  /// The place in the file, when known (a JSON syntax error, a duplicate
  /// key); 0 otherwise.
  unsigned line = 0, column = 0;
  /// "file:line:col: path: message", without the parts that are not known.
  std::string str() const;
};

/// A diagnostic for `file` from parseJSON()'s error.
TaskDiagnostic jsonDiagnostic(llvm::StringRef file, llvm::Error error);

/// A task file read in full: every problem, not only the first; `task` is
/// set exactly when there is none.
struct TaskCheck {
  std::string file;
  std::optional<Task> task;
  std::vector<TaskDiagnostic> diagnostics;
};

/// The largest task file read: the suite's are a few KiB, and what a task
/// file holds (JSON values, expression trees) takes many times its size.
constexpr size_t kMaxTaskBytes = size_t(1) << 20;
/// The largest Python reference module a task may name (its loader and
/// the harness that copies it for the child both check).
constexpr uint64_t kMaxModuleBytes = uint64_t(1) << 20;

/// Reads `path` (a task.json or a folder holding one) and reports all that
/// is wrong with it.
TaskCheck checkTask(llvm::StringRef path);
/// Reads task JSON text; `fileName` names it in diagnostics.
TaskCheck checkTaskText(llvm::StringRef text, llvm::StringRef fileName);

/// Checks a solutions/manifest.json (docs/tasks.md): every problem, with its
/// JSON path, including tasks and solution files that do not exist;
/// `tasksDir` is where the tasks it lists are. Empty when all is well.
std::vector<TaskDiagnostic> checkSolutionManifest(llvm::StringRef manifest,
                                                  llvm::StringRef tasksDir);

/// Loads `path` (a task.json or a folder holding one). The error holds every
/// diagnostic of checkTask, one per line.
llvm::Expected<Task> loadTask(llvm::StringRef path);
/// Parses task JSON text; `fileName` names it in errors.
llvm::Expected<Task> parseTask(llvm::StringRef text, llvm::StringRef fileName);

/// The workloads of a selection: "dev", "heldout", "all" or one workload's
/// name.
llvm::Expected<std::vector<Workload>> selectWorkloads(const Task &task,
                                                      llvm::StringRef which);

} // namespace ptxbench::runtime

#endif // PTXBENCH_TASK_TASK_H
