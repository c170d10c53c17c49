//===- TasksReference.cpp - ptxbench tasks reference ----------------------===//
//
// `ptxbench tasks reference NAME|DIR [--shapes dev|heldout|all|W] [--set
// P=V,...] [--device cpu|cuda] [--seed N] [-o DIR]` computes a task's Python
// reference for its workloads without the GPU harness: inputs drawn on the host
// (Reference/HostInputs.h), the reference computed in its contained child,
// and, with -o, each workload's inputs (raw, in their dtypes), reference
// outputs (raw fp32) and a workload.json describing them written under
// DIR/<workload>/, so that an independent computation can check them (the
// tests do). Prints one line per workload: the time, the torch version and
// how many output values are not finite.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "ptxbench/Reference/HostInputs.h"
#include "ptxbench/Reference/PythonReference.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace ptxbench;

namespace {

cl::opt<std::string> shapes("shapes",
                            cl::desc("tasks reference: dev, heldout, all or "
                                     "a workload's name"),
                            cl::init("dev"), cl::sub(cli::tasksSubCommand()));
cl::opt<std::string> device("device",
                            cl::desc("tasks reference: cpu (small shapes) "
                                     "or cuda"),
                            cl::init("cpu"), cl::sub(cli::tasksSubCommand()));
cl::opt<uint64_t> seed("seed", cl::desc("tasks reference: the input seed"),
                       cl::init(1), cl::sub(cli::tasksSubCommand()));
cl::list<std::string> overrides(
    "set",
    cl::desc("tasks reference: parameter values that replace the "
             "workloads' (NAME=VALUE,...), for small shapes on the CPU"),
    cl::CommaSeparated, cl::sub(cli::tasksSubCommand()));
cl::opt<double> seconds("reference-timeout",
                        cl::desc("tasks reference: seconds per workload"),
                        cl::init(600), cl::sub(cli::tasksSubCommand()));

/// A workload's name as a folder name.
std::string folderName(StringRef name) {
  std::string out;
  for (char c : name)
    out += isAlnum(c) || c == '-' || c == '_' || c == '.' ? c : '_';
  return out.empty() ? "workload" : out;
}

Error writeFile(StringRef path, StringRef bytes) {
  std::error_code ec;
  raw_fd_ostream os(path, ec);
  if (ec)
    return createStringError("cannot write " + path + ": " + ec.message());
  os << bytes;
  os.close();
  if (os.has_error())
    return createStringError("cannot write " + path);
  return Error::success();
}

Error writeWorkload(StringRef dir, const runtime::Task &task,
                    const runtime::Workload &workload,
                    ArrayRef<std::string> inputs,
                    const reference::PythonReferenceOutputs &outputs) {
  SmallString<128> wdir(dir);
  sys::path::append(wdir, folderName(workload.name));
  if (std::error_code ec = sys::fs::create_directories(wdir))
    return createStringError("cannot create " + wdir + ": " + ec.message());
  json::Array tensors;
  for (unsigned t = 0; t < task.tensors.size(); ++t) {
    const runtime::TensorSpec &spec = task.tensors[t];
    bool input = spec.role == runtime::Role::Input;
    std::string file = spec.name + (input ? ".bin" : ".f32");
    SmallString<128> path(wdir);
    sys::path::append(path, file);
    if (input) {
      if (Error e = writeFile(path, inputs[t]))
        return e;
    } else {
      for (const auto &o : outputs.outputs)
        if (o.tensor == int(t))
          if (Error e = writeFile(
                  path,
                  StringRef(reinterpret_cast<const char *>(o.values.data()),
                            o.values.size() * 4)))
            return e;
    }
    json::Array shape;
    auto dims = task.shapeOf(t, workload.params);
    if (!dims)
      return dims.takeError();
    for (int64_t d : *dims)
      shape.push_back(d);
    tensors.push_back(json::Object{{"name", spec.name},
                                   {"dtype", runtime::dtypeName(spec.dtype)},
                                   {"role", input ? "input" : "output"},
                                   {"shape", std::move(shape)},
                                   {"file", file}});
  }
  json::Object params, constants;
  for (const auto &[name, value] : workload.params)
    params[name] = value;
  for (const auto &[name, value] : task.python->constants)
    constants[name] = value;
  json::Object meta{{"task", task.name},
                    {"workload", workload.name},
                    {"params", std::move(params)},
                    {"constants", std::move(constants)},
                    {"tensors", std::move(tensors)},
                    {"torch", outputs.torchVersion}};
  SmallString<128> path(wdir);
  sys::path::append(path, "workload.json");
  return writeFile(path, formatv("{0:2}", json::Value(std::move(meta))).str());
}

} // namespace

int cli::tasksReference(ArrayRef<std::string> args, StringRef output) {
  if (args.size() != 1)
    return fail("tasks", "reference expects one task (a name or a folder)");
  if (device != "cpu" && device != "cuda")
    return fail("tasks",
                "--device: expected cpu or cuda, got '" + device + "'");
  std::string path = resolveTaskPath(args[0], "tasks");
  Expected<runtime::Task> task = runtime::loadTask(path);
  if (!task)
    return fail("tasks", toString(task.takeError()), ExitFailed);
  if (!task->python)
    return fail("tasks", "task '" + task->name +
                             "' has the built-in reference '" +
                             task->reference +
                             "'; `tasks reference` computes Python references");
  auto workloads = runtime::selectWorkloads(*task, shapes);
  if (!workloads)
    return fail("tasks", toString(workloads.takeError()));
  for (const std::string &o : overrides) {
    auto [key, text] = StringRef(o).split('=');
    int64_t value = 0;
    if (!is_contained(task->params, key.str()) ||
        text.getAsInteger(10, value) || value < 0)
      return fail("tasks", "--set: expected PARAM=VALUE with a parameter of "
                           "the task (" +
                               join(task->params, ", ") +
                               ") and a non-negative integer, got '" + o + "'");
    for (runtime::Workload &w : *workloads)
      w.params[key] = value;
  }
  for (runtime::Workload &w : *workloads)
    for (unsigned t = 0; t < task->tensors.size(); ++t) {
      auto shape = task->shapeOf(t, w.params);
      if (!shape)
        return fail("tasks", toString(shape.takeError()));
      if (any_of(*shape, [](int64_t d) { return d < 1; }))
        return fail("tasks", "tensor '" + task->tensors[t].name +
                                 "' has a dimension below 1 in " + w.name);
    }
  reference::PythonReferenceOptions options;
  options.helper = sys::fs::getMainExecutable(nullptr, nullptr);
  options.device =
      device == "cuda" ? reference::Device::CUDA : reference::Device::CPU;
  options.seconds = seconds;
  int status = ExitDone;
  for (const runtime::Workload &workload : *workloads) {
    auto inputs = reference::hostInputs(*task, workload.params, seed);
    if (!inputs)
      return fail("tasks", toString(inputs.takeError()), ExitFailed);
    auto outputs =
        reference::runPythonReference(*task, workload.params, *inputs, options);
    if (!outputs) {
      errs() << task->name << " " << workload.name << ": "
             << toString(outputs.takeError()) << "\n";
      status = ExitFailed;
      continue;
    }
    uint64_t nonfinite = 0;
    for (const auto &o : outputs->outputs)
      nonfinite += o.nonfinite;
    outs() << task->name << " " << workload.name << ": computed on " << device
           << " in " << format("%.2f", outputs->seconds) << " s (torch "
           << outputs->torchVersion << "), " << nonfinite
           << " values not finite\n";
    if (!output.empty())
      if (Error e = writeWorkload(output, *task, workload, *inputs, *outputs))
        return fail("tasks", toString(std::move(e)), ExitFailed);
  }
  return status;
}
