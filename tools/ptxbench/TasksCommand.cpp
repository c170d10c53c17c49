//===- TasksCommand.cpp - ptxbench tasks ----------------------------------===//
//
// `ptxbench tasks [--dir tasks]` lists the tasks under a folder (every
// subfolder with a task.json) with their requested families per
// architecture and their workloads; `ptxbench tasks show NAME` prints one
// task in full. A task.json that does not load is reported with its error
// and the listing goes on; the exit status is then 1.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "ptxbench/Runtime/Task.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace llvm;
using namespace ptxbench;

namespace {

cl::SubCommand tasksCmd("tasks", "List the tasks, or show one");
cl::list<std::string> words(cl::Positional, cl::desc("[show NAME]"),
                            cl::sub(tasksCmd));
cl::opt<std::string> dir("dir", cl::desc("The tasks folder"),
                         cl::init("tasks"), cl::sub(tasksCmd));

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
  os << task.name << "\n  requested: " << featureText(task.features)
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

int runTasks() {
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
        << "expected no arguments or 'show NAME'\n";
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
  if (ec) {
    WithColor::error(errs(), "ptxbench tasks")
        << "cannot read '" << dir << "': " << ec.message() << "\n";
    return 1;
  }
  std::sort(folders.begin(), folders.end());
  int status = 0;
  for (const std::string &folder : folders) {
    Expected<runtime::Task> task = runtime::loadTask(folder);
    if (!task) {
      WithColor::error(errs(), "ptxbench tasks") << toString(task.takeError())
                                                 << "\n";
      status = 1;
      continue;
    }
    printSummary(*task, outs());
  }
  return status;
}

} // namespace

cli::Command cli::tasksCommand() { return {tasksCmd, runTasks}; }
