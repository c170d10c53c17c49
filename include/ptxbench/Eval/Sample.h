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
constexpr llvm::StringLiteral ImportError = "import_error";
constexpr llvm::StringLiteral Analyzed = "analyzed";
} // namespace status

/// One row of the results store.
struct SampleRecord {
  int64_t id = 0; // the store's row id (0 before it is stored)
  SampleKey key;
  std::string solutionPath;
  std::string language; // "cu" or "ptx"
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
  /// The key of the sample whose identical code (same canonical hash) was
  /// evaluated in its place; empty when evaluated itself.
  std::string reusedFrom;
  double staticSeconds = 0, runSeconds = 0;
  std::string environmentJson;
  int64_t recordedAtMs = 0; // Unix time of the write

  bool analyzed() const { return status == status::Analyzed; }
  bool ran() const { return !runStatus.empty(); }
};

/// A JSON column of the store (an analysis report, a run result), or none
/// when it is empty or not JSON.
std::optional<llvm::json::Value> parseStoredJson(llvm::StringRef text);

} // namespace ptxbench::eval

#endif // PTXBENCH_EVAL_SAMPLE_H
