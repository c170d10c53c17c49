//===- ReasonCheck.cpp - A written reason held against the facts ----------===//
//
// The rules of ReasonCheck.h, on words: a sentence is lower-cased and cut
// into tokens (letters, digits, '_', '.', ':' and the apostrophe; commas,
// semicolons, colons between words and brackets are clause boundaries that
// no negation reaches across). Families are recognized through the ISA
// table (a dotted token is looked up as an opcode) and their names; the
// facts come from the stored analysis and the typed run result.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Eval/ReasonCheck.h"

#include "ptxbench/Eval/Summary.h"
#include "ptxbench/ISA/ISA.h"
#include "ptxbench/Runtime/Result.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace ptxbench;
using namespace ptxbench::eval;
using llvm::StringRef;

llvm::StringRef ptxbench::eval::claimKindName(ClaimKind kind) {
  switch (kind) {
  case ClaimKind::Family:
    return "family";
  case ClaimKind::Speedup:
    return "speedup";
  case ClaimKind::Status:
    return "status";
  }
  return "family";
}

namespace {

/// A token of a sentence; `boundary` for a clause boundary.
struct Token {
  std::string text;
  bool boundary = false;
};

bool tokenChar(char c) {
  return llvm::isAlnum(c) || c == '_' || c == '.' || c == ':' || c == '\'' ||
         (unsigned char)c >= 0x80;
}

std::vector<Token> tokenize(StringRef sentence) {
  std::vector<Token> tokens;
  std::string lower = sentence.lower();
  size_t i = 0, n = lower.size();
  while (i < n) {
    char c = lower[i];
    if (tokenChar(c)) {
      size_t j = i;
      while (j < n && tokenChar(lower[j]))
        ++j;
      StringRef word = StringRef(lower).slice(i, j);
      // A trailing '.', ':' or quote ends a sentence or a clause.
      bool ends = false;
      while (!word.empty() && (word.back() == '.' || word.back() == ':' ||
                               word.back() == '\'')) {
        ends |= word.back() == ':';
        word = word.drop_back();
      }
      if (!word.empty())
        tokens.push_back({word.str(), false});
      if (ends)
        tokens.push_back({"", true});
      i = j;
      continue;
    }
    if (c == ',' || c == ';' || c == '(' || c == ')' || c == '"' ||
        c == '`' || (c == '-' && i + 1 < n && lower[i + 1] == '-'))
      tokens.push_back({"", true});
    ++i;
  }
  return tokens;
}

bool in(const std::string &word, std::initializer_list<StringRef> words) {
  for (StringRef w : words)
    if (word == w)
      return true;
  return false;
}

bool negatorBefore(const std::string &w) {
  return in(w, {"not", "no", "never", "without", "lack", "lacks", "lacked",
                "lacking", "missing", "absent", "instead", "rather", "avoid",
                "avoids", "avoided", "avoiding", "remove", "removes",
                "removed", "removing", "drop", "drops", "dropped",
                "replace", "replaces", "replaced", "replacing", "nor",
                "neither", "none", "isn't", "wasn't", "doesn't", "didn't",
                "don't", "aren't", "weren't", "cannot", "can't", "won't",
                "couldn't", "unused", "never"});
}

bool negatorAfter(const std::string &w) {
  return in(w, {"missing", "absent", "not", "never", "isn't", "wasn't",
                "aren't", "weren't", "doesn't", "didn't", "unused",
                "unreachable"});
}

/// Whether the naming at tokens [begin, end) is negated.
bool negated(const std::vector<Token> &t, size_t begin, size_t end) {
  for (size_t k = begin, seen = 0; k > 0 && seen < 4; --k, ++seen) {
    if (t[k - 1].boundary)
      break;
    if (negatorBefore(t[k - 1].text))
      return true;
  }
  for (size_t k = end, seen = 0; k < t.size() && seen < 3; ++k, ++seen) {
    // "X but did not compile": what follows a conjunction is another
    // clause.
    if (t[k].boundary || in(t[k].text, {"but", "and", "or", "so", "while",
                                        "which", "that", "because",
                                        "although", "though", "yet"}))
      break;
    if (negatorAfter(t[k].text))
      return true;
  }
  return false;
}

/// The families a claim may be checked for: the requested-instruction
/// families (not loads, stores, arithmetic, whose names are plain words).
bool checkedFamily(isa::Family f) {
  StringRef name = isa::familyName(f);
  return isa::isArchSpecificFamily(f) || name == "mma_sync" ||
         name == "ldmatrix" || name == "cp_async" || name == "wmma" ||
         name == "mbarrier";
}

/// The family a token names, or empty.
std::string familyOfToken(StringRef word) {
  if (word == "expect_tx" || word == "complete_tx")
    return "mbarrier_tx";
  if (word.contains('.')) {
    if (const isa::InstrInfo *info = isa::lookup(word))
      if (checkedFamily(info->family))
        return isa::familyName(info->family).str();
    return "";
  }
  for (StringRef candidate : {word, word.ends_with("s") ? word.drop_back()
                                                        : StringRef()}) {
    if (candidate.empty() || candidate == "elect")
      continue;
    if (std::optional<isa::Family> f = isa::familyByName(candidate))
      if (checkedFamily(*f))
        return candidate.str();
  }
  return "";
}

struct Naming {
  std::string family;
  size_t begin, end;
};

std::vector<Naming> findFamilies(const std::vector<Token> &t) {
  std::vector<Naming> out;
  auto at = [&](size_t i, StringRef w) {
    return i < t.size() && !t[i].boundary && t[i].text == w;
  };
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i].boundary)
      continue;
    if (at(i, "tensor") && at(i + 1, "memory") && at(i + 2, "accelerator")) {
      out.push_back({"tma", i, i + 3});
      i += 2;
      continue;
    }
    if (at(i, "distributed") && at(i + 1, "shared") && at(i + 2, "memory")) {
      out.push_back({"dsmem", i, i + 3});
      i += 2;
      continue;
    }
    if (at(i, "tensor") && at(i + 1, "memory")) {
      out.push_back({"tmem", i, i + 2});
      ++i;
      continue;
    }
    if (at(i, "bulk") && (at(i + 1, "copy") || at(i + 1, "copies"))) {
      out.push_back({"bulk_copy", i, i + 2});
      ++i;
      continue;
    }
    std::string f = familyOfToken(t[i].text);
    if (!f.empty())
      out.push_back({f, i, i + 1});
  }
  return out;
}

/// Whether a kernel with `present` families has what `named` names.
bool hasFamily(const std::set<std::string> &present, StringRef named) {
  if (present.count(named.str()))
    return true;
  // Loose names: "mbarrier" for either barrier family, "tcgen05" for the
  // tensor-memory instructions too.
  if (named == "mbarrier")
    return present.count("mbarrier_tx");
  if (named == "tcgen05")
    return present.count("tmem");
  return false;
}

/// Which kernels a sentence is about.
struct About {
  bool failed = false, fixed = false;
};

About aboutWhich(const std::vector<Token> &t, bool pair) {
  About a;
  if (!pair) {
    a.fixed = true;
    return a;
  }
  for (const Token &k : t) {
    if (in(k.text, {"failed", "failing", "fails", "wrong", "previous",
                    "previously", "original", "originally", "old", "older",
                    "earlier", "broken", "buggy", "attempt", "attempted"}))
      a.failed = true;
    if (in(k.text, {"fix", "fixed", "fixes", "fixing", "new", "now",
                    "corrected", "rewritten", "rewrite", "rewrote",
                    "repaired", "repair", "updated", "revised", "final"}))
      a.fixed = true;
  }
  if (a.failed == a.fixed)
    a.failed = a.fixed = true; // either: a claim must hold for one
  return a;
}

std::string quoteSentence(StringRef s) {
  s = s.trim();
  return s.size() > 200 ? s.take_front(200).str() + "..." : s.str();
}

std::string listFamilies(const std::set<std::string> &f) {
  if (f.empty())
    return "none of the requested-instruction families";
  return llvm::join(f, ", ");
}

// Statuses a reason can claim.
enum class Claimed { Passed, Incorrect, Timeout, Runtime, Compile };

StringRef claimedName(Claimed c) {
  switch (c) {
  case Claimed::Passed:
    return "passed";
  case Claimed::Incorrect:
    return "gave incorrect results";
  case Claimed::Timeout:
    return "timed out or hung";
  case Claimed::Runtime:
    return "faulted or crashed";
  case Claimed::Compile:
    return "did not compile";
  }
  return "";
}

bool compileFailed(const KernelFacts &k) {
  return k.status == status::CompileError || k.status == status::ImportError ||
         runtime::isStatus(k.runStatus, runtime::Status::CompileError) ||
         runtime::isStatus(k.runStatus, runtime::Status::CompileTimeout);
}

bool consistent(Claimed c, const KernelFacts &k) {
  switch (c) {
  case Claimed::Passed:
    return runtime::isStatus(k.runStatus, runtime::Status::Passed);
  case Claimed::Incorrect:
    return runtime::isStatus(k.runStatus, runtime::Status::Incorrect);
  case Claimed::Timeout:
    return runtime::isStatus(k.runStatus, runtime::Status::Timeout) ||
           runtime::isStatus(k.runStatus, runtime::Status::CompileTimeout);
  case Claimed::Runtime:
    return runtime::isStatus(k.runStatus, runtime::Status::RuntimeError) ||
           runtime::isStatus(k.runStatus, runtime::Status::LaunchError);
  case Claimed::Compile:
    return compileFailed(k);
  }
  return false;
}

std::string outcome(const KernelFacts &k) {
  if (compileFailed(k))
    return "it did not compile (" +
           (k.runStatus.empty() ? k.status : k.runStatus) + ")";
  if (!k.ran())
    return k.runStatus.empty() ? "it never ran on a GPU"
                               : "it never ran on a GPU (" + k.runStatus + ")";
  return "its run was " + k.runStatus;
}

struct StatusClaim {
  Claimed claim;
  size_t begin, end;
};

std::vector<StatusClaim> findStatuses(const std::vector<Token> &t) {
  std::vector<StatusClaim> out;
  auto at = [&](size_t i, std::initializer_list<StringRef> words) {
    return i < t.size() && !t[i].boundary && in(t[i].text, words);
  };
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i].boundary)
      continue;
    // Compile failures first: their phrases hold their own negation.
    if (at(i, {"failed", "fails", "fail"}) && at(i + 1, {"to"}) &&
        at(i + 2, {"compile", "build", "assemble"})) {
      out.push_back({Claimed::Compile, i, i + 3});
      i += 2;
      continue;
    }
    if (at(i, {"does", "did", "doesn't", "didn't", "won't", "would"}) &&
        at(i + 1, {"not", "compile"})) {
      size_t j = t[i + 1].text == "not" ? i + 2 : i + 1;
      if (at(j, {"compile", "build", "assemble"})) {
        out.push_back({Claimed::Compile, i, j + 1});
        i = j;
        continue;
      }
    }
    if (at(i, {"compile", "compilation", "compiler", "ptxas", "nvrtc"}) &&
        at(i + 1, {"error", "errors", "failure", "failed", "fails"})) {
      out.push_back({Claimed::Compile, i, i + 2});
      ++i;
      continue;
    }
    if (at(i, {"passed", "passes", "passing"})) {
      out.push_back({Claimed::Passed, i, i + 1});
      continue;
    }
    if (at(i, {"correct"}) &&
        (at(i + 1, {"result", "results", "output", "outputs", "answer",
                    "answers"}) ||
         (i > 0 && at(i - 1, {"is", "was", "are", "were"})))) {
      out.push_back({Claimed::Passed, i, i + 1});
      continue;
    }
    if (at(i, {"incorrect", "mismatch", "mismatches", "mismatched"}) ||
        (at(i, {"wrong"}) && at(i + 1, {"result", "results", "output",
                                        "outputs", "answer", "answers",
                                        "values"}))) {
      out.push_back({Claimed::Incorrect, i, i + 1});
      continue;
    }
    if (at(i, {"timeout", "timeouts", "hang", "hangs", "hung", "deadlock",
               "deadlocks", "deadlocked"}) ||
        (at(i, {"timed", "times"}) && at(i + 1, {"out"}))) {
      out.push_back({Claimed::Timeout, i, i + 1});
      continue;
    }
    if ((at(i, {"illegal"}) && at(i + 1, {"address", "memory"})) ||
        at(i, {"segfault", "segfaults", "crash", "crashes", "crashed",
               "fault", "faults", "faulted"}) ||
        (at(i, {"runtime", "launch"}) &&
         at(i + 1, {"error", "errors", "failure"}))) {
      out.push_back({Claimed::Runtime, i, i + 1});
      continue;
    }
  }
  return out;
}

/// A number at the start of `word` ("1.8", "1.8x", "2×"), with what
/// follows it.
std::optional<double> leadingNumber(StringRef word, StringRef &rest) {
  size_t i = 0;
  while (i < word.size() && llvm::isDigit(word[i]))
    ++i;
  if (i == 0)
    return std::nullopt;
  if (i + 1 < word.size() && word[i] == '.' && llvm::isDigit(word[i + 1])) {
    ++i;
    while (i < word.size() && llvm::isDigit(word[i]))
      ++i;
  }
  double v;
  if (word.take_front(i).getAsDouble(v))
    return std::nullopt;
  rest = word.drop_front(i);
  return v;
}

bool speedWord(const std::string &w) {
  return in(w, {"speedup", "speedups", "speed", "faster", "slower", "fast",
                "slow", "throughput", "performance", "perf", "latency",
                "quicker", "library", "baseline", "cublas", "cublaslt",
                "cudnn"});
}

} // namespace

bool KernelFacts::ran() const {
  return !runStatus.empty() &&
         !runtime::isStatus(runStatus, runtime::Status::NoGpu) &&
         !runtime::isStatus(runStatus, runtime::Status::Skipped) &&
         !runtime::isStatus(runStatus, runtime::Status::HarnessError);
}

KernelFacts KernelFacts::of(const SampleRecord &r) {
  KernelFacts k;
  k.status = r.status;
  k.runStatus = r.runStatus;
  std::optional<report::AnalysisReport> report =
      parseStoredReport(r.staticJson);
  if (r.analyzed() && report) {
    k.analyzed = true;
    for (const report::KernelReport &kernel : report->kernels)
      for (const report::FamilyUse &use : kernel.features)
        if (use.count > 0)
          k.families.insert(use.family);
  } else {
    for (auto &named : namedFamilies(r.code))
      k.families.insert(named.first);
  }
  if (std::optional<runtime::RunResult> run =
          runtime::parseRunResult(r.runJson)) {
    for (const runtime::WorkloadResult &w : run->workloads) {
      for (const runtime::FeatureCount &f : w.features)
        if (f.executed > 0 || f.inCode > 0)
          k.families.insert(f.family);
      if (std::optional<double> s = runtime::speedup(w);
          s && w.status == runtime::Status::Passed)
        k.speedups.push_back(*s);
    }
  }
  if (!k.speedups.empty()) {
    double logs = 0;
    for (double s : k.speedups)
      logs += std::log(s);
    k.geomean = std::exp(logs / k.speedups.size());
    k.speedups.push_back(*k.geomean);
  }
  if (std::optional<double> least = minDevSpeedup(r))
    k.speedups.push_back(*least);
  return k;
}

std::vector<std::string> ptxbench::eval::sentences(StringRef reason) {
  std::vector<std::string> out;
  std::string current;
  auto flush = [&] {
    if (!StringRef(current).trim().empty())
      out.push_back(StringRef(current).trim().str());
    current.clear();
  };
  for (size_t i = 0; i < reason.size(); ++i) {
    char c = reason[i];
    if (c == '\n') {
      flush();
      continue;
    }
    current += c;
    if ((c == '.' || c == '!' || c == '?') &&
        (i + 1 == reason.size() || reason[i + 1] == ' ' ||
         reason[i + 1] == '\n' || reason[i + 1] == '\t'))
      flush();
  }
  flush();
  return out;
}

std::vector<std::pair<std::string, bool>>
ptxbench::eval::namedFamilies(StringRef text) {
  std::vector<std::pair<std::string, bool>> out;
  for (const std::string &s : sentences(text)) {
    std::vector<Token> t = tokenize(s);
    for (const Naming &n : findFamilies(t))
      out.push_back({n.family, negated(t, n.begin, n.end)});
  }
  return out;
}

std::vector<Contradiction>
ptxbench::eval::checkReason(StringRef reason, const SampleRecord *failed,
                            const SampleRecord &fixed) {
  std::vector<Contradiction> out;
  KernelFacts fix = KernelFacts::of(fixed), bad;
  if (failed)
    bad = KernelFacts::of(*failed);
  // Every speedup a run measured, and fixed against failed.
  std::vector<double> measured = fix.speedups;
  measured.insert(measured.end(), bad.speedups.begin(), bad.speedups.end());
  if (fix.geomean && bad.geomean && *bad.geomean > 0)
    measured.push_back(*fix.geomean / *bad.geomean);
  auto near = [&](double v) {
    for (double m : measured)
      if (std::fabs(v - m) <= std::max(0.1 * m, 0.05))
        return true;
    return false;
  };

  for (const std::string &sentence : sentences(reason)) {
    std::vector<Token> t = tokenize(sentence);
    About about = aboutWhich(t, failed != nullptr);
    std::vector<const KernelFacts *> kernels;
    if (about.failed)
      kernels.push_back(&bad);
    if (about.fixed)
      kernels.push_back(&fix);
    std::string which = kernels.size() == 2 ? "either kernel"
                        : about.failed      ? "the failed kernel"
                                            : "the fixed kernel";

    // Families.
    for (const Naming &n : findFamilies(t)) {
      if (negated(t, n.begin, n.end))
        continue;
      bool holds = false;
      for (const KernelFacts *k : kernels)
        holds |= hasFamily(k->families, n.family);
      if (holds)
        continue;
      std::string facts;
      for (const KernelFacts *k : kernels)
        facts += (facts.empty() ? "" : "; ") +
                 std::string(k == &bad ? "the failed kernel has " : "the fixed kernel has ") +
                 listFamilies(k->families);
      out.push_back({ClaimKind::Family, quoteSentence(sentence),
                     "names " + n.family + ", which " + which +
                         " does not contain (" + facts + ")"});
      break;
    }

    // Speedups.
    bool aboutSpeed = false;
    for (const Token &k : t)
      aboutSpeed |= speedWord(k.text);
    for (size_t i = 0; i < t.size(); ++i) {
      if (t[i].boundary)
        continue;
      StringRef rest;
      std::optional<double> v = leadingNumber(t[i].text, rest);
      if (!v)
        continue;
      bool times = rest == "x" || rest == "\xc3\x97" ||
                   (rest.empty() && i + 1 < t.size() &&
                    (t[i + 1].text == "x" || t[i + 1].text == "times" ||
                     t[i + 1].text == "\xc3\x97"));
      bool after = (i > 0 && t[i - 1].text == "speedup") ||
                   (i > 1 && t[i - 1].text == "of" &&
                    t[i - 2].text == "speedup");
      if (!((times && aboutSpeed) || (after && rest.empty())))
        continue;
      if (near(*v))
        continue;
      std::string facts;
      for (double m : measured)
        facts += (facts.empty() ? "" : ", ") + llvm::formatv("{0:f2}x", m).str();
      out.push_back({ClaimKind::Speedup, quoteSentence(sentence),
                     llvm::formatv("claims a speedup of {0}x; ", *v).str() +
                         (measured.empty()
                              ? std::string("no run of either kernel was timed")
                              : "the runs measured " + facts)});
      break;
    }
    for (size_t i = 0; i + 1 < t.size(); ++i) {
      if (!in(t[i].text, {"faster", "slower"}) || t[i + 1].text != "than")
        continue;
      bool library = false;
      for (size_t j = i + 2; j < t.size() && j < i + 5 && !t[j].boundary; ++j)
        library |= in(t[j].text, {"library", "cublas", "cublaslt", "cudnn",
                                  "baseline", "vendor"});
      if (!library || negated(t, i, i + 1))
        continue;
      bool faster = t[i].text == "faster";
      bool holds = false;
      for (const KernelFacts *k : kernels)
        holds |= k->geomean && (faster ? *k->geomean > 1 : *k->geomean < 1);
      if (holds)
        continue;
      std::string facts;
      for (const KernelFacts *k : kernels)
        if (k->geomean)
          facts += (facts.empty() ? "" : "; ") +
                   llvm::formatv("{0:f2}x", *k->geomean).str();
      out.push_back({ClaimKind::Speedup, quoteSentence(sentence),
                     "claims " + which + " is " + t[i].text +
                         " than the library; " +
                         (facts.empty() ? "no run of it was timed"
                                        : "its geometric-mean speedup is " +
                                              facts)});
      break;
    }

    // Statuses.
    for (const StatusClaim &c : findStatuses(t)) {
      if (c.claim != Claimed::Compile && negated(t, c.begin, c.end))
        continue;
      bool holds = false;
      for (const KernelFacts *k : kernels)
        holds |= consistent(c.claim, *k);
      if (holds)
        continue;
      std::string facts;
      for (const KernelFacts *k : kernels)
        facts += (facts.empty() ? "" : "; ") +
                 std::string(k == &bad ? "the failed kernel: " : "the fixed kernel: ") +
                 outcome(*k);
      out.push_back({ClaimKind::Status, quoteSentence(sentence),
                     "says " + which + " " + claimedName(c.claim).str() +
                         "; " + facts});
      break;
    }
  }
  return out;
}
