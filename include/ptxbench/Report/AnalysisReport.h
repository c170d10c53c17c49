//===- AnalysisReport.h - What `ptxbench analyze` found ---------*- C++ -*-===//
//
// The answer to "does this kernel really use the requested architecture-
// specific instructions": per kernel, the feature families with counts,
// reachability and SASS confirmation, each requested family's verdict,
// the fallback findings with PTX and CUDA locations, ptxas's resources and
// performance warnings. Built from a ptx.module by buildReport(), printed
// as text, JSON (docs/analyze.md documents the schema) or SARIF 2.1.0.
// Plain data: later tools (eval, feedback, fixit) read it without MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_REPORT_ANALYSISREPORT_H
#define PTXBENCH_REPORT_ANALYSISREPORT_H

#include "ptxbench/Toolchain/PtxasLog.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

namespace ptxbench::report {

struct SourceLocation {
  std::string file;
  unsigned line = 0;
  unsigned column = 0;
};

/// One finding tied to a place: a fallback, a target violation, a ptxas
/// warning, an assembly error.
struct Finding {
  enum class Level { Note, Warning, Error };
  Level level = Level::Warning;
  /// A stable identifier: a fallback kind (cp-async-instead-of-tma),
  /// "target", "ptxas-<class>" (ptxas-wgmma-serialized), "assembly".
  std::string kind;
  std::string message;
  /// The architecture-specific alternative, for fallbacks.
  std::string alternative;
  std::optional<SourceLocation> ptx;
  std::optional<SourceLocation> source;
};

struct FamilyUse {
  std::string family;
  unsigned count = 0;
  unsigned reachable = 0;
  /// SASS instructions confirming the family, when --sass ran.
  std::optional<unsigned> sass;
};

/// A requested family's verdict in a kernel.
enum class Verdict { Used, Missing, Unreachable, Serialized };
llvm::StringRef verdictName(Verdict verdict);

struct KernelReport {
  std::string name;
  std::vector<FamilyUse> features;
  /// In the order requested.
  std::vector<std::pair<std::string, Verdict>> requested;
  std::vector<Finding> fallbacks;
  std::optional<toolchain::KernelResources> resources;
  std::vector<Finding> ptxasWarnings;
};

struct AnalysisReport {
  std::string file;
  std::string arch;
  std::vector<std::string> requested;
  std::vector<KernelReport> kernels;
  /// Findings not tied to a kernel (target violations, assembly errors).
  std::vector<Finding> moduleFindings;
  /// Whether the module assembled for `arch`, and why not.
  bool assembled = false;
  std::string assemblyNote;
  /// Whether machine code was checked, and why not.
  bool sassChecked = false;
  std::string sassNote;

  /// The requested set as a whole: "used" when every requested family is
  /// used by some kernel, "serialized" when all are used but some only
  /// serialized, "partial" when some are, "missing" when none is, and
  /// "none-requested".
  std::string verdict() const;
};

llvm::json::Value toJSON(const AnalysisReport &report);
/// SARIF 2.1.0: one run of tool "ptxbench", one result per finding.
llvm::json::Value toSARIF(const AnalysisReport &report);
/// One line per finding, `file:line:col: level: [kind] message`, then a
/// summary per kernel. `color` adds terminal colours.
void printText(const AnalysisReport &report, llvm::raw_ostream &os,
               bool color);

} // namespace ptxbench::report

#endif // PTXBENCH_REPORT_ANALYSISREPORT_H
