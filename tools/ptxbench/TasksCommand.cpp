//===- TasksCommand.cpp - ptxbench tasks ----------------------------------===//
//
// `ptxbench tasks [--tasks DIR]` lists the tasks under a folder (every
// subfolder with a task.json) with their family, requested feature families
// per architecture and their workloads, then the task families with their
// variants and held-out variants (`--heldout-variants` prints only those,
// comma-separated); `ptxbench tasks show NAME` prints one
// task in full; `ptxbench tasks check PATH...` checks task folders (a task,
// or a folder of tasks) with the loader, and their solutions manifests, and
// reports everything wrong with each, one line per problem (docs/tasks.md);
// `tasks reference` (TasksReference.cpp) and `tasks import`
// (TasksImport.cpp) are verbs of their own files.
// A task.json that does not load is reported with its errors and the
// listing goes on; the exit status is then 1.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "ptxbench/Task/Task.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <map>

using namespace llvm;
using namespace ptxbench;

namespace {

cl::SubCommand &tasksCmd = cli::tasksSubCommand();
cl::list<std::string> words(cl::Positional,
                            cl::desc("[show NAME | check PATH... | reference "
                                     "NAME | import DEF.json "
                                     "WORKLOADS.jsonl]"),
                            cl::sub(tasksCmd));
cl::opt<std::string> dir("tasks", cl::desc("The tasks folder"),
                         cl::value_desc("dir"), cl::init("tasks"),
                         cl::sub(tasksCmd));
cl::opt<std::string> output("o",
                            cl::desc("tasks reference: write inputs and "
                                     "outputs here; tasks import: the new "
                                     "task's folder"),
                            cl::value_desc("dir"), cl::sub(tasksCmd));
cl::opt<bool> heldoutVariants(
    "heldout-variants",
    cl::desc("Print the held-out variants' names, comma-separated (for "
             "fixit --heldout-tasks)"),
    cl::sub(tasksCmd));
// The spelling before --tasks, which eval, generate and fixit use.
cl::alias dirAlias("dir", cl::desc("Alias for --tasks"), cl::aliasopt(dir),
                   cl::Hidden);

/// "dev-4k (M=4096, N=7168, K=5120)", parameters in the task's order.
std::string workloadText(const runtime::Task &task,
                         const runtime::Workload &workload) {
  std::string text = workload.name + " (";
  for (const std::string &param : task.params)
    text += (text.back() == '(' ? "" : ", ") + param + "=" +
            std::to_string(workload.params.lookup(param));
  return text + ")";
}

std::string featureText(const std::map<std::string, std::vector<std::string>>
                            &features) {
  std::string text;
  for (const auto &[arch, families] : features)
    text += (text.empty() ? "" : "; ") + arch + ": " + join(families, ",");
  return text.empty() ? "none" : text;
}

void printSummary(const runtime::Task &task, raw_ostream &os) {
  os << task.name;
  if (!task.family.empty())
    os << "\n  family: " << task.family
       << (task.heldoutVariant ? " (held-out variant)" : "");
  os << "\n  requested: " << featureText(task.features)
     << "\n  workloads: " << task.dev.size() << " development, "
     << task.heldout.size() << " held-out\n";
}

void printFull(const runtime::Task &task, raw_ostream &os) {
  os << task.name << " (" << task.dir << ")\n" << task.description << "\n\n";
  os << "tensors:\n";
  for (const runtime::TensorSpec &tensor : task.tensors) {
    os << "  " << tensor.name << ": " << runtime::dtypeName(tensor.dtype)
       << " [";
    for (size_t i = 0; i < tensor.shape.size(); ++i)
      os << (i ? ", " : "") << tensor.shape[i].text();
    os << "] " << (tensor.role == runtime::Role::Input ? "input" : "output");
    if (tensor.dist.kind == runtime::Distribution::Kind::Derived)
      os << " (computed by the reference from the other inputs)";
    os << "\n";
  }
  os << "requested: " << featureText(task.features) << "\n";
  if (!task.encouraged.empty())
    os << "encouraged: " << featureText(task.encouraged) << "\n";
  os << "flops: " << task.flops.text() << "\nbytes: " << task.bytes.text()
     << "\nreference: " << task.reference << "\nbaseline: " << task.baseline
     << "\ndevelopment workloads:\n";
  for (const runtime::Workload &workload : task.dev)
    os << "  " << workloadText(task, workload) << "\n";
  os << "held-out workloads:\n";
  for (const runtime::Workload &workload : task.heldout)
    os << "  " << workloadText(task, workload) << "\n";
}

/// The folders `path` stands for: itself when it holds a task.json (or is
/// one), else its subfolders that hold a task.json or a solutions/
/// manifest.json (a corpus shared by tasks), sorted.
std::vector<std::string> checkedFolders(StringRef path, std::error_code &ec) {
  auto has = [](StringRef folder, StringRef a, StringRef b = "") {
    SmallString<128> file(folder);
    sys::path::append(file, a);
    if (!b.empty())
      sys::path::append(file, b);
    return sys::fs::exists(file);
  };
  if (!sys::fs::is_directory(path) || has(path, "task.json"))
    return {path.str()};
  std::vector<std::string> folders;
  for (sys::fs::directory_iterator it(path, ec), end; it != end && !ec;
       it.increment(ec))
    if (has(it->path(), "task.json") ||
        has(it->path(), "solutions", "manifest.json"))
      folders.push_back(it->path());
  std::sort(folders.begin(), folders.end());
  return folders;
}

/// Every problem of the task in `folder` and of its solutions manifest.
std::vector<runtime::TaskDiagnostic> checkFolder(StringRef folder) {
  std::vector<runtime::TaskDiagnostic> diagnostics;
  SmallString<128> json(folder);
  if (sys::fs::is_directory(folder))
    sys::path::append(json, "task.json");
  if (!sys::fs::is_directory(folder) || sys::fs::exists(json))
    diagnostics = runtime::checkTask(folder).diagnostics;
  SmallString<128> manifest(folder);
  sys::path::append(manifest, "solutions", "manifest.json");
  if (sys::fs::is_directory(folder) && sys::fs::exists(manifest)) {
    SmallString<128> tasksDir(folder);
    sys::path::remove_dots(tasksDir, /*remove_dot_dot=*/true);
    sys::path::remove_filename(tasksDir);
    if (tasksDir.empty())
      tasksDir = ".";
    for (runtime::TaskDiagnostic &d :
         runtime::checkSolutionManifest(manifest, tasksDir))
      diagnostics.push_back(std::move(d));
  }
  return diagnostics;
}

/// `ptxbench tasks check PATH...`: every problem of every task, then one
/// line per task; 0 when all load.
int checkTasks(ArrayRef<std::string> paths) {
  if (paths.empty()) {
    WithColor::error(errs(), "ptxbench tasks")
        << "check expects task folders or folders of tasks\n";
    return 2;
  }
  unsigned bad = 0, checked = 0;
  for (const std::string &path : paths) {
    std::error_code ec;
    std::vector<std::string> folders = checkedFolders(path, ec);
    if (ec) {
      WithColor::error(outs()) << path << ": cannot read: " << ec.message()
                               << "\n";
      ++bad;
      continue;
    }
    if (folders.empty()) {
      WithColor::error(outs())
          << path << ": no task.json in it or in its subfolders\n";
      ++bad;
      continue;
    }
    for (const std::string &folder : folders) {
      ++checked;
      std::vector<runtime::TaskDiagnostic> diagnostics = checkFolder(folder);
      if (diagnostics.empty()) {
        outs() << folder << ": ok\n";
        continue;
      }
      ++bad;
      for (const runtime::TaskDiagnostic &d : diagnostics)
        WithColor::error(outs()) << d.str() << "\n";
      outs() << folder << ": " << diagnostics.size()
             << (diagnostics.size() == 1 ? " problem" : " problems") << "\n";
    }
  }
  if (checked > 1 || bad)
    outs() << checked << " checked, " << bad << " with problems\n";
  return bad ? 1 : 0;
}

int runTasks() {
  if (!words.empty() && words[0] == "check")
    return checkTasks(ArrayRef<std::string>(words).drop_front());
  if (!words.empty() && words[0] == "reference")
    return cli::tasksReference(ArrayRef<std::string>(words).drop_front(),
                               output);
  if (!words.empty() && words[0] == "import")
    return cli::tasksImport(ArrayRef<std::string>(words).drop_front(), output);
  if (words.size() == 2 && words[0] == "show") {
    SmallString<128> path(dir);
    sys::path::append(path, words[1]);
    Expected<runtime::Task> task = runtime::loadTask(path);
    if (!task) {
      WithColor::error(errs(), "ptxbench tasks") << toString(task.takeError())
                                                 << "\n";
      return 1;
    }
    printFull(*task, outs());
    return 0;
  }
  if (!words.empty()) {
    WithColor::error(errs(), "ptxbench tasks")
        << "expected no arguments, 'show NAME', 'check PATH...', "
           "'reference NAME' or 'import DEF.json WORKLOADS.jsonl'\n";
    return 2;
  }
  std::vector<std::string> folders;
  std::error_code ec;
  for (sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec)) {
    SmallString<128> json(it->path());
    sys::path::append(json, "task.json");
    if (sys::fs::exists(json))
      folders.push_back(it->path());
  }
  if (ec)
    return cli::fail("tasks", "cannot read '" + dir + "': " + ec.message());
  std::sort(folders.begin(), folders.end());
  int status = 0;
  // family -> (variants, held-out variants); a task of no family is its own.
  std::map<std::string,
           std::pair<std::vector<std::string>, std::vector<std::string>>>
      families;
  std::vector<std::string> heldout;
  for (const std::string &folder : folders) {
    Expected<runtime::Task> task = runtime::loadTask(folder);
    if (!task) {
      WithColor::error(errs(), "ptxbench tasks") << toString(task.takeError())
                                                 << "\n";
      status = 1;
      continue;
    }
    auto &family = families[task->family.empty() ? task->name : task->family];
    (task->heldoutVariant ? family.second : family.first).push_back(task->name);
    if (task->heldoutVariant)
      heldout.push_back(task->name);
    if (!heldoutVariants)
      printSummary(*task, outs());
  }
  if (heldoutVariants) {
    outs() << join(heldout, ",") << "\n";
    return status;
  }
  outs() << "families:\n";
  for (const auto &[name, tasks] : families) {
    outs() << "  " << name << ": " << join(tasks.first, ", ");
    if (!tasks.second.empty())
      outs() << (tasks.first.empty() ? "" : "; ")
             << "held out: " << join(tasks.second, ", ");
    outs() << "\n";
  }
  return status;
}

} // namespace

std::string cli::resolveTaskPath(StringRef task, StringRef tasksDir) {
  if (sys::fs::exists(task) || task.contains('/'))
    return task.str();
  SmallString<128> path(tasksDir);
  sys::path::append(path, task);
  return path.str().str();
}

cl::SubCommand &cli::tasksSubCommand() {
  static cl::SubCommand command(
      "tasks", "List the tasks, show one, check task files, compute a "
               "Python reference, import a FlashInfer-Trace definition");
  return command;
}

cli::Command cli::tasksCommand() { return {tasksCmd, runTasks}; }
