//===- AnalysisReport.h - What `ptxbench analyze` found ---------*- C++ -*-===//
//
// The answer to "does this kernel really use the requested architecture-
// specific instructions": per kernel, the feature families with counts,
// reachability and SASS confirmation, each requested family's verdict,
// the fallback findings with PTX and CUDA locations, ptxas's resources and
// performance warnings. Built from a ptx.module by buildReport(), printed
// as text, JSON (docs/analyze.md documents the schema) or SARIF 2.1.0, and
// read back from its JSON by parseAnalysisReport() (within ReportLimits: a
// stored report may come from anyone). Plain data in a library without
// MLIR (PTXBenchReportData): later tools (eval, feedback, fixit, generate)
// read it as these structs, never by the JSON's keys.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_REPORT_ANALYSISREPORT_H
#define PTXBENCH_REPORT_ANALYSISREPORT_H

#include "ptxbench/Task/Verdict.h"
#include "ptxbench/Toolchain/PtxasLog.h"

#include "llvm/Support/Error.h"
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
  /// "note", "warning", "error".
  static llvm::StringRef levelName(Level level);
  static std::optional<Level> parseLevel(llvm::StringRef name);
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

/// A requested family's verdict in a kernel: the task layer's words
/// (ptxbench/Task/Verdict.h), which solution manifests name too.
using Verdict = runtime::StaticVerdict;
using runtime::parseStaticVerdict;
using runtime::verdictName;

/// The requested set as a whole (AnalysisReport::verdict()).
enum class ReportVerdict { Used, Serialized, Partial, Missing, NoneRequested };
/// "used", "serialized", "partial", "missing", "none-requested".
llvm::StringRef verdictName(ReportVerdict verdict);
std::optional<ReportVerdict> parseReportVerdict(llvm::StringRef name);

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

  /// The requested set as a whole: Used when every requested family is
  /// used by some kernel, Serialized when all are used but some only
  /// serialized, Partial when some are, Missing when none is, and
  /// NoneRequested. Always derived from the kernels: a report read back
  /// says what its kernels say, whatever its "verdict" key claimed.
  ReportVerdict verdict() const;
  /// The best verdict any kernel reaches for the requested `family`
  /// (Missing when no kernel lists it).
  Verdict familyVerdict(llvm::StringRef family) const;
};

llvm::json::Value toJSON(const AnalysisReport &report);

/// Bounds on a report read back: a stored row or a file can come from
/// anyone, and a few bytes of JSON (`{}`) become a struct of a hundred.
struct ReportLimits {
  /// The JSON text, and arrays and objects inside each other (a report
  /// nests six levels).
  size_t maxBytes = size_t(16) << 20;
  unsigned maxDepth = 16;
  size_t maxKernels = 4096;
  /// Findings of the whole report (fallbacks, ptxas warnings, module
  /// findings).
  size_t maxFindings = 65536;
  /// Requested families of the report, and entries of one kernel's
  /// `features` and `requested`.
  size_t maxFamilies = 256;
};

/// toJSON's readers. Keys toJSON always writes may be absent (older and
/// hand-made reports leave some out) and read as their defaults; a key of
/// the wrong type, a verdict or level that is not one of the words, or a
/// number out of its field's range is refused with its JSON path. Derived
/// keys are checked, not kept: `verdict` must be a ReportVerdict word,
/// `reachable` a boolean. `spill_bytes` is read into spillStoreBytes (the
/// JSON keeps only the sum).
bool fromJSON(const llvm::json::Value &value, SourceLocation &loc,
              llvm::json::Path path);
bool fromJSON(const llvm::json::Value &value, Finding &finding,
              llvm::json::Path path);
bool fromJSON(const llvm::json::Value &value, Verdict &verdict,
              llvm::json::Path path);
bool fromJSON(const llvm::json::Value &value,
              toolchain::KernelResources &resources, llvm::json::Path path);
bool fromJSON(const llvm::json::Value &value, KernelReport &kernel,
              llvm::json::Path path);
/// The whole report; `kernels` is required, and the counts of `limits`
/// hold.
bool fromJSON(const llvm::json::Value &value, AnalysisReport &report,
              llvm::json::Path path, const ReportLimits &limits = {});

/// The JSON text of `ptxbench analyze --json` (a file, a stored
/// static_json), read within `limits`. The error says where: the line and
/// column of a syntax error, or the JSON path of what is wrong (`expected
/// used, serialized, unreachable or missing at
/// analysis.kernels[0].requested.wgmma`).
llvm::Expected<AnalysisReport>
parseAnalysisReport(llvm::StringRef json, const ReportLimits &limits = {});
/// An already parsed value, the same way.
llvm::Expected<AnalysisReport>
readAnalysisReport(const llvm::json::Value &value,
                   const ReportLimits &limits = {});
/// SARIF 2.1.0: one run of tool "ptxbench", one result per finding.
llvm::json::Value toSARIF(const AnalysisReport &report);
/// One line per finding, `file:line:col: level: [kind] message`, then a
/// summary per kernel. `color` adds terminal colours.
void printText(const AnalysisReport &report, llvm::raw_ostream &os,
               bool color);

} // namespace ptxbench::report

#endif // PTXBENCH_REPORT_ANALYSISREPORT_H
