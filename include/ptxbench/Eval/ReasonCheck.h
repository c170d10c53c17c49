//===- ReasonCheck.h - A written reason held against the facts -*- C++ -*-===//
//
// `fixit --reasons-by MODEL` has a model explain each fix (or, for
// KernelGen records, each correct kernel). A reason is training data, so
// one that says what did not happen teaches the model to say it: every
// claim the rules below can read is held against the two kernels' recorded
// analyses and runs, and a reason with one contradiction is dropped.
//
// A sentence is about the failed kernel when it names it (failed, wrong,
// previous, original, old, earlier, broken, attempt, ...), about the fix
// when it names that (fix, fixed, new, now, corrected, rewritten, ...),
// and about either otherwise (then a claim must hold for one of them).
// Claims read:
//   - families: a requested-instruction family named (by its name, by an
//     instruction of the ISA table such as `wgmma.mma_async` or
//     `cp.async.bulk.tensor`, or as "TMA", "tensor memory accelerator",
//     "expect_tx") and not negated (no `not`, `no`, `without`, `instead
//     of`, `replaced`, ... just before it, no `missing`, `not`, `never`
//     just after) must be in the kernel it is about: its analysis counts
//     instructions of the family (for code that did not compile, its text
//     names one);
//   - speedups: a figure such as `1.8x` or `2.5 times` in a sentence about
//     speed, or `a speedup of 1.8`, must be within 10% of a speedup a run
//     measured (a workload's, the least dev one, the geometric mean, or
//     fixed against failed); with no timed run any figure is invented;
//     `faster than the library` needs the fix's geometric mean above 1;
//   - statuses: `passed`, `incorrect` or a mismatch, `timed out` or a hang,
//     `does not compile` or a compile error, an illegal address, a fault
//     or a crash, said (not negated) of a kernel, must be what its run or
//     its compile recorded; a kernel that never ran on a GPU neither
//     passed nor failed there.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_EVAL_REASONCHECK_H
#define PTXBENCH_EVAL_REASONCHECK_H

#include "ptxbench/Eval/Sample.h"

#include <set>
#include <vector>

namespace ptxbench::eval {

/// The kind of claim a reason got wrong.
enum class ClaimKind { Family, Speedup, Status };
llvm::StringRef claimKindName(ClaimKind kind);

struct Contradiction {
  ClaimKind kind;
  /// The sentence, and what the facts say instead.
  std::string sentence, why;
};

/// What the records say of one kernel, for the rules above.
struct KernelFacts {
  /// Families with instructions in the code (analysis, else the text).
  std::set<std::string> families;
  /// Whether `families` comes from an analysis.
  bool analyzed = false;
  /// The static status, and the run's worst status (empty: not run).
  std::string status, runStatus;
  /// Speedups over the library: per timed workload, the least dev one and
  /// the geometric mean; empty when no workload was timed.
  std::vector<double> speedups;
  std::optional<double> geomean;

  static KernelFacts of(const SampleRecord &record);
  /// It ran on a GPU (a real run: not NO_GPU, SKIPPED or HARNESS_ERROR).
  bool ran() const;
};

/// The sentences of `reason` (an empty one is none), split at '.', '!',
/// '?' followed by a space or a line end, and at line ends.
std::vector<std::string> sentences(llvm::StringRef reason);

/// The families `text` names, with whether each naming is negated, in
/// order.
std::vector<std::pair<std::string, bool>> namedFamilies(llvm::StringRef text);

/// Every contradiction of `reason` with the facts of `failed` (null for a
/// KernelGen explanation of one kernel) and `fixed`.
std::vector<Contradiction> checkReason(llvm::StringRef reason,
                                       const SampleRecord *failed,
                                       const SampleRecord &fixed);

} // namespace ptxbench::eval

#endif // PTXBENCH_EVAL_REASONCHECK_H
