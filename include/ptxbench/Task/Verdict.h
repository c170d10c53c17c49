//===- Verdict.h - A workload's status and a family's verdict -*- C++ -*-===//
//
// The two words a run's outcome is told in: the status of one workload
// (PASSED, INCORRECT, COMPILE_ERROR, ...) and what a run says of one
// requested feature family (used, token, executed, ...). They are the
// task layer's because a task's solution manifest names them as
// expectations; the harness produces them, and everything above (eval,
// the report, feedback, fixit) reads and combines them through these
// functions only: one name each, one ranking, one rule for workloads and
// one for a requirement's alternatives.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_TASK_VERDICT_H
#define PTXBENCH_TASK_VERDICT_H

#include "llvm/ADT/StringRef.h"

#include <optional>

namespace ptxbench::runtime {

/// Outcome of one workload of one submission, worst first where it matters.
enum class Status {
  Passed,         // ran, correct
  Incorrect,      // ran, an output check failed
  Suspicious,     // ran, correct, but faster than the hardware allows
  CompileError,   // NVRTC or the driver's PTX JIT rejected the submission
  CompileTimeout, // NVRTC or the driver's PTX JIT ran past its time limit
  PlanError,      // the launch plan is malformed or does not fit the task
  LaunchError,    // the driver refused a launch (resources, bad config, symbol)
  RuntimeError,   // a fault during execution (illegal address, trap, ...)
  Timeout,        // killed by the watchdog (a hang)
  HarnessError,   // our own failure or the environment's (not the kernel's)
  NoGpu,          // no CUDA driver or device
  Skipped,        // not run (an earlier failure made it pointless)
};
llvm::StringRef statusName(Status status);
std::optional<Status> parseStatus(llvm::StringRef name);
/// Whether `name` (a status word as stored or read) is `status`'s.
inline bool isStatus(llvm::StringRef name, Status status) {
  return name == statusName(status);
}

/// What a run says of one family, from the least credit to the most. The
/// one ranking every consumer uses; combine verdicts only with
/// acrossWorkloads() and acrossAlternatives().
enum class FamilyVerdict {
  /// No counts were taken (e.g. a run without feature counts).
  NotMeasured,
  /// Counted, but the code's count is unknown and nothing executed.
  NotExecuted,
  /// Not in the code.
  NotInCode,
  /// In the code, executed zero times.
  NotTriggered,
  /// Executed, but did less than the task's share of the work, or its work
  /// does not count (FeatureCount::withheld).
  Token,
  /// Executed; the family has no work measure.
  Executed,
  /// Executed and did at least the task's share of the work, and the work
  /// reached the outputs.
  Used,
};
/// "used", "token", "executed", "not triggered", "not in code", "not
/// executed", "not measured": the words of the JSON and the reports.
llvm::StringRef verdictName(FamilyVerdict verdict);
/// verdictName()'s inverse; none for another word.
std::optional<FamilyVerdict> parseFamilyVerdict(llvm::StringRef name);
/// Whether the verdict credits the family: it did the work (or executed,
/// for a family without a work measure).
inline bool credited(FamilyVerdict v) {
  return v == FamilyVerdict::Used || v == FamilyVerdict::Executed;
}
/// One family over a run's workloads: the least credit of those measured
/// (a family that falls back on one workload is not used by the sample).
FamilyVerdict acrossWorkloads(FamilyVerdict a, FamilyVerdict b);
/// A requirement's alternatives ("bulk_copy|tma"): the most credit any of
/// them earns.
FamilyVerdict acrossAlternatives(FamilyVerdict a, FamilyVerdict b);

/// What the static analysis (`ptxbench analyze`) says of one requested
/// family in one kernel, from the most credit to the least: present and
/// reachable, present and reachable but serialized (ptxas or the fallback
/// analysis says the wgmma waits on itself), present only in code no kernel
/// entry reaches, absent. A task's solution manifest names them as
/// expectations, so they are the task layer's too.
enum class StaticVerdict { Used, Serialized, Unreachable, Missing };
/// "used", "serialized", "unreachable", "missing".
llvm::StringRef verdictName(StaticVerdict verdict);
/// verdictName()'s inverse; none for another word.
std::optional<StaticVerdict> parseStaticVerdict(llvm::StringRef name);
/// The better of two kernels' verdicts on one family (the order above).
StaticVerdict acrossKernels(StaticVerdict a, StaticVerdict b);

} // namespace ptxbench::runtime

#endif // PTXBENCH_TASK_VERDICT_H
