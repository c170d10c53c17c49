//===- FixitCommand.cpp - ptxbench fixit ----------------------------------===//
//
// `ptxbench fixit --db results.sqlite -o fixit.jsonl [--tasks DIR]
//  [--max-per-task N] [--max-per-kind N] [--heldout-tasks A,B]
//  [--record three|five|kernelgen] [--fix-sources later-turn,repair,expert]
//  [--reasons-by MODEL [--models FILE] [--reasons-dir DIR] [budget flags]]`
// writes supervised fine-tuning records (docs/fixit.md) pairing wrong or
// fallback kernels with their fixes (or, with --record kernelgen, correct
// kernels alone), their reasons derived from the analyses or written by a
// model and checked against them; prints the distribution over tasks x
// failure kinds and writes it beside the output as OUT-without-.jsonl +
// ".distribution.json".
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "ptxbench/Eval/Fixit.h"
#include "ptxbench/Eval/FixitRecords.h"
#include "ptxbench/Eval/ResultsStore.h"
#include "ptxbench/Eval/TaskSolutions.h"
#include "ptxbench/Generate/Reasons.h"
#include "ptxbench/Generate/TurnEval.h"
#include "ptxbench/Task/Task.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <set>

using namespace llvm;
using namespace ptxbench;

namespace {

cl::SubCommand fixitCmd("fixit", "Fine-tuning records from wrong kernels "
                                 "and their fixes");
cl::opt<std::string> dbPath("db", cl::desc("The results store"),
                            cl::value_desc("file"), cl::Required,
                            cl::sub(fixitCmd));
cl::opt<std::string> output("o", cl::desc("Output JSONL file"),
                            cl::value_desc("file"), cl::Required,
                            cl::sub(fixitCmd));
cl::opt<std::string> tasksDir("tasks",
                              cl::desc("The tasks folder (descriptions, "
                                       "expert solutions)"),
                              cl::value_desc("dir"), cl::init("tasks"),
                              cl::sub(fixitCmd));
cl::opt<unsigned> maxPerTask("max-per-task",
                             cl::desc("At most N records per task (0: no "
                                      "cap)"),
                             cl::init(0), cl::sub(fixitCmd));
cl::opt<unsigned> maxPerKind("max-per-kind",
                             cl::desc("At most N records per failure kind "
                                      "(0: no cap)"),
                             cl::init(0), cl::sub(fixitCmd));

cl::list<std::string> heldoutTaskList(
    "heldout-tasks",
    cl::desc("These tasks' records go to OUT.heldout.jsonl (paired, capped "
             "and counted on their own), as report --compare and "
             "training/sft.py split them"),
    cl::value_desc("task,..."), cl::CommaSeparated, cl::sub(fixitCmd));
// The spelling before --heldout-tasks: --split heldout-tasks=A,B.
cl::opt<std::string> split("split", cl::desc("heldout-tasks=A,B: as --heldout-tasks A,B"),
                           cl::value_desc("heldout-tasks=A,B"), cl::Hidden,
                           cl::sub(fixitCmd));

cl::opt<std::string> recordShape(
    "record",
    cl::desc("The record: three (system, the problems and the kernel, the "
             "reason and the fix), five (the task's prompt, the failed "
             "attempt, its feedback, the reason and the fix) or kernelgen "
             "(the task's prompt, then an explanation and a correct kernel)"),
    cl::value_desc("shape"), cl::init("three"), cl::sub(fixitCmd));
cl::list<std::string> fixSources(
    "fix-sources",
    cl::desc("Where a wrong sample's fix comes from, tried in order: "
             "later-turn, repair (a teacher's, generate --repair-from), "
             "expert (default: all three)"),
    cl::value_desc("source,..."), cl::CommaSeparated, cl::sub(fixitCmd));
cl::opt<std::string> reasonsBy(
    "reasons-by",
    cl::desc("A model of --models (or corpus, replay) writes each record's "
             "reason; reasons that contradict the analyses and runs are "
             "dropped and counted"),
    cl::value_desc("model"), cl::sub(fixitCmd));
cl::opt<std::string> reasonsModels("models",
                                   cl::desc("The models file (with "
                                            "--reasons-by)"),
                                   cl::value_desc("file"), cl::sub(fixitCmd));
cl::opt<std::string> reasonsDir(
    "reasons-dir",
    cl::desc("The writer's requests and answers (default: OUT without "
             ".jsonl + .reasons)"),
    cl::value_desc("dir"), cl::sub(fixitCmd));
cl::opt<unsigned> minReasonChars("min-reason-chars",
                                 cl::desc("Drop written reasons shorter "
                                          "than this"),
                                 cl::init(0), cl::sub(fixitCmd));
cl::opt<unsigned> maxReasonChars("max-reason-chars",
                                 cl::desc("Drop written reasons longer than "
                                          "this (0: no bound)"),
                                 cl::init(0), cl::sub(fixitCmd));
cl::opt<double> reasonsMaxCost("max-cost",
                               cl::desc("Stop before a reason request could "
                                        "take the run over this many US "
                                        "dollars"),
                               cl::init(0), cl::sub(fixitCmd));
cl::opt<int64_t> reasonsMaxTokens("max-tokens",
                                  cl::desc("Stop before a reason request "
                                           "could take the run over this "
                                           "many tokens"),
                                  cl::init(0), cl::sub(fixitCmd));
cl::opt<unsigned> reasonsConcurrency("concurrency",
                                     cl::desc("Reason requests in flight"),
                                     cl::init(16), cl::sub(fixitCmd));
cl::opt<int64_t> reasonsSeed("seed",
                             cl::desc("Seed sent with each reason request"),
                             cl::sub(fixitCmd));

int fail(const Twine &message) { return cli::fail("fixit", message); }

std::string withoutJsonl(StringRef path) {
  return path.ends_with(".jsonl") ? path.drop_back(6).str() : path.str();
}

/// The task's prompt as generate sent it: with the sample's built-in tag
/// (brief for a tag of a tag file, or none), in the answer's language.
Expected<std::vector<prompt::ChatMessage>>
taskPrompt(const eval::SampleRecord &r) {
  static std::map<std::tuple<std::string, std::string, bool>,
                  std::vector<prompt::ChatMessage>>
      cache;
  const prompt::Tag *tag = prompt::findBuiltinTag(r.key.context);
  if (!tag)
    tag = prompt::findBuiltinTag("brief");
  bool triton = r.language == "py";
  auto key = std::make_tuple(r.key.task, tag->name, triton);
  auto it = cache.find(key);
  if (it != cache.end())
    return it->second;
  SmallString<256> dir(tasksDir);
  sys::path::append(dir, r.key.task);
  auto task = runtime::loadTask(dir);
  if (!task)
    return task.takeError();
  prompt::PromptOptions po;
  po.arch = r.arch;
  po.tag = *tag;
  po.language = triton ? prompt::AnswerLanguage::Triton
                       : prompt::AnswerLanguage::Native;
  auto built = prompt::buildPrompt(*task, po);
  if (!built)
    return built.takeError();
  return cache[key] = built->messages;
}

int runFixit() {
  auto store = eval::ResultsStore::open(dbPath, eval::ResultsStore::Mode::Read);
  if (!store)
    return fail(toString(store.takeError()));
  auto records = (*store)->all();
  if (!records)
    return fail(toString(records.takeError()));
  eval::FixitOptions options;
  options.maxPerTask = maxPerTask;
  options.maxPerKind = maxPerKind;
  if (!fixSources.empty()) {
    options.sources.clear();
    for (const std::string &name : fixSources) {
      std::optional<eval::FixSource> source =
          eval::parseFixSource(StringRef(name).trim());
      if (!source)
        return fail("--fix-sources expects later-turn, repair or expert, "
                    "got '" +
                    name + "'");
      if (!is_contained(options.sources, *source))
        options.sources.push_back(*source);
    }
  }
  std::optional<eval::RecordFormat> format = eval::parseRecordFormat(recordShape);
  if (!format)
    return fail("--record expects three, five or kernelgen, got '" +
                recordShape + "'");
  if (*format == eval::RecordFormat::KernelGen && maxPerKind)
    return fail("--max-per-kind does not apply to --record kernelgen (every "
                "record is of kind correct)");
  std::optional<client::ModelConfig> writer;
  if (!reasonsBy.empty()) {
    std::map<std::string, client::ModelConfig> known;
    if (!reasonsModels.empty()) {
      auto loaded = client::loadModels(reasonsModels);
      if (!loaded)
        return fail(toString(loaded.takeError()));
      known = std::move(*loaded);
    }
    if (!known.count("corpus"))
      known["corpus"] = client::builtinCorpusModel();
    auto it = known.find(reasonsBy);
    if (it == known.end())
      return fail("unknown model '" + reasonsBy + "' for --reasons-by" +
                  (reasonsModels.empty()
                       ? std::string(" (no --models file; built in: corpus)")
                       : " (not in " + reasonsModels + ")"));
    writer = it->second;
    if (reasonsMaxCost.getNumOccurrences() && !(reasonsMaxCost > 0))
      return fail("--max-cost must be more than 0 US dollars (leave it out "
                  "for no limit)");
    if (reasonsMaxTokens.getNumOccurrences() && reasonsMaxTokens <= 0)
      return fail("--max-tokens must be at least 1 (leave it out for no "
                  "limit)");
    if (reasonsConcurrency == 0 || reasonsConcurrency > 4096)
      return fail("--concurrency must be between 1 and 4096");
    if (maxReasonChars && maxReasonChars < minReasonChars)
      return fail("--max-reason-chars is below --min-reason-chars");
  } else {
    for (cl::Option *o :
         std::initializer_list<cl::Option *>{&reasonsModels, &reasonsDir,
                                             &minReasonChars, &maxReasonChars,
                                             &reasonsMaxCost,
                                             &reasonsMaxTokens,
                                             &reasonsConcurrency,
                                             &reasonsSeed})
      if (o->getNumOccurrences())
        return fail("--" + o->ArgStr + " needs --reasons-by");
  }
  eval::RecordInputs inputs;
  inputs.taskSummary = options.taskSummary;
  inputs.taskPrompt = taskPrompt;
  inputs.feedback = [](const eval::SampleRecord &r) {
    return generate::turnFeedback(r, 0, r.language == "py");
  };
  bool stopped = false;
  options.taskSummary = [](const eval::SampleRecord &r) {
    return eval::taskSummary(tasksDir, r.key.task, r.arch);
  };
  options.expert = [](const eval::SampleRecord &r)
      -> std::optional<eval::SampleRecord> {
    auto expert = eval::expertSolution(tasksDir, r.key.task, r.arch);
    if (!expert) {
      WithColor::warning(errs(), "ptxbench fixit")
          << toString(expert.takeError()) << "\n";
      return std::nullopt;
    }
    return *expert;
  };
  // --heldout-tasks A,B (or --split heldout-tasks=A,B): those tasks'
  // samples form a second set, built on its own so no pair, cap or dedupe
  // crosses the split.
  std::set<std::string> heldoutTasks;
  for (const std::string &t : heldoutTaskList)
    if (!StringRef(t).trim().empty())
      heldoutTasks.insert(StringRef(t).trim().str());
  if (!heldoutTaskList.empty() && heldoutTasks.empty())
    return fail("--heldout-tasks names no task");
  if (!split.empty()) {
    StringRef spec(split);
    if (!spec.consume_front("heldout-tasks="))
      return fail("--split expects heldout-tasks=A,B, got '" + split + "'");
    SmallVector<StringRef> names;
    spec.split(names, ',', -1, false);
    for (StringRef n : names)
      if (!n.trim().empty())
        heldoutTasks.insert(n.trim().str());
    if (heldoutTasks.empty())
      return fail("--split heldout-tasks= names no task");
  }
  if (!heldoutTasks.empty()) {
    std::set<std::string> known;
    for (const eval::SampleRecord &r : *records)
      known.insert(r.key.task);
    for (const std::string &t : heldoutTasks)
      if (!known.count(t))
        WithColor::warning(errs(), "ptxbench fixit")
            << (split.empty() ? "--heldout-tasks" : "--split")
            << ": no sample of task '" << t << "' in " << dbPath
            << "\n";
  }
  std::vector<eval::SampleRecord> trainRecords, heldoutRecords;
  for (eval::SampleRecord &r : *records)
    (heldoutTasks.count(r.key.task) ? heldoutRecords : trainRecords)
        .push_back(std::move(r));

  auto write = [&](const std::vector<eval::SampleRecord> &input,
                   const std::string &path) -> bool {
    bool kernelGen = *format == eval::RecordFormat::KernelGen;
    eval::FixitResult result = kernelGen ? eval::pairKernelGen(input, options)
                                         : eval::pairFixit(input, options);
    // The reasons: derived from the analyses, or written by the writer and
    // checked against them.
    std::vector<std::string> reasons;
    std::vector<eval::ReasonSource> sources(result.pairs.size());
    std::optional<generate::ReasonsResult> written;
    if (writer) {
      generate::ReasonOptions ro;
      ro.generate.tasksDir = tasksDir;
      ro.generate.models = {*writer};
      ro.generate.outDir = reasonsDir.empty()
                               ? withoutJsonl(output) + ".reasons"
                               : std::string(reasonsDir);
      ro.generate.concurrency = reasonsConcurrency;
      ro.generate.maxCost = reasonsMaxCost;
      ro.generate.maxTokens = reasonsMaxTokens;
      if (reasonsSeed.getNumOccurrences())
        ro.generate.seed = reasonsSeed;
      ro.generate.progress = &errs();
      ro.taskSummary = options.taskSummary;
      ro.minChars = minReasonChars;
      ro.maxChars = maxReasonChars;
      if (std::error_code ec =
              sys::fs::create_directories(ro.generate.outDir)) {
        fail("cannot create '" + ro.generate.outDir + "': " + ec.message());
        return false;
      }
      auto got = generate::writeReasons(result.pairs, ro);
      if (!got) {
        fail(toString(got.takeError()));
        return false;
      }
      written = std::move(*got);
      stopped |= !written->stats.stopReason.empty();
    }
    std::error_code ec;
    raw_fd_ostream out(path, ec);
    if (ec) {
      fail("cannot write '" + path + "': " + ec.message());
      return false;
    }
    std::string rejectedPath = withoutJsonl(path) + ".rejected.jsonl";
    std::optional<raw_fd_ostream> rejected;
    if (written) {
      rejected.emplace(rejectedPath, ec);
      if (ec) {
        fail("cannot write '" + rejectedPath + "': " + ec.message());
        return false;
      }
    }
    std::vector<eval::FixitPair> kept;
    for (size_t i = 0; i < result.pairs.size(); ++i) {
      const eval::FixitPair &p = result.pairs[i];
      std::string reason;
      eval::ReasonSource source;
      if (written) {
        const generate::WrittenReason &w = written->reasons[i];
        if (w.fate != generate::ReasonFate::Kept) {
          // Dropped: the record is not written; the distribution loses it.
          const eval::SampleRecord &r = p.wrong ? *p.wrong : p.fixed;
          --result.distribution[{r.key.task, p.kind}];
          if (!result.distribution[{r.key.task, p.kind}])
            result.distribution.erase({r.key.task, p.kind});
          json::Array why;
          for (const eval::Contradiction &c : w.contradictions)
            why.push_back(json::Object{{"kind", eval::claimKindName(c.kind)},
                                       {"sentence", c.sentence},
                                       {"why", c.why}});
          json::Object line{{"pair", p.id()},
                            {"fixed", p.fixedKey()},
                            {"fate", generate::reasonFateName(w.fate)},
                            {"response", w.responsePath},
                            {"contradictions", std::move(why)}};
          if (p.wrong)
            line["wrong"] = p.wrong->key.str();
          *rejected << formatv("{0}", json::Value(std::move(line))) << "\n";
          continue;
        }
        reason = w.text;
        source = {written->writer, w.responsePath};
      } else {
        reason = p.wrong ? eval::derivedReason(*p.wrong, p.fixed)
                         : eval::describeKernel(p.fixed);
      }
      auto record = eval::fixitRecord(p, *format, reason, inputs, source);
      if (!record) {
        fail(toString(record.takeError()));
        return false;
      }
      out << formatv("{0}", *record) << "\n";
      result.records.push_back(std::move(*record));
      kept.push_back(p);
    }
    std::string statsPath = withoutJsonl(path) + ".distribution.json";
    raw_fd_ostream stats(statsPath, ec);
    if (ec) {
      fail("cannot write '" + statsPath + "': " + ec.message());
      return false;
    }
    json::Value distribution = result.distributionJSON();
    json::Object *d = distribution.getAsObject();
    if (*format != eval::RecordFormat::Three)
      (*d)["format"] = eval::recordFormatName(*format);
    if (written) {
      json::Object by;
      for (auto &[kind, n] : written->contradictedBy())
        by[kind] = int64_t(n);
      (*d)["reasons"] = json::Object{
          {"by", written->writer},
          {"asked", int64_t(written->reasons.size())},
          {"kept", int64_t(written->count(generate::ReasonFate::Kept))},
          {"unanswered",
           int64_t(written->count(generate::ReasonFate::Unanswered))},
          {"too_short",
           int64_t(written->count(generate::ReasonFate::TooShort))},
          {"too_long", int64_t(written->count(generate::ReasonFate::TooLong))},
          {"contradicted",
           int64_t(written->count(generate::ReasonFate::Contradicted))},
          {"contradicted_by", std::move(by)},
          {"cost_usd", written->stats.cost}};
    }
    stats << formatv("{0:2}", distribution) << "\n";

    if (kernelGen)
      outs() << formatv("{0} KernelGen records from correct kernels ({1} "
                        "duplicates, {2} over the task cap) -> {3}\n",
                        result.records.size(), result.duplicates,
                        result.cappedByTask, path);
    else
      outs() << formatv("{0} records from {1} wrong samples ({2} without a "
                        "fix, {3} duplicates, {4} over the task cap, {5} over "
                        "the kind cap) -> {6}\n",
                        result.records.size(), result.wrong, result.unpaired,
                        result.duplicates, result.cappedByTask,
                        result.cappedByKind, path);
    if (written) {
      outs() << formatv("reasons by {0}: {1} asked, {2} kept, {3} "
                        "unanswered, {4} too short, {5} too long, {6} "
                        "contradicted the facts",
                        written->writer, written->reasons.size(),
                        written->count(generate::ReasonFate::Kept),
                        written->count(generate::ReasonFate::Unanswered),
                        written->count(generate::ReasonFate::TooShort),
                        written->count(generate::ReasonFate::TooLong),
                        written->count(generate::ReasonFate::Contradicted));
      std::string kinds;
      for (auto &[kind, n] : written->contradictedBy())
        kinds += (kinds.empty() ? "" : ", ") + kind + " " + std::to_string(n);
      if (!kinds.empty())
        outs() << " (" << kinds << ")";
      outs() << formatv("; dropped ones in {0}\n", rejectedPath);
      if (!written->stats.stopReason.empty())
        outs() << "stopped: " << written->stats.stopReason
               << "; rerun the same command with a larger budget to "
                  "resume\n";
    }
    for (auto &[cell, n] : result.distribution)
      outs() << "  " << cell.first << " / " << cell.second << ": " << n
             << "\n";
    if (!result.harnessErrors.empty()) {
      outs() << formatv("{0} samples ended in HARNESS_ERROR (the harness's "
                        "failure, not the model's: neither wrong nor fixed, "
                        "so not paired; rerun them):",
                        result.harnessErrors.size());
      for (size_t i = 0; i < result.harnessErrors.size() && i < 10; ++i)
        outs() << " " << result.harnessErrors[i];
      outs() << (result.harnessErrors.size() > 10 ? " ...\n" : "\n");
    }
    outs() << formatv("entropy over tasks x failure kinds: {0:f3} bits "
                      "(distribution in {1})\n",
                      result.entropy(), statsPath);
    return true;
  };
  if (!write(trainRecords, output))
    return cli::ExitFailed;
  if (!heldoutTasks.empty()) {
    std::string heldoutPath = StringRef(output).ends_with(".jsonl")
                                  ? StringRef(output).drop_back(6).str()
                                  : std::string(output);
    heldoutPath += ".heldout.jsonl";
    outs() << "held-out tasks:";
    for (const std::string &t : heldoutTasks)
      outs() << " " << t;
    outs() << "\n";
    if (!write(heldoutRecords, heldoutPath))
      return cli::ExitFailed;
  }
  return stopped ? cli::ExitStopped : 0;
}

} // namespace

cli::Command cli::fixitCommand() { return {fixitCmd, runFixit}; }
