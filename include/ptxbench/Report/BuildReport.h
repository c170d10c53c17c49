//===- BuildReport.h - Analyze a ptx.module into a report -------*- C++ -*-===//
//
// Runs the analyses (reachability, feature use, target checks, fallbacks)
// on an imported module, assembles it with nvJitLink for the requested
// target, and optionally confirms families in SASS, filling an
// AnalysisReport.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_REPORT_BUILDREPORT_H
#define PTXBENCH_REPORT_BUILDREPORT_H

#include "ptxbench/Dialect/PTX/PTX.h"
#include "ptxbench/ISA/ISA.h"
#include "ptxbench/Report/AnalysisReport.h"

namespace ptxbench::report {

/// A requested family, or alternatives of which any one satisfies the
/// request: `name` is how the task spells it ("wgmma", "bulk_copy|tma").
struct Requirement {
  std::string name;
  llvm::SmallVector<isa::Family, 2> families;
};
/// Parses a requirement (isa::familiesOfRequirement); std::nullopt when a
/// family name is unknown.
std::optional<Requirement> parseRequirement(llvm::StringRef name);

struct AnalyzeOptions {
  /// sm_90a, sm_100a, ...
  std::string arch;
  std::vector<Requirement> requested;
  /// Assemble with nvJitLink (resources, ptxas warnings).
  bool assemble = true;
  /// Disassemble and confirm families in SASS.
  bool sass = false;
  /// The task requires fp32 accumulation (`f16-accumulator` findings).
  bool f32Accumulate = false;
};

/// Analyzes `module` (imported from `ptx`, its text) into a report.
AnalysisReport buildReport(ptx::ModuleOp module, llvm::StringRef ptx,
                           llvm::StringRef file, const AnalyzeOptions &options);

} // namespace ptxbench::report

#endif // PTXBENCH_REPORT_BUILDREPORT_H
