//===- Sample.h - One evaluated sample: its key and its record --*- C++ -*-===//
//
// A sample is one submission of one model for one task: the key names it
// (model, context level, task, sample id, turn), the record holds everything
// `ptxbench eval` learned about it (the code, its canonical hash, the static
// verdict as the analysis report's JSON, the run result's JSON, timings and
// the environment). Records are rows of the results store (ResultsStore.h);
// the report and Fixit read them without MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_EVAL_SAMPLE_H
#define PTXBENCH_EVAL_SAMPLE_H

#include "ptxbench/Report/AnalysisReport.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>

namespace ptxbench::eval {

struct SampleKey {
  std::string model, context, task, sampleId;
  int64_t turn = 0;

  /// `model/context/task/sample_id@turn`, the form the tools print and
  /// `ptxbench report --sample` accepts.
  std::string str() const;
  /// Parses str()'s form; false when it is not one.
  static bool parse(llvm::StringRef text, SampleKey &key);

  auto tie() const { return std::tie(model, context, task, sampleId, turn); }
  bool operator<(const SampleKey &o) const { return tie() < o.tie(); }
  bool operator==(const SampleKey &o) const { return tie() == o.tie(); }
};

/// The static statuses, in the order they are reached.
namespace status {
constexpr llvm::StringLiteral NoSolution = "no_solution";
constexpr llvm::StringLiteral ExtractError = "extract_error";
constexpr llvm::StringLiteral TaskError = "task_error";
constexpr llvm::StringLiteral CompileError = "compile_error";
/// A Triton answer refused before it compiled: host code, imports other
/// than Triton's or autotuning in its source (nothing of it ran), or a
/// program, socket or write outside its folder tried while it ran.
constexpr llvm::StringLiteral Refused = "refused";
constexpr llvm::StringLiteral ImportError = "import_error";
constexpr llvm::StringLiteral Analyzed = "analyzed";
/// The static analysis itself died on the sample (a signal, its time or
/// memory limit): a fault of ptxbench's, not a verdict on the code.
constexpr llvm::StringLiteral Crashed = "crashed";
} // namespace status

/// What the model's answer cost, from the `generation.json` that
/// `ptxbench generate` wrote beside it: tokens (input counts cached ones,
/// output counts reasoning ones), US dollars and seconds, the failed
/// attempts of the turn included.
struct GenerationUsage {
  int64_t inputTokens = 0, outputTokens = 0, reasoningTokens = 0,
          cachedTokens = 0;
  double costUsd = 0, latencySeconds = 0;
  /// "reported" (the server's usage), "estimated" (some of it estimated by
  /// ptxbench); empty when the sample has no generation.json.
  std::string source;
  bool known() const { return !source.empty(); }
};

/// One row of the results store.
struct SampleRecord {
  int64_t id = 0; // the store's row id (0 before it is stored)
  SampleKey key;
  std::string solutionPath;
  std::string language; // "cu", "ptx" or "py" (Triton)
  std::string code;
  std::string canonicalHash; // empty when the code did not import
  std::string arch, shapes;
  /// One of the static statuses above.
  std::string status;
  /// The run's worst status (PASSED, INCORRECT, NO_GPU, ...); empty when
  /// not run.
  std::string runStatus;
  /// The AnalysisReport as JSON (docs/analyze.md), when analyzed.
  std::string staticJson;
  /// Compiler messages as a JSON array of {line, error, text}.
  std::string diagnosticsJson;
  /// Why the status is not `analyzed`, in words.
  std::string error;
  /// `ptxbench run --json`'s output, when run.
  std::string runJson;
  /// The key of the sample whose run this row took (same reuse key);
  /// empty when it ran itself or was not run.
  std::string reusedFrom;
  /// What a run of this sample reads, hashed (reuseKey() in Sweep.h): the
  /// canonical kernels, the normalized launch plan, the task file, arch,
  /// shapes and the harness settings. Rows with equal keys may share a run;
  /// empty when the sample cannot share one (its plan does not parse).
  std::string reuseKey;
  double staticSeconds = 0, runSeconds = 0;
  std::string environmentJson;
  /// Tokens, cost and latency of the answer (schema version 3).
  GenerationUsage generation;
  int64_t recordedAtMs = 0; // Unix time of the write

  bool analyzed() const { return status == status::Analyzed; }
  /// The name the code goes by in messages, and in everything that may
  /// reach a model: the solution file's name, without its folder, or
  /// `solution.cu`/`solution.ptx` for code extracted from a response.md.
  std::string sourceName() const;
  bool ran() const { return !runStatus.empty(); }
};

/// Whether a run that ended with `runStatus` may stand for another sample
/// with the same reuse key: not when it depends on where the text sits
/// (PLAN_ERROR and COMPILE_ERROR name lines and columns) or on the
/// machine rather than the submission (HARNESS_ERROR), or when there was
/// no run.
bool reusableRun(llvm::StringRef runStatus);

/// `json` (a stored JSON text) with every mention of the file `from`, as
/// JSON writes it, replaced by `to`: a run result made for one file, told
/// of another.
std::string renameInJson(llvm::StringRef json, llvm::StringRef from,
                         llvm::StringRef to);

/// A JSON column of the store (an analysis report, a run result), or none
/// when it is empty or not JSON.
std::optional<llvm::json::Value> parseStoredJson(llvm::StringRef text);

/// The store's analysis report (static_json), read back within
/// report::ReportLimits; none when it is empty or not a readable report (a
/// row written by anyone is never trusted to be one).
std::optional<report::AnalysisReport> parseStoredReport(llvm::StringRef text);

} // namespace ptxbench::eval

#endif // PTXBENCH_EVAL_SAMPLE_H
