//===- FixitCommand.cpp - ptxbench fixit ----------------------------------===//
//
// `ptxbench fixit --db results.sqlite -o fixit.jsonl [--tasks DIR]
//  [--max-per-task N] [--max-per-kind N] [--heldout-tasks A,B]` writes supervised fine-tuning
// records (docs/fixit.md) pairing wrong or fallback kernels with their
// fixes, prints the distribution over tasks x failure kinds and writes it
// beside the output as OUT-without-.jsonl + ".distribution.json".
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "ptxbench/Eval/Fixit.h"
#include "ptxbench/Eval/ResultsStore.h"
#include "ptxbench/Eval/TaskSolutions.h"

#include "llvm/Support/FormatVariadic.h"
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

int fail(const Twine &message) { return cli::fail("fixit", message); }

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
    eval::FixitResult result = eval::buildFixit(input, options);
    std::error_code ec;
    raw_fd_ostream out(path, ec);
    if (ec) {
      fail("cannot write '" + path + "': " + ec.message());
      return false;
    }
    for (const json::Value &record : result.records)
      out << formatv("{0}", record) << "\n";
    std::string statsPath = StringRef(path).ends_with(".jsonl")
                                ? StringRef(path).drop_back(6).str()
                                : std::string(path);
    statsPath += ".distribution.json";
    raw_fd_ostream stats(statsPath, ec);
    if (ec) {
      fail("cannot write '" + statsPath + "': " + ec.message());
      return false;
    }
    json::Value distribution = result.distributionJSON();
    stats << formatv("{0:2}", distribution) << "\n";

    outs() << formatv("{0} records from {1} wrong samples ({2} without a "
                      "fix, {3} duplicates, {4} over the task cap, {5} over "
                      "the kind cap) -> {6}\n",
                      result.records.size(), result.wrong, result.unpaired,
                      result.duplicates, result.cappedByTask,
                      result.cappedByKind, path);
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
  return 0;
}

} // namespace

cli::Command cli::fixitCommand() { return {fixitCmd, runFixit}; }
