//===- ResultSummary.cpp - A run's result as readable text ----------------===//
//
// What `ptxbench run` prints: the device and its speed of light, each
// workload's status, checks, times against the baseline and fractions of
// the speed of light, feature counts and credit, and the exit status the
// worst workload gives.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Runtime/Result.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;
using namespace ptxbench::runtime;

Status ptxbench::runtime::worstStatus(const RunResult &run) {
  Status worst = Status::Passed;
  for (const WorkloadResult &r : run.workloads)
    if (r.status != Status::Passed && worst == Status::Passed)
      worst = r.status;
  return run.workloads.empty() ? Status::Skipped : worst;
}

static std::string fmtValue(double v) {
  if (isUnwritten(float(v)))
    return "unwritten";
  std::string s;
  raw_string_ostream os(s);
  os << format("%.6g", v);
  return s;
}

static std::string clockText(const TimingStats &t) {
  if (!t.clockSampled)
    return ", clock not sampled";
  std::string s = formatv(", SM clock {0}-{1} MHz", t.minClockMHz,
                          t.maxClockMHz)
                      .str();
  if (t.throttled)
    s += formatv(", {0} throttled sample{1} {2}", t.throttled,
                 t.throttled == 1 ? "" : "s",
                 t.keptThrottled ? "kept (too few clean ones)" : "discarded")
             .str();
  return s;
}

void ptxbench::runtime::printSummary(const RunResult &run, raw_ostream &os) {
  os << "task " << run.task << ", solution " << run.solution;
  if (!run.device.empty())
    os << ", device " << run.device;
  os << "\n";
  if (run.peakTflops > 0 || run.peakGBps > 0)
    os << "speed of light (hardware): " << formatv("{0:f0}", run.peakTflops)
       << " TFLOP/s " << run.peakMatrixType << " tensor cores, "
       << formatv("{0:f1}", run.peakFp32Tflops) << " TFLOP/s FP32 CUDA cores, "
       << formatv("{0:f0}", run.peakGBps) << " GB/s DRAM (" << run.peakHow
       << ")\n";
  else if (!run.peakHow.empty())
    os << "speed of light (hardware): unknown (" << run.peakHow << ")\n";
  if (run.libraryTflops > 0 || run.copyGBps > 0)
    os << "best library: " << formatv("{0:f0}", run.libraryTflops)
       << " TFLOP/s cuBLASLt " << run.peakMatrixType << " 8192^3, "
       << formatv("{0:f0}", run.copyGBps) << " GB/s device copy ("
       << run.peakSource << ")\n";
  else if (!run.peakSource.empty())
    os << "best library: unknown (" << run.peakSource << ")\n";
  os << format("%-28s %-13s %10s %10s %10s %9s %10s %8s %6s\n", "workload",
               "status", "rel_l2", "max_abs", "time_ms", "TFLOP/s", "base_ms",
               "speedup", "SOL");
  for (const WorkloadResult &r : run.workloads) {
    std::string l2 = r.check ? fmtValue(r.check->relL2) : "-";
    std::string maxAbs = r.check ? fmtValue(r.check->maxAbsErr) : "-";
    std::string time = "-", tflops = "-", base = "-", speedup = "-", sol = "-";
    if (r.time) {
      time = fmtValue(r.time->medianMs);
      if (std::optional<double> t = ptxbench::runtime::tflops(r))
        tflops = formatv("{0:f1}", *t);
      if (double f = solFraction(run, r))
        sol = formatv("{0:f0}%", f * 100).str();
    }
    if (r.baselineTime) {
      base = fmtValue(r.baselineTime->medianMs);
      if (std::optional<double> s = ptxbench::runtime::speedup(r))
        speedup = formatv("{0:f2}x", *s);
    }
    os << format("%-28s %-13s %10s %10s %10s %9s %10s %8s %6s\n",
                 r.workload.c_str(), statusName(r.status).data(), l2.c_str(),
                 maxAbs.c_str(), time.c_str(), tflops.c_str(), base.c_str(),
                 speedup.c_str(), sol.c_str());
    if (r.time)
      os << "    time: median " << fmtValue(r.time->medianMs) << " ms, IQR ["
         << fmtValue(r.time->q1Ms) << ", " << fmtValue(r.time->q3Ms) << "] ms, "
         << r.time->samples << " samples, rse "
         << formatv("{0:f2}%", r.time->rse * 100) << clockText(*r.time)
         << "\n";
    if (r.time) {
      if (double f = libraryFraction(run, r))
        os << "    " << formatv("{0:f0}%", f * 100)
           << " of the best library's figures\n";
    }
    if (r.baselineTime) {
      // Which library ran, and whether its own outputs agree with the
      // reference (a check of both).
      os << "    baseline: "
         << (r.baselineVersion.empty() ? run.baseline : r.baselineVersion);
      if (!r.baselineChecks.empty()) {
        os << "; against the reference:";
        for (const NamedCheck &c : r.baselineChecks)
          os << " " << c.tensor << " "
             << (c.stats.passed ? "ok" : "FAILED " + c.stats.failedCheck)
             << " (rel_l2 " << fmtValue(c.stats.relL2) << ")";
      }
      os << "\n";
    }
    if (r.outputChecks.size() > 1) {
      os << "    outputs:";
      for (const NamedCheck &c : r.outputChecks)
        os << " " << c.tensor << " rel_l2 " << fmtValue(c.stats.relL2)
           << " max_abs " << fmtValue(c.stats.maxAbsErr) << ";";
      os << "\n";
    }
    if (!r.features.empty()) {
      os << "    features (" << (run.arch.empty() ? "this GPU" : run.arch)
         << ", thread-instructions executed):";
      for (const FeatureCount &f : r.features) {
        os << " " << f.family << " ";
        if (f.executed > 0) {
          os << f.executed;
          if (f.share >= 0)
            os << " " << featureVerdict(f) << " ("
               << formatv("{0:f1}%", f.share * 100) << " of the work)";
        } else {
          os << featureVerdict(f);
        }
        if (f.inCode >= 0 && f.executed <= 0 && f.inCode > 0)
          os << " (" << f.inCode << " in code)";
        if (&f != &r.features.back())
          os << ";";
      }
      os << "\n";
    }
    if (!r.featureNote.empty())
      os << "    feature counts: " << r.featureNote << "\n";
    for (const WorkloadResult::WorkFinding &f : r.workFindings)
      os << "    [" << f.kind << "] " << f.message << "\n";
    if (r.inputSets)
      os << "    integrity: " << r.timedLaunchesChecked
         << " timed launches checked, " << r.inputSets
         << " input sets rotated\n";
    if (r.outputBytes)
      os << "    the kernel printed " << r.outputBytes
         << " bytes (device printf; the first and last KiB are in the "
            "JSON's \"output\")\n";
    if (r.check && !r.check->passed)
      os << "    check '" << r.check->failedCheck << "' failed on "
         << r.checkedTensor << ": worst element [" << r.check->worstIndex
         << "] = " << fmtValue(r.check->worstValue) << ", reference "
         << fmtValue(r.check->worstRef) << "; " << r.check->unwritten
         << " unwritten, " << r.check->nonFinite << " non-finite, "
         << r.check->outOfTolerance << " out of tolerance of " << r.check->count
         << "\n";
    if (!r.message.empty()) {
      StringRef msg = StringRef(r.message).trim();
      SmallVector<StringRef> lines;
      msg.split(lines, '\n');
      for (unsigned i = 0; i < lines.size() && i < 12; ++i)
        os << "    " << lines[i] << "\n";
      if (lines.size() > 12)
        os << "    ... (" << lines.size() - 12 << " more lines in the JSON)\n";
    }
  }
  if (!run.sanitizerNote.empty())
    os << "sanitizer: " << run.sanitizerNote << "\n";
  if (!run.sanitizer.empty()) {
    os << "sanitizer (" << run.sanitizedWorkload << "):";
    for (const SanitizerReport &t : run.sanitizer) {
      os << " " << t.tool << " ";
      if (t.timedOut)
        os << "stopped at --sanitize-timeout";
      else if (t.errors < 0)
        os << "no summary";
      else
        os << t.errors << (t.errors == 1 ? " error" : " errors");
      if (&t != &run.sanitizer.back())
        os << ";";
    }
    os << " (reports in the JSON's \"sanitizer\")\n";
  }
  os << "status: " << statusName(worstStatus(run)) << "\n";
}

void ptxbench::runtime::printPhases(const RunResult &run, raw_ostream &os) {
  auto table = [&](StringRef title, ArrayRef<Phase> phases) {
    if (phases.empty())
      return;
    double total = 0;
    for (const Phase &p : phases)
      total += p.name.find("launches") == std::string::npos ? p.ms : 0;
    os << title << " (" << formatv("{0:f0}", total) << " ms):\n";
    for (const Phase &p : phases)
      os << formatv("  {0,-28} {1,10:f1} ms\n", p.name, p.ms);
  };
  if (!run.compileSandbox.empty())
    os << "sandbox of the NVRTC compile: " << run.compileSandbox << "\n";
  if (!run.workerSandbox.empty())
    os << "sandbox of the GPU workers: " << run.workerSandbox << "\n";
  table("where the time went before the workloads", run.phases);
  for (const WorkloadResult &r : run.workloads)
    table("where the time went in " + r.workload, r.phases);
}
