//===- SampleView.h - One recorded sample, for a person ---------*- C++ -*-===//
//
// `ptxbench report --sample ID`: the sample's identity and outcome, its code
// with each diagnostic (compiler messages, fallbacks, target and ptxas
// findings) printed under the line it points at, and the run's result per
// workload.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_EVAL_SAMPLEVIEW_H
#define PTXBENCH_EVAL_SAMPLEVIEW_H

#include "ptxbench/Eval/Sample.h"

#include "llvm/Support/raw_ostream.h"

namespace ptxbench::eval {

/// A diagnostic of a sample at a line of its code (0: not tied to a line).
struct LineDiagnostic {
  unsigned line = 0;
  std::string level, kind, message;
};

/// The diagnostics of a sample, at lines of its code: compiler messages,
/// and the analysis findings at their CUDA line (.cu) or PTX line (.ptx).
std::vector<LineDiagnostic> sampleDiagnostics(const SampleRecord &record);

void printSample(const SampleRecord &record, llvm::raw_ostream &os);

} // namespace ptxbench::eval

#endif // PTXBENCH_EVAL_SAMPLEVIEW_H
