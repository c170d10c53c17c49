//===- StudyCommand.cpp - ptxbench study ----------------------------------===//
//
// `ptxbench study FILE [--models FILE] [--tasks DIR] [--docs DIR]
//  [--out DIR] [--gpus G] [--eval-jobs N] [--print-generate|--print-tasks]`
// runs a study file (Study.h, docs/study.md): `ptxbench generate` with the
// study's models, tasks, tags, replicas, turns, target and policy into
// OUT/samples and OUT/results.sqlite; with a repair stage, generate
// --repair-from with the teacher into OUT/repairs and the same store; with
// a Fixit stage, `ptxbench fixit` into OUT/fixit.jsonl; then `ptxbench
// report` into OUT/report.md and OUT/report.html. Both steps are this binary run as a
// child, so a study is exactly the generate and report commands it prints.
// Running it again does nothing already done: generate sends and evaluates
// only what is missing, and the report is rewritten only when the store
// changed. --print-generate and --print-tasks give the Slurm scripts
// (utils/slurm/submit-study.sh) the same command line.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "ptxbench/Eval/ResultsStore.h"
#include "ptxbench/Generate/Study.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <algorithm>

using namespace llvm;
using namespace ptxbench;

namespace {

cl::SubCommand studyCmd("study", "Run a study file: the protocol's generate, "
                                 "evaluation and report, resumably");
cl::opt<std::string> studyFile(cl::Positional, cl::Required,
                               cl::desc("<study.json>"), cl::sub(studyCmd));
cl::opt<std::string> studyModels("models",
                                 cl::desc("The models file (instead of the "
                                          "study's models_file)"),
                                 cl::value_desc("file"), cl::sub(studyCmd));
cl::opt<std::string> studyTasks("tasks",
                                cl::desc("The tasks folder (instead of the "
                                         "study's tasks_dir)"),
                                cl::value_desc("dir"), cl::sub(studyCmd));
cl::opt<std::string> studyDocs("docs",
                               cl::desc("The docs/ folder (instead of the "
                                        "study's docs_dir)"),
                               cl::value_desc("dir"), cl::sub(studyCmd));
cl::opt<std::string> studyOut("out",
                              cl::desc("Where the results go (instead of the "
                                       "study's out)"),
                              cl::value_desc("dir"), cl::sub(studyCmd));
cl::opt<std::string> studyGpus("gpus",
                               cl::desc("GPUs for the runs: all, or 0,1,..."),
                               cl::init("all"), cl::sub(studyCmd));
cl::opt<unsigned> studyEvalJobs("eval-jobs",
                                cl::desc("Evaluation threads (default: the "
                                         "CPU cores)"),
                                cl::init(0), cl::sub(studyCmd));
cl::opt<bool> printGenerate(
    "print-generate",
    cl::desc("Print generate's arguments, one a line, without --task and "
             "--db (for utils/slurm/submit-study.sh), and do nothing else"),
    cl::sub(studyCmd));
cl::opt<bool> printTasks("print-tasks",
                         cl::desc("Print the study's tasks, comma-separated, "
                                  "and do nothing else"),
                         cl::sub(studyCmd));

int fail(const Twine &message, int status = cli::ExitUsage) {
  return cli::fail("study", message, status);
}

/// `text` into `file` unless it already holds exactly that.
Error writeIfChanged(StringRef file, StringRef text) {
  if (auto old = MemoryBuffer::getFile(file); old && (*old)->getBuffer() == text)
    return Error::success();
  return writeToOutput(file, [&](raw_ostream &os) {
    os << text;
    return Error::success();
  });
}

/// The store's state: its rows and the newest row's time; what the report
/// was written from.
Expected<std::string> storeStamp(StringRef path) {
  auto store = eval::ResultsStore::open(path, eval::ResultsStore::Mode::Read);
  if (!store)
    return store.takeError();
  auto rows = (*store)->all();
  if (!rows)
    return rows.takeError();
  int64_t newest = 0;
  for (const eval::SampleRecord &r : *rows)
    newest = std::max(newest, r.recordedAtMs);
  return formatv("{0} rows, newest {1}\n", rows->size(), newest).str();
}

/// This binary with `args`, its output the terminal's; the exit status.
int runSelf(StringRef exe, ArrayRef<std::string> args) {
  std::vector<StringRef> argv{exe};
  for (const std::string &a : args)
    argv.push_back(a);
  std::string error;
  int rc = sys::ExecuteAndWait(exe, argv, std::nullopt, {}, 0, 0, &error);
  if (rc < 0) {
    errs() << "ptxbench study: " << (error.empty() ? "the child failed" : error)
           << "\n";
    return cli::ExitFailed;
  }
  return rc;
}

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

int runStudy() {
  generate::StudyOverrides overrides{studyModels, studyTasks, studyDocs,
                                     studyOut};
  auto study = generate::loadStudy(studyFile, overrides);
  if (!study)
    return fail(toString(study.takeError()));
  if (printTasks) {
    std::vector<std::string> tasks =
        study->tasks.empty() ? allTasks(study->tasksDir) : study->tasks;
    if (tasks.empty())
      return fail("no tasks under '" + study->tasksDir + "'");
    outs() << join(tasks, ",") << "\n";
    return cli::ExitDone;
  }
  std::string exe = sys::fs::getMainExecutable(nullptr, nullptr);
  if (std::error_code ec = sys::fs::create_directories(study->outDir))
    return fail("cannot create '" + study->outDir + "': " + ec.message());
  if (!study->tagDefinitions.empty()) {
    json::Object defs;
    for (const auto &[name, tag] : study->tagDefinitions) {
      json::Array docs;
      for (const std::string &d : tag.documents)
        docs.push_back(d);
      defs[name] = std::move(docs);
    }
    std::string text =
        formatv("{0:2}\n", json::Value(std::move(defs))).str();
    if (Error e = writeIfChanged(study->tagFilePath(), text))
      return fail(toString(std::move(e)));
  }
  if (printGenerate) {
    for (const std::string &a : generate::generateArguments(*study, false))
      outs() << a << "\n";
    return cli::ExitDone;
  }

  std::vector<std::string> args{"generate"};
  for (std::string &a : generate::generateArguments(*study, true))
    args.push_back(std::move(a));
  if (!study->staticOnly) {
    args.push_back("--gpus");
    args.push_back(studyGpus);
  }
  if (studyEvalJobs) {
    args.push_back("--eval-jobs");
    args.push_back(std::to_string(studyEvalJobs));
  }
  std::vector<std::string> runFlags;
  if (!study->staticOnly)
    runFlags.insert(runFlags.end(), {"--gpus", studyGpus});
  if (studyEvalJobs)
    runFlags.insert(runFlags.end(),
                    {"--eval-jobs", std::to_string(studyEvalJobs)});
  errs() << "study " << study->name << ": ptxbench " << join(args, " ")
         << "\n";
  int generated = runSelf(exe, args);
  if (generated == cli::ExitUsage)
    return fail("generate refused the study (above); nothing was asked");

  // The stages after generate need its samples whole: after a budget stop
  // they wait for the rerun that finishes them.
  bool whole = generated != cli::ExitStopped;
  if (!whole && (study->repair || study->fixit))
    errs() << "study " << study->name
           << ": generate stopped at its budget; the repair and fixit stages "
              "wait for the rerun that finishes it\n";

  // The repair stage: the teacher fixes what failed, into the same store.
  if (study->repair && whole) {
    std::vector<std::string> repair{"generate"};
    for (std::string &a : generate::repairArguments(*study))
      repair.push_back(std::move(a));
    repair.insert(repair.end(), runFlags.begin(), runFlags.end());
    errs() << "study " << study->name << ": ptxbench " << join(repair, " ")
           << "\n";
    int rc = runSelf(exe, repair);
    if (rc == cli::ExitUsage)
      return fail("the repair stage was refused (above)");
    generated = std::max(generated, rc);
  }

  // The report, when the store changed since it was written.
  auto stamp = storeStamp(study->storePath());
  if (!stamp)
    return fail(toString(stamp.takeError()), cli::ExitFailed);
  SmallString<256> stampFile(study->outDir), md(study->outDir),
      html(study->outDir);
  sys::path::append(stampFile, "report.stamp");
  sys::path::append(md, "report.md");
  sys::path::append(html, "report.html");
  auto old = MemoryBuffer::getFile(stampFile);
  bool current = old && (*old)->getBuffer() == *stamp &&
                 sys::fs::exists(md) && sys::fs::exists(html) &&
                 (!study->fixit || sys::fs::exists(study->fixitPath()));
  if (current) {
    outs() << "study " << study->name << ": report " << md
           << (study->fixit ? " and " + study->fixitPath() : std::string())
           << " up to date\n";
  } else {
    std::string db = study->storePath();
    if (study->fixit && whole) {
      std::vector<std::string> fixit{"fixit"};
      for (std::string &a : generate::fixitArguments(*study))
        fixit.push_back(std::move(a));
      errs() << "study " << study->name << ": ptxbench " << join(fixit, " ")
             << "\n";
      int rc = runSelf(exe, fixit);
      if (rc == cli::ExitUsage)
        return fail("the fixit stage was refused (above)");
      if (rc != 0)
        return fail("the fixit stage failed (above)", rc);
    }
    for (auto [format, file] :
         {std::pair<StringRef, StringRef>{"markdown", md}, {"html", html}}) {
      int rc = runSelf(exe, {"report", "--db", db, "--format", format.str(),
                             "-o", file.str()});
      if (rc != 0)
        return fail("report " + format + " failed (above)", cli::ExitFailed);
    }
    if (Error e = writeIfChanged(stampFile, *stamp))
      return fail(toString(std::move(e)), cli::ExitFailed);
    outs() << "study " << study->name << ": report " << md << " and " << html
           << (study->fixit ? ", records " + study->fixitPath() : std::string())
           << "\n";
  }
  return generated;
}

} // namespace

cli::Command cli::studyCommand() { return {studyCmd, runStudy}; }
