//===- GpuRun.cpp - A sample through `ptxbench run` on one GPU ------------===//

#include "ptxbench/Eval/GpuRun.h"

#include "ptxbench/Runtime/GpuLock.h"
#include "ptxbench/Runtime/Result.h"

#include "ptxbench/Support/ChildProcess.h"
#include "ptxbench/Support/JSON.h"
#include "ptxbench/Support/RunTool.h"
#include "ptxbench/Support/TempFile.h"
#include "ptxbench/Task/Verdict.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

extern char **environ;

using namespace ptxbench;
using namespace ptxbench::eval;
namespace runtime = ptxbench::runtime;
using llvm::StringRef;
using ptxbench::support::TempFile;
using ptxbench::support::TempFolder;

namespace {

std::string readFile(StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  return buffer ? (*buffer)->getBuffer().str() : std::string();
}

} // namespace

llvm::Expected<std::vector<std::string>>
ptxbench::eval::resolveGpus(StringRef spec) {
  std::vector<std::string> gpus;
  if (spec != "all") {
    llvm::SmallVector<StringRef> parts;
    spec.split(parts, ',', -1, false);
    for (StringRef p : parts) {
      unsigned id;
      if (p.trim().getAsInteger(10, id))
        return llvm::createStringError(
            "--gpus expects 'all' or device numbers like 0,1; got '" + spec +
            "'");
      gpus.push_back(p.trim().str());
    }
    if (gpus.empty())
      return llvm::createStringError("--gpus names no device");
    return gpus;
  }
  if (std::optional<std::string> visible =
          llvm::sys::Process::GetEnv("CUDA_VISIBLE_DEVICES")) {
    llvm::SmallVector<StringRef> parts;
    StringRef(*visible).split(parts, ',', -1, false);
    for (StringRef p : parts)
      gpus.push_back(p.trim().str());
  } else if (auto smi = llvm::sys::findProgramByName("nvidia-smi")) {
    auto out = support::runTool({*smi, "-L"}, /*seconds=*/30,
                                support::ToolStreams::StdoutOnly);
    if (!out)
      llvm::consumeError(out.takeError());
    else if (out->succeeded()) {
      llvm::SmallVector<StringRef> lines;
      StringRef(out->text).split(lines, '\n', -1, false);
      for (StringRef line : lines)
        if (line.starts_with("GPU "))
          gpus.push_back(std::to_string(gpus.size()));
    }
  }
  if (gpus.empty())
    gpus.push_back("");
  return gpus;
}

void ptxbench::eval::runOnGpu(SampleRecord &record,
                              const GpuRunOptions &options) {
  auto start = std::chrono::steady_clock::now();
  auto finish = [&](StringRef status, StringRef why) {
    record.runStatus = status.str();
    if (!why.empty())
      record.error = why.str();
    record.runSeconds = std::chrono::duration<double>(
                            std::chrono::steady_clock::now() - start)
                            .count();
  };
  // The solution as a file with its language's extension (an extracted
  // response has none of its own), under the name it goes by in messages,
  // in a folder of its own.
  TempFolder copy;
  std::string solution = record.solutionPath;
  if (!StringRef(solution).ends_with(".cu") &&
      !StringRef(solution).ends_with(".ptx") &&
      !StringRef(solution).ends_with(".py")) {
    auto folder = TempFolder::create("eval");
    if (!folder)
      return finish(runtime::statusName(runtime::Status::HarnessError),
                    llvm::toString(folder.takeError()));
    copy = std::move(*folder);
    llvm::SmallString<128> path(copy.path());
    llvm::sys::path::append(path, record.sourceName());
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    if (ec)
      return finish(runtime::statusName(runtime::Status::HarnessError),
                    "cannot write a temporary solution file");
    os << record.code;
    solution = std::string(path);
  }
  auto json = TempFile::create("eval", "json");
  auto log = TempFile::create("eval", "log");
  if (!json || !log) {
    std::string why = json ? "" : llvm::toString(json.takeError());
    if (!log) {
      std::string logWhy = llvm::toString(log.takeError());
      if (why.empty())
        why = logWhy;
    }
    return finish(runtime::statusName(runtime::Status::HarnessError), why);
  }

  std::vector<std::string> args = {
      options.tool,
      "run",
      "--task=" + options.taskDir,
      "--solution=" + solution,
      "--shapes=" + options.shapes,
      "--json=" + json->path(),
      llvm::formatv("--timeout={0}", options.timeoutSeconds).str(),
      llvm::formatv("--compile-timeout={0}", options.compileTimeoutSeconds)
          .str()};
  // Two runs may share a GPU (one compiling while the other times): the
  // workers take turns through the GPU's lock.
  args.push_back("--gpu-lock=" + ptxbench::runtime::gpuLockPath(options.gpu));
  if (options.seed) {
    args.push_back(llvm::formatv("--seed={0}", options.seed).str());
    // Kept references cost more to check and read than the GPU takes to
    // compute them (docs/performance.md, "Harness throughput"); a kept
    // baseline saves its whole phase.
    args.push_back("--reuse-baseline");
  }
  // The static stage compiled it already: the run does not compile again
  // (a Triton sample's needs its launch metadata too).
  bool triton = record.language == "py";
  TempFile compiledFile, buildFile;
  if ((record.language == "cu" || (triton && !options.tritonBuild.empty())) &&
      !options.compiledPtx.empty()) {
    auto compiled = TempFile::write("eval", "ptx", options.compiledPtx);
    if (!compiled)
      return finish(runtime::statusName(runtime::Status::HarnessError),
                    llvm::toString(compiled.takeError()));
    compiledFile = std::move(*compiled);
    args.push_back("--compiled-ptx=" + compiledFile.path());
    if (triton) {
      auto build = TempFile::write("eval", "json", options.tritonBuild);
      if (!build)
        return finish(runtime::statusName(runtime::Status::HarnessError),
                      llvm::toString(build.takeError()));
      buildFile = std::move(*build);
      args.push_back("--triton-build=" + buildFile.path());
    }
  }
  ptxbench::support::ChildOptions child;
  child.argv = std::move(args);
  child.outputPath = log->path();
  child.environment.emplace();
  for (char **e = environ; *e; ++e)
    if (!StringRef(*e).starts_with("CUDA_VISIBLE_DEVICES="))
      child.environment->push_back(*e);
  if (!options.gpu.empty())
    child.environment->push_back("CUDA_VISIBLE_DEVICES=" + options.gpu);
  auto ended = ptxbench::support::runChild(child, 0);
  std::string text = readFile(json->path());
  std::string output = StringRef(readFile(log->path())).trim().str();
  if (!ended || text.empty()) {
    std::string why = "ptxbench run ";
    why += !ended ? "failed: " + llvm::toString(ended.takeError())
                  : "ended with " + ended->describe() + " without a result";
    if (!output.empty())
      why += ": " + StringRef(output).take_back(2000).str();
    return finish(runtime::statusName(runtime::Status::HarnessError), why);
  }
  // The status is the run's own (its worst workload's, as `ptxbench run`
  // writes and exits with), read from the result as a RunResult.
  llvm::Expected<runtime::RunResult> run = runtime::readRunResult(text);
  if (!run)
    return finish(runtime::statusName(runtime::Status::HarnessError),
                  "ptxbench run wrote a result that is not a run result: " +
                      llvm::toString(run.takeError()));
  // The result names the code's file without a folder, neither the
  // sample's nor the temporary copy's.
  record.runJson =
      renameInJson(StringRef(text).trim(), solution, record.sourceName());
  finish(runtime::statusName(runtime::worstStatus(*run)), "");
}
