//===- GenerateCommand.cpp - ptxbench generate ----------------------------===//
//
// `ptxbench generate --models models.json --model NAME[,NAME...] --tasks DIR
//  [--task A,B] --arch sm_90a --tag none,brief,full,... [--tag-file FILE]
//  [--docs DIR] [--language cuda|triton] --num-samples|--replicas N
//  [--turns T [--target-speedup X] [--context-policy full|last-pair|single]]
//  --out SAMPLES_DIR [--db results.sqlite] [--concurrency C]
//  [--max-cost USD] [--max-tokens N] [--seed S]`
//
// Asks models for kernels and writes the sample tree `ptxbench eval` reads;
// with several turns each answer is evaluated and its feedback sent back
// (docs/generate.md). Exit status (docs/cli.md): 0 when every request was
// answered, 1 when some failed for good (recorded per sample), 2 for bad
// input, 3 when the run stopped at its budget.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "ptxbench/Eval/GpuRun.h"
#include "ptxbench/Eval/ResultsStore.h"
#include "ptxbench/Generate/Generate.h"
#include "ptxbench/Generate/Repair.h"
#include "ptxbench/Prompt/Prompt.h"
#include "ptxbench/Prompt/Tags.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/WithColor.h"

#include <cmath>
#include <map>

using namespace llvm;
using namespace ptxbench;

namespace {

cl::SubCommand generateCmd("generate",
                           "Ask models for kernels (several turns with "
                           "feedback) into a sample tree");
cl::opt<std::string> modelsFile("models",
                                cl::desc("The models file (JSON; "
                                         "docs/generate.md)"),
                                cl::value_desc("file"), cl::sub(generateCmd));
cl::list<std::string> modelNames("model",
                                 cl::desc("Models of the models file "
                                          "(`corpus` is built in)"),
                                 cl::value_desc("name,..."), cl::CommaSeparated,
                                 cl::OneOrMore, cl::sub(generateCmd));
cl::opt<std::string> genTasksDir("tasks", cl::desc("The tasks folder"),
                                 cl::value_desc("dir"), cl::init("tasks"),
                                 cl::sub(generateCmd));
cl::list<std::string> taskNames("task",
                                cl::desc("Tasks (default: every task of "
                                         "--tasks)"),
                                cl::value_desc("name,..."), cl::CommaSeparated,
                                cl::sub(generateCmd));
cl::opt<std::string> genArch("arch", cl::desc("Target architecture"),
                             cl::init("sm_90a"), cl::sub(generateCmd));
cl::list<std::string> contexts("tag",
                               cl::desc("Tags (each a context folder): none, "
                                        "brief, full or one of --tag-file"),
                               cl::value_desc("tag,..."), cl::CommaSeparated,
                               cl::sub(generateCmd));
// The flag's name before tags: the same values, merged with --tag's in the
// order given.
cl::list<std::string> contextsOld("context", cl::desc("Alias for --tag"),
                                  cl::value_desc("tag,..."),
                                  cl::CommaSeparated, cl::sub(generateCmd));
cl::opt<std::string> tagFile("tag-file",
                             cl::desc("Tags and their documents (JSON; "
                                      "docs/prompting.md)"),
                             cl::value_desc("file"), cl::sub(generateCmd));
cl::opt<std::string> genDocs("docs",
                             cl::desc("The docs/ folder the documents are "
                                      "read from (default: found above "
                                      "--tasks)"),
                             cl::value_desc("dir"), cl::sub(generateCmd));
cl::opt<std::string> genLanguage(
    "language",
    cl::desc("The language the prompts ask for: cuda (CUDA C++ or PTX) or "
             "triton (the corpus model answers from its Triton solutions)"),
    cl::init("cuda"), cl::sub(generateCmd));
cl::opt<unsigned> samples("num-samples",
                          cl::desc("Samples per model, context "
                                   "and task"),
                          cl::value_desc("N"), cl::init(1),
                          cl::sub(generateCmd));
// The spelling before --num-samples. Elsewhere (eval) --samples is the
// sample tree, so the help shows --num-samples.
cl::alias samplesAlias("samples", cl::desc("Alias for --num-samples"),
                       cl::aliasopt(samples), cl::Hidden);
// The paper's word: independent trajectories per model, tag and task.
cl::alias replicasAlias("replicas", cl::desc("Alias for --num-samples"),
                        cl::aliasopt(samples));
cl::opt<unsigned> turns("turns",
                        cl::desc("Turns per sample (feedback after "
                                 "each)"),
                        cl::init(1), cl::sub(generateCmd));
cl::opt<double> targetSpeedup(
    "target-speedup",
    cl::desc("A passing sample goes on (up to --turns) until every dev "
             "workload reaches this speedup over the library"),
    cl::value_desc("X"), cl::init(0), cl::sub(generateCmd));
cl::opt<std::string> contextPolicy(
    "context-policy",
    cl::desc("What each turn's request carries: full (the whole "
             "conversation), last-pair (the task and the latest answer and "
             "feedback) or single (one user message: the task, the latest "
             "code and its feedback)"),
    cl::value_desc("policy"), cl::init("full"), cl::sub(generateCmd));
cl::opt<std::string> repairFrom(
    "repair-from",
    cl::desc("Repair stage: each model given is a teacher asked to fix every "
             "failed kernel of this results store (its task, the kernel and "
             "its feedback), with up to --turns fix turns; recorded under "
             "context `repair` in --db (default: this store)"),
    cl::value_desc("store"), cl::sub(generateCmd));
cl::opt<std::string> outDir("out", cl::desc("The sample tree to write"),
                            cl::value_desc("dir"), cl::Required,
                            cl::sub(generateCmd));
cl::opt<std::string> genDb("db",
                           cl::desc("Evaluate each turn into this results "
                                    "store (default with --turns > 1: "
                                    "OUT/results.sqlite)"),
                           cl::value_desc("file"), cl::sub(generateCmd));
cl::opt<unsigned> concurrency("concurrency",
                              cl::desc("Requests in flight over all models"),
                              cl::init(64), cl::sub(generateCmd));
cl::opt<double> maxCost("max-cost",
                        cl::desc("Stop before a request could take the run "
                                 "over this many US dollars"),
                        cl::init(0), cl::sub(generateCmd));
cl::opt<int64_t> maxTokens("max-tokens",
                           cl::desc("Stop before a request could take the "
                                    "run over this many tokens"),
                           cl::init(0), cl::sub(generateCmd));
cl::opt<int64_t> seed("seed",
                      cl::desc("Seed sent with each request (plus the "
                               "sample's index), the corpus' choice and "
                               "retry jitter"),
                      cl::sub(generateCmd));
cl::opt<bool> genStaticOnly("static-only",
                            cl::desc("Evaluate turns without ptxbench run"),
                            cl::sub(generateCmd));
cl::opt<std::string> genShapes("shapes",
                               cl::desc("Workloads to run: dev, heldout or "
                                        "all"),
                               cl::init("dev"), cl::sub(generateCmd));
cl::opt<std::string> genGpus("gpus",
                             cl::desc("GPUs for ptxbench run: all, or "
                                      "0,1,..."),
                             cl::init("all"), cl::sub(generateCmd));
cl::opt<unsigned> evalJobs("eval-jobs",
                           cl::desc("Evaluation threads (default: the CPU "
                                    "cores)"),
                           cl::init(0), cl::sub(generateCmd));
cl::opt<double> genTimeout("timeout",
                           cl::desc("Seconds a run may go without progress"),
                           cl::init(60), cl::sub(generateCmd));

int fail(const Twine &message) { return cli::fail("generate", message); }

/// Counts past these are a typo, not a plan: --num-samples 100000000 would
/// make a hundred million sample folders and requests.
constexpr unsigned maxSamples = 10000, maxTurns = 100, maxConcurrency = 4096;
/// Sample folders in one run (models x tags x tasks x samples): each is a
/// request, a folder and memory, so a run past this is split.
constexpr uint64_t maxSampleFolders = 1000000;

/// Every folder of `dir` with a task.json, sorted.
std::vector<std::string> allTasks(StringRef dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec)) {
    SmallString<256> file(it->path());
    sys::path::append(file, "task.json");
    if (sys::fs::exists(file))
      names.push_back(sys::path::filename(it->path()).str());
  }
  llvm::sort(names);
  return names;
}

/// `values` without repeats, in order of first appearance; a repeat would
/// send several paid requests for one sample folder, each overwriting the
/// last, so each is dropped with a note.
std::vector<std::string> withoutRepeats(const std::vector<std::string> &values,
                                        StringRef flag) {
  std::vector<std::string> out;
  std::map<std::string, unsigned> seen;
  for (const std::string &v : values)
    if (seen[v]++ == 0)
      out.push_back(v);
  for (const std::string &v : out)
    if (seen[v] > 1)
      WithColor::warning(errs(), "ptxbench generate")
          << "--" << flag << " " << v << " is given " << seen[v]
          << " times; it is asked for once\n";
  return out;
}

int runGenerate() {
  generate::GenerateOptions options;
  options.tasksDir = genTasksDir;
  options.arch = genArch;
  options.outDir = outDir;
  if (!sys::fs::is_directory(genTasksDir))
    return fail("tasks folder '" + genTasksDir + "' does not exist");
  if (samples == 0 || turns == 0)
    return fail("--num-samples and --turns must be at least 1");
  if (samples > maxSamples)
    return fail("--num-samples " + Twine(unsigned(samples)) + " is more than " +
                Twine(maxSamples) +
                " samples per model, context and task; split the run (each "
                "run resumes what is on disk)");
  if (turns > maxTurns)
    return fail("--turns " + Twine(unsigned(turns)) + " is more than " +
                Twine(maxTurns));
  if (concurrency == 0 || concurrency > maxConcurrency)
    return fail("--concurrency must be between 1 and " + Twine(maxConcurrency) +
                ", got " + Twine(unsigned(concurrency)));
  // A budget given is a limit: 0 or less is a mistake, not "none" (leave
  // the flag out for no limit).
  if (maxCost.getNumOccurrences() && !(maxCost > 0))
    return fail("--max-cost must be more than 0 US dollars, got " +
                formatv("{0}", double(maxCost)) +
                " (leave it out for no limit)");
  if (maxTokens.getNumOccurrences() && maxTokens <= 0)
    return fail("--max-tokens must be at least 1, got " +
                Twine(int64_t(maxTokens)) + " (leave it out for no limit)");
  if (!is_contained(prompt::promptArchitectures(), genArch))
    return fail("unknown architecture '" + genArch +
                "' for --arch (ptxbench writes prompts for " +
                join(prompt::promptArchitectures(), ", ") + ")");
  if (genShapes != "dev" && genShapes != "heldout" && genShapes != "all")
    return fail("--shapes expects dev, heldout or all, got '" + genShapes +
                "'");
  std::optional<generate::ContextPolicy> policy =
      generate::parseContextPolicy(contextPolicy);
  if (!policy)
    return fail("--context-policy expects full, last-pair or single, got '" +
                contextPolicy + "'");
  if (targetSpeedup.getNumOccurrences()) {
    if (!(targetSpeedup > 0) || !std::isfinite(targetSpeedup) ||
        targetSpeedup > 1000)
      return fail("--target-speedup must be more than 0 (a speedup over the "
                  "library, e.g. 1.2), got " +
                  formatv("{0}", double(targetSpeedup)));
    if (genShapes == "heldout")
      return fail("--target-speedup is measured on the dev workloads; "
                  "--shapes heldout runs none (use dev or all)");
    if (turns < 2)
      WithColor::warning(errs(), "ptxbench generate")
          << "--target-speedup with one turn: no turn follows a pass; the "
             "target is only recorded in outcome.json\n";
    if (genStaticOnly)
      WithColor::warning(errs(), "ptxbench generate")
          << "--target-speedup with --static-only: no turn is timed, so "
             "only runs already in the store can reach the target\n";
  }

  std::map<std::string, client::ModelConfig> known;
  if (!modelsFile.empty()) {
    auto loaded = client::loadModels(modelsFile);
    if (!loaded)
      return fail(toString(loaded.takeError()));
    known = std::move(*loaded);
  }
  if (!known.count("corpus"))
    known["corpus"] = client::builtinCorpusModel();
  for (const std::string &name : withoutRepeats(modelNames, "model")) {
    auto it = known.find(name);
    if (it == known.end())
      return fail("unknown model '" + name + "'" +
                  (modelsFile.empty()
                       ? std::string(" (no --models file; built in: corpus)")
                       : " (not in " + modelsFile + ")"));
    options.models.push_back(it->second);
  }

  options.tasks = withoutRepeats(taskNames, "task");
  if (options.tasks.empty())
    options.tasks = allTasks(genTasksDir);
  if (options.tasks.empty())
    return fail("no tasks under '" + genTasksDir + "'");
  // --tag and --context, in the order given on the command line.
  std::vector<std::pair<unsigned, std::string>> given;
  for (unsigned i = 0; i < contexts.size(); ++i)
    given.push_back({contexts.getPosition(i), contexts[i]});
  for (unsigned i = 0; i < contextsOld.size(); ++i)
    given.push_back({contextsOld.getPosition(i), contextsOld[i]});
  llvm::stable_sort(given, [](const auto &a, const auto &b) {
    return a.first < b.first;
  });
  std::vector<std::string> tags;
  for (auto &[position, tag] : given)
    tags.push_back(tag);
  options.contexts = withoutRepeats(tags, "tag");
  if (options.contexts.empty())
    options.contexts = {"brief"};
  if (!tagFile.empty()) {
    auto loaded = prompt::loadTagFile(tagFile);
    if (!loaded)
      return fail(toString(loaded.takeError()));
    options.tags = std::move(*loaded);
  }
  for (const std::string &tag : options.contexts)
    if (auto resolved = prompt::resolveTag(tag, options.tags); !resolved)
      return fail("--tag: " + toString(resolved.takeError()));
  options.docsDir = genDocs;
  uint64_t folders = uint64_t(options.models.size()) * options.contexts.size() *
                     options.tasks.size() * samples;
  if (folders > maxSampleFolders)
    return fail(formatv("{0} models x {1} tags x {2} tasks x {3} samples is "
                        "{4} samples, more than {5} in one run; split the run",
                        options.models.size(), options.contexts.size(),
                        options.tasks.size(), unsigned(samples), folders,
                        maxSampleFolders));
  std::optional<prompt::AnswerLanguage> language =
      prompt::parseAnswerLanguage(genLanguage);
  if (!language)
    return fail("unknown --language '" + genLanguage +
                "' (expected cuda or triton)");
  options.language = *language;
  if (!repairFrom.empty()) {
    if (contexts.getNumOccurrences() || contextsOld.getNumOccurrences())
      return fail("--tag does not apply to --repair-from: a repair is asked "
                  "with the failed sample's tag");
    if (samples != 1)
      return fail("--num-samples does not apply to --repair-from: each "
                  "failed kernel is repaired once");
    auto store =
        eval::ResultsStore::open(repairFrom, eval::ResultsStore::Mode::Read);
    if (!store)
      return fail(toString(store.takeError()));
    auto rows = (*store)->all();
    if (!rows)
      return fail(toString(rows.takeError()));
    store->reset();
    generate::RepairPlanOptions po;
    po.tasksDir = genTasksDir;
    po.arch = genArch;
    po.language = options.language;
    po.tags = options.tags;
    po.docsDir = genDocs;
    for (const std::string &t : taskNames)
      po.tasks.insert(t);
    auto plan = generate::planRepairs(*rows, po);
    if (!plan)
      return fail(toString(plan.takeError()));
    errs() << formatv("generate: {0} failed kernels to repair in {1} ({2} "
                      "failed rows: {3} the same kernel again, {4} repairs, "
                      "{5} of another arch, {6} of another language, {7} of "
                      "another task)\n",
                      plan->samples.size(), repairFrom, plan->failures,
                      plan->duplicates, plan->repairs, plan->otherArch,
                      plan->otherLanguage, plan->otherTask);
    if (plan->samples.empty())
      return fail("no failed kernel to repair in '" + repairFrom + "'");
    options.prepared = std::move(plan->samples);
    if (genDb.empty())
      genDb = repairFrom;
  }
  options.samples = samples;
  options.turns = turns;
  options.targetSpeedup = targetSpeedup;
  options.contextPolicy = *policy;
  options.concurrency = concurrency;
  options.maxCost = maxCost;
  options.maxTokens = maxTokens;
  if (seed.getNumOccurrences())
    options.seed = seed;
  options.dbPath = genDb;
  if (options.dbPath.empty() && turns > 1) {
    SmallString<256> db(outDir);
    sys::path::append(db, "results.sqlite");
    options.dbPath = std::string(db);
  }
  options.staticOnly = genStaticOnly;
  options.shapes = genShapes;
  options.runTimeoutSeconds = genTimeout;
  options.tool = sys::fs::getMainExecutable(nullptr, nullptr);
  options.evalJobs =
      evalJobs ? unsigned(evalJobs) : std::max(1, get_physical_cores());
  if (!options.dbPath.empty() && !genStaticOnly) {
    auto resolved = eval::resolveGpus(genGpus);
    if (!resolved)
      return fail(toString(resolved.takeError()));
    options.gpus = *resolved;
  }
  options.progress = &errs();
  if (std::error_code ec = sys::fs::create_directories(outDir))
    return fail("cannot create '" + outDir + "': " + ec.message());

  auto stats = generate::runGenerate(options);
  if (!stats)
    return fail(toString(stats.takeError()));
  std::string early =
      options.targetSpeedup > 0
          ? formatv("{0} reached the {1:f2}x target before their last turn",
                    stats->solvedEarly, options.targetSpeedup)
                .str()
          : formatv("{0} passed before their last turn", stats->solvedEarly)
                .str();
  outs() << formatv("generated {0} turns for {1} samples ({2} already on "
                    "disk, {3} failed, {4} retries, {5}); tokens {6} in ({7} "
                    "cached) / {8} out; cost ${9:f4}\n",
                    stats->answered, stats->samples, stats->resumed,
                    stats->failed, stats->retries, early,
                    stats->inputTokens, stats->cachedTokens,
                    stats->outputTokens, stats->cost);
  if (!repairFrom.empty())
    outs() << formatv("repaired {0} of {1} failed kernels within {2} "
                      "turns\n",
                      stats->finished, stats->samples, unsigned(turns));
  if (!stats->stopReason.empty()) {
    outs() << "stopped: " << stats->stopReason << "; " << stats->unfinished
           << " samples unfinished (at most " << stats->turnsLeft
           << " turns not sent); rerun the same command with a larger "
              "budget to resume\n";
    return cli::ExitStopped;
  }
  if (stats->unfinished)
    outs() << stats->unfinished
           << " samples unfinished; rerun the same command to resume\n";
  return stats->failed || stats->unfinished ? cli::ExitFailed : cli::ExitDone;
}

} // namespace

cli::Command cli::generateCommand() { return {generateCmd, runGenerate}; }
