//===- Result.cpp - Output checks, timing statistics and reports ----------===//

#include "ptxbench/Runtime/Result.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"

#include <algorithm>
#include <cmath>
#include <cstring>

using namespace llvm;
using namespace ptxbench::runtime;

static constexpr std::pair<Status, StringLiteral> statusNames[] = {
    {Status::Passed, "PASSED"},
    {Status::Incorrect, "INCORRECT"},
    {Status::Suspicious, "SUSPICIOUS"},
    {Status::CompileError, "COMPILE_ERROR"},
    {Status::CompileTimeout, "COMPILE_TIMEOUT"},
    {Status::PlanError, "PLAN_ERROR"},
    {Status::LaunchError, "LAUNCH_ERROR"},
    {Status::RuntimeError, "RUNTIME_ERROR"},
    {Status::Timeout, "TIMEOUT"},
    {Status::HarnessError, "HARNESS_ERROR"},
    {Status::NoGpu, "NO_GPU"},
    {Status::Skipped, "SKIPPED"},
};

StringRef ptxbench::runtime::statusName(Status status) {
  for (const auto &[s, name] : statusNames)
    if (s == status)
      return name;
  llvm_unreachable("status");
}

std::optional<Status> ptxbench::runtime::parseStatus(StringRef name) {
  for (const auto &[s, n] : statusNames)
    if (n == name)
      return s;
  return std::nullopt;
}

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

StringRef ptxbench::runtime::featureVerdict(const FeatureCount &c) {
  if (c.executed < 0)
    return "not measured";
  if (c.executed > 0) {
    if (c.share < 0 || c.threshold < 0)
      return "executed";
    return c.share >= c.threshold ? "used" : "token";
  }
  if (c.inCode > 0)
    return "not triggered";
  if (c.inCode == 0)
    return "not in code";
  return "not executed";
}

//===----------------------------------------------------------------------===//
// JSON
//===----------------------------------------------------------------------===//

json::Value ptxbench::runtime::toJSON(const CompareStats &s) {
  json::Object o{{"passed", s.passed},
                 {"count", int64_t(s.count)},
                 {"unwritten", int64_t(s.unwritten)},
                 {"non_finite", int64_t(s.nonFinite)},
                 {"out_of_tolerance", int64_t(s.outOfTolerance)},
                 {"max_abs_err", s.maxAbsErr},
                 {"max_rel_err", s.maxRelErr},
                 {"rel_l2", s.relL2},
                 {"worst_index", s.worstIndex}};
  // JSON has no NaN: write non-finite values as strings.
  auto num = [](double v) -> json::Value {
    if (std::isfinite(v))
      return v;
    return std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf";
  };
  o["worst_value"] = isUnwritten(float(s.worstValue)) && s.unwritten
                         ? json::Value("unwritten")
                         : num(s.worstValue);
  o["worst_ref"] = num(s.worstRef);
  if (!s.failedCheck.empty())
    o["failed_check"] = s.failedCheck;
  return o;
}

json::Value ptxbench::runtime::toJSON(const TimingStats &t) {
  return json::Object{{"samples", int64_t(t.samples)},
                      {"median_ms", t.medianMs},
                      {"q1_ms", t.q1Ms},
                      {"q3_ms", t.q3Ms},
                      {"min_ms", t.minMs},
                      {"mean_ms", t.meanMs},
                      {"rse", t.rse},
                      {"clock_sampled", t.clockSampled},
                      {"throttled_discarded", int64_t(t.throttled)},
                      {"throttled_kept", t.keptThrottled},
                      {"min_clock_mhz", int64_t(t.minClockMHz)},
                      {"max_clock_mhz", int64_t(t.maxClockMHz)}};
}

/// A submission's output as JSON text: invalid UTF-8 (binary output, a
/// character cut at the capture's edge) replaced.
static std::string validUTF8(const std::string &text) {
  return json::isUTF8(text) ? text : json::fixUTF8(text);
}

json::Value ptxbench::runtime::toJSON(const WorkloadResult &r) {
  json::Object params;
  for (const auto &p : r.params)
    params[p.getKey()] = p.getValue();
  json::Object o{{"workload", r.workload},
                 {"params", std::move(params)},
                 {"status", statusName(r.status)},
                 {"flops", r.flops},
                 {"bytes", r.bytes}};
  if (!r.message.empty())
    o["message"] = r.message;
  if (r.check) {
    o["check"] = toJSON(*r.check);
    o["checked_tensor"] = r.checkedTensor;
  }
  if (r.time) {
    o["time"] = toJSON(*r.time);
    double s = r.time->medianMs * 1e-3;
    if (r.flops > 0)
      o["tflops"] = r.flops / s * 1e-12;
    if (r.bytes > 0)
      o["gbps"] = r.bytes / s * 1e-9;
  }
  if (r.baselineTime) {
    o["baseline_time"] = toJSON(*r.baselineTime);
    if (r.time)
      o["speedup"] = r.baselineTime->medianMs / r.time->medianMs;
  }
  if (!r.baselineVersion.empty())
    o["baseline_version"] = r.baselineVersion;
  for (auto [key, list] : {std::pair{"checks", &r.outputChecks},
                           std::pair{"baseline_checks", &r.baselineChecks}}) {
    if (list->empty())
      continue;
    json::Array a;
    for (const NamedCheck &c : *list) {
      json::Value v = toJSON(c.stats);
      v.getAsObject()->try_emplace("tensor", c.tensor);
      a.push_back(std::move(v));
    }
    o[key] = std::move(a);
  }
  if (!r.features.empty()) {
    json::Array features;
    for (const FeatureCount &f : r.features) {
      json::Object fo{{"family", f.family},
                      {"in_code", f.inCode},
                      {"executed", f.executed},
                      {"verdict", featureVerdict(f)}};
      if (f.share >= 0) {
        fo["share"] = f.share;
        fo["threshold"] = f.threshold;
      }
      features.push_back(std::move(fo));
    }
    o["features"] = std::move(features);
  }
  if (r.work.measured) {
    const WorkCounts &w = r.work;
    o["work"] = json::Object{{"wgmma_flops", w.wgmmaFlops},
                             {"mma_sync_flops", w.mmaSyncFlops},
                             {"wmma_flops", w.wmmaFlops},
                             {"tcgen05_flops", w.tcgen05Flops},
                             {"async_copy_bytes", w.asyncBytes},
                             {"global_load_bytes", w.globalLoadBytes},
                             {"cp_async_bytes", w.cpAsyncBytes}};
  }
  if (!r.workFindings.empty()) {
    json::Array findings;
    for (const WorkloadResult::WorkFinding &f : r.workFindings)
      findings.push_back(
          json::Object{{"kind", f.kind}, {"message", f.message}});
    o["work_findings"] = std::move(findings);
  }
  if (!r.featureNote.empty())
    o["feature_note"] = r.featureNote;
  if (!r.compileLog.empty())
    o["compile_log"] = r.compileLog;
  if (!r.jitLog.empty())
    o["jit_log"] = r.jitLog;
  if (r.outputBytes)
    o["output"] = json::Object{{"bytes", int64_t(r.outputBytes)},
                               {"head", validUTF8(r.outputHead)},
                               {"tail", validUTF8(r.outputTail)}};
  if (r.inputSets)
    o["input_sets"] = int64_t(r.inputSets);
  if (r.timedLaunchesChecked)
    o["timed_launches_checked"] = int64_t(r.timedLaunchesChecked);
  return o;
}

/// max(flops / rate, bytes / bandwidth) / median time.
static double fractionOf(const WorkloadResult &r, double tflops, double gbps) {
  if (!r.time || r.time->medianMs <= 0 || (tflops <= 0 && gbps <= 0))
    return 0;
  double floor = 0;
  if (tflops > 0)
    floor = std::max(floor, r.flops / (tflops * 1e12));
  if (gbps > 0)
    floor = std::max(floor, r.bytes / (gbps * 1e9));
  return floor / (r.time->medianMs * 1e-3);
}

double ptxbench::runtime::solFraction(const RunResult &run,
                                      const WorkloadResult &r) {
  return fractionOf(r, run.peakTflops, run.peakGBps);
}

double ptxbench::runtime::libraryFraction(const RunResult &run,
                                          const WorkloadResult &r) {
  return fractionOf(r, run.libraryTflops, run.copyGBps);
}

json::Value ptxbench::runtime::toJSON(const RunResult &run) {
  json::Array workloads;
  for (const WorkloadResult &r : run.workloads) {
    json::Value v = toJSON(r);
    if (double f = solFraction(run, r))
      v.getAsObject()->insert({"sol_fraction", f});
    if (double f = libraryFraction(run, r))
      v.getAsObject()->insert({"library_fraction", f});
    workloads.push_back(std::move(v));
  }
  json::Object o{{"task", run.task},
                 {"solution", run.solution},
                 {"device", run.device},
                 {"peak_tflops", run.peakTflops},
                 {"peak_gbps", run.peakGBps},
                 {"peak_fp32_tflops", run.peakFp32Tflops},
                 {"peak_how", run.peakHow},
                 {"library_tflops", run.libraryTflops},
                 {"copy_gbps", run.copyGBps},
                 {"peak_source", run.peakSource},
                 {"peak_matrix_type", run.peakMatrixType},
                 {"arch", run.arch},
                 {"status", statusName(worstStatus(run))},
                 {"workloads", std::move(workloads)}};
  if (!run.baseline.empty())
    o["baseline"] = run.baseline;
  if (!run.driver.empty())
    o["driver"] = run.driver;
  if (run.cudaDriverVersion)
    o["cuda_driver_version"] = run.cudaDriverVersion;
  if (run.cublasLtVersion)
    o["cublaslt_version"] = run.cublasLtVersion;
  if (!run.sanitizer.empty() || !run.sanitizerNote.empty()) {
    json::Array tools;
    for (const SanitizerReport &t : run.sanitizer)
      tools.push_back(json::Object{{"tool", t.tool},
                                   {"errors", t.errors},
                                   {"bytes", int64_t(t.bytes)},
                                   {"head", validUTF8(t.head)},
                                   {"tail", validUTF8(t.tail)}});
    json::Object sanitizer{{"tools", std::move(tools)}};
    if (!run.sanitizedWorkload.empty())
      sanitizer["workload"] = run.sanitizedWorkload;
    if (!run.sanitizerNote.empty())
      sanitizer["note"] = run.sanitizerNote;
    o["sanitizer"] = std::move(sanitizer);
  }
  return o;
}

static bool readTiming(const json::Object *o, TimingStats &t) {
  if (!o)
    return false;
  t.samples = o->getInteger("samples").value_or(0);
  t.medianMs = o->getNumber("median_ms").value_or(0);
  t.q1Ms = o->getNumber("q1_ms").value_or(0);
  t.q3Ms = o->getNumber("q3_ms").value_or(0);
  t.minMs = o->getNumber("min_ms").value_or(0);
  t.meanMs = o->getNumber("mean_ms").value_or(0);
  t.rse = o->getNumber("rse").value_or(0);
  t.clockSampled = o->getBoolean("clock_sampled").value_or(false);
  t.throttled = o->getInteger("throttled_discarded").value_or(0);
  t.keptThrottled = o->getBoolean("throttled_kept").value_or(false);
  t.minClockMHz = o->getInteger("min_clock_mhz").value_or(0);
  t.maxClockMHz = o->getInteger("max_clock_mhz").value_or(0);
  return true;
}

/// Reads a CompareStats written by toJSON.
static CompareStats readCompareStats(const json::Object *c) {
  CompareStats s;
  s.passed = c->getBoolean("passed").value_or(false);
  s.count = c->getInteger("count").value_or(0);
  s.unwritten = c->getInteger("unwritten").value_or(0);
  s.nonFinite = c->getInteger("non_finite").value_or(0);
  s.outOfTolerance = c->getInteger("out_of_tolerance").value_or(0);
  s.maxAbsErr = c->getNumber("max_abs_err").value_or(0);
  s.maxRelErr = c->getNumber("max_rel_err").value_or(0);
  s.relL2 = c->getNumber("rel_l2").value_or(0);
  s.worstIndex = c->getInteger("worst_index").value_or(-1);
  auto readNum = [&](StringRef key) -> double {
    const json::Value *v = c->get(key);
    if (!v)
      return 0;
    if (auto d = v->getAsNumber())
      return *d;
    StringRef t = v->getAsString().value_or("nan");
    if (t == "inf")
      return INFINITY;
    if (t == "-inf")
      return -INFINITY;
    if (t == "unwritten") {
      float f;
      std::memcpy(&f, &unwrittenF32Bits, 4);
      return f;
    }
    return NAN;
  };
  s.worstValue = readNum("worst_value");
  s.worstRef = readNum("worst_ref");
  s.failedCheck = c->getString("failed_check").value_or("").str();
  return s;
}

bool ptxbench::runtime::fromJSON(const json::Value &value, WorkloadResult &r) {
  const json::Object *o = value.getAsObject();
  if (!o)
    return false;
  auto status = parseStatus(o->getString("status").value_or(""));
  if (!status)
    return false;
  r.status = *status;
  r.workload = o->getString("workload").value_or("").str();
  if (const json::Object *p = o->getObject("params"))
    for (const auto &kv : *p)
      r.params[kv.first] = kv.second.getAsInteger().value_or(0);
  r.message = o->getString("message").value_or("").str();
  r.flops = o->getNumber("flops").value_or(0);
  r.bytes = o->getNumber("bytes").value_or(0);
  r.compileLog = o->getString("compile_log").value_or("").str();
  r.jitLog = o->getString("jit_log").value_or("").str();
  if (const json::Object *out = o->getObject("output")) {
    r.outputBytes = out->getInteger("bytes").value_or(0);
    r.outputHead = out->getString("head").value_or("").str();
    r.outputTail = out->getString("tail").value_or("").str();
  }
  r.inputSets = o->getInteger("input_sets").value_or(0);
  r.timedLaunchesChecked = o->getInteger("timed_launches_checked").value_or(0);
  if (const json::Object *c = o->getObject("check")) {
    r.check = readCompareStats(c);
    r.checkedTensor = o->getString("checked_tensor").value_or("").str();
  }
  if (const json::Array *fs = o->getArray("features"))
    for (const json::Value &fv : *fs)
      if (const json::Object *f = fv.getAsObject())
        r.features.push_back({f->getString("family").value_or("").str(),
                              f->getInteger("in_code").value_or(-1),
                              f->getInteger("executed").value_or(-1),
                              f->getNumber("share").value_or(-1),
                              f->getNumber("threshold").value_or(-1)});
  if (const json::Object *w = o->getObject("work")) {
    WorkCounts &c = r.work;
    c.measured = true;
    c.wgmmaFlops = w->getNumber("wgmma_flops").value_or(0);
    c.mmaSyncFlops = w->getNumber("mma_sync_flops").value_or(0);
    c.wmmaFlops = w->getNumber("wmma_flops").value_or(0);
    c.tcgen05Flops = w->getNumber("tcgen05_flops").value_or(0);
    c.asyncBytes = w->getNumber("async_copy_bytes").value_or(0);
    c.globalLoadBytes = w->getNumber("global_load_bytes").value_or(0);
    c.cpAsyncBytes = w->getNumber("cp_async_bytes").value_or(0);
  }
  if (const json::Array *fs = o->getArray("work_findings"))
    for (const json::Value &fv : *fs)
      if (const json::Object *f = fv.getAsObject())
        r.workFindings.push_back({f->getString("kind").value_or("").str(),
                                  f->getString("message").value_or("").str()});
  r.featureNote = o->getString("feature_note").value_or("").str();
  TimingStats t;
  if (readTiming(o->getObject("time"), t))
    r.time = t;
  if (readTiming(o->getObject("baseline_time"), t))
    r.baselineTime = t;
  r.baselineVersion = o->getString("baseline_version").value_or("").str();
  for (auto [key, list] : {std::pair{"checks", &r.outputChecks},
                           std::pair{"baseline_checks", &r.baselineChecks}})
    if (const json::Array *cs = o->getArray(key))
      for (const json::Value &cv : *cs)
        if (const json::Object *c = cv.getAsObject())
          list->push_back(
              {c->getString("tensor").value_or("").str(), readCompareStats(c)});
  return true;
}

//===----------------------------------------------------------------------===//
// Readable summary
//===----------------------------------------------------------------------===//

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
      tflops = formatv("{0:f1}", r.flops / (r.time->medianMs * 1e-3) * 1e-12);
      if (double f = solFraction(run, r))
        sol = formatv("{0:f0}%", f * 100).str();
    }
    if (r.baselineTime) {
      base = fmtValue(r.baselineTime->medianMs);
      if (r.time)
        speedup =
            formatv("{0:f2}x", r.baselineTime->medianMs / r.time->medianMs);
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
      if (t.errors < 0)
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
