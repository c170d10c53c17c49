//===- GenerateTurns.cpp - A sample's turns on disk -----------------------===//
//
// The files of `ptxbench generate`: each turn has its folder (the
// sample's own with one turn), written atomically; generation.json marks
// a turn as answered and outcome.json as evaluated (its verdict, the least
// dev speedup and, with --target-speedup, the target and whether it was
// met). Resume reads them back
// so a rerun sends and evaluates only what is missing; an answered turn is
// evaluated on a worker thread and its verdict (outcome.json, and the
// feedback the next turn is sent) written from the loop.
//
//===----------------------------------------------------------------------===//

#include "Generator.h"

#include "ptxbench/Eval/Sweep.h"
#include "ptxbench/Support/JSON.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace ptxbench;
using namespace ptxbench::generate;
using namespace ptxbench::generate::detail;
namespace fs = llvm::sys::fs;
namespace path = llvm::sys::path;

std::string ptxbench::generate::detail::join(StringRef a,
                                             const llvm::Twine &b) {
  llvm::SmallString<256> p(a);
  path::append(p, b);
  return std::string(p);
}

Error ptxbench::generate::detail::writeAtomic(StringRef file, StringRef text) {
  if (std::error_code ec = fs::create_directories(path::parent_path(file)))
    return llvm::createStringError("cannot create folder for '" + file +
                                   "': " + ec.message());
  return llvm::writeToOutput(file, [&](llvm::raw_ostream &os) {
    os << text;
    return Error::success();
  });
}

namespace {

std::optional<std::string> readText(StringRef file) {
  auto buffer = llvm::MemoryBuffer::getFile(file);
  if (!buffer)
    return std::nullopt;
  return (*buffer)->getBuffer().str();
}

std::optional<llvm::json::Value> readJSON(StringRef file) {
  std::optional<std::string> text = readText(file);
  if (!text)
    return std::nullopt;
  auto value = ptxbench::parseJSON(*text);
  if (!value) {
    llvm::consumeError(value.takeError());
    return std::nullopt;
  }
  return std::move(*value);
}

} // namespace

Error Generator::checkPrompt(const Sample &s) const {
  std::optional<llvm::json::Value> request =
      readJSON(join(turnDir(s, 1), "request.json"));
  const Object *r = request ? request->getAsObject() : nullptr;
  std::optional<StringRef> sha = r ? r->getString("prompt_sha256") : std::nullopt;
  if (!sha || *sha == s.promptSha)
    return Error::success();
  return llvm::createStringError(
      "'" + s.dir + "' was asked with another prompt (prompt_sha256 " +
      sha->take_front(12) + "..., now " + StringRef(s.promptSha).take_front(12) +
      "...): the tag's documents, the task or the prompt changed since. "
      "Its answers would mix two prompts under one context: write into a "
      "new --out, or give the tag a new name");
}

/// Reads what earlier runs left for `s`: answered turns join the
/// conversation, evaluated turns add their feedback.
void Generator::resume(Sample &s) {
  for (unsigned t = 1; t <= options.turns; ++t) {
    std::string dir = turnDir(s, t);
    std::optional<llvm::json::Value> gen =
        readJSON(join(dir, "generation.json"));
    const Object *g = gen ? gen->getAsObject() : nullptr;
    s.turn = t;
    if (!g)
      return; // not answered yet
    if (g->getString("status").value_or("") != "ok") {
      if (g->getBoolean("retryable").value_or(false))
        return; // a transient failure: send again
      s.state = State::Done;
      s.failed = true;
      turnsDone += options.turns - t + 1;
      recordUnanswered(s, t);
      return;
    }
    std::optional<std::string> text = readText(join(dir, "response.md"));
    if (!text)
      return; // answered but its text is gone: send again
    ++stats.resumed;
    ++turnsDone;
    s.conversation.push_back({"assistant", *text});
    if (!evaluating()) {
      if (t == options.turns)
        s.state = State::Done;
      continue;
    }
    std::optional<llvm::json::Value> outcome =
        readJSON(join(dir, "outcome.json"));
    const Object *o = outcome ? outcome->getAsObject() : nullptr;
    if (!o) {
      s.state = State::Evaluating;
      queueEval(s, t);
      return;
    }
    // Finished under this run's target (an earlier run may have had
    // another, or none).
    bool done = finished(o->getBoolean("solved").value_or(false),
                         o->getNumber("min_dev_speedup"),
                         options.targetSpeedup);
    if (done || t == options.turns) {
      stats.finished += done;
      s.state = State::Done;
      turnsDone += options.turns - t;
      return;
    }
    // The feedback on disk is what the next turn was sent, whatever target
    // it was written for. A turn that finished under an earlier run's
    // target and not under this one's has none: it is told now (its row is
    // in the store).
    std::optional<std::string> feedback = readText(join(dir, "feedback.md"));
    if (!feedback) {
      s.state = State::Evaluating;
      queueEval(s, t);
      return;
    }
    s.conversation.push_back({"user", *feedback});
  }
}

void Generator::queueEval(Sample &s, unsigned turn) {
  Sample *sp = &s;
  pool->submit([this, sp, turn] { return evaluate(sp, turn); });
}

/// Evaluates one turn on a worker thread: touches only the store, the
/// files of this turn, and the sample's immutable fields.
eval::SweepOptions Generator::sweepOptions() const {
  eval::SweepOptions so;
  so.tasksDir = options.tasksDir;
  so.arch = options.arch;
  so.shapes = options.shapes;
  so.staticOnly = options.staticOnly;
  so.tool = options.tool;
  so.runTimeoutSeconds = options.runTimeoutSeconds;
  so.jobs = 1;
  return so;
}

void Generator::recordUnanswered(Sample &s, unsigned turn) {
  if (!evaluating())
    return;
  // The same sweep as an answered turn's: it finds no answer and records
  // why, naming the request's error from generation.json.
  eval::SampleInput input;
  input.key = {s.model->config->name, s.context, s.task, s.id, keyTurn(turn)};
  input.dir = turnDir(s, turn);
  input.generationPath = join(input.dir, "generation.json");
  if (auto swept = eval::runSweep(*store, {input}, sweepOptions()); !swept)
    llvm::errs() << "generate: cannot record " << input.key.str() << ": "
                 << llvm::toString(swept.takeError()) << "\n";
}

EvalResult Generator::evaluate(Sample *s, unsigned turn) {
  eval::SampleInput input;
  input.key = {s->model->config->name, s->context, s->task, s->id,
               keyTurn(turn)};
  input.dir = turnDir(*s, turn);
  input.responsePath = join(input.dir, "response.md");
  input.generationPath = join(input.dir, "generation.json");
  eval::SweepOptions so = sweepOptions();
  std::string gpu;
  if (gpus)
    so.gpus = {gpu = gpus->acquire()};
  TurnVerdict verdict =
      evaluateTurn(*store, input, so, options.targetSpeedup,
                   options.language == prompt::AnswerLanguage::Triton);
  if (gpus)
    gpus->release(gpu);
  return {s, turn, std::move(verdict)};
}

void Generator::applyEval(EvalResult &r) {
  Sample &s = *r.sample;
  std::string dir = turnDir(s, r.turn);
  if (!r.verdict.error.empty()) {
    // The store or the evaluation failed: the turn stays unevaluated and
    // a rerun evaluates it again.
    llvm::errs() << "generate: cannot evaluate " << dir << ": "
                 << r.verdict.error << "\n";
    s.state = State::Done;
    s.failed = true;
    ++stats.failed;
    turnsDone += options.turns - r.turn;
    return;
  }
  bool last = r.turn == options.turns;
  const TurnVerdict &v = r.verdict;
  Error e = Error::success();
  if (!v.finished && !last)
    e = writeAtomic(join(dir, "feedback.md"), v.feedback);
  Object outcome{{"status", v.status},
                 {"run_status", v.runStatus},
                 {"solved", v.solved},
                 {"min_dev_speedup", v.minDevSpeedup
                                         ? llvm::json::Value(*v.minDevSpeedup)
                                         : llvm::json::Value(nullptr)},
                 {"finished", v.finished}};
  if (options.targetSpeedup > 0) {
    outcome["target_speedup"] = options.targetSpeedup;
    outcome["target_met"] =
        v.minDevSpeedup && *v.minDevSpeedup >= options.targetSpeedup;
  }
  if (!e)
    e = writeAtomic(join(dir, "outcome.json"),
                    llvm::formatv("{0:2}\n", llvm::json::Value(std::move(outcome)))
                        .str());
  if (e) {
    llvm::errs() << "generate: " << llvm::toString(std::move(e)) << "\n";
    s.state = State::Done;
    s.failed = true;
    ++stats.failed;
    return;
  }
  if (v.finished || last) {
    if (v.finished && !last)
      ++stats.solvedEarly;
    stats.finished += v.finished;
    turnsDone += options.turns - r.turn;
    s.state = State::Done;
    return;
  }
  s.conversation.push_back({"user", v.feedback});
  s.turn = r.turn + 1;
  s.state = State::Ready;
}
