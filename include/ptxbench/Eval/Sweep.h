//===- Sweep.h - Evaluate a tree of samples into the store ------*- C++ -*-===//
//
// `ptxbench eval`'s engine: static analysis of every sample in parallel on
// the CPU cores (one StaticEvaluator, so one MLIRContext, per worker
// thread), then, unless static-only, a `ptxbench run` per sample on a free
// GPU (one at a time per GPU). Samples recorded as they are on disk now
// (isCurrent()) are skipped, so an interrupted sweep resumes; a sample whose
// run would read exactly what another's did (the same reuseKey(), in this
// run or recorded) takes that run, told of its own file. Each result is
// committed as soon as it is known.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_EVAL_SWEEP_H
#define PTXBENCH_EVAL_SWEEP_H

#include "ptxbench/Eval/ResultsStore.h"
#include "ptxbench/Eval/SampleTree.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <map>

namespace ptxbench::eval {

struct SweepOptions {
  std::string tasksDir;
  std::string arch = "sm_90a";
  std::string shapes = "dev";
  bool staticOnly = false;
  bool assemble = true;
  /// Confirm the requested families in SASS (nvdisasm), recorded in the
  /// static JSON's `sass_checked` and per-family `sass` counts.
  bool sass = false;
  Shard shard;
  unsigned jobs = 1;
  /// CUDA_VISIBLE_DEVICES values, one worker each (resolveGpus()).
  std::vector<std::string> gpus{""};
  /// The ptxbench executable (for `ptxbench run`).
  std::string tool;
  double runTimeoutSeconds = 60;
  /// Runs that share a GPU at once (their GPU parts take turns).
  unsigned runsPerGpu = 2;
  /// The input seed every run of the sweep uses (GpuRunOptions::seed).
  uint64_t seed = 0;
  /// Seconds NVRTC (static analysis and run) and the driver's JIT may take
  /// to compile a sample.
  double compileTimeoutSeconds = 60;
  /// Each sample's static stage runs in a child of its own (StaticStage.h)
  /// within these limits; past them the sample is `crashed`.
  double analysisTimeoutSeconds = 300;
  uint64_t analysisMemoryMB = 8192;
  /// Progress lines, when set.
  llvm::raw_ostream *progress = nullptr;
};

struct SweepStats {
  unsigned inShard = 0, skipped = 0, evaluated = 0, reused = 0;
  /// Samples run on a GPU now (not reused), the sweep's wall time and the
  /// GPUs it had: samplesPerGpuHour() is what a sweep costs.
  unsigned gpuRuns = 0, gpus = 0;
  double wallSeconds = 0;
  double samplesPerGpuHour() const {
    return wallSeconds > 0 && gpus ? gpuRuns / (wallSeconds * gpus / 3600)
                                   : 0;
  }
  /// The final status of each sample evaluated now (run status when run).
  std::map<std::string, unsigned> byStatus;
};

/// The versions known on the CPU side, for the store's environment:
/// `ptxas` (its `--version` release line), `nvrtc`, `llvm`.
llvm::json::Object toolchainVersions();

/// Whether `row` is the verdict on `input` as it is on disk, for this
/// sweep's arch and shapes: not when the row says there was no answer
/// (no_solution, extract_error), when the answer's file is newer than the
/// row, or when a run is wanted and the row has none (or only NO_GPU or
/// HARNESS_ERROR, which say nothing of the sample).
bool isCurrent(const SampleRecord &row, const SampleInput &input,
               const SweepOptions &options);

/// The key of everything a run of a sample reads: the canonical hash of its
/// kernels, its launch plan normalized (runtime::normalizedPlan), the hash
/// of the task's file, and the sweep's arch, shapes and harness settings
/// (run and compile time limits). A SHA-256 in hex.
std::string reuseKey(llvm::StringRef canonicalHash,
                     llvm::StringRef normalizedPlan, llvm::StringRef taskHash,
                     const SweepOptions &options);

llvm::Expected<SweepStats> runSweep(ResultsStore &store,
                                    const std::vector<SampleInput> &samples,
                                    const SweepOptions &options);

} // namespace ptxbench::eval

#endif // PTXBENCH_EVAL_SWEEP_H
