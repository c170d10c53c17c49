//===- CountedCopy.h - The submission instrumented for credit ---*- C++ -*-===//
//
// The copy of a submission's PTX that counts, per requested family, the
// instructions executed and the work they did, with knockouts: what the
// worker's counted run loads after the timed runs.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_RUN_COUNTEDCOPY_H
#define PTXBENCH_RUN_COUNTEDCOPY_H

#include "ptxbench/Dialect/PTX/PTX.h"
#include "ptxbench/Task/Task.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ptxbench::run {

/// `ptx` imported into `context` (its buffer named `name` in messages), with
/// the importer's errors appended to `diagnostics` ("; "-separated); null
/// when it does not import.
mlir::OwningOpRef<ptx::ModuleOp> importSubmission(llvm::StringRef ptx,
                                                  llvm::StringRef name,
                                                  mlir::MLIRContext &context,
                                                  std::string &diagnostics);

/// The submission instrumented for run-time feature counts and knockouts.
struct CountedCopy {
  /// The instrumented PTX; empty when not instrumented (`note` says why).
  std::string ptx;
  /// The control block's name: random, so no submission can know it.
  std::string control;
  /// The families counted, one per requirement alternative.
  std::vector<std::string> families;
  /// Reachable instructions of each family in the submission.
  std::map<std::string, int64_t> inCode;
  std::string note;
};

/// Counts the families `task` requests for `arch` in the submission's PTX
/// (reachable instructions) and instruments a copy with
/// --ptx-instrument-features (work and knockouts on).
CountedCopy instrumentSubmission(const runtime::Task &task, llvm::StringRef ptx,
                                 llvm::StringRef arch, llvm::StringRef name);

} // namespace ptxbench::run

#endif // PTXBENCH_RUN_COUNTEDCOPY_H
