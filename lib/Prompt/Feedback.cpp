//===- Feedback.cpp - A run result as the next turn's message -------------===//
//
// Reads the JSON written by `ptxbench run --json` (ResultJSON.cpp's toJSON)
// and the analysis report (read back by parseAnalysisReport) and writes
// what a model needs to fix its kernel, most important first. Only those
// are read, and numbers are printed with fixed formats, so the text
// depends on nothing else.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Prompt/Feedback.h"

#include "ptxbench/ISA/ISA.h"
#include "ptxbench/Report/AnalysisReport.h"
#include "ptxbench/Runtime/Result.h"
#include "ptxbench/Task/Verdict.h"
#include "ptxbench/Toolchain/PtxasLog.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <map>
#include <set>

using namespace llvm;
using namespace ptxbench;
using namespace ptxbench::prompt;
using runtime::Status;
using runtime::WorkloadResult;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

static std::string fmt(double v) {
  std::string s;
  raw_string_ostream(s) << format("%.4g", v);
  return s;
}

/// A worst or reference value as the run's JSON words it: a number, or
/// "unwritten" (the harness's fill, when elements were unwritten), "nan",
/// "inf", "-inf".
static std::string valueText(double v, bool unwritten) {
  if (unwritten && runtime::isUnwritten(float(v)))
    return "unwritten";
  if (std::isnan(v))
    return "nan";
  if (std::isinf(v))
    return v > 0 ? "inf" : "-inf";
  return fmt(v);
}

/// "dev-ragged (M=1000, N=1512, K=520)"; parameters in name order.
static std::string workloadName(const WorkloadResult &w) {
  std::string s = w.workload;
  std::vector<std::string> keys;
  for (const auto &kv : w.params)
    keys.push_back(kv.getKey().str());
  llvm::sort(keys);
  std::vector<std::string> values;
  for (const std::string &k : keys)
    values.push_back(k + "=" + std::to_string(w.params.lookup(k)));
  if (!values.empty())
    s += " (" + join(values, ", ") + ")";
  return s;
}

/// The library's median over the kernel's (runtime::speedup, which the
/// run's JSON writes too); 0 without both times.
static double speedupOf(const WorkloadResult &w) {
  return runtime::speedup(w).value_or(0);
}

static bool isErrorLine(StringRef line) {
  if (line.contains("detected in the compilation") ||
      line.contains("aborted due to errors"))
    return false;
  for (StringRef word : {"error", "fatal"}) {
    size_t at = line.find(word);
    if (at == StringRef::npos)
      continue;
    StringRef rest = line.drop_front(at + word.size()).ltrim(' ');
    if (rest.starts_with(":"))
      return true;
  }
  return false;
}

static bool isDiagnosticLine(StringRef line) {
  return isErrorLine(line) || line.contains("warning") ||
         line.starts_with("ptxas") || line.contains("detected in the");
}

std::string prompt::trimCompilerLog(StringRef log, unsigned maxErrors) {
  SmallVector<StringRef> lines;
  log.split(lines, '\n');
  std::vector<std::string> kept;
  unsigned errors = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    StringRef line = lines[i].rtrim();
    if (!isErrorLine(line))
      continue;
    if (++errors > maxErrors)
      continue;
    kept.push_back(line.str());
    // The source line and caret that NVRTC prints after an error.
    for (size_t j = i + 1; j < lines.size() && j <= i + 3; ++j) {
      StringRef next = lines[j].rtrim();
      if (next.trim().empty() || isDiagnosticLine(next))
        break;
      kept.push_back(next.str());
    }
  }
  if (errors == 0) {
    // No recognizable error line: the first lines as they are.
    for (size_t i = 0; i < lines.size() && kept.size() < 10; ++i)
      if (!lines[i].trim().empty())
        kept.push_back(lines[i].rtrim().str());
  } else if (errors > maxErrors) {
    kept.push_back("(" + std::to_string(errors - maxErrors) + " more error" +
                   (errors - maxErrors == 1 ? "" : "s") + " not shown)");
  }
  return join(kept, "\n");
}

std::string prompt::baselineDisplayName(StringRef baseline) {
  if (baseline.starts_with("cublaslt"))
    return "cuBLASLt";
  if (baseline.starts_with("cublas"))
    return "cuBLAS";
  if (baseline.starts_with("cudnn"))
    return "cuDNN";
  return baseline.str();
}

//===----------------------------------------------------------------------===//
// Sections
//===----------------------------------------------------------------------===//

namespace {

struct FeedbackWriter {
  const runtime::RunResult &result;
  const report::AnalysisReport *analysis;
  const FeedbackGoal *goal;
  std::vector<const WorkloadResult *> workloads;
  raw_string_ostream os;
  bool failed = false, featuresMissing = false, fallbacksFound = false;
  /// Dev workloads below the goal's target, or whose speedup is not known.
  unsigned belowTarget = 0;

  /// The submission is a Triton answer (its plan lines are `# @ptxbench`).
  bool triton = false;

  FeedbackWriter(const runtime::RunResult &result,
                 const report::AnalysisReport *analysis,
                 const FeedbackGoal *goal, std::string &text)
      : result(result), analysis(analysis), goal(goal), os(text) {
    triton = StringRef(result.solution).ends_with(".py");
    for (const WorkloadResult &w : result.workloads)
      workloads.push_back(&w);
  }

  std::vector<const WorkloadResult *> withStatus(ArrayRef<Status> statuses) {
    std::vector<const WorkloadResult *> out;
    for (const WorkloadResult *w : workloads)
      if (is_contained(statuses, w->status))
        out.push_back(w);
    return out;
  }

  /// Workloads grouped by identical message, in order of first appearance.
  std::vector<std::pair<std::string, std::vector<const WorkloadResult *>>>
  byMessage(ArrayRef<const WorkloadResult *> ws) {
    std::vector<std::pair<std::string, std::vector<const WorkloadResult *>>>
        groups;
    for (const WorkloadResult *w : ws) {
      std::string key = runtime::statusName(w->status).str() + "\n" +
                        w->message + "\n" + w->compileLog;
      auto it = find_if(groups, [&](auto &g) { return g.first == key; });
      if (it == groups.end())
        groups.push_back({key, {w}});
      else
        it->second.push_back(w);
    }
    return groups;
  }

  static std::string names(ArrayRef<const WorkloadResult *> ws) {
    std::vector<std::string> n;
    for (const WorkloadResult *w : ws)
      n.push_back(w->workload);
    return join(n, ", ");
  }

  void header();
  void compileErrors();
  void planErrors();
  void failedRuns();
  void correctness();
  void features();
  void runtimeFeatures(ArrayRef<std::string> requested);
  void ptxasWarnings();
  void speed();
  void targetDistance(const WorkloadResult &w, double target,
                      unsigned &devTimed);
  void uncreditedFamilies();
  void closing();
};

void FeedbackWriter::header() {
  os << "Your submission for `" << result.task << "`";
  if (!result.device.empty())
    os << " ran on " << result.device;
  os << ": **" << runtime::statusName(runtime::worstStatus(result)) << "**.\n";
  std::vector<std::string> parts;
  for (const WorkloadResult *w : workloads)
    parts.push_back(w->workload + " " + runtime::statusName(w->status).str());
  if (!parts.empty())
    os << "Workloads: " << join(parts, ", ") << ".\n";
}

void FeedbackWriter::compileErrors() {
  auto ws = withStatus({Status::CompileError, Status::CompileTimeout});
  if (ws.empty())
    return;
  failed = true;
  os << "\n## Compile errors\n";
  for (auto &[key, group] : byMessage(ws)) {
    const WorkloadResult *w = group.front();
    StringRef message = w->message;
    if (w->status == Status::CompileTimeout) {
      os << "\n"
         << message.trim() << " (" << names(group)
         << "). Compilation must finish within the limit: avoid deep "
            "template recursion, huge constexpr evaluation and unbounded "
            "unrolling.\n";
      continue;
    }
    auto [headline, rest] = message.split('\n');
    StringRef log = w->compileLog;
    if (log.empty())
      log = rest.empty() ? StringRef(w->jitLog) : rest;
    os << "\n" << headline.trim() << " (" << names(group) << "):\n\n```text\n"
       << trimCompilerLog(log) << "\n```\n";
  }
}

void FeedbackWriter::planErrors() {
  auto ws = withStatus({Status::PlanError});
  if (ws.empty())
    return;
  failed = true;
  os << "\n## Launch plan errors\n\n"
     << "The `" << (triton ? "#" : "//")
     << " @ptxbench` lines do not fit the task; nothing was run.\n\n";
  // Every mistake of the plan, one line each.
  for (auto &[key, group] : byMessage(ws)) {
    SmallVector<StringRef> lines;
    StringRef(group.front()->message).trim().split(lines, '\n', -1, false);
    if (lines.size() == 1) {
      os << "- " << names(group) << ": `" << lines.front().trim() << "`\n";
      continue;
    }
    os << "- " << names(group) << ":\n";
    for (StringRef line : lines)
      os << "  - `" << line.trim() << "`\n";
  }
}

void FeedbackWriter::failedRuns() {
  auto ws = withStatus({Status::LaunchError, Status::RuntimeError,
                        Status::Timeout, Status::Suspicious});
  if (ws.empty())
    return;
  failed = true;
  os << "\n## Failed runs\n\n";
  for (auto &[key, group] : byMessage(ws)) {
    const WorkloadResult *w = group.front();
    Status status = w->status;
    os << "- " << runtime::statusName(status) << " on " << names(group)
       << ": " << trimCompilerLog(w->message, 3);
    if (status == Status::Timeout && StringRef(w->message).contains("printed"))
      os << ". The kernel printed while it ran: remove device printf from "
            "the submission, it is slow and its output is not read";
    else if (status == Status::Timeout)
      os << ". The kernel never finished: look for a wait that cannot "
            "complete (an mbarrier phase or transaction count that never "
            "arrives, a barrier not every thread reaches)";
    else if (status == Status::LaunchError)
      os << ". The launch was refused: check the plan's block, cluster and "
            "smem against the kernel's resources";
    else if (status == Status::Suspicious)
      os << ". Every timed launch gets fresh inputs and must do the whole "
            "task's work; a result no hardware can produce this fast counts "
            "as a failure";
    os << ".\n";
  }
}

void FeedbackWriter::correctness() {
  auto ws = withStatus({Status::Incorrect});
  if (ws.empty())
    return;
  failed = true;
  os << "\n## Wrong results\n\n";
  for (const WorkloadResult *w : ws) {
    os << "- " << workloadName(*w) << ": ";
    if (!w->check) {
      os << w->message << "\n";
      continue;
    }
    const runtime::CompareStats &c = *w->check;
    StringRef check = c.failedCheck;
    StringRef tensor = w->checkedTensor;
    os << "check `" << check << "` failed on " << tensor << ". ";
    os << c.unwritten << " unwritten, " << c.nonFinite << " NaN/Inf and "
       << c.outOfTolerance << " out-of-tolerance elements of " << c.count
       << "; worst element " << tensor << "[" << c.worstIndex
       << "] (flat row-major index) = "
       << valueText(c.worstValue, c.unwritten > 0) << ", reference "
       << valueText(c.worstRef, false) << "; max abs error "
       << fmt(c.maxAbsErr) << ", max rel error " << fmt(c.maxRelErr)
       << ", rel L2 " << fmt(c.relL2) << ".";
    if (check == "unwritten")
      os << " Unwritten elements still hold the harness's NaN fill: the "
            "kernel never stored them (check the grid covers the whole "
            "output and the edge tiles).";
    if (!w->message.empty())
      os << " " << StringRef(w->message).trim();
    os << "\n";
  }
}

void FeedbackWriter::features() {
  if (!analysis)
    return;
  const std::vector<std::string> &requested = analysis->requested;
  os << "\n## Requested features on " << analysis->arch << "\n\n";
  if (!analysis->assembled && !analysis->assemblyNote.empty())
    os << "Not assembled: " << analysis->assemblyNote << "\n\n";
  if (requested.empty())
    os << "None requested.\n";
  else
    os << "Overall: " << report::verdictName(analysis->verdict()) << ".\n";
  auto location = [](const report::Finding &f) -> std::string {
    for (const auto &l : {f.source, f.ptx})
      if (l)
        return l->file + ":" + std::to_string(l->line);
    return "";
  };
  auto finding = [&](const report::Finding &f, StringRef kernel) {
    fallbacksFound = true;
    os << "- [" << f.kind << "]";
    std::string loc = location(f);
    if (!loc.empty())
      os << " " << loc;
    if (!kernel.empty())
      os << " in `" << kernel << "`";
    os << ": " << f.message;
    if (!f.alternative.empty())
      os << ". Instead: " << f.alternative;
    os << "\n";
  };
  for (const report::KernelReport &k : analysis->kernels) {
    if (!k.requested.empty() && !requested.empty()) {
      std::vector<std::string> verdicts;
      for (const std::string &f : requested) {
        report::Verdict v = report::Verdict::Missing;
        for (const auto &[family, verdict] : k.requested)
          if (family == f)
            v = verdict;
        verdicts.push_back("`" + f + "` " + report::verdictName(v).str());
      }
      os << "- kernel `" << k.name << "`: " << join(verdicts, ", ") << "\n";
    }
    for (const report::Finding &f : k.fallbacks)
      finding(f, k.name);
  }
  for (const report::Finding &f : analysis->moduleFindings)
    finding(f, "");
  // The module as a whole: a helper kernel without the families does not
  // make the submission miss them.
  if (!requested.empty() && analysis->verdict() != report::ReportVerdict::Used)
    featuresMissing = true;
  runtimeFeatures(requested);
}

void FeedbackWriter::runtimeFeatures(ArrayRef<std::string> requested) {
  // The run's verdicts: what executed and how much of the work it did. The
  // first workload with counts is shown; every workload's count decides
  // (runtime::acrossWorkloads), and a requirement with alternatives
  // (`bulk_copy|tma`) is met by any of them (acrossAlternatives).
  std::map<std::string, runtime::FamilyVerdict> byFamily;
  bool shown = false;
  for (const WorkloadResult *w : workloads) {
    if (w->features.empty())
      continue;
    std::vector<std::string> verdicts;
    for (const runtime::FeatureCount &f : w->features) {
      runtime::FamilyVerdict verdict = runtime::familyVerdict(f);
      auto [it, inserted] =
          byFamily.try_emplace(f.family, runtime::FamilyVerdict::NotMeasured);
      it->second = runtime::acrossWorkloads(it->second, verdict);
      std::string text =
          "`" + f.family + "` " + runtime::verdictName(verdict).str();
      if (f.share >= 0)
        text += formatv(" ({0:f1}% of the work)", f.share * 100).str();
      verdicts.push_back(text);
    }
    if (shown)
      continue;
    shown = true;
    os << "- at run time (" << workloadName(*w) << "): " << join(verdicts, ", ")
       << "\n";
    for (const WorkloadResult::WorkFinding &f : w->workFindings)
      os << "- [" << f.kind << "] " << f.message << "\n";
  }
  // With a goal its list of uncredited requirements decides.
  if (goal)
    return;
  for (const std::string &requirement : requested) {
    std::vector<std::string> names;
    if (auto families = isa::familiesOfRequirement(requirement))
      for (isa::Family f : *families)
        names.push_back(isa::familyName(f).str());
    else
      names.push_back(requirement);
    std::optional<runtime::FamilyVerdict> best;
    for (const std::string &name : names) {
      auto it = byFamily.find(name);
      if (it == byFamily.end() ||
          it->second == runtime::FamilyVerdict::NotMeasured)
        continue;
      best = best ? runtime::acrossAlternatives(*best, it->second)
                  : it->second;
    }
    if (best && !runtime::credited(*best))
      featuresMissing = true;
  }
}

void FeedbackWriter::ptxasWarnings() {
  std::vector<std::string> lines;
  auto add = [&](std::string line) {
    if (!is_contained(lines, line))
      lines.push_back(std::move(line));
  };
  static constexpr StringLiteral costly[] = {
      "ptxas-wgmma-serialized", "ptxas-setmaxnreg-ignored", "ptxas-spills"};
  if (analysis)
    for (const report::KernelReport &k : analysis->kernels) {
      for (const report::Finding &f : k.ptxasWarnings)
        if (is_contained(costly, f.kind))
          add("- `" + k.name + "`: " + f.message);
      if (k.resources)
        if (uint64_t spill =
                k.resources->spillStoreBytes + k.resources->spillLoadBytes)
          add("- `" + k.name + "`: spills " + std::to_string(spill) +
              " bytes to local memory with " +
              std::to_string(k.resources->registers) + " registers");
    }
  // The driver JIT's log of the run says the same for the kernels that ran.
  std::set<std::string> seenLogs;
  for (const WorkloadResult *w : workloads) {
    const std::string &log = w->jitLog;
    if (log.empty() || !seenLogs.insert(log).second)
      continue;
    toolchain::PtxasLog parsed = toolchain::parsePtxasLog(log);
    for (const toolchain::PtxasMessage &m : parsed.messages)
      if (!toolchain::classifyPtxasMessage(m).empty())
        add("- " + (m.kernel.empty() ? "" : "`" + m.kernel + "`: ") + m.text);
  }
  if (lines.empty())
    return;
  os << "\n## ptxas warnings that cost speed\n\n" << join(lines, "\n") << "\n";
}

void FeedbackWriter::speed() {
  std::vector<const WorkloadResult *> timed;
  for (const WorkloadResult *w : workloads)
    if (w->time)
      timed.push_back(w);
  if (timed.empty())
    return;
  std::string baseline = result.baseline.empty()
                             ? "the baseline library"
                             : baselineDisplayName(result.baseline);
  os << "\n## Speed\n\n";
  double target = goal ? goal->targetSpeedup : 0;
  unsigned devTimed = 0;
  bool allFaster = true, anyBaseline = false;
  for (const WorkloadResult *w : timed) {
    double ms = w->time->medianMs;
    os << "- " << workloadName(*w) << ": " << fmt(ms) << " ms";
    if (std::optional<double> t = runtime::tflops(*w))
      os << ", " << fmt(*t) << " TFLOP/s";
    if (w->baselineTime) {
      anyBaseline = true;
      double speedup = speedupOf(*w);
      os << "; " << baseline << " " << fmt(w->baselineTime->medianMs)
         << " ms, speedup " << format("%.2f", speedup) << "x";
      if (speedup > 0 && speedup < 1)
        os << " (" << format("%.1f", 1 / speedup) << "x slower)";
      allFaster &= speedup > 1;
    }
    if (w->status == Status::Suspicious)
      os << "; faster than the hardware's speed of light, so not credited: "
            "every launch must do all the work";
    else if (double sol = runtime::solFraction(result, *w))
      os << "; " << format("%.1f", sol * 100)
         << "% of the hardware's speed of light";
    // Workloads without a split are dev (a run outside a sweep).
    if (target > 0 && (w->split.empty() || w->split == "dev"))
      targetDistance(*w, target, devTimed);
    os << "\n";
  }
  if (target > 0 && anyBaseline) {
    if (belowTarget)
      os << "\nAim: at least " << format("%.2f", target) << "x over "
         << baseline << " on every dev workload (" << devTimed - belowTarget
         << " of " << devTimed << " there).\n";
    else
      os << "\nIt reaches the " << format("%.2f", target)
         << "x target on every dev workload.\n";
  } else if (!anyBaseline)
    os << "\nAim: as close to the speed of light as you can.\n";
  else if (allFaster)
    os << "\nIt beats " << baseline
       << " on every workload. Aim: closer to the speed of light.\n";
  else
    os << "\nAim: faster than " << baseline
       << " on every workload (speedup above 1.00x).\n";
}

/// How far one timed dev workload is from the target speedup.
void FeedbackWriter::targetDistance(const WorkloadResult &w, double target,
                                    unsigned &devTimed) {
  ++devTimed;
  double speedup = speedupOf(w);
  if (!w.baselineTime || !(speedup > 0)) {
    ++belowTarget;
    os << "; no library time, so the " << format("%.2f", target)
       << "x target cannot be checked";
    return;
  }
  if (w.status != Status::Passed) {
    ++belowTarget;
    os << "; not correct, so not counted against the "
       << format("%.2f", target) << "x target";
    return;
  }
  if (speedup >= target) {
    os << "; reaches the " << format("%.2f", target) << "x target";
    return;
  }
  ++belowTarget;
  os << "; " << format("%.2f", target - speedup) << "x short of the "
     << format("%.2f", target) << "x target (it needs "
     << format("%.0f", std::ceil((1 - speedup / target) * 100))
     << "% less time)";
}

void FeedbackWriter::uncreditedFamilies() {
  if (!goal || goal->uncredited.empty())
    return;
  featuresMissing = true;
  os << "\n## Requested families not credited at run time\n\n";
  for (const auto &[requirement, verdict] : goal->uncredited)
    os << "- `" << requirement << "`: " << verdict << "\n";
  os << "\nA family is credited when it executed in the checked launches "
        "and did the task's share of the work (the matrix FLOPs, the input "
        "bytes), not when it is only in the code or runs as a token.\n";
}

void FeedbackWriter::closing() {
  auto notRun = withStatus({Status::HarnessError, Status::NoGpu});
  if (!notRun.empty()) {
    os << "\n## Not measured\n\n";
    for (auto &[key, group] : byMessage(notRun))
      os << "- " << names(group) << ": "
         << StringRef(group.front()->message).trim()
         << " (not a fault of the submission)\n";
  }
  os << "\n";
  // Correctness is claimed only when something was run and checked.
  bool measured = notRun.size() < workloads.size();
  if (failed)
    os << "Fix the problems above.";
  else if (featuresMissing && measured)
    os << "It is correct, but it does not use every requested family: "
          "rewrite it with them.";
  else if (featuresMissing)
    os << "It does not use every requested family: rewrite it with them.";
  else if (goal && goal->targetSpeedup > 0 && belowTarget)
    os << "It is correct, but " << belowTarget << " dev workload"
       << (belowTarget == 1 ? " is" : "s are") << " not yet at the "
       << format("%.2f", goal->targetSpeedup) << "x target: make it faster.";
  else if (goal && goal->targetSpeedup > 0 && fallbacksFound)
    os << "It is correct and fast enough, but the analysis found the "
          "fallbacks above: replace them with the architecture-specific "
          "instructions.";
  else if (!notRun.empty())
    os << "Nothing was measured; you may improve the submission or resend "
          "it.";
  else
    os << "It is correct; make it faster.";
  os << " " << resendInstruction(triton);
}

} // namespace

std::string prompt::resendInstruction(bool triton) {
  if (triton)
    return "Answer with the whole submission in one fenced code block "
           "(```python), including its `# @ptxbench` launch-plan lines and "
           "every `@triton.jit` function.\n";
  return "Answer with the whole submission in one fenced code block "
         "(```cuda or ```ptx), including its `// @ptxbench` launch-plan "
         "lines.\n";
}

std::string prompt::renderFeedback(const runtime::RunResult &result,
                                   const report::AnalysisReport *analysis,
                                   const FeedbackGoal *goal) {
  std::string text;
  FeedbackWriter writer(result, analysis, goal, text);
  writer.header();
  writer.compileErrors();
  writer.planErrors();
  writer.failedRuns();
  writer.correctness();
  writer.features();
  writer.ptxasWarnings();
  writer.speed();
  writer.uncreditedFamilies();
  writer.closing();
  return text;
}
