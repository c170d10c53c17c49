//===- StaticStage.h - One sample's static stage, contained --*- C++ -*-===//
//
// Everything `eval` (and so `generate`) does to an untrusted sample without
// a GPU: read its answer and extract the code, compile it, import the PTX,
// hash and analyze it, check its launch plan, normalize the plan. A crash
// there, a hang or runaway memory would end the whole sweep, on every
// resume; so each sample's stage runs in a child process (the hidden
// `ptxbench analyze-sample`), under a time and a memory limit, and what it
// learned comes back as JSON. A child that dies gives the sample the status
// `crashed`, saying how it died; the sweep goes on.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_EVAL_STATICSTAGE_H
#define PTXBENCH_EVAL_STATICSTAGE_H

#include "ptxbench/Eval/SampleTree.h"
#include "ptxbench/Eval/StaticEval.h"

#include <optional>
#include <string>

namespace ptxbench::eval {

/// What the stage reads: plain data, so that a child can be handed it.
struct StaticRequest {
  SampleInput input;
  /// The task's folder: its task.json is loaded again by the child.
  std::string taskDir;
  /// The workloads the launch plan is checked against (`--shapes`).
  std::string shapes;
  /// Why the task cannot be used, when it cannot: the sample is then
  /// `task_error` once its code is read.
  std::string taskError;
  StaticOptions options;
};

/// What the stage learned.
struct StaticOutcome {
  /// The static fields of the sample's record: solution path, language,
  /// code, canonical hash, status, error, diagnostics, the analysis, and
  /// the run status and result when the launch plan is wrong.
  SampleRecord record;
  /// The launch plan in normalized form, when it parses (for the reuse
  /// key).
  std::optional<std::string> normalizedPlan;
  /// What NVRTC made of a .cu sample that compiled, or Triton of a .py
  /// one, for its run (which then does not compile it again); empty
  /// otherwise.
  std::string ptx;
  /// A Triton sample's compile metadata (TritonKernelBuild as JSON), which
  /// its run lowers the plan with; empty otherwise.
  std::string tritonBuild;
};

/// The limits of the stage's child.
struct StaticLimits {
  /// The ptxbench executable (its `analyze-sample` command); when empty the
  /// stage runs in this process.
  std::string helper;
  double seconds = 300;
  uint64_t memoryMB = 8192;
};

/// Runs the stage in this process (what the child does).
StaticOutcome runStaticStage(const StaticRequest &request);

/// Runs the stage in a child within `limits`; a child that crashes, is
/// stopped at the time limit or returns nothing readable gives the
/// status `crashed` and an error that says how it ended.
StaticOutcome runStaticStageContained(const StaticRequest &request,
                                      const StaticLimits &limits);

/// The child's side: reads the request from `requestPath`, limits its own
/// memory, runs the stage and writes the outcome to `outcomePath`. Returns
/// the process's exit status.
int runStaticStageChild(llvm::StringRef requestPath,
                        llvm::StringRef outcomePath, uint64_t memoryMB);

llvm::json::Value toJSON(const StaticRequest &request);
bool fromJSON(const llvm::json::Value &value, StaticRequest &request,
              llvm::json::Path path);
llvm::json::Value toJSON(const StaticOutcome &outcome);
bool fromJSON(const llvm::json::Value &value, StaticOutcome &outcome,
              llvm::json::Path path);

} // namespace ptxbench::eval

#endif // PTXBENCH_EVAL_STATICSTAGE_H
