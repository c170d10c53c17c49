//===- ResultJSON.cpp - Results as JSON and back --------------------------===//
//
// The JSON form of a result: what the worker sends the parent over its
// pipe (one workload at a time) and what `ptxbench run --json` writes for
// the whole run, with what the timings give beside each timed workload
// (speedup, TFLOP/s, GB/s, speed-of-light fractions: Result.cpp's
// functions, which readers call themselves instead of reading these back);
// fromJSON reads a workload or a run back, refusing what no run writes.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Runtime/Result.h"

#include "ptxbench/Support/JSON.h"

#include "llvm/ADT/STLExtras.h"

#include <cmath>
#include <limits>

using namespace llvm;
using namespace ptxbench::runtime;

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
  if (!r.split.empty())
    o["split"] = r.split;
  if (!r.message.empty())
    o["message"] = r.message;
  if (r.check) {
    o["check"] = toJSON(*r.check);
    o["checked_tensor"] = r.checkedTensor;
  }
  if (r.time) {
    o["time"] = toJSON(*r.time);
    if (std::optional<double> t = tflops(r))
      o["tflops"] = *t;
    if (std::optional<double> g = gbps(r))
      o["gbps"] = *g;
  }
  if (r.baselineTime) {
    o["baseline_time"] = toJSON(*r.baselineTime);
    if (std::optional<double> s = speedup(r))
      o["speedup"] = *s;
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
      if (!f.withheld.empty())
        fo["withheld"] = f.withheld;
      features.push_back(std::move(fo));
    }
    o["features"] = std::move(features);
  }
  if (r.work.measured) {
    const WorkCounts &w = r.work;
    json::Array knockouts;
    for (const Knockout &k : w.knockouts)
      knockouts.push_back(json::Object{{"kind", k.kind},
                                       {"ran", k.ran},
                                       {"reached", k.reached},
                                       {"detail", k.detail}});
    o["work"] = json::Object{{"wgmma_flops", w.wgmmaFlops},
                             {"mma_sync_flops", w.mmaSyncFlops},
                             {"wmma_flops", w.wmmaFlops},
                             {"tcgen05_flops", w.tcgen05Flops},
                             {"scalar_flops", w.scalarFlops},
                             {"async_copy_bytes", w.asyncBytes},
                             {"global_load_bytes", w.globalLoadBytes},
                             {"cp_async_bytes", w.cpAsyncBytes},
                             {"input_bytes", w.inputBytes},
                             {"async_input_bytes", w.asyncInputBytes},
                             {"other_input_bytes", w.otherInputBytes},
                             {"copy_records", int64_t(w.copyRecords)},
                             {"copy_records_unattributed",
                              int64_t(w.copyRecordsUnattributed)},
                             {"knockouts", std::move(knockouts)}};
  }
  if (!r.workFindings.empty()) {
    json::Array findings;
    for (const WorkloadResult::WorkFinding &f : r.workFindings)
      findings.push_back(
          json::Object{{"kind", f.kind}, {"message", f.message}});
    o["work_findings"] = std::move(findings);
  }
  if (!r.phases.empty())
    o["phases_ms"] = toJSON(r.phases);
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
  if (!run.compileSandbox.empty() || !run.workerSandbox.empty()) {
    json::Object sandbox;
    if (!run.compileSandbox.empty())
      sandbox["compile"] = run.compileSandbox;
    if (!run.workerSandbox.empty())
      sandbox["worker"] = run.workerSandbox;
    o["sandbox"] = std::move(sandbox);
  }
  if (run.countsDisabled) {
    o["feature_counts"] = "disabled";
  } else if (auto summaries = familySummaries(run); !summaries.empty()) {
    json::Object counts;
    for (const auto &[family, c] : summaries) {
      json::Object fc{{"in_code", c.inCode},
                      {"executed", c.executed},
                      {"verdict", verdictName(c.verdict)}};
      if (c.share >= 0)
        fc["share"] = c.share;
      counts[family] = std::move(fc);
    }
    o["feature_counts"] = std::move(counts);
  }
  if (!run.phases.empty())
    o["phases_ms"] = toJSON(run.phases);
  if (!run.sanitizer.empty() || !run.sanitizerNote.empty()) {
    json::Array tools;
    for (const SanitizerReport &t : run.sanitizer)
      tools.push_back(json::Object{{"tool", t.tool},
                                   {"errors", t.errors},
                                   {"timed_out", t.timedOut},
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

/// `o[key]` into `out` when it is there: a non-negative finite number
/// (a time, a rate, a FLOP or byte count), else refused at its path.
static bool readAmount(const json::Object &o, StringRef key, double &out,
                       json::Path path) {
  const json::Value *v = o.get(key);
  if (!v)
    return true;
  std::optional<double> d = v->getAsNumber();
  if (!d || !std::isfinite(*d) || *d < 0) {
    path.field(key).report("expected a non-negative finite number");
    return false;
  }
  out = *d;
  return true;
}

/// `o[key]` into `out` when it is there: a non-negative integer that fits.
static bool readCount(const json::Object &o, StringRef key, unsigned &out,
                      json::Path path) {
  const json::Value *v = o.get(key);
  if (!v)
    return true;
  std::optional<int64_t> n = v->getAsInteger();
  if (!n || *n < 0 || *n > int64_t(std::numeric_limits<unsigned>::max())) {
    path.field(key).report("expected a non-negative integer");
    return false;
  }
  out = unsigned(*n);
  return true;
}

/// A timing written by toJSON(TimingStats); absent fields stay 0.
static bool readTiming(const json::Value &v, TimingStats &t, json::Path path) {
  const json::Object *o = v.getAsObject();
  if (!o) {
    path.report("expected an object (a timing)");
    return false;
  }
  t.clockSampled = o->getBoolean("clock_sampled").value_or(false);
  t.keptThrottled = o->getBoolean("throttled_kept").value_or(false);
  return readCount(*o, "samples", t.samples, path) &&
         readAmount(*o, "median_ms", t.medianMs, path) &&
         readAmount(*o, "q1_ms", t.q1Ms, path) &&
         readAmount(*o, "q3_ms", t.q3Ms, path) &&
         readAmount(*o, "min_ms", t.minMs, path) &&
         readAmount(*o, "mean_ms", t.meanMs, path) &&
         readAmount(*o, "rse", t.rse, path) &&
         readCount(*o, "throttled_discarded", t.throttled, path) &&
         readCount(*o, "min_clock_mhz", t.minClockMHz, path) &&
         readCount(*o, "max_clock_mhz", t.maxClockMHz, path);
}

/// `o[key]` as a timing when it is there.
static bool readTiming(const json::Object &o, StringRef key,
                       std::optional<TimingStats> &out, json::Path path) {
  const json::Value *v = o.get(key);
  if (!v)
    return true;
  TimingStats t;
  if (!readTiming(*v, t, path.field(key)))
    return false;
  out = t;
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

/// One family's run-time counts as toJSON writes them: the counts at
/// least -1 (not counted), the work share a non-negative finite number with
/// its threshold in [0, 1], both or neither; else refused at its path, so a
/// stored row cannot be credited by a share or threshold no run writes.
static bool readFeature(const json::Value &v, FeatureCount &f,
                        json::Path path) {
  const json::Object *o = v.getAsObject();
  std::optional<StringRef> family = o ? o->getString("family") : std::nullopt;
  if (!family || family->empty()) {
    path.report("expected an object with its family's name");
    return false;
  }
  f.family = family->str();
  for (auto [key, out] : {std::pair{"in_code", &f.inCode},
                          std::pair{"executed", &f.executed}}) {
    const json::Value *n = o->get(key);
    if (!n)
      continue;
    std::optional<int64_t> count = n->getAsInteger();
    if (!count || *count < -1) {
      path.field(key).report("expected a count (-1 when not counted)");
      return false;
    }
    *out = *count;
  }
  const json::Value *share = o->get("share"), *threshold = o->get("threshold");
  if (bool(share) != bool(threshold)) {
    path.report("expected a share and its threshold together");
    return false;
  }
  if (share) {
    std::optional<double> s = share->getAsNumber(), t = threshold->getAsNumber();
    if (!s || !std::isfinite(*s) || *s < 0) {
      path.field("share").report("expected a non-negative finite number");
      return false;
    }
    if (!t || !(*t >= 0 && *t <= 1)) {
      path.field("threshold").report("expected a number in [0, 1]");
      return false;
    }
    f.share = *s;
    f.threshold = *t;
  }
  f.withheld = o->getString("withheld").value_or("").str();
  return true;
}

bool ptxbench::runtime::fromJSON(const json::Value &value, WorkloadResult &r,
                                json::Path path) {
  const json::Object *o = value.getAsObject();
  if (!o) {
    path.report("expected an object (a workload's result)");
    return false;
  }
  auto status = parseStatus(o->getString("status").value_or(""));
  if (!status) {
    path.field("status").report("expected a status word (PASSED, INCORRECT, "
                                "RUNTIME_ERROR, ...)");
    return false;
  }
  r.status = *status;
  if (!readAmount(*o, "flops", r.flops, path) ||
      !readAmount(*o, "bytes", r.bytes, path) ||
      !readTiming(*o, "time", r.time, path) ||
      !readTiming(*o, "baseline_time", r.baselineTime, path))
    return false;
  r.workload = o->getString("workload").value_or("").str();
  r.split = o->getString("split").value_or("").str();
  if (const json::Object *p = o->getObject("params"))
    for (const auto &kv : *p)
      r.params[kv.first] = kv.second.getAsInteger().value_or(0);
  r.message = o->getString("message").value_or("").str();
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
  if (const json::Value *fs = o->get("features")) {
    const json::Array *a = fs->getAsArray();
    if (!a) {
      path.field("features").report("expected an array (one per family)");
      return false;
    }
    for (unsigned i = 0; i < a->size(); ++i) {
      FeatureCount f;
      if (!readFeature((*a)[i], f, path.field("features").index(i)))
        return false;
      r.features.push_back(std::move(f));
    }
  }
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
    c.scalarFlops = w->getNumber("scalar_flops").value_or(0);
    c.inputBytes = w->getNumber("input_bytes").value_or(0);
    c.asyncInputBytes = w->getNumber("async_input_bytes").value_or(0);
    c.otherInputBytes = w->getNumber("other_input_bytes").value_or(0);
    c.copyRecords = w->getInteger("copy_records").value_or(0);
    c.copyRecordsUnattributed =
        w->getInteger("copy_records_unattributed").value_or(0);
    if (const json::Array *ks = w->getArray("knockouts"))
      for (const json::Value &kv : *ks)
        if (const json::Object *k = kv.getAsObject())
          c.knockouts.push_back({k->getString("kind").value_or("").str(),
                                 k->getBoolean("ran").value_or(false),
                                 k->getBoolean("reached").value_or(false),
                                 k->getString("detail").value_or("").str()});
  }
  if (const json::Array *fs = o->getArray("work_findings"))
    for (const json::Value &fv : *fs)
      if (const json::Object *f = fv.getAsObject())
        r.workFindings.push_back({f->getString("kind").value_or("").str(),
                                  f->getString("message").value_or("").str()});
  r.featureNote = o->getString("feature_note").value_or("").str();
  fromJSON(o->get("phases_ms"), r.phases);
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

llvm::json::Value ptxbench::runtime::toJSON(ArrayRef<Phase> phases) {
  json::Array a;
  for (const Phase &p : phases)
    a.push_back(json::Object{{"phase", p.name}, {"ms", p.ms}});
  return a;
}

bool ptxbench::runtime::fromJSON(const json::Value *value,
                                 std::vector<Phase> &phases) {
  const json::Array *a = value ? value->getAsArray() : nullptr;
  if (!a)
    return false;
  for (const json::Value &v : *a)
    if (const json::Object *o = v.getAsObject())
      phases.push_back({o->getString("phase").value_or("").str(),
                        o->getNumber("ms").value_or(0)});
  return true;
}

bool ptxbench::runtime::fromJSON(const json::Value &value, RunResult &run,
                                json::Path path) {
  const json::Object *o = value.getAsObject();
  if (!o) {
    path.report("expected an object (a run result)");
    return false;
  }
  const json::Value *list = o->get("workloads");
  const json::Array *workloads = list ? list->getAsArray() : nullptr;
  if (!workloads) {
    path.field("workloads").report("expected an array of workloads");
    return false;
  }
  auto str = [&](const char *key) {
    return o->getString(key).value_or("").str();
  };
  run.task = str("task");
  run.solution = str("solution");
  run.device = str("device");
  run.baseline = str("baseline");
  run.peakTflops = o->getNumber("peak_tflops").value_or(0);
  run.peakGBps = o->getNumber("peak_gbps").value_or(0);
  run.peakFp32Tflops = o->getNumber("peak_fp32_tflops").value_or(0);
  run.peakHow = str("peak_how");
  run.libraryTflops = o->getNumber("library_tflops").value_or(0);
  run.copyGBps = o->getNumber("copy_gbps").value_or(0);
  run.peakSource = str("peak_source");
  run.peakMatrixType = o->getString("peak_matrix_type").value_or("bf16").str();
  run.arch = str("arch");
  run.driver = str("driver");
  run.cudaDriverVersion = o->getInteger("cuda_driver_version").value_or(0);
  run.cublasLtVersion = o->getInteger("cublaslt_version").value_or(0);
  if (const json::Object *sandbox = o->getObject("sandbox")) {
    run.compileSandbox = sandbox->getString("compile").value_or("").str();
    run.workerSandbox = sandbox->getString("worker").value_or("").str();
  }
  run.countsDisabled = o->getString("feature_counts") == "disabled";
  fromJSON(o->get("phases_ms"), run.phases);
  for (auto [i, w] : llvm::enumerate(*workloads)) {
    WorkloadResult r;
    if (!fromJSON(w, r, path.field("workloads").index(i)))
      return false;
    run.workloads.push_back(std::move(r));
  }
  if (const json::Object *sanitizer = o->getObject("sanitizer")) {
    run.sanitizedWorkload = sanitizer->getString("workload").value_or("").str();
    run.sanitizerNote = sanitizer->getString("note").value_or("").str();
    if (const json::Array *tools = sanitizer->getArray("tools"))
      for (const json::Value &tv : *tools)
        if (const json::Object *t = tv.getAsObject()) {
          SanitizerReport report;
          report.tool = t->getString("tool").value_or("").str();
          report.errors = t->getInteger("errors").value_or(-1);
          report.timedOut = t->getBoolean("timed_out").value_or(false);
          report.bytes = t->getInteger("bytes").value_or(0);
          report.head = t->getString("head").value_or("").str();
          report.tail = t->getString("tail").value_or("").str();
          run.sanitizer.push_back(std::move(report));
        }
  }
  return true;
}

bool ptxbench::runtime::fromJSON(const json::Value &value, WorkloadResult &r) {
  json::Path::Root root("workload");
  bool read = fromJSON(value, r, root);
  llvm::consumeError(root.getError());
  return read;
}

bool ptxbench::runtime::fromJSON(const json::Value &value, RunResult &run) {
  json::Path::Root root("run");
  bool read = fromJSON(value, run, root);
  llvm::consumeError(root.getError());
  return read;
}

/// JSON has no infinities, but llvm::json reads a number past a double's
/// range as one (and would write it back as `inf`, which nothing reads):
/// refused wherever it is, so what is read is what the writer can write.
static bool finiteNumbers(const json::Value &v, json::Path path) {
  if (const json::Array *a = v.getAsArray()) {
    for (auto [i, element] : llvm::enumerate(*a))
      if (!finiteNumbers(element, path.index(i)))
        return false;
  } else if (const json::Object *o = v.getAsObject()) {
    for (const auto &[key, element] : *o)
      if (!finiteNumbers(element, path.field(key)))
        return false;
  } else if (std::optional<double> d = v.getAsNumber();
             d && !std::isfinite(*d)) {
    path.report("expected a finite number");
    return false;
  }
  return true;
}

Expected<RunResult> ptxbench::runtime::readRunResult(StringRef text) {
  Expected<json::Value> value = ptxbench::parseJSON(text);
  if (!value)
    return value.takeError();
  RunResult run;
  json::Path::Root root("run");
  if (!finiteNumbers(*value, root) || !fromJSON(*value, run, root))
    return root.getError();
  return run;
}

std::optional<RunResult> ptxbench::runtime::parseRunResult(StringRef text) {
  if (text.trim().empty())
    return std::nullopt;
  Expected<RunResult> run = readRunResult(text);
  if (!run) {
    llvm::consumeError(run.takeError());
    return std::nullopt;
  }
  return std::move(*run);
}
