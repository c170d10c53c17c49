//===- Credit.cpp - Work shares and the speed-of-light judgement ----------===//
//
// What a run's numbers are worth. The counted run counts the FLOPs of each
// kind of matrix instruction and of the CUDA cores and the bytes of each
// kind of global load, and the knockouts say whether each matrix kind's
// work reached the outputs; creditWork turns them into each requested
// family's share of the task's work and a `used`/`token` verdict against
// the task's thresholds:
//   - a matrix family's share is its FLOPs over the task's; it counts only
//     when the outputs failed with the family switched off, and only as
//     far as the other paths (the other matrix kinds and the CUDA cores,
//     together) left room for it: what they did cannot be its work too;
//   - a byte family's share is the smaller of two: what TMA loads and bulk
//     copies read of the task's input bytes, in bounds and each tensor at
//     most once (the copy log), less what ld.global and cp.async read of
//     the same tensor (per-range counters), so re-reading a hot vector,
//     loading boxes out of bounds, or copying tiles nothing reads while the
//     loads bring the data earns nothing; and their part of all bytes
//     loaded.
// judgeSpeedOfLight turns a correct result that is faster than the card
// can be into SUSPICIOUS, judging the FLOPs no reached tensor-core
// instruction did against the CUDA cores' peak. Both are plain host code
// (unit-tested).
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Runtime/Result.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;
using namespace ptxbench::runtime;

namespace {

enum class WorkKind { None, Flops, Bytes };

/// Which work a family is credited with, and its FLOPs when it is a matrix
/// family.
WorkKind workKind(StringRef family) {
  if (family == "wgmma" || family == "mma_sync" || family == "wmma" ||
      family == "tcgen05" || family == "tmem")
    return WorkKind::Flops;
  if (family == "tma" || family == "bulk_copy" || family == "mbarrier_tx")
    return WorkKind::Bytes;
  return WorkKind::None;
}

std::string percent(double share) {
  if (share > 0 && share < 0.001)
    return formatv("{0:f3}%", share * 100).str();
  return formatv("{0:f2}%", share * 100).str();
}

/// "mma.sync 0.3%, CUDA-core arithmetic (FFMA; no tensor-core instruction)
/// 99.7%": what did the task's FLOPs other than `family`.
std::string restOfFlops(const WorkCounts &w, StringRef family,
                        double taskFlops) {
  std::vector<std::string> parts;
  for (auto [name, label, flops] :
       {std::tuple<StringRef, StringRef, double>{"wgmma", "wgmma",
                                                 w.wgmmaFlops},
        {"mma_sync", "mma.sync", w.mmaSyncFlops},
        {"wmma", "wmma", w.wmmaFlops},
        {"tcgen05", "tcgen05.mma", w.tcgen05Flops}}) {
    if (name == family || (family == "tmem" && name == "tcgen05") ||
        flops <= 0)
      continue;
    parts.push_back((label + " " + percent(flops / taskFlops)).str());
  }
  double rest = 1 - w.tensorFlops() / taskFlops;
  if (rest > 0.0005)
    parts.push_back("CUDA-core arithmetic (FFMA or other scalar math, no "
                    "tensor-core instruction) " +
                    percent(rest));
  if (parts.empty())
    return "nothing else (the kernel did less matrix work than the task "
           "needs)";
  return join(parts, ", ");
}

std::string restOfBytes(const WorkCounts &w) {
  double loaded = w.loadedBytes();
  std::vector<std::string> parts;
  if (w.globalLoadBytes > 0)
    parts.push_back("ld.global " + percent(w.globalLoadBytes / loaded));
  if (w.cpAsyncBytes > 0)
    parts.push_back("cp.async " + percent(w.cpAsyncBytes / loaded));
  if (parts.empty())
    return "nothing else";
  return join(parts, ", ");
}

} // namespace

namespace {

/// The matrix kind whose FLOPs a family is credited with.
StringRef matrixKindOf(StringRef family) {
  return family == "tmem" ? StringRef("tcgen05") : family;
}

/// The share of the task's FLOPs the other paths did than `kind`, between
/// them (the other matrix kinds and the CUDA cores), and their names.
std::pair<double, std::string> otherPaths(const WorkCounts &w, StringRef kind,
                                          double taskFlops) {
  double share = 0;
  std::vector<std::string> names;
  for (auto [name, label] :
       {std::pair<StringRef, StringRef>{"wgmma", "wgmma"},
        {"mma_sync", "mma.sync"},
        {"wmma", "wmma"},
        {"tcgen05", "tcgen05.mma"}})
    if (name != kind && w.flopsOf(name) > 0) {
      share += w.flopsOf(name) / taskFlops;
      names.push_back((label + " " + percent(w.flopsOf(name) / taskFlops)).str());
    }
  if (w.scalarFlops > 0) {
    share += w.scalarFlops / taskFlops;
    names.push_back("CUDA-core arithmetic " +
                    percent(w.scalarFlops / taskFlops));
  }
  return {share, join(names, ", ")};
}

/// The input bytes a correct kernel must read for `r`: the task's byte
/// count less its outputs' bytes, when that is positive and less than the
/// inputs hold (the last page of a paged cache is partly empty, and no
/// kernel reads the empty slots); else what the inputs hold.
double liveInputBytes(const Task &task, const WorkloadResult &r,
                      double allocated) {
  double outputs = 0;
  for (const TensorSpec &t : task.tensors) {
    if (t.role != Role::Output)
      continue;
    double elements = 1;
    for (const Expr &dim : t.shape) {
      Expected<int64_t> n = dim.evaluate(r.params);
      if (!n) {
        consumeError(n.takeError());
        return allocated;
      }
      elements *= double(*n);
    }
    outputs += elements * dtypeSize(t.dtype);
  }
  double live = r.bytes - outputs;
  return live > 0 && live < allocated ? live : allocated;
}

} // namespace

void ptxbench::runtime::creditWork(RunResult &run, const Task &task) {
  for (WorkloadResult &r : run.workloads) {
    if (!r.work.measured)
      continue;
    const WorkCounts &w = r.work;
    double tensorShare = r.flops > 0 ? w.tensorFlops() / r.flops : 0;
    double scalarShare = r.flops > 0 ? w.scalarFlops / r.flops : 0;
    // Tensor-core FLOPs are the matrix products alone; CUDA-core FLOPs
    // count every fp32 add, multiply and fma, also what the task's formula
    // leaves out (an online softmax's rescaling, the exponents), so on their
    // own they may reach a few times the task's.
    if (r.flops > 0 &&
        (tensorShare > 1.5 ||
         (tensorShare > 0.5 && tensorShare + scalarShare > 1.5) ||
         scalarShare > 3))
      r.workFindings.push_back(
          {"work-share-above-one",
           formatv("the kernels did {0} of the task's {1:e2} FLOPs (tensor "
                   "cores {2}, CUDA cores {3}): padding explains a little "
                   "more than the task's count, not this much; work was "
                   "done more than once",
                   percent(tensorShare + scalarShare), r.flops,
                   percent(tensorShare), percent(scalarShare))
               .str()});
    // Of the task's input bytes, what TMA and bulk copies read in bounds
    // (each tensor at most once over), and of the bytes loaded, what they
    // delivered: both must reach the threshold.
    double inputBytes = w.inputBytes > 0
                            ? liveInputBytes(task, r, w.inputBytes)
                            : w.loadedBytes();
    double inputShare =
        inputBytes > 0 ? std::min(1.0, w.asyncInputBytes / inputBytes) : 0;
    double loaded = w.loadedBytes();
    double executedShare = loaded > 0 ? w.asyncBytes / loaded : 0;
    for (FeatureCount &f : r.features) {
      WorkKind kind = workKind(f.family);
      if (kind == WorkKind::None || f.executed < 0)
        continue;
      if (kind == WorkKind::Flops) {
        if (r.flops <= 0)
          continue;
        StringRef matrix = matrixKindOf(f.family);
        f.share = w.flopsOf(matrix) / r.flops;
        f.threshold = task.creditFlops;
        if (f.executed > 0 && f.share >= f.threshold) {
          const Knockout *k = w.knockout(matrix);
          auto [other, otherNames] = otherPaths(w, matrix, r.flops);
          if (!k || !k->ran) {
            f.withheld = "knockout-not-run";
            r.workFindings.push_back(
                {f.withheld,
                 formatv("{0} did {1} of the task's FLOPs, but the run with "
                         "it switched off did not happen ({2}), so nothing "
                         "shows that its work reached the outputs",
                         f.family, percent(f.share),
                         k ? k->detail : std::string("not made"))
                     .str()});
          } else if (!k->reached) {
            f.withheld = "no-effect-" + f.family;
            r.workFindings.push_back(
                {f.withheld,
                 formatv("{0} executed {1} of the task's FLOPs, but with "
                         "every {0} instruction switched off the outputs "
                         "still passed their check: its results do not "
                         "reach the outputs, so its work does not count",
                         f.family, percent(f.share))
                     .str()});
          } else if (1 - other < f.threshold) {
            // What the other paths did cannot be this family's work too.
            f.withheld = "duplicated-work";
            r.workFindings.push_back(
                {f.withheld,
                 formatv("{0} did {1} of the task's FLOPs, but other paths "
                         "did {2} between them ({3}): at most {4} of the "
                         "task's work can be {0}'s, below the {5} the task "
                         "credits",
                         f.family, percent(f.share), percent(other),
                         otherNames, percent(std::max(0.0, 1 - other)),
                         percent(f.threshold))
                     .str()});
          }
        }
      } else {
        f.share = std::min(inputShare, executedShare);
        f.threshold = task.creditBytes;
      }
      if (f.executed <= 0 || f.share >= f.threshold)
        continue;
      std::string message;
      if (kind == WorkKind::Flops)
        message = formatv("{0} executed ({1} thread-instructions) but did {2} "
                          "of the task's {3:e2} FLOPs (the task credits it "
                          "from {4}); the rest: {5}",
                          f.family, f.executed, percent(f.share), r.flops,
                          percent(f.threshold),
                          restOfFlops(w, f.family, r.flops))
                      .str();
      else
        message = formatv("{0} executed ({1} thread-instructions) but TMA and "
                          "bulk copies read {2} of the task's {3:e2} input "
                          "bytes in bounds that no other load also brought "
                          "(ld.global and cp.async read {4:e2} of them), and "
                          "delivered {5} of the {6:e2} bytes loaded from "
                          "global memory (the task credits it from {7}); the "
                          "rest: {8}",
                          f.family, f.executed, percent(inputShare),
                          inputBytes, w.otherInputBytes,
                          percent(executedShare), loaded,
                          percent(f.threshold), restOfBytes(w))
                      .str();
      r.workFindings.push_back({"token-" + f.family, std::move(message)});
    }
  }
}

void ptxbench::runtime::judgeSpeedOfLight(RunResult &run) {
  for (WorkloadResult &r : run.workloads) {
    if (r.status != Status::Passed || !r.time || r.time->medianMs <= 0)
      continue;
    double seconds = r.time->medianMs * 1e-3;
    std::vector<std::string> why;
    if (run.peakTflops > 0 && r.flops > 0) {
      double tflops = r.flops / seconds * 1e-12;
      if (tflops > run.peakTflops)
        why.push_back(formatv("{0:f1} TFLOP/s is {1:f0}% of the hardware's "
                              "{2} tensor-core peak of {3:f1} TFLOP/s",
                              tflops, 100 * tflops / run.peakTflops,
                              run.peakMatrixType, run.peakTflops)
                          .str());
    }
    if (run.peakGBps > 0 && r.bytes > 0) {
      double gbps = r.bytes / seconds * 1e-9;
      if (gbps > run.peakGBps)
        why.push_back(formatv("{0:f0} GB/s is {1:f0}% of the hardware's DRAM "
                              "bandwidth of {2:f0} GB/s",
                              gbps, 100 * gbps / run.peakGBps, run.peakGBps)
                          .str());
    }
    // The FLOPs no tensor-core instruction did whose work reached the
    // outputs ran on the CUDA cores, whatever else the kernels contain; all
    // of them when the work was not measured.
    if (why.empty() && !run.countsDisabled && run.peakFp32Tflops > 0 &&
        r.flops > 0) {
      double cudaCoreShare = 1 - r.work.reachedTensorShare(r.flops);
      double tflops = r.flops * cudaCoreShare / seconds * 1e-12;
      if (cudaCoreShare > 0 && tflops > run.peakFp32Tflops)
        why.push_back(
            formatv("{0} of the task's FLOPs were not done by a tensor-core "
                    "instruction whose work reached the outputs ({1}), yet "
                    "they ran at {2:f1} TFLOP/s, {3:f0}% of the FP32 "
                    "CUDA-core peak of {4:f1} TFLOP/s",
                    percent(cudaCoreShare),
                    r.work.measured ? "run-time counts and knockouts"
                                    : "the work was not measured",
                    tflops, 100 * tflops / run.peakFp32Tflops,
                    run.peakFp32Tflops)
                .str());
    }
    if (why.empty())
      continue;
    r.status = Status::Suspicious;
    r.message = "faster than the hardware allows: " + join(why, "; ") +
                " (" + run.peakHow +
                "); the task's work cannot have been done in this time "
                "(results remembered between launches, work skipped, or "
                "the timing is wrong), so the result is not credited";
  }
}

void ptxbench::runtime::readPeaks(const json::Object &event, RunResult &run) {
  run.peakFp32Tflops = event.getNumber("peak_fp32_tflops").value_or(0);
  run.peakHow = event.getString("peak_how").value_or("").str();
  run.libraryTflops = event.getNumber("library_tflops").value_or(0);
  run.copyGBps = event.getNumber("copy_gbps").value_or(0);
  // Each worker's set-up (context, libraries, the harness's kernels, the
  // card's peaks) adds to one phase.
  if (std::optional<double> ms = event.getNumber("setup_ms")) {
    auto it = llvm::find_if(run.phases, [](const Phase &p) {
      return p.name == "worker set-up";
    });
    if (it == run.phases.end())
      run.phases.push_back({"worker set-up", *ms});
    else
      it->ms += *ms;
  }
}
