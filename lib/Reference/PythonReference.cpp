//===- PythonReference.cpp - A PyTorch reference computed in a child ------===//
//
// The parent's side of a Python reference: a temporary folder with the
// reference module, the request (the task's tensors, the workload's
// parameters, the constants, the precision and the device) and each
// input's raw bytes; `ptxbench reference-child` started on it under a
// wall-clock deadline (its process group killed past it); the driver's
// result read back with the JSON limits of untrusted text and each output
// read as fp32, its size checked against the task's shape. The folder is
// removed afterwards.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Reference/PythonReference.h"

#include "ptxbench/Support/ChildProcess.h"
#include "ptxbench/Support/JSON.h"
#include "ptxbench/Support/Python.h"
#include "ptxbench/Support/Sandbox.h"
#include "ptxbench/Support/TempFile.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <csignal>
#include <cstring>

using namespace ptxbench;
using namespace ptxbench::reference;
using llvm::StringRef;
using llvm::json::Object;

StringRef ptxbench::reference::deviceName(Device device) {
  return device == Device::CUDA ? "cuda" : "cpu";
}

std::string ptxbench::reference::referenceDriverPath(StringRef helper) {
  llvm::SmallString<256> path(llvm::sys::path::parent_path(helper));
  llvm::sys::path::append(path, "ptxbench-reference.py");
  return llvm::sys::fs::exists(path) ? path.str().str() : std::string();
}

namespace {

llvm::Error writeFile(StringRef path, StringRef bytes) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec)
    return llvm::createStringError("cannot write " + path + ": " +
                                   ec.message());
  os << bytes;
  os.close();
  if (os.has_error())
    return llvm::createStringError("cannot write " + path);
  return llvm::Error::success();
}

std::string inFolder(StringRef dir, const llvm::Twine &name) {
  llvm::SmallString<128> path(dir);
  llvm::sys::path::append(path, name);
  return path.str().str();
}

} // namespace

llvm::Expected<PythonReferenceOutputs> ptxbench::reference::runPythonReference(
    const runtime::Task &task, const runtime::Bindings &params,
    llvm::ArrayRef<std::string> inputs, const PythonReferenceOptions &options) {
  if (!task.python)
    return llvm::createStringError("task '" + task.name +
                                   "' has no Python reference");
  if (inputs.size() != task.tensors.size())
    return llvm::createStringError("expected one input buffer per tensor");
  const runtime::PythonReference &ref = *task.python;
  std::string driver = referenceDriverPath(options.helper);
  if (driver.empty())
    return llvm::createStringError("ptxbench-reference.py is not beside " +
                                   options.helper +
                                   " (the build copies it there)");
  llvm::Expected<support::PythonInterpreter> python = support::resolvePython(
      options.python, "to compute Python references with");
  if (!python)
    return python.takeError();
  auto mode = sandboxModeFromEnvironment();
  if (!mode)
    return mode.takeError();
  noteSandboxFallbackOnce(*mode, llvm::errs());

  // The loader checked the module; it is read again here, so it must still
  // be a regular file within the limit.
  uint64_t moduleBytes = 0;
  if (!llvm::sys::fs::is_regular_file(ref.module) ||
      llvm::sys::fs::file_size(ref.module, moduleBytes) ||
      moduleBytes > runtime::kMaxModuleBytes)
    return llvm::createStringError(
        "the reference module " + ref.module +
        " is no longer a regular file of at most 1 MiB");
  auto module = llvm::MemoryBuffer::getFile(ref.module, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!module)
    return llvm::createStringError("cannot read the reference module " +
                                   ref.module + ": " +
                                   module.getError().message());
  if ((*module)->getBufferSize() > runtime::kMaxModuleBytes)
    return llvm::createStringError("the reference module " + ref.module +
                                   " is over 1 MiB");
  auto folder = support::TempFolder::create("reference", options.tempDir);
  if (!folder)
    return llvm::createStringError(
        "cannot create a temporary folder for the reference: " +
        llvm::toString(folder.takeError()));
  StringRef workdir = folder->path();
  std::string modulePath = inFolder(workdir, "reference.py");
  if (llvm::Error e = writeFile(modulePath, (*module)->getBuffer()))
    return std::move(e);

  // The request, and the inputs beside it.
  llvm::json::Array tensors;
  std::vector<std::pair<int, std::vector<int64_t>>> outputShapes;
  for (unsigned t = 0; t < task.tensors.size(); ++t) {
    const runtime::TensorSpec &spec = task.tensors[t];
    auto shape = task.shapeOf(t, params);
    if (!shape)
      return shape.takeError();
    uint64_t elements = 1;
    llvm::json::Array dims;
    for (int64_t d : *shape) {
      elements *= uint64_t(d);
      dims.push_back(d);
    }
    bool input = spec.role == runtime::Role::Input;
    std::string file = inFolder(workdir, llvm::Twine(input ? "in" : "out") +
                                             llvm::Twine(t) + ".bin");
    if (input) {
      if (inputs[t].size() != elements * runtime::dtypeSize(spec.dtype))
        return llvm::createStringError(
            llvm::formatv("input '{0}' has {1} bytes; its shape and dtype "
                          "make {2}",
                          spec.name, inputs[t].size(),
                          elements * runtime::dtypeSize(spec.dtype))
                .str());
      if (llvm::Error e = writeFile(file, inputs[t]))
        return std::move(e);
    } else {
      outputShapes.push_back({int(t), *shape});
    }
    tensors.push_back(Object{{"name", spec.name},
                             {"dtype", runtime::dtypeName(spec.dtype)},
                             {"shape", std::move(dims)},
                             {"role", input ? "input" : "output"},
                             {"file", file}});
  }
  Object paramValues, constants;
  for (const auto &[name, value] : params)
    paramValues[name] = value;
  for (const auto &[name, value] : ref.constants)
    constants[name] = value;
  Object request{{"task", task.name},
                 {"module", modulePath},
                 {"entry", ref.entry},
                 {"precision", ref.f64 ? "f64" : "f32"},
                 {"device", deviceName(options.device)},
                 {"tensors", std::move(tensors)},
                 {"params", std::move(paramValues)},
                 {"constants", std::move(constants)}};
  std::string requestPath = inFolder(workdir, "request.json");
  std::string resultPath = inFolder(workdir, "result.json");
  if (llvm::Error e = writeFile(
          requestPath,
          llvm::formatv("{0}", llvm::json::Value(std::move(request))).str()))
    return std::move(e);

  support::ChildOptions child;
  unsigned cpuSeconds = unsigned(options.seconds) + 1;
  child.argv = {options.helper,
                "reference-child",
                "--workdir=" + workdir.str(),
                "--python=" + python->executable,
                "--driver=" + driver,
                "--device=" + deviceName(options.device).str(),
                "--memory-mb=" + std::to_string(options.memoryMB),
                "--cpu-seconds=" + std::to_string(cpuSeconds)};
  for (const std::string &dir : python->searchPath)
    child.argv.push_back("--search-path=" + dir);
  child.ownGroup = true;
  child.outputPath = inFolder(workdir, "child.log");
  auto finished = support::runChild(child, options.seconds);
  std::string what = "the Python reference of task '" + task.name + "'";
  if (!finished)
    return llvm::createStringError("cannot start " + what + ": " +
                                   llvm::toString(finished.takeError()));
  if (finished->timedOut)
    return llvm::createStringError(
        llvm::formatv("{0} did not finish within {1} s; it was stopped", what,
                      llvm::format("%g", options.seconds))
            .str());

  auto text = llvm::MemoryBuffer::getFile(resultPath);
  if (!text || !(*text)->getBufferSize()) {
    std::string log;
    if (auto l = llvm::MemoryBuffer::getFile(child.outputPath))
      log = (*l)->getBuffer().take_back(2000).str();
    if (finished->signal() == SIGXCPU)
      return llvm::createStringError(
          llvm::formatv("{0} used up its CPU time ({1} s); it was stopped",
                        what, cpuSeconds)
              .str());
    return llvm::createStringError(
        llvm::formatv("{0} ended without a result ({1}; out of its {2} MiB "
                      "memory limit?){3}",
                      what, finished->describe(), options.memoryMB,
                      log.empty() ? "" : ":\n" + log)
            .str());
  }
  JSONLimits limits;
  limits.maxDepth = 8;
  auto value = parseJSON((*text)->getBuffer(), limits);
  const Object *result = value ? value->getAsObject() : nullptr;
  if (!result)
    return llvm::createStringError(
        what + ": the driver's result does not read" +
        (value ? std::string() : ": " + llvm::toString(value.takeError())));
  if (!result->getBoolean("ok").value_or(false))
    return llvm::createStringError(
        what + " failed (" +
        result->getString("stage").value_or("child").str() +
        "): " + result->getString("log").value_or("no reason given").str());

  PythonReferenceOutputs out;
  out.seconds = result->getNumber("seconds").value_or(0);
  out.torchVersion = result->getString("torch").value_or("").str();
  out.sandbox = result->getString("sandbox").value_or("").str();
  const llvm::json::Array *written = result->getArray("outputs");
  for (size_t i = 0; i < outputShapes.size(); ++i) {
    auto [t, shape] = outputShapes[i];
    uint64_t elements = 1;
    for (int64_t d : shape)
      elements *= uint64_t(d);
    std::string file = inFolder(workdir, "out" + llvm::Twine(t) + ".bin");
    auto bytes = llvm::MemoryBuffer::getFile(file, /*IsText=*/false,
                                             /*RequiresNullTerminator=*/false);
    if (!bytes || (*bytes)->getBufferSize() != elements * 4)
      return llvm::createStringError(
          llvm::formatv("{0}: output '{1}' was not written as {2} fp32 "
                        "values",
                        what, task.tensors[t].name, elements)
              .str());
    PythonReferenceOutputs::Output o;
    o.tensor = t;
    o.values.resize(elements);
    std::memcpy(o.values.data(), (*bytes)->getBufferStart(), elements * 4);
    if (written && i < written->size())
      if (const Object *w = (*written)[i].getAsObject())
        o.nonfinite = uint64_t(
            std::max<int64_t>(0, w->getInteger("nonfinite").value_or(0)));
    out.outputs.push_back(std::move(o));
  }
  return out;
}
