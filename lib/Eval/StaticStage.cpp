//===- StaticStage.cpp - A sample's static stage, in a child of its own ---===//
//
// runStaticStage() is the stage itself; runStaticStageContained() writes
// the request to a temporary file, starts `ptxbench analyze-sample` on it
// (a ChildProcess: stdout and stderr discarded, a wall-clock deadline) and
// reads the outcome back. The child limits its own data memory before it
// reads anything. Nothing of the sample is parsed in the parent: the
// extractor, NVRTC, the importer, the analyses and the launch-plan parser
// all run in the child.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Eval/StaticStage.h"

#include "ptxbench/Runtime/PlanCheck.h"
#include "ptxbench/Runtime/Result.h"
#include "ptxbench/Support/ChildProcess.h"
#include "ptxbench/Support/TempFile.h"
#include "ptxbench/Task/LaunchPlan.h"
#include "ptxbench/Task/Task.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <csignal>
#include <cstdlib>

using namespace ptxbench;
using namespace ptxbench::eval;
using llvm::StringRef;
using llvm::json::Object;

namespace {

/// The stage for a sample whose code loaded: compile, import, analyze,
/// check and normalize the plan.
void analyzeLoaded(const StaticRequest &request, StaticOutcome &outcome) {
  SampleRecord &record = outcome.record;
  auto task = runtime::loadTask(request.taskDir);
  if (!task) {
    // The parent loaded this task before; it changed meanwhile.
    record.status = status::TaskError;
    record.error = toString(task.takeError());
    return;
  }
  // A Triton sample compiles against the task's tensors.
  StaticOptions options = request.options;
  options.task = &*task;
  StaticEvaluator evaluator;
  bool prepared = evaluator.prepare(record, options);
  // The run reuses NVRTC's or Triton's output (and Triton's launch
  // metadata).
  if (prepared && record.language != "ptx") {
    outcome.ptx = evaluator.ptx().str();
    outcome.tritonBuild = evaluator.tritonBuildJson();
  }
  if (prepared)
    evaluator.analyze(record, options);
  else if (!evaluator.hasPlanError())
    return;
  auto workloads = runtime::selectWorkloads(*task, request.shapes);
  if (!workloads) {
    record.status = status::TaskError;
    record.error = toString(workloads.takeError());
    return;
  }
  // The launch plan needs no GPU: a plan error (every mistake, as
  // `ptxbench run` reports it) is the sample's run status with or without
  // --static-only.
  runtime::RunResult planned;
  planned.task = task->name;
  planned.solution = record.sourceName();
  planned.baseline = task->baseline;
  planned.arch = request.options.arch;
  // A Triton sample whose plan kept it from compiling has no kernels to
  // hold the plan against, only the plan's mistakes.
  std::optional<llvm::ArrayRef<runtime::ModuleKernel>> kernels;
  if (prepared)
    kernels = evaluator.kernels();
  if (!runtime::checkPlanOffline(*task, *workloads, evaluator.plan(record),
                                 record.sourceName(), kernels, planned)) {
    runtime::markSplits(*task, planned);
    record.runStatus = runtime::statusName(runtime::worstStatus(planned)).str();
    record.runJson = llvm::formatv("{0}", runtime::toJSON(planned)).str();
    return;
  }
  // Identical submissions share a run when their plans, as written, are
  // the same.
  if (auto plan = runtime::parseLaunchPlan(record.code, record.sourceName()))
    outcome.normalizedPlan = runtime::normalizedPlan(*plan);
  else
    llvm::consumeError(plan.takeError());
}

/// The outcome of a child that left none: the sample is `crashed`.
StaticOutcome crashed(const StaticRequest &request, std::string why) {
  StaticOutcome outcome;
  outcome.record.key = request.input.key;
  outcome.record.status = status::Crashed;
  outcome.record.error = std::move(why);
  return outcome;
}

llvm::Error writeJSON(StringRef path, llvm::json::Value value) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec)
    return llvm::createStringError("cannot write " + path + ": " +
                                   ec.message());
  os << value;
  os.close();
  if (os.has_error())
    return llvm::createStringError("cannot write " + path);
  return llvm::Error::success();
}

template <typename T> llvm::Expected<T> readJSON(StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer || !(*buffer)->getBufferSize())
    return llvm::createStringError("it left no result");
  auto value = llvm::json::parse((*buffer)->getBuffer());
  if (!value)
    return value.takeError();
  T result;
  llvm::json::Path::Root root;
  if (!fromJSON(*value, result, root))
    return root.getError();
  return result;
}

} // namespace

StaticOutcome ptxbench::eval::runStaticStage(const StaticRequest &request) {
  StaticOutcome outcome;
  outcome.record.key = request.input.key;
  if (!loadSolution(request.input, outcome.record))
    return outcome;
  if (!request.taskError.empty()) {
    outcome.record.status = status::TaskError;
    outcome.record.error = request.taskError;
    return outcome;
  }
  analyzeLoaded(request, outcome);
  return outcome;
}

StaticOutcome
ptxbench::eval::runStaticStageContained(const StaticRequest &request,
                                        const StaticLimits &limits) {
  if (limits.helper.empty())
    return runStaticStage(request);
  auto input = support::TempFile::create("sample", "json");
  if (!input)
    return crashed(request, toString(input.takeError()));
  auto output = support::TempFile::create("outcome", "json");
  if (!output)
    return crashed(request, toString(output.takeError()));
  if (llvm::Error e = writeJSON(input->path(), toJSON(request)))
    return crashed(request, toString(std::move(e)));
  support::ChildOptions child;
  child.argv = {limits.helper, "analyze-sample",
                "--memory-mb=" + std::to_string(limits.memoryMB),
                input->path(), output->path()};
  auto finished = support::runChild(child, limits.seconds);
  if (!finished)
    return crashed(request, toString(finished.takeError()));
  std::string name = request.input.key.str();
  if (finished->timedOut)
    return crashed(request,
                   llvm::formatv("the static analysis of {0} did not finish "
                                 "within {1} s (--analysis-timeout) and was "
                                 "stopped",
                                 name, llvm::format("%g", limits.seconds))
                       .str());
  if (finished->signal() || finished->exitCode() != 0)
    return crashed(request,
                   llvm::formatv("the static analysis of {0} ended with {1} "
                                 "(its memory limit is {2} MiB, "
                                 "--analysis-memory-mb)",
                                 name, finished->describe(), limits.memoryMB)
                       .str());
  auto outcome = readJSON<StaticOutcome>(output->path());
  if (!outcome)
    return crashed(request, "the static analysis of " + name +
                                " left no readable result: " +
                                toString(outcome.takeError()));
  outcome->record.key = request.input.key;
  return std::move(*outcome);
}

int ptxbench::eval::runStaticStageChild(StringRef requestPath,
                                        StringRef outcomePath,
                                        uint64_t memoryMB) {
  support::setChildMemoryLimit(memoryMB);
  auto request = readJSON<StaticRequest>(requestPath);
  if (!request) {
    llvm::errs() << "analyze-sample: " << requestPath << ": "
                 << toString(request.takeError()) << "\n";
    return 2;
  }
  // For the tests of crash recovery: a sample whose key contains the
  // variable's value crashes this child as a bug in the analysis would.
  if (const char *crashOn = std::getenv("PTXBENCH_DEBUG_CRASH_ON");
      crashOn && *crashOn &&
      StringRef(request->input.key.str()).contains(crashOn))
    std::raise(SIGSEGV);
  StaticOutcome outcome = runStaticStage(*request);
  if (llvm::Error e = writeJSON(outcomePath, toJSON(outcome))) {
    llvm::errs() << "analyze-sample: " << toString(std::move(e)) << "\n";
    return 1;
  }
  return 0;
}

//===----------------------------------------------------------------------===//
// JSON
//===----------------------------------------------------------------------===//

llvm::json::Value ptxbench::eval::toJSON(const StaticRequest &r) {
  const StaticOptions &o = r.options;
  llvm::json::Array requested;
  for (const std::string &f : o.requested)
    requested.push_back(f);
  return Object{
      {"key", r.input.key.str()},
      {"dir", r.input.dir},
      {"solution_path", r.input.solutionPath},
      {"response_path", r.input.responsePath},
      {"generation_path", r.input.generationPath},
      {"task_dir", r.taskDir},
      {"shapes", r.shapes},
      {"task_error", r.taskError},
      {"arch", o.arch},
      {"requested", std::move(requested)},
      {"assemble", o.assemble},
      {"sass", o.sass},
      {"f32_accumulate", o.f32Accumulate},
      {"compile_helper", o.compileLimits.helper},
      {"compile_seconds", o.compileLimits.seconds},
      {"compile_memory_mb", int64_t(o.compileLimits.memoryMB)},
  };
}

bool ptxbench::eval::fromJSON(const llvm::json::Value &value,
                              StaticRequest &r, llvm::json::Path path) {
  llvm::json::ObjectMapper m(value, path);
  std::string key;
  StaticOptions &o = r.options;
  int64_t memoryMB = 0;
  if (!m || !m.map("key", key) || !m.map("dir", r.input.dir) ||
      !m.map("solution_path", r.input.solutionPath) ||
      !m.map("response_path", r.input.responsePath) ||
      !m.map("generation_path", r.input.generationPath) ||
      !m.map("task_dir", r.taskDir) || !m.map("shapes", r.shapes) ||
      !m.map("task_error", r.taskError) ||
      !m.map("arch", o.arch) || !m.map("requested", o.requested) ||
      !m.map("assemble", o.assemble) || !m.map("sass", o.sass) ||
      !m.map("f32_accumulate", o.f32Accumulate) ||
      !m.map("compile_helper", o.compileLimits.helper) ||
      !m.map("compile_seconds", o.compileLimits.seconds) ||
      !m.map("compile_memory_mb", memoryMB))
    return false;
  o.compileLimits.memoryMB = uint64_t(std::max<int64_t>(memoryMB, 0));
  if (!SampleKey::parse(key, r.input.key)) {
    path.field("key").report("not a sample key");
    return false;
  }
  return true;
}

llvm::json::Value ptxbench::eval::toJSON(const StaticOutcome &outcome) {
  const SampleRecord &r = outcome.record;
  Object o{{"solution_path", r.solutionPath},
           {"language", r.language},
           {"code", r.code},
           {"canonical_hash", r.canonicalHash},
           {"status", r.status},
           {"error", r.error},
           {"diagnostics", r.diagnosticsJson},
           {"analysis", r.staticJson},
           {"run_status", r.runStatus},
           {"run", r.runJson},
           {"ptx", outcome.ptx},
           {"triton_build", outcome.tritonBuild}};
  if (outcome.normalizedPlan)
    o["normalized_plan"] = *outcome.normalizedPlan;
  return o;
}

bool ptxbench::eval::fromJSON(const llvm::json::Value &value,
                              StaticOutcome &outcome, llvm::json::Path path) {
  llvm::json::ObjectMapper m(value, path);
  SampleRecord &r = outcome.record;
  return m && m.map("solution_path", r.solutionPath) &&
         m.map("language", r.language) && m.map("code", r.code) &&
         m.map("canonical_hash", r.canonicalHash) &&
         m.map("status", r.status) && m.map("error", r.error) &&
         m.map("diagnostics", r.diagnosticsJson) &&
         m.map("analysis", r.staticJson) &&
         m.map("run_status", r.runStatus) && m.map("run", r.runJson) &&
         m.map("ptx", outcome.ptx) &&
         m.mapOptional("triton_build", outcome.tritonBuild) &&
         m.mapOptional("normalized_plan", outcome.normalizedPlan);
}
