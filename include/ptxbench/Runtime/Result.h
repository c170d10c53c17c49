//===- Result.h - Output checks, timing, a run's result -------*- C++ -*-===//
//
// Everything here is plain host code so it can be unit-tested without a GPU:
// the comparison of an output against its reference, the statistics and
// stopping rule of the timer, the per-workload result and its JSON and
// readable forms (the worker sends the JSON to the parent over a pipe).
// The status and verdict words are ptxbench/Task/Verdict.h's.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_RUNTIME_RESULT_H
#define PTXBENCH_RUNTIME_RESULT_H

#include "ptxbench/Task/Task.h"
#include "ptxbench/Task/Verdict.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <optional>

namespace ptxbench::runtime {

/// The bit pattern outputs are pre-filled with (a quiet NaN with a payload
/// no arithmetic produces); bf16 outputs use its upper half.
constexpr uint32_t unwrittenF32Bits = 0x7FD50000u;
constexpr uint16_t unwrittenBF16Bits = 0x7FD5u;
bool isUnwritten(float value);
float bf16ToFloat(uint16_t bits);
uint16_t floatToBF16(float value); // round to nearest even

/// Statistics of one output against its reference.
struct CompareStats {
  uint64_t count = 0;
  uint64_t unwritten = 0, nonFinite = 0, outOfTolerance = 0;
  double maxAbsErr = 0, maxRelErr = 0, relL2 = 0;
  /// The worst element: the first unwritten or non-finite one, else the
  /// one furthest outside the tolerance (largest |err| / (atol+rtol|ref|)).
  int64_t worstIndex = -1;
  double worstValue = 0, worstRef = 0;
  bool passed = false;
  /// Which check failed: "unwritten", "non-finite", "tolerance", "rel_l2".
  std::string failedCheck;
};

/// Compares `out` with `ref` (same length). `tol` is the per-element
/// tolerance (skipped when absent), `relL2` the bound on
/// ||out - ref|| / ||ref|| (skipped when absent).
CompareStats compareOutputs(llvm::ArrayRef<float> out,
                            llvm::ArrayRef<float> ref,
                            std::optional<Tolerance> tol,
                            std::optional<double> relL2);

/// What the device-side check of one output (the harness's ptxbench_check
/// kernel, run after every launch of the timing loop) adds up.
struct CheckSums {
  uint64_t count = 0, unwritten = 0, nonFinite = 0, outOfTolerance = 0;
  double maxAbsErr = 0, errSq = 0, refSq = 0;
};
/// The verdict on `sums`, with the same checks and order as
/// compareOutputs (no worst element: the device does not look for it).
CompareStats judgeSums(const CheckSums &sums, std::optional<Tolerance> tol,
                       std::optional<double> relL2);

/// One output tensor's check.
struct NamedCheck {
  std::string tensor;
  CompareStats stats;
};

/// Timing samples in milliseconds and their summary.
struct TimingStats {
  unsigned samples = 0;
  double medianMs = 0, q1Ms = 0, q3Ms = 0, minMs = 0, meanMs = 0;
  double rse = 0; // standard error of the mean / mean
  /// SM clock sampling (NVML): whether the clock was read, the samples
  /// discarded as throttled, whether throttled samples had to be kept
  /// (too few clean ones), and the lowest/highest SM clock of the kept
  /// samples in MHz.
  bool clockSampled = false;
  unsigned throttled = 0;
  bool keptThrottled = false;
  unsigned minClockMHz = 0, maxClockMHz = 0;
};

/// One reading of the SM clock and NVML's clock-event (throttle) reasons.
struct ClockReading {
  bool valid = false;
  unsigned smMHz = 0;
  uint64_t reasons = 0; // nvmlClocksEventReason* bits
};
/// NVML reasons that make a sample throttled: hardware slowdown (0x8),
/// software thermal (0x20), hardware thermal (0x40), power brake (0x80).
/// Idle (0x1), application clocks (0x2), sync boost (0x10) and display
/// clock (0x100) are not; nor is the software power cap (0x4) on its own,
/// which holds during most large GEMMs and is caught by the clock floor.
constexpr uint64_t throttleReasonMask = 0x8 | 0x20 | 0x40 | 0x80;
/// Whether a sample bracketed by `before` and `after` ran throttled: either
/// reading shows a throttle reason, or its SM clock is below
/// `minFraction` of `maxMHz` (skipped when maxMHz is 0). Invalid readings
/// say nothing (a sample is never discarded for a missing reading).
bool isThrottled(const ClockReading &before, const ClockReading &after,
                 unsigned maxMHz, double minFraction = 0.85);
/// The samples to summarize: those not throttled, or all of them (with
/// `keptThrottled` set) when fewer than `minSamples` are clean.
std::vector<double> keptSamples(llvm::ArrayRef<double> samplesMs,
                                llvm::ArrayRef<bool> throttled,
                                unsigned minSamples, bool &keptThrottled);

/// One requested feature family's run-time count (`ptxbench run` runs an
/// instrumented copy of the submission once per workload, untimed).
struct FeatureCount {
  std::string family;
  /// Instructions of the family in the submission that can run (static,
  /// from the feature analysis); -1 when unknown.
  int64_t inCode = -1;
  /// Thread-instructions of the family executed in the instrumented run;
  /// -1 when not measured.
  int64_t executed = -1;
  /// The share of the task's work the family did (matrix families: of the
  /// task's FLOPs; TMA, bulk copies and transaction mbarriers: of the
  /// task's input bytes, less what other loads brought), and the share the
  /// task asks for before it counts as used; -1 when the family has no work
  /// measure or the work was not measured.
  double share = -1, threshold = -1;
  /// Why the share does not count although it reaches the threshold, as a
  /// work finding's kind ("no-effect-wgmma": the outputs passed with the
  /// family switched off; "duplicated-work": another path did the task's
  /// FLOPs too; "knockout-not-run"); empty when it counts.
  std::string withheld;
};
/// The verdict of one workload's count.
FamilyVerdict familyVerdict(const FeatureCount &count);
/// verdictName(familyVerdict(count)).
llvm::StringRef featureVerdict(const FeatureCount &count);

/// A knockout run: the submission run once more (checked, untimed) with
/// one kind of matrix instruction switched off.
struct Knockout {
  /// The kind: "wgmma", "mma_sync", "wmma" or "tcgen05".
  std::string kind;
  /// Whether it ran to the check.
  bool ran = false;
  /// The outputs failed their check (or the run faulted) without the kind:
  /// its work reached the outputs.
  bool reached = false;
  /// The failed check or the fault, or why it did not run.
  std::string detail;
};

/// What the instrumented runs measured of the work (`ptxbench run`'s work
/// counters, include/ptxbench/ISA/WorkCounters.h, and the knockouts):
/// FLOPs per matrix instruction kind and on the CUDA cores, bytes per kind
/// of global-memory load, and whether each kind's work reached the outputs.
struct WorkCounts {
  bool measured = false;
  double wgmmaFlops = 0, mmaSyncFlops = 0, wmmaFlops = 0, tcgen05Flops = 0;
  /// Floating-point FLOPs on the CUDA cores (fma, add, mul, ...).
  double scalarFlops = 0;
  /// Transaction bytes announced to mbarriers less those completed by hand:
  /// the bytes TMA and bulk copies delivered.
  double asyncBytes = 0;
  double globalLoadBytes = 0, cpAsyncBytes = 0;
  /// The task's input bytes, each input tensor once, and what TMA loads and
  /// bulk copies read of them: per input tensor the bytes of its boxes that
  /// were in bounds (TMA) or of its range (bulk copies), at most the
  /// tensor's size, summed. From the copy log: `copyRecords` copies logged,
  /// `copyRecordsUnattributed` of them not traced to an input tensor (a map
  /// the harness did not make, a mode other than tile, past the log's
  /// capacity), which count nothing.
  /// `otherInputBytes`: what ld.global and cp.async read of the inputs (per
  /// tensor at most its size), which `asyncInputBytes` leaves out.
  double inputBytes = 0, asyncInputBytes = 0, otherInputBytes = 0;
  uint64_t copyRecords = 0, copyRecordsUnattributed = 0;
  std::vector<Knockout> knockouts;
  double tensorFlops() const {
    return wgmmaFlops + mmaSyncFlops + wmmaFlops + tcgen05Flops;
  }
  double loadedBytes() const {
    return asyncBytes + globalLoadBytes + cpAsyncBytes;
  }
  /// The FLOPs of a matrix kind ("wgmma", "mma_sync", "wmma", "tcgen05").
  double flopsOf(llvm::StringRef kind) const;
  /// The knockout of `kind`, when one was made.
  const Knockout *knockout(llvm::StringRef kind) const;
  /// The share of the task's `taskFlops` done by tensor-core instructions
  /// whose knockout showed their work reaching the outputs (at most 1).
  double reachedTensorShare(double taskFlops) const;
};
TimingStats summarizeTimes(llvm::ArrayRef<double> samplesMs);
/// The stopping rule: at least minSamples, then stop once the relative
/// standard error is under targetRse, or at maxSamples or maxSeconds.
bool enoughSamples(llvm::ArrayRef<double> samplesMs, double elapsedSeconds,
                   const Task::Timing &timing);

/// Where a run's wall time went: one named step and its milliseconds.
struct Phase {
  std::string name;
  double ms = 0;
};

/// The result of one workload.
struct WorkloadResult {
  std::string workload;
  /// "dev" or "heldout" (markSplits); empty when not known.
  std::string split;
  Bindings params;
  Status status = Status::Skipped;
  std::string message;               // what failed, in words
  std::optional<CompareStats> check; // the worst output's check
  std::string checkedTensor;
  /// Every output's check (the last one made), and the baseline's outputs
  /// against the same reference (a sanity check of reference and library).
  std::vector<NamedCheck> outputChecks, baselineChecks;
  std::optional<TimingStats> time, baselineTime;
  /// The baseline library's version when it reports one (cuDNN's).
  std::string baselineVersion;
  double flops = 0, bytes = 0;
  std::string compileLog, jitLog;
  /// What the worker wrote to stdout/stderr while this workload ran
  /// (device printf): the byte count and the first and last few KiB.
  uint64_t outputBytes = 0;
  std::string outputHead, outputTail;
  /// Distinct input sets the timed launches rotated through, and how many
  /// timed launches had their outputs checked.
  unsigned inputSets = 0, timedLaunchesChecked = 0;
  /// Run-time counts of the task's requested families for this GPU, and
  /// why they are missing when the instrumented run did not happen.
  std::vector<FeatureCount> features;
  std::string featureNote;
  WorkCounts work;
  /// Run-time findings on the work: a requested family that executed but
  /// did less than the task's share (`token-<family>`), naming what did the
  /// rest.
  struct WorkFinding {
    std::string kind, message;
  };
  std::vector<WorkFinding> workFindings;
  /// The worker's steps for this workload, in order (docs/harness.md,
  /// "Where the time goes"): buffers, inputs, references, trials, timing
  /// (with the timed launches' own time), counted run, knockouts, baseline.
  std::vector<Phase> phases;
};

/// One compute-sanitizer tool's findings (`ptxbench run --sanitize`).
struct SanitizerReport {
  std::string tool; // memcheck, racecheck, synccheck
  /// Its ERROR SUMMARY count; -1 when it did not print one.
  int64_t errors = -1;
  /// It ran past --sanitize-timeout and was stopped.
  bool timedOut = false;
  /// The first and last KiB of its report.
  std::string head, tail;
  uint64_t bytes = 0;
};

/// The result of one submission over its workloads.
struct RunResult {
  std::string task, solution, device;
  /// The task's baseline library (e.g. "cublaslt_gemm"), for readers of
  /// the JSON such as `ptxbench feedback`.
  std::string baseline;
  std::vector<WorkloadResult> workloads;
  /// The hardware's speed of light (docs/harness.md): the tensor-core rate
  /// of the task's input type (TFLOP/s) and the DRAM bandwidth (GB/s) the
  /// speed-of-light fraction is against, and the FP32 CUDA-core rate; 0 when
  /// unknown. `peakHow` says how they were computed (SMs, per-SM rates,
  /// clock, memory clock and bus width).
  double peakTflops = 0, peakGBps = 0, peakFp32Tflops = 0;
  /// The input type of that matrix rate: "bf16", "fp8 e4m3" or "tf32".
  std::string peakMatrixType = "bf16";
  std::string peakHow;
  /// The best library's figures beside it: cuBLASLt's best 8192^3 GEMM of
  /// that type and the best device-to-device copy, measured; 0 when
  /// unknown. `peakSource` says where they come from ("measured", "cached
  /// in FILE", or why they are unknown).
  double libraryTflops = 0, copyGBps = 0;
  std::string peakSource;
  /// The architecture the submission ran for (sm_90a) and the families
  /// requested for it.
  std::string arch;
  /// The environment of the run: the driver (NVML's version, else
  /// "cuda<N>"), cuDriverGetVersion's CUDA version (13000 is 13.0) and
  /// cublasLtGetVersion (0 when cuBLASLt did not load).
  std::string driver;
  int64_t cudaDriverVersion = 0, cublasLtVersion = 0;
  /// The sandboxes the NVRTC compile child and the GPU workers ran in
  /// (SandboxState::describe(), "off" with why); empty when none ran.
  std::string compileSandbox, workerSandbox;
  /// The parent's and the workers' steps before any workload: compile,
  /// assemble, instrument, worker start and device set-up.
  std::vector<Phase> phases;
  /// The run-time work counts were switched off (--no-feature-counts): the
  /// FP32 CUDA-core check cannot be made.
  bool countsDisabled = false;
  /// --sanitize: the workload the tools ran on, their reports, and why
  /// there are none.
  std::string sanitizedWorkload, sanitizerNote;
  std::vector<SanitizerReport> sanitizer;
};

/// One family over a run's workloads (the `feature_counts` of the JSON):
/// the largest count in the code, the executions summed over the measured
/// workloads (-1 when none was), the verdict across them
/// (acrossWorkloads) and the smallest share of the work (-1 when none was
/// measured).
struct FamilySummary {
  int64_t inCode = -1, executed = -1;
  FamilyVerdict verdict = FamilyVerdict::NotMeasured;
  double share = -1;
};
/// Family name -> its summary, for the families the workloads counted.
std::map<std::string, FamilySummary> familySummaries(const RunResult &run);

/// Marks each workload of `run` with its split in `task` (its held-out
/// workloads by name; the rest are dev).
void markSplits(const Task &task, RunResult &run);

llvm::json::Value toJSON(const CompareStats &stats);
llvm::json::Value toJSON(const TimingStats &stats);
llvm::json::Value toJSON(const WorkloadResult &result);
/// The run's JSON (`ptxbench run --json`, docs/harness.md): every field of
/// RunResult, and what is derived from them (the worst status, each
/// workload's speed-of-light fractions, `feature_counts`).
llvm::json::Value toJSON(const RunResult &result);
/// toJSON's readers, in LLVM's fromJSON idiom: false, with what is wrong
/// reported at its JSON path, when `value` is not a result: not an object,
/// `workloads` not an array, a workload without a known status, a timing
/// that is not a non-negative finite number, a negative FLOP or byte
/// count. The other fields are read as far as they are there.
bool fromJSON(const llvm::json::Value &value, WorkloadResult &result,
              llvm::json::Path path);
bool fromJSON(const llvm::json::Value &value, RunResult &result,
              llvm::json::Path path);
/// The same without the path (the worker's pipe, where a refused result is
/// the worker's fault and reported as such).
bool fromJSON(const llvm::json::Value &value, WorkloadResult &result);
bool fromJSON(const llvm::json::Value &value, RunResult &result);
/// A run result's text (a stored run_json, a `ptxbench run --json` file;
/// anyone may have written it) parsed within JSON limits and read, with
/// any number past a double's range refused too (llvm::json reads it as
/// infinite); the error says where it is not one ("... at
/// run.workloads[1].status").
llvm::Expected<RunResult> readRunResult(llvm::StringRef json);
/// readRunResult without the reason; none also when `json` is empty.
std::optional<RunResult> parseRunResult(llvm::StringRef json);

/// Exit status of `ptxbench run`: 0 all passed, 1 some workload failed.
Status worstStatus(const RunResult &result);

/// What a workload's timings and work counts give (`ptxbench run --json`
/// writes them beside the timings for people and other tools; every reader
/// in ptxbench computes them here instead of reading them back). A median
/// counts only when it is positive and finite.
///
/// The speedup over the baseline library: its median time over the
/// submission's; none unless both were timed.
std::optional<double> speedup(const WorkloadResult &result);
/// TFLOP/s and GB/s at the median time; none when untimed or the task
/// gives no FLOP (byte) count.
std::optional<double> tflops(const WorkloadResult &result);
std::optional<double> gbps(const WorkloadResult &result);
/// The fraction of the hardware's speed of light a workload ran at:
/// max(flops / matrix rate, bytes / DRAM bandwidth) / median time; 0 when
/// untimed or the figures are unknown.
double solFraction(const RunResult &run, const WorkloadResult &result);
/// The same against the best library's figures.
double libraryFraction(const RunResult &run, const WorkloadResult &result);

/// Reads the speed-of-light figures of the worker's "device" event that
/// are not in RunResult's first fields (FP32 rate, how, library figures).
void readPeaks(const llvm::json::Object &event, RunResult &run);

/// Turns the run's work counters into shares and verdicts: each requested
/// family's share of the task's FLOPs or loaded bytes against the task's
/// thresholds (`credit` in task.json), and a `token-<family>` finding
/// naming what did the rest when a family executed below its threshold.
void creditWork(RunResult &run, const Task &task);

/// Marks PASSED workloads SUSPICIOUS when they ran faster than the card
/// allows: above the hardware's speed of light, or when the task's FLOPs not
/// done by tensor-core instructions whose work reached the outputs (all of
/// them when the work was not measured) ran above the FP32 CUDA-core rate.
/// The message says which limit and by how much.
void judgeSpeedOfLight(RunResult &run);
void printSummary(const RunResult &result, llvm::raw_ostream &os);
/// The sandboxes the run's children ran in, and the phases of the run and
/// of each workload, a table (`run --verbose`).
void printPhases(const RunResult &result, llvm::raw_ostream &os);
llvm::json::Value toJSON(llvm::ArrayRef<Phase> phases);
bool fromJSON(const llvm::json::Value *value, std::vector<Phase> &phases);

} // namespace ptxbench::runtime

#endif // PTXBENCH_RUNTIME_RESULT_H
