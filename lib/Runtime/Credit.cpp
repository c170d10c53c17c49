//===- Credit.cpp - Work shares and the speed-of-light judgement ----------===//
//
// What a run's numbers are worth. The instrumented run counts the FLOPs of
// each kind of matrix instruction and the bytes of each kind of global
// load; creditWork turns them into each requested family's share of the
// task's work and a `used`/`token` verdict against the task's thresholds.
// judgeSpeedOfLight turns a correct result that is faster than the card
// can be into SUSPICIOUS. Both are plain host code (unit-tested).
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

double familyFlops(const WorkCounts &w, StringRef family) {
  if (family == "wgmma")
    return w.wgmmaFlops;
  if (family == "mma_sync")
    return w.mmaSyncFlops;
  if (family == "wmma")
    return w.wmmaFlops;
  return w.tcgen05Flops; // tcgen05, tmem
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

void ptxbench::runtime::creditWork(RunResult &run, const Task &task) {
  for (WorkloadResult &r : run.workloads) {
    if (!r.work.measured)
      continue;
    const WorkCounts &w = r.work;
    double loaded = w.loadedBytes();
    for (FeatureCount &f : r.features) {
      WorkKind kind = workKind(f.family);
      if (kind == WorkKind::None || f.executed < 0)
        continue;
      if (kind == WorkKind::Flops) {
        if (r.flops <= 0)
          continue;
        f.share = familyFlops(w, f.family) / r.flops;
        f.threshold = task.creditFlops;
      } else {
        f.share = loaded > 0 ? w.asyncBytes / loaded : 0;
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
                          "bulk copies delivered {2} of the {3:e2} bytes "
                          "loaded from global memory (the task credits it "
                          "from {4}); the rest: {5}",
                          f.family, f.executed, percent(f.share), loaded,
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
    if (why.empty() && run.peakFp32Tflops > 0 && r.flops > 0 &&
        r.work.measured && r.work.tensorFlops() == 0) {
      double tflops = r.flops / seconds * 1e-12;
      if (tflops > run.peakFp32Tflops)
        why.push_back(formatv("no tensor-core instruction executed (run-time "
                              "counts), yet {0:f1} TFLOP/s is {1:f0}% of the "
                              "FP32 CUDA-core peak of {2:f1} TFLOP/s",
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
}
