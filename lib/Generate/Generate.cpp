//===- Generate.cpp - Ask models for kernels, turn after turn -------------===//
//
// One loop on the calling thread: it starts the requests that the global
// and per-model concurrency, the per-model rate limits, Retry-After pauses
// and the budget allow, drives them with HttpClient::poll, and collects the
// evaluations that worker threads finish. A sample moves Ready -> InFlight
// -> (Evaluating -> Ready for the next turn) -> Done. Files are written
// atomically (temp + rename); `generation.json` is written last and marks a
// turn as answered, `outcome.json` marks it as evaluated, so a rerun after
// kill -9 sends only what is missing.
//
// This file prepares the run (the models and their keys, one prompt per
// task and context, the samples of every model, context and task, the
// results store and the GPUs) and holds the loop and its progress line;
// GenerateRequests.cpp sends the requests and records the answers,
// GenerateTurns.cpp reads and evaluates the turns on disk.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Generate/Generate.h"

#include "Generator.h"

#include "ptxbench/Prompt/Prompt.h"
#include "ptxbench/Task/Task.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <set>
#include <tuple>

using namespace ptxbench;
using namespace ptxbench::client;
using namespace ptxbench::generate;
using namespace ptxbench::generate::detail;
namespace fs = llvm::sys::fs;

namespace {

std::string shortCount(int64_t n) {
  if (n >= 1000000)
    return llvm::formatv("{0:f1}M", n / 1e6).str();
  if (n >= 1000)
    return llvm::formatv("{0:f1}k", n / 1e3).str();
  return std::to_string(n);
}

std::string duration(double seconds) {
  long s = long(seconds + 0.5);
  if (s >= 3600)
    return llvm::formatv("{0}h{1:2}m", s / 3600, (s % 3600) / 60).str();
  if (s >= 60)
    return llvm::formatv("{0}m{1:2}s", s / 60, s % 60).str();
  return std::to_string(s) + "s";
}

/// The folder name of the task `given` names: a folder name as it is, or a
/// path to a folder directly under `tasksDir`; nothing else, since the name
/// is also a folder of the sample tree.
llvm::Expected<std::string> taskFolderName(StringRef given,
                                           StringRef tasksDir) {
  if (isFolderName(given))
    return given.str();
  llvm::SmallString<256> real, parent, dir;
  if (!fs::real_path(given, real) && !fs::real_path(tasksDir, dir)) {
    parent = llvm::sys::path::parent_path(real);
    StringRef name = llvm::sys::path::filename(real);
    if (parent == dir && isFolderName(name))
      return name.str();
  }
  return llvm::createStringError(
      "task '" + given +
      "': expected a task's folder name (no '/', not starting with '.') or "
      "a folder directly under --tasks '" +
      tasksDir + "'");
}

} // namespace

Error Generator::prepare() {
  for (const ModelConfig &m : options.models) {
    auto state = std::make_unique<ModelState>();
    state->config = &m;
    state->limiter = std::make_unique<RateLimiter>(m.limits);
    if (m.provider == Provider::Anthropic)
      state->wire = createAnthropicWire();
    else if (!m.embedded())
      state->wire = createOpenAIWire(m.provider == Provider::OpenAICompatible);
    if (!m.apiKeyEnv.empty()) {
      std::optional<std::string> key = llvm::sys::Process::GetEnv(m.apiKeyEnv);
      auto refuse = [&](StringRef why) {
        return llvm::createStringError("model '" + m.name +
                                       "': the environment variable " +
                                       m.apiKeyEnv + " (api_key_env) " + why);
      };
      if (!key)
        return refuse("is not set");
      if (key->empty())
        return refuse("is empty");
      // A line break would end the header and start another: refused,
      // without the value.
      if (llvm::any_of(*key, [](char c) {
            return (unsigned char)c < 0x20 || (unsigned char)c == 0x7f;
          }))
        return refuse("holds control characters (a line break?); a key "
                      "cannot contain them");
      state->key = *key;
      redact.add(*key);
    }
    models.push_back(std::move(state));
  }

  if (Error e = options.prepared.empty() ? promptSamples() : preparedSamples())
    return e;
  stats.samples = samples.size();
  turnsTotal = samples.size() * options.turns;

  if (evaluating()) {
    auto opened = eval::ResultsStore::open(options.dbPath);
    if (!opened)
      return opened.takeError();
    store = std::move(*opened);
    // Each prompt and its documents; a tag whose documents changed since
    // the store recorded it is refused before anything is sent.
    for (const prompt::Prompt &p : prompts)
      if (Error e = store->putPrompt(
              {p.context, p.task, p.arch,
               prompt::answerLanguageName(p.language).str(), p.sha256(),
               llvm::formatv("{0}", llvm::json::Value(
                                        prompt::documentsJSON(p.documents)))
                   .str()}))
        return e;
    // What was asked for, so the report counts what never came back.
    std::map<std::tuple<std::string, std::string, std::string>, unsigned>
        asked;
    for (auto &s : samples)
      ++asked[{s->model->config->name, s->context, s->task}];
    for (auto &[group, n] : asked)
      if (Error e = store->putRequested({std::get<0>(group),
                                         std::get<1>(group),
                                         std::get<2>(group), options.arch, n}))
        return e;
    bool realGpus = !options.staticOnly && !options.gpus.empty() &&
                    !options.gpus.front().empty();
    if (realGpus)
      gpus = std::make_unique<eval::GpuPool>(options.gpus);
    pool = std::make_unique<EvalPool>(std::max(1u, options.evalJobs),
                                      [this] { http.wakeup(); });
  }
  return Error::success();
}

Error Generator::preparedSamples() {
  std::set<std::string> dirs;
  for (auto &model : models)
    for (const PreparedSample &p : options.prepared) {
      if (!isFolderName(p.context) || !isFolderName(p.task) ||
          !isFolderName(p.sampleId))
        return llvm::createStringError(
            "prepared sample '" + p.context + "/" + p.task + "/" +
            p.sampleId + "': each part must be a folder name");
      auto s = std::make_unique<Sample>();
      s->model = model.get();
      s->context = p.context;
      s->task = p.task;
      s->index = samples.size();
      s->id = p.sampleId;
      s->dir = join(options.outDir, model->config->name + "/" + p.context +
                                        "/" + p.task + "/" + p.sampleId);
      if (!dirs.insert(s->dir).second)
        return llvm::createStringError("two prepared samples share the "
                                       "folder '" +
                                       s->dir + "'");
      for (const prompt::ChatMessage &m : p.messages)
        s->conversation.push_back({m.role, m.content});
      s->promptMessages = s->conversation.size();
      s->promptSha = p.promptSha;
      for (auto &[name, text] : p.files) {
        std::string file = join(s->dir, name);
        if (!fs::exists(file))
          if (Error e = writeAtomic(file, text))
            return e;
      }
      samples.push_back(std::move(s));
    }
  return Error::success();
}

Error Generator::promptSamples() {
  // Prompts, built once per task and context.
  std::map<std::pair<std::string, std::string>, prompt::Prompt> built;
  std::map<std::string, std::vector<std::string>> requested;
  std::vector<std::string> tasks;
  for (const std::string &given : options.tasks) {
    auto named = taskFolderName(given, options.tasksDir);
    if (!named)
      return named.takeError();
    tasks.push_back(std::move(*named));
  }
  for (const std::string &task : tasks) {
    std::string dir = join(options.tasksDir, task);
    if (!fs::exists(join(dir, "task.json")))
      return llvm::createStringError("unknown task '" + task + "': no " +
                                     join(dir, "task.json"));
    auto loaded = runtime::loadTask(dir);
    if (!loaded)
      return loaded.takeError();
    auto it = loaded->features.find(options.arch);
    if (it == loaded->features.end())
      return llvm::createStringError(join(dir, "task.json") +
                                     ": requests no features for " +
                                     options.arch);
    requested[task] = it->second;
    for (const std::string &context : options.contexts) {
      auto tag = prompt::resolveTag(context, options.tags);
      if (!tag)
        return tag.takeError();
      prompt::PromptOptions po;
      po.arch = options.arch;
      po.tag = std::move(*tag);
      po.language = options.language;
      po.docsDir = options.docsDir;
      auto prompt = prompt::buildPrompt(*loaded, po);
      if (!prompt)
        return prompt.takeError();
      built[{task, context}] = std::move(*prompt);
    }
  }

  for (auto &model : models)
    for (const std::string &context : options.contexts)
      for (const std::string &task : tasks)
        for (unsigned i = 0; i < options.samples; ++i) {
          auto s = std::make_unique<Sample>();
          s->model = model.get();
          s->context = context;
          s->task = task;
          s->index = i;
          s->id = "s" + std::to_string(i);
          s->dir = join(options.outDir, model->config->name + "/" + context +
                                            "/" + task + "/" + s->id);
          const prompt::Prompt &p = built[{task, context}];
          for (const prompt::ChatMessage &m : p.messages)
            s->conversation.push_back({m.role, m.content});
          s->promptMessages = s->conversation.size();
          s->promptSha = p.sha256();
          s->documents = prompt::documentsJSON(p.documents);
          s->requested = requested[task];
          samples.push_back(std::move(s));
        }
  for (auto &[key, p] : built)
    this->prompts.push_back(std::move(p));
  return Error::success();
}

void Generator::printProgress(bool final) {
  if (!options.progress)
    return;
  auto now = Clock::now();
  if (!final && now - lastProgress < std::chrono::seconds(1))
    return;
  lastProgress = now;
  double elapsed = std::chrono::duration<double>(now - begin).count();
  unsigned doneNow = turnsDone - stats.resumed;
  unsigned left = turnsTotal - turnsDone;
  unsigned waiting = 0;
  for (auto &s : samples)
    waiting += s->state == State::Ready && s->attempts > 0;
  std::string eta =
      doneNow ? "~" + duration(elapsed / doneNow * left) + " left" : "";
  *options.progress
      << (tty ? "\r" : "")
      << llvm::formatv("generate: {0}/{1} turns done, {2} failed, {3} "
                       "retrying, {4} in flight, {5} evaluating; tokens {6} "
                       "in / {7} out; ${8:f4}; {9} {10}",
                       turnsDone, turnsTotal, stats.failed, waiting, inFlight,
                       pool ? pool->busy() : 0, shortCount(stats.inputTokens),
                       shortCount(stats.outputTokens), stats.cost,
                       duration(elapsed), eta)
      << (tty && !final ? "" : "\n");
  options.progress->flush();
}

llvm::Expected<GenerateStats> Generator::run() {
  if (Error e = prepare())
    return std::move(e);
  tty = options.progress && llvm::sys::Process::StandardErrIsDisplayed();
  for (auto &s : samples)
    if (Error e = checkPrompt(*s))
      return std::move(e);
  for (auto &s : samples)
    resume(*s);

  while (true) {
    if (pool)
      for (EvalResult &r : pool->take())
        applyEval(r);
    dispatch();
    bool busy = inFlight > 0 || (pool && pool->busy() > 0);
    bool ready = false;
    auto now = Clock::now();
    Clock::time_point wake = now + std::chrono::seconds(1);
    // A ready sample whose time has come and that dispatch() left waiting
    // is held by a limit (a concurrency slot, which a finished transfer
    // frees and wakes the poll for, or the budget): only backoffs and rate
    // windows still ahead set the wake, or the loop would spin.
    for (auto &s : samples)
      if (s->state == State::Ready) {
        ready = true;
        if (s->notBefore > now)
          wake = std::min(wake, s->notBefore);
      }
    if (!busy && (!ready || stopping))
      break;
    int timeout = int(std::chrono::duration_cast<std::chrono::milliseconds>(
                          wake - Clock::now())
                          .count());
    http.poll(std::clamp(timeout, 0, 1000));
    printProgress(false);
  }
  printProgress(true);
  for (auto &s : samples)
    if (s->state != State::Done) {
      ++stats.unfinished;
      stats.turnsLeft += options.turns - s->turn + 1;
    }
  return stats;
}

llvm::Expected<GenerateStats>
ptxbench::generate::runGenerate(const GenerateOptions &options) {
  Generator generator(options);
  return generator.run();
}
