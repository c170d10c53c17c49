//===- Submission.h - A submission run on the GPU, end to end ---*- C++ -*-===//
//
// What `ptxbench run` does, as one library call: compile the submission
// once (NVRTC or Triton, contained; or reuse what a static stage compiled),
// check its launch plan against the task and the compiled module, assemble
// it whole, instrument a counted copy, supervise the contained workers that
// check and time it, credit the work and judge the speed of light.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_RUN_SUBMISSION_H
#define PTXBENCH_RUN_SUBMISSION_H

#include "ptxbench/Runtime/Result.h"
#include "ptxbench/Task/Task.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>

namespace ptxbench::run {

/// How to run one submission. The workers are `helper run --worker ...`.
struct SubmissionOptions {
  /// The task as a path the worker can load (a folder or its task.json).
  std::string taskPath;
  /// The submission: .cu, .ptx or a Triton .py with its launch plan.
  std::string solutionPath;
  /// Target; empty: the GPU's, else sm_90a (nothing runs then).
  std::string arch;
  /// dev, heldout, all or one workload's name.
  std::string shapes = "dev";
  /// Input seed; 0 draws a fresh one (reported in the result's log line).
  uint64_t seed = 0;
  double timeoutSeconds = 60;
  double compileTimeoutSeconds = 60;
  bool baseline = true;
  bool featureCounts = true;
  bool remeasurePeaks = false;
  /// With a chosen seed: keep references in the harness cache, or reuse a
  /// recent baseline of the same task, workload and seed.
  bool cacheReferences = false;
  bool reuseBaseline = false;
  /// A lock file the worker holds while it uses the GPU.
  std::string gpuLock;
  /// The submission as a static stage already compiled it for `arch` (and
  /// a Triton kernel's compile metadata, JSON): used instead of compiling.
  std::string compiledPtx;
  std::string tritonBuild;
  /// Also write the compiled PTX to PREFIX.ptx (PREFIX.triton.json).
  std::string saveCompiledPrefix;
  /// The checked trials of the smallest workload under compute-sanitizer.
  bool sanitize = false;
  double sanitizeTimeoutSeconds = 120;
  /// Also say how a Triton kernel is launched.
  bool verbose = false;
  /// The ptxbench executable the workers and compile children run.
  std::string helper;
};

/// What one run came to.
struct SubmissionRun {
  runtime::RunResult result;
  /// No GPU was found: the plan was checked and nothing ran (`why`).
  bool noGpu = false;
  std::string why;
  /// How many times the submission was compiled (NVRTC or Triton) and
  /// assembled whole (ptxas) in this call; 0 each when it was reused or
  /// refused before.
  unsigned compiles = 0;
  unsigned assemblies = 0;
};

/// Runs the submission of `options` on `task`. `out` gets what a reader
/// follows as it happens (the seed, the no-GPU note, with `verbose` the
/// Triton launch); `progress` the workers' progress. An Error is a usage or
/// host problem (unreadable files, a bad --arch, no temporary files);
/// everything the submission did wrong is in the result.
llvm::Expected<SubmissionRun> runSubmission(const runtime::Task &task,
                                            const SubmissionOptions &options,
                                            llvm::raw_ostream &out,
                                            llvm::raw_ostream &progress);

} // namespace ptxbench::run

#endif // PTXBENCH_RUN_SUBMISSION_H
