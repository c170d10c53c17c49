//===- Reasons.cpp - Reasons for fixes, written by a model ----------------===//
//
// One prepared sample per pair (context `reason`, or `explain` for a
// KernelGen record; the pair's id as sample id), sent by generate's engine
// without evaluation; then each answer read back from its response.md, its
// reason extracted, bounded in length and checked against the facts.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Generate/Reasons.h"

#include "ptxbench/Eval/SampleView.h"
#include "ptxbench/Support/HostPaths.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"

using namespace ptxbench;
using namespace ptxbench::generate;
using llvm::StringRef;

llvm::StringRef ptxbench::generate::reasonFateName(ReasonFate fate) {
  switch (fate) {
  case ReasonFate::Kept:
    return "kept";
  case ReasonFate::Unanswered:
    return "unanswered";
  case ReasonFate::TooShort:
    return "too_short";
  case ReasonFate::TooLong:
    return "too_long";
  case ReasonFate::Contradicted:
    return "contradicted";
  }
  return "kept";
}

unsigned ReasonsResult::count(ReasonFate fate) const {
  unsigned n = 0;
  for (const WrittenReason &r : reasons)
    n += r.fate == fate;
  return n;
}

std::map<std::string, unsigned> ReasonsResult::contradictedBy() const {
  std::map<std::string, unsigned> by;
  for (const WrittenReason &r : reasons)
    if (r.fate == ReasonFate::Contradicted && !r.contradictions.empty())
      ++by[eval::claimKindName(r.contradictions.front().kind).str()];
  return by;
}

namespace {

constexpr StringRef reasonContext = "reason", explainContext = "explain";

/// What the records say of one kernel, as the writer reads it.
std::string facts(const eval::SampleRecord &r) {
  std::string text;
  if (r.analyzed())
    text += "- Compiled and analyzed for " + r.arch + ".\n";
  else
    text += "- Not analyzed: " + r.status + " (" +
            StringRef(r.error).take_front(2000).str() + ").\n";
  std::string described = eval::describeKernel(r);
  // describeKernel's lines, without its heading.
  text += StringRef(described).split('\n').second.str();
  eval::KernelFacts k = eval::KernelFacts::of(r);
  text += "- Instruction families in the code: " +
          (k.families.empty() ? std::string("none of the requested kinds")
                              : llvm::join(k.families, ", ")) +
          ".\n";
  if (!r.ran())
    text += "- It was not run on a GPU.\n";
  else if (!k.ran())
    text += "- It was not run on a GPU (" + r.runStatus + ").\n";
  for (const eval::LineDiagnostic &d : eval::sampleDiagnostics(r)) {
    if (d.kind == "compiler" && d.level != "error")
      continue;
    text += "- Finding";
    if (d.line)
      text += " at line " + std::to_string(d.line);
    text += ": [" + d.kind + "] " + d.message + "\n";
  }
  return text;
}

std::string sha256Hex(StringRef text) {
  return llvm::toHex(llvm::SHA256::hash(llvm::arrayRefFromStringRef(text)),
                     /*LowerCase=*/true);
}

std::optional<std::string> readFile(StringRef file) {
  auto buffer = llvm::MemoryBuffer::getFile(file);
  if (!buffer)
    return std::nullopt;
  return (*buffer)->getBuffer().str();
}

} // namespace

std::vector<prompt::ChatMessage>
ptxbench::generate::reasonRequest(const eval::FixitPair &pair,
                                  StringRef taskSummary) {
  const eval::SampleRecord &fixed = pair.fixed;
  std::string system =
      "You write the reasoning of GPU kernel engineers for training data. "
      "You are given a task, the evaluation of kernels written for it, and "
      "the kernels. Every claim you make must be supported by the evidence "
      "given: name no instruction family the analysis does not find in the "
      "kernel, give no speedup the runs did not measure, and say no kernel "
      "passed, failed, hung or did not compile unless its evaluation says "
      "so.";
  std::string user = "# Task\n\n" + taskSummary.str() + "\n\n";
  if (pair.wrong) {
    user += "# The failed kernel\n\n" + eval::fencedCode(*pair.wrong) +
            "\n\n## Its evaluation\n\n" + facts(*pair.wrong) +
            "\n# The fixed kernel\n\n" + eval::fencedCode(fixed) +
            "\n\n## Its evaluation\n\n" + facts(fixed) +
            "\n# What changed, from the two evaluations\n\n" +
            eval::derivedReason(*pair.wrong, fixed) +
            "\n# What to write\n\nWrite, in the first person, the "
            "reasoning of the engineer who looked at the failed kernel and "
            "its evaluation and then wrote the fixed kernel: what the "
            "evaluation shows is wrong and why, the alternatives considered, "
            "and what the fix changes and why that works. Write it as "
            "thought before the fix existed: do not refer to the fixed "
            "kernel as given, and do not copy either kernel whole (short "
            "snippets are fine). Put the reasoning between <reason> and "
            "</reason>, and nothing outside them.\n";
  } else {
    user += "# A correct kernel\n\n" + eval::fencedCode(fixed) +
            "\n\n## Its evaluation\n\n" + facts(fixed) +
            "\n# What to write\n\nWrite, in the first person, the "
            "reasoning of the engineer who designed this kernel for the "
            "task: the plan, the instructions chosen and why, the tiling, "
            "the synchronization and what limits its speed. Write it as "
            "thought before the kernel existed, without copying it whole "
            "(short snippets are fine). Put the reasoning between <reason> "
            "and </reason>, and nothing outside them.\n";
  }
  // The request goes to a provider: no folder of this host.
  HostPaths paths = HostPaths::standard();
  return {{"system", system}, {"user", paths(user)}};
}

std::string ptxbench::generate::extractReason(StringRef answer) {
  std::string text;
  // Without <think> blocks (a reasoning model's own thinking).
  StringRef rest = answer;
  while (true) {
    size_t open = rest.find("<think>");
    if (open == StringRef::npos) {
      text += rest.str();
      break;
    }
    text += rest.take_front(open).str();
    size_t close = rest.find("</think>", open);
    if (close == StringRef::npos)
      break; // an unclosed block: thinking to the end
    rest = rest.drop_front(close + 8);
  }
  StringRef t(text);
  size_t open = t.find("<reason>");
  if (open != StringRef::npos) {
    StringRef inner = t.drop_front(open + 8);
    size_t close = inner.find("</reason>");
    return inner.take_front(close).trim().str();
  }
  return t.trim().str();
}

llvm::Expected<ReasonsResult>
ptxbench::generate::writeReasons(const std::vector<eval::FixitPair> &pairs,
                                 const ReasonOptions &options) {
  if (options.generate.models.size() != 1)
    return llvm::createStringError("reasons are written by one model");
  ReasonsResult result;
  result.writer = options.generate.models.front().name;
  GenerateOptions gen = options.generate;
  gen.prepared.clear();
  gen.dbPath.clear();
  gen.turns = 1;
  std::vector<std::string> dirs;
  for (const eval::FixitPair &p : pairs) {
    PreparedSample s;
    s.context = (p.wrong ? reasonContext : explainContext).str();
    s.task = p.fixed.key.task;
    s.sampleId = p.id();
    std::string summary =
        options.taskSummary ? options.taskSummary(p.wrong ? *p.wrong : p.fixed)
                            : s.task;
    for (prompt::ChatMessage &m : reasonRequest(p, summary))
      s.messages.push_back(std::move(m));
    std::string all;
    for (const prompt::ChatMessage &m : s.messages)
      all += m.role + "\n" + m.content + "\n";
    s.promptSha = sha256Hex(all);
    llvm::json::Object pairJson{{"pair", s.sampleId},
                                {"fixed", p.fixedKey()},
                                {"kind", p.kind}};
    if (p.wrong)
      pairJson["wrong"] = p.wrong->key.str();
    s.files.push_back(
        {"pair.json",
         llvm::formatv("{0:2}\n", llvm::json::Value(std::move(pairJson)))
             .str()});
    llvm::SmallString<256> dir(gen.outDir);
    llvm::sys::path::append(dir, result.writer, s.context, s.task,
                            s.sampleId);
    dirs.push_back(std::string(dir));
    gen.prepared.push_back(std::move(s));
  }
  if (!gen.prepared.empty()) {
    auto stats = runGenerate(gen);
    if (!stats)
      return stats.takeError();
    result.stats = *stats;
  }
  for (size_t i = 0; i < pairs.size(); ++i) {
    WrittenReason w;
    llvm::SmallString<256> response(dirs[i]);
    llvm::sys::path::append(response, "response.md");
    w.responsePath = std::string(response);
    std::optional<std::string> answer = readFile(response);
    llvm::SmallString<256> genFile(dirs[i]);
    llvm::sys::path::append(genFile, "generation.json");
    if (!answer || !llvm::sys::fs::exists(genFile)) {
      w.fate = ReasonFate::Unanswered;
      result.reasons.push_back(std::move(w));
      continue;
    }
    w.text = extractReason(*answer);
    if (w.text.size() < std::max<size_t>(options.minChars, 1))
      w.fate = ReasonFate::TooShort;
    else if (options.maxChars && w.text.size() > options.maxChars)
      w.fate = ReasonFate::TooLong;
    else {
      w.contradictions =
          eval::checkReason(w.text, pairs[i].wrong, pairs[i].fixed);
      w.fate = w.contradictions.empty() ? ReasonFate::Kept
                                        : ReasonFate::Contradicted;
    }
    result.reasons.push_back(std::move(w));
  }
  return result;
}
