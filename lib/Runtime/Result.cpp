//===- Result.cpp - Output checks, timing statistics ----------------------===//
//
// The plain host arithmetic behind a result: bf16 conversion and the
// unwritten-output poison, the comparison of an output with its reference
// (on the host, and the verdict on the device-side check's sums), the
// timer's statistics, stopping rule and throttle filter, a feature count's
// verdict, and what a workload's timings give (its speedup, rates and
// fraction of the speed of light). ResultJSON.cpp writes and reads results;
// ResultSummary.cpp prints them.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Runtime/Result.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/ErrorHandling.h"

#include <algorithm>
#include <cmath>
#include <cstring>

using namespace llvm;
using namespace ptxbench::runtime;

bool ptxbench::runtime::isUnwritten(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  return bits == unwrittenF32Bits;
}

float ptxbench::runtime::bf16ToFloat(uint16_t bits) {
  uint32_t u = uint32_t(bits) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

uint16_t ptxbench::runtime::floatToBF16(float value) {
  uint32_t u;
  std::memcpy(&u, &value, 4);
  if (std::isnan(value))
    return uint16_t((u >> 16) | 0x40);
  u += 0x7FFF + ((u >> 16) & 1);
  return uint16_t(u >> 16);
}

CompareStats ptxbench::runtime::compareOutputs(ArrayRef<float> out,
                                               ArrayRef<float> ref,
                                               std::optional<Tolerance> tol,
                                               std::optional<double> relL2) {
  CompareStats s;
  s.count = out.size();
  double errSq = 0, refSq = 0, worstScore = -1;
  int64_t firstBad = -1;
  for (size_t i = 0; i < out.size() && i < ref.size(); ++i) {
    float o = out[i];
    double r = ref[i];
    if (isUnwritten(o)) {
      if (!s.unwritten++ && firstBad < 0)
        firstBad = i;
      continue;
    }
    if (!std::isfinite(o)) {
      if (!s.nonFinite++ && firstBad < 0)
        firstBad = i;
      continue;
    }
    double err = std::fabs(double(o) - r);
    errSq += err * err;
    refSq += r * r;
    s.maxAbsErr = std::max(s.maxAbsErr, err);
    if (r != 0)
      s.maxRelErr = std::max(s.maxRelErr, err / std::fabs(r));
    double allowed = tol ? tol->atol + tol->rtol * std::fabs(r) : 0;
    double score = allowed > 0 ? err / allowed : err;
    if (tol && err > allowed)
      ++s.outOfTolerance;
    if (score > worstScore) {
      worstScore = score;
      s.worstIndex = i;
    }
  }
  if (out.size() != ref.size()) {
    s.failedCheck = "size";
    return s;
  }
  s.relL2 = refSq > 0 ? std::sqrt(errSq / refSq) : std::sqrt(errSq);
  if (firstBad >= 0)
    s.worstIndex = firstBad;
  if (s.worstIndex >= 0) {
    s.worstValue = out[s.worstIndex];
    s.worstRef = ref[s.worstIndex];
  }
  if (s.unwritten)
    s.failedCheck = "unwritten";
  else if (s.nonFinite)
    s.failedCheck = "non-finite";
  else if (tol && s.outOfTolerance)
    s.failedCheck = "tolerance";
  else if (relL2 && !(s.relL2 <= *relL2))
    s.failedCheck = "rel_l2";
  s.passed = s.failedCheck.empty();
  return s;
}

CompareStats ptxbench::runtime::judgeSums(const CheckSums &sums,
                                          std::optional<Tolerance> tol,
                                          std::optional<double> relL2) {
  CompareStats s;
  s.count = sums.count;
  s.unwritten = sums.unwritten;
  s.nonFinite = sums.nonFinite;
  s.outOfTolerance = tol ? sums.outOfTolerance : 0;
  s.maxAbsErr = sums.maxAbsErr;
  s.relL2 = sums.refSq > 0 ? std::sqrt(sums.errSq / sums.refSq)
                           : std::sqrt(sums.errSq);
  if (s.unwritten)
    s.failedCheck = "unwritten";
  else if (s.nonFinite)
    s.failedCheck = "non-finite";
  else if (s.outOfTolerance)
    s.failedCheck = "tolerance";
  else if (relL2 && !(s.relL2 <= *relL2))
    s.failedCheck = "rel_l2";
  s.passed = s.failedCheck.empty();
  return s;
}

TimingStats ptxbench::runtime::summarizeTimes(ArrayRef<double> samplesMs) {
  TimingStats t;
  t.samples = samplesMs.size();
  if (samplesMs.empty())
    return t;
  std::vector<double> v(samplesMs.begin(), samplesMs.end());
  std::sort(v.begin(), v.end());
  auto quantile = [&](double q) {
    double pos = q * (v.size() - 1);
    size_t lo = size_t(pos);
    size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (pos - lo) * (v[hi] - v[lo]);
  };
  t.medianMs = quantile(0.5);
  t.q1Ms = quantile(0.25);
  t.q3Ms = quantile(0.75);
  t.minMs = v.front();
  double sum = 0;
  for (double x : v)
    sum += x;
  t.meanMs = sum / v.size();
  if (v.size() > 1 && t.meanMs > 0) {
    double var = 0;
    for (double x : v)
      var += (x - t.meanMs) * (x - t.meanMs);
    var /= v.size() - 1;
    t.rse = std::sqrt(var / v.size()) / t.meanMs;
  }
  return t;
}

bool ptxbench::runtime::enoughSamples(ArrayRef<double> samplesMs,
                                      double elapsedSeconds,
                                      const Task::Timing &timing) {
  if (samplesMs.size() >= timing.maxSamples)
    return true;
  if (samplesMs.size() < timing.minSamples)
    return false;
  if (elapsedSeconds >= timing.maxSeconds)
    return true;
  return summarizeTimes(samplesMs).rse < timing.targetRse;
}

bool ptxbench::runtime::isThrottled(const ClockReading &before,
                                    const ClockReading &after,
                                    unsigned maxMHz, double minFraction) {
  for (const ClockReading *r : {&before, &after}) {
    if (!r->valid)
      continue;
    if (r->reasons & throttleReasonMask)
      return true;
    if (maxMHz && double(r->smMHz) < minFraction * double(maxMHz))
      return true;
  }
  return false;
}

std::vector<double> ptxbench::runtime::keptSamples(ArrayRef<double> samplesMs,
                                                   ArrayRef<bool> throttled,
                                                   unsigned minSamples,
                                                   bool &keptThrottled) {
  std::vector<double> kept;
  for (size_t i = 0; i < samplesMs.size(); ++i)
    if (i >= throttled.size() || !throttled[i])
      kept.push_back(samplesMs[i]);
  keptThrottled = kept.size() < minSamples && kept.size() < samplesMs.size();
  if (keptThrottled)
    return samplesMs.vec();
  return kept;
}

FamilyVerdict ptxbench::runtime::familyVerdict(const FeatureCount &c) {
  if (c.executed < 0)
    return FamilyVerdict::NotMeasured;
  if (c.executed > 0) {
    if (c.share < 0 || c.threshold < 0)
      return FamilyVerdict::Executed;
    return c.share >= c.threshold && c.withheld.empty() ? FamilyVerdict::Used
                                                        : FamilyVerdict::Token;
  }
  if (c.inCode > 0)
    return FamilyVerdict::NotTriggered;
  if (c.inCode == 0)
    return FamilyVerdict::NotInCode;
  return FamilyVerdict::NotExecuted;
}

StringRef ptxbench::runtime::featureVerdict(const FeatureCount &c) {
  return verdictName(familyVerdict(c));
}

double WorkCounts::flopsOf(StringRef kind) const {
  if (kind == "wgmma")
    return wgmmaFlops;
  if (kind == "mma_sync")
    return mmaSyncFlops;
  if (kind == "wmma")
    return wmmaFlops;
  if (kind == "tcgen05")
    return tcgen05Flops;
  return 0;
}

const Knockout *WorkCounts::knockout(StringRef kind) const {
  for (const Knockout &k : knockouts)
    if (k.kind == kind)
      return &k;
  return nullptr;
}

double WorkCounts::reachedTensorShare(double taskFlops) const {
  if (!measured || taskFlops <= 0)
    return 0;
  double share = 0;
  for (const Knockout &k : knockouts)
    if (k.ran && k.reached)
      share += flopsOf(k.kind) / taskFlops;
  return std::min(share, 1.0);
}

/// `value` when it is a positive, finite number.
static std::optional<double> positive(double value) {
  if (!(value > 0) || !std::isfinite(value))
    return std::nullopt;
  return value;
}

/// The median of `t` in milliseconds when it is a time.
static std::optional<double> medianMs(const std::optional<TimingStats> &t) {
  return t ? positive(t->medianMs) : std::nullopt;
}

static std::optional<double> medianSeconds(const std::optional<TimingStats> &t) {
  std::optional<double> ms = medianMs(t);
  return ms ? std::optional<double>(*ms * 1e-3) : std::nullopt;
}

std::optional<double> ptxbench::runtime::speedup(const WorkloadResult &r) {
  std::optional<double> ours = medianMs(r.time);
  std::optional<double> library = medianMs(r.baselineTime);
  if (!ours || !library)
    return std::nullopt;
  return positive(*library / *ours);
}

std::optional<double> ptxbench::runtime::tflops(const WorkloadResult &r) {
  std::optional<double> s = medianSeconds(r.time);
  if (!s || !positive(r.flops))
    return std::nullopt;
  return positive(r.flops / *s * 1e-12);
}

std::optional<double> ptxbench::runtime::gbps(const WorkloadResult &r) {
  std::optional<double> s = medianSeconds(r.time);
  if (!s || !positive(r.bytes))
    return std::nullopt;
  return positive(r.bytes / *s * 1e-9);
}

/// max(flops / rate, bytes / bandwidth) / median time.
static double fractionOf(const WorkloadResult &r, double rateTflops,
                         double rateGBps) {
  std::optional<double> seconds = medianSeconds(r.time);
  if (!seconds || !(rateTflops > 0 || rateGBps > 0))
    return 0;
  double floor = 0;
  if (rateTflops > 0)
    floor = std::max(floor, r.flops / (rateTflops * 1e12));
  if (rateGBps > 0)
    floor = std::max(floor, r.bytes / (rateGBps * 1e9));
  return positive(floor / *seconds).value_or(0);
}

double ptxbench::runtime::solFraction(const RunResult &run,
                                      const WorkloadResult &r) {
  return fractionOf(r, run.peakTflops, run.peakGBps);
}

double ptxbench::runtime::libraryFraction(const RunResult &run,
                                          const WorkloadResult &r) {
  return fractionOf(r, run.libraryTflops, run.copyGBps);
}

std::map<std::string, FamilySummary>
ptxbench::runtime::familySummaries(const RunResult &run) {
  std::map<std::string, FamilySummary> summaries;
  for (const WorkloadResult &w : run.workloads)
    for (const FeatureCount &f : w.features) {
      FamilySummary &s = summaries[f.family];
      s.inCode = std::max(s.inCode, f.inCode);
      if (f.executed >= 0)
        s.executed = std::max<int64_t>(s.executed, 0) + f.executed;
      s.verdict = acrossWorkloads(s.verdict, familyVerdict(f));
      if (f.share >= 0)
        s.share = s.share < 0 ? f.share : std::min(s.share, f.share);
    }
  return summaries;
}

void ptxbench::runtime::markSplits(const Task &task, RunResult &run) {
  for (WorkloadResult &w : run.workloads)
    w.split = llvm::any_of(task.heldout,
                           [&](const Workload &h) { return h.name == w.workload; })
                  ? "heldout"
                  : "dev";
}
