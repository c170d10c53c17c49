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
using json::Object;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

static std::string fmt(double v) {
  std::string s;
  raw_string_ostream(s) << format("%.4g", v);
  return s;
}

static StringRef str(const Object *o, StringRef key) {
  return o ? o->getString(key).value_or("") : "";
}

static double number(const Object *o, StringRef key) {
  return o ? o->getNumber(key).value_or(0) : 0;
}

/// A JSON number or one of the strings ResultJSON.cpp writes for
/// non-finite values ("nan", "inf", "unwritten").
static std::string valueText(const Object *o, StringRef key) {
  const json::Value *v = o ? o->get(key) : nullptr;
  if (!v)
    return "?";
  if (std::optional<double> d = v->getAsNumber())
    return fmt(*d);
  return v->getAsString().value_or("?").str();
}

/// "dev-ragged (M=1000, N=1512, K=520)"; parameters in name order.
static std::string workloadName(const Object &w) {
  std::string s = str(&w, "workload").str();
  if (const Object *p = w.getObject("params")) {
    std::vector<std::string> keys;
    for (const auto &kv : *p)
      keys.push_back(kv.first.str());
    llvm::sort(keys);
    std::vector<std::string> values;
    for (const std::string &k : keys)
      values.push_back(k + "=" +
                       std::to_string(p->getInteger(k).value_or(0)));
    if (!values.empty())
      s += " (" + join(values, ", ") + ")";
  }
  return s;
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
  const Object &result;
  const report::AnalysisReport *analysis;
  const FeedbackGoal *goal;
  std::vector<const Object *> workloads;
  raw_string_ostream os;
  bool failed = false, featuresMissing = false, fallbacksFound = false;
  /// Dev workloads below the goal's target, or whose speedup is not known.
  unsigned belowTarget = 0;

  /// The submission is a Triton answer (its plan lines are `# @ptxbench`).
  bool triton = false;

  FeedbackWriter(const Object &result, const report::AnalysisReport *analysis,
                 const FeedbackGoal *goal, std::string &text)
      : result(result), analysis(analysis), goal(goal), os(text) {
    triton = str(&result, "solution").ends_with(".py");
    if (const json::Array *a = result.getArray("workloads"))
      for (const json::Value &v : *a)
        if (const Object *w = v.getAsObject())
          workloads.push_back(w);
  }

  std::vector<const Object *> withStatus(ArrayRef<StringRef> statuses) {
    std::vector<const Object *> out;
    for (const Object *w : workloads)
      if (is_contained(statuses, str(w, "status")))
        out.push_back(w);
    return out;
  }

  /// Workloads grouped by identical message, in order of first appearance.
  std::vector<std::pair<std::string, std::vector<const Object *>>>
  byMessage(ArrayRef<const Object *> ws) {
    std::vector<std::pair<std::string, std::vector<const Object *>>> groups;
    for (const Object *w : ws) {
      std::string key = str(w, "status").str() + "\n" +
                        str(w, "message").str() + "\n" +
                        str(w, "compile_log").str();
      auto it = find_if(groups, [&](auto &g) { return g.first == key; });
      if (it == groups.end())
        groups.push_back({key, {w}});
      else
        it->second.push_back(w);
    }
    return groups;
  }

  static std::string names(ArrayRef<const Object *> ws) {
    std::vector<std::string> n;
    for (const Object *w : ws)
      n.push_back(str(w, "workload").str());
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
  void targetDistance(const Object &w, double target, unsigned &devTimed);
  void uncreditedFamilies();
  void closing();
};

void FeedbackWriter::header() {
  os << "Your submission for `" << str(&result, "task") << "`";
  if (!str(&result, "device").empty())
    os << " ran on " << str(&result, "device");
  os << ": **" << str(&result, "status") << "**.\n";
  std::vector<std::string> parts;
  for (const Object *w : workloads)
    parts.push_back(str(w, "workload").str() + " " + str(w, "status").str());
  if (!parts.empty())
    os << "Workloads: " << join(parts, ", ") << ".\n";
}

void FeedbackWriter::compileErrors() {
  auto ws = withStatus({"COMPILE_ERROR", "COMPILE_TIMEOUT"});
  if (ws.empty())
    return;
  failed = true;
  os << "\n## Compile errors\n";
  for (auto &[key, group] : byMessage(ws)) {
    const Object *w = group.front();
    StringRef message = str(w, "message");
    if (str(w, "status") == "COMPILE_TIMEOUT") {
      os << "\n"
         << message.trim() << " (" << names(group)
         << "). Compilation must finish within the limit: avoid deep "
            "template recursion, huge constexpr evaluation and unbounded "
            "unrolling.\n";
      continue;
    }
    auto [headline, rest] = message.split('\n');
    StringRef log = str(w, "compile_log");
    if (log.empty())
      log = rest.empty() ? str(w, "jit_log") : rest;
    os << "\n" << headline.trim() << " (" << names(group) << "):\n\n```text\n"
       << trimCompilerLog(log) << "\n```\n";
  }
}

void FeedbackWriter::planErrors() {
  auto ws = withStatus({"PLAN_ERROR"});
  if (ws.empty())
    return;
  failed = true;
  os << "\n## Launch plan errors\n\n"
     << "The `" << (triton ? "#" : "//")
     << " @ptxbench` lines do not fit the task; nothing was run.\n\n";
  // Every mistake of the plan, one line each.
  for (auto &[key, group] : byMessage(ws)) {
    SmallVector<StringRef> lines;
    str(group.front(), "message").trim().split(lines, '\n', -1, false);
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
  auto ws = withStatus({"LAUNCH_ERROR", "RUNTIME_ERROR", "TIMEOUT",
                        "SUSPICIOUS"});
  if (ws.empty())
    return;
  failed = true;
  os << "\n## Failed runs\n\n";
  for (auto &[key, group] : byMessage(ws)) {
    const Object *w = group.front();
    StringRef status = str(w, "status");
    os << "- " << status << " on " << names(group) << ": "
       << trimCompilerLog(str(w, "message"), 3);
    if (status == "TIMEOUT" && str(w, "message").contains("printed"))
      os << ". The kernel printed while it ran: remove device printf from "
            "the submission, it is slow and its output is not read";
    else if (status == "TIMEOUT")
      os << ". The kernel never finished: look for a wait that cannot "
            "complete (an mbarrier phase or transaction count that never "
            "arrives, a barrier not every thread reaches)";
    else if (status == "LAUNCH_ERROR")
      os << ". The launch was refused: check the plan's block, cluster and "
            "smem against the kernel's resources";
    else if (status == "SUSPICIOUS")
      os << ". Every timed launch gets fresh inputs and must do the whole "
            "task's work; a result no hardware can produce this fast counts "
            "as a failure";
    os << ".\n";
  }
}

void FeedbackWriter::correctness() {
  auto ws = withStatus({"INCORRECT"});
  if (ws.empty())
    return;
  failed = true;
  os << "\n## Wrong results\n\n";
  for (const Object *w : ws) {
    const Object *c = w->getObject("check");
    os << "- " << workloadName(*w) << ": ";
    if (!c) {
      os << str(w, "message") << "\n";
      continue;
    }
    StringRef check = str(c, "failed_check");
    StringRef tensor = str(w, "checked_tensor");
    os << "check `" << check << "` failed on " << tensor << ". ";
    int64_t count = c->getInteger("count").value_or(0);
    os << c->getInteger("unwritten").value_or(0) << " unwritten, "
       << c->getInteger("non_finite").value_or(0) << " NaN/Inf and "
       << c->getInteger("out_of_tolerance").value_or(0)
       << " out-of-tolerance elements of " << count << "; worst element "
       << tensor << "[" << c->getInteger("worst_index").value_or(-1)
       << "] (flat row-major index) = " << valueText(c, "worst_value")
       << ", reference " << valueText(c, "worst_ref") << "; max abs error "
       << fmt(number(c, "max_abs_err")) << ", max rel error "
       << fmt(number(c, "max_rel_err")) << ", rel L2 "
       << fmt(number(c, "rel_l2")) << ".";
    if (check == "unwritten")
      os << " Unwritten elements still hold the harness's NaN fill: the "
            "kernel never stored them (check the grid covers the whole "
            "output and the edge tiles).";
    if (!str(w, "message").empty())
      os << " " << str(w, "message").trim();
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
  for (const Object *w : workloads) {
    const json::Array *fs = w->getArray("features");
    if (!fs || fs->empty())
      continue;
    std::vector<std::string> verdicts;
    for (const json::Value &fv : *fs) {
      const Object *f = fv.getAsObject();
      if (!f)
        continue;
      StringRef verdict = str(f, "verdict");
      auto [it, inserted] = byFamily.try_emplace(
          str(f, "family").str(), runtime::FamilyVerdict::NotMeasured);
      it->second = runtime::acrossWorkloads(
          it->second, runtime::parseFamilyVerdict(verdict).value_or(
                          runtime::FamilyVerdict::NotMeasured));
      std::string text = "`" + str(f, "family").str() + "` " + verdict.str();
      if (f->get("share"))
        text += formatv(" ({0:f1}% of the work)", number(f, "share") * 100)
                    .str();
      verdicts.push_back(text);
    }
    if (shown)
      continue;
    shown = true;
    os << "- at run time (" << workloadName(*w) << "): " << join(verdicts, ", ")
       << "\n";
    if (const json::Array *findings = w->getArray("work_findings"))
      for (const json::Value &fv : *findings)
        if (const Object *f = fv.getAsObject())
          os << "- [" << str(f, "kind") << "] " << str(f, "message") << "\n";
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
  for (const Object *w : workloads) {
    std::string log = str(w, "jit_log").str();
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
  std::vector<const Object *> timed;
  for (const Object *w : workloads)
    if (w->getObject("time"))
      timed.push_back(w);
  if (timed.empty())
    return;
  std::string baseline = str(&result, "baseline").empty()
                             ? "the baseline library"
                             : baselineDisplayName(str(&result, "baseline"));
  os << "\n## Speed\n\n";
  double target = goal ? goal->targetSpeedup : 0;
  unsigned devTimed = 0;
  bool allFaster = true, anyBaseline = false;
  for (const Object *w : timed) {
    double ms = number(w->getObject("time"), "median_ms");
    os << "- " << workloadName(*w) << ": " << fmt(ms) << " ms";
    if (w->get("tflops"))
      os << ", " << fmt(number(w, "tflops")) << " TFLOP/s";
    if (const Object *b = w->getObject("baseline_time")) {
      anyBaseline = true;
      double speedup = number(w, "speedup");
      os << "; " << baseline << " " << fmt(number(b, "median_ms"))
         << " ms, speedup " << format("%.2f", speedup) << "x";
      if (speedup > 0 && speedup < 1)
        os << " (" << format("%.1f", 1 / speedup) << "x slower)";
      allFaster &= speedup > 1;
    }
    if (str(w, "status") == "SUSPICIOUS")
      os << "; faster than the hardware's speed of light, so not credited: "
            "every launch must do all the work";
    else if (w->get("sol_fraction"))
      os << "; " << format("%.1f", number(w, "sol_fraction") * 100)
         << "% of the hardware's speed of light";
    // Workloads without a split are dev (a run outside a sweep).
    if (target > 0 && w->getString("split").value_or("dev") == "dev")
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
void FeedbackWriter::targetDistance(const Object &w, double target,
                                    unsigned &devTimed) {
  ++devTimed;
  double speedup = number(&w, "speedup");
  if (!w.getObject("baseline_time") || !(speedup > 0)) {
    ++belowTarget;
    os << "; no library time, so the " << format("%.2f", target)
       << "x target cannot be checked";
    return;
  }
  if (str(&w, "status") != "PASSED") {
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
  auto notRun = withStatus({"HARNESS_ERROR", "NO_GPU"});
  if (!notRun.empty()) {
    os << "\n## Not measured\n\n";
    for (auto &[key, group] : byMessage(notRun))
      os << "- " << names(group) << ": " << str(group.front(), "message").trim()
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

std::string prompt::renderFeedback(const json::Value &result,
                                   const report::AnalysisReport *analysis,
                                   const FeedbackGoal *goal) {
  std::string text;
  static const Object empty;
  const Object *r = result.getAsObject();
  FeedbackWriter writer(r ? *r : empty, analysis, goal, text);
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
