//===- Submission.cpp - A submission run on the GPU, end to end -----------===//
//
// The parent's side of a run. Everything that needs no GPU happens here,
// once, before a worker starts: the compile (contained), the plan check
// against the compiled module, the whole-program assembly and the refusal
// of the device runtime, the counted copy. The workers get the results as
// files; they compile nothing.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Run/Submission.h"

#include "ptxbench/Run/CountedCopy.h"
#include "ptxbench/Run/ModuleKernels.h"
#include "ptxbench/Run/Sanitize.h"
#include "ptxbench/Runtime/Containment.h"
#include "ptxbench/Runtime/Harness.h"
#include "ptxbench/Runtime/HarnessCache.h"
#include "ptxbench/Runtime/PlanCheck.h"
#include "ptxbench/Runtime/TritonPlan.h"
#include "ptxbench/Runtime/Worker.h"
#include "ptxbench/Support/TempFile.h"
#include "ptxbench/Task/LaunchPlan.h"
#include "ptxbench/Toolchain/Assembler.h"
#include "ptxbench/Toolchain/CudaCompiler.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <chrono>
#include <optional>
#include <random>

using namespace llvm;
using namespace ptxbench;
using namespace ptxbench::runtime;
using ptxbench::run::SubmissionOptions;
using ptxbench::support::TempFile;

namespace {

Expected<std::string> readFile(StringRef path) {
  auto buffer = MemoryBuffer::getFile(path);
  if (!buffer)
    return createStringError(buffer.getError(), "cannot read " + path + ": " +
                                                    buffer.getError().message());
  return (*buffer)->getBuffer().str();
}

/// The submission as compiled, or why it is not.
struct Compiled {
  std::string ptx;
  std::string log;
  /// Set when the compile failed (its log and whether it timed out).
  std::optional<toolchain::CompiledSource> failed;
  /// A Triton submission's plan, lowered from what Triton compiled, or the
  /// mistakes that kept it from being one.
  std::optional<Expected<LaunchPlan>> tritonPlan;
  /// A Triton kernel's compile metadata (JSON), for the worker.
  std::string tritonBuild;
  /// Whether the PTX (and metadata) came from the caller's files.
  bool reused = false;
};

/// One run's parent side, step by step.
class Runner {
public:
  Runner(const Task &task, const SubmissionOptions &options, raw_ostream &out,
         raw_ostream &progress)
      : task(task), options(options), out(out), progress(progress),
        mark(std::chrono::steady_clock::now()) {}

  Expected<run::SubmissionRun> run();

private:
  void phase(StringRef name);
  Error chooseArch();
  Error compile(StringRef source);
  Error compileTriton(StringRef source);
  void compileCUDA(StringRef source);
  Error saveCompiled() const;
  /// Every workload ends with `status` and `message` (with the compile log).
  void endAll(Status status, StringRef message);
  /// Assembles the PTX whole; false when the run ends here.
  Expected<bool> assemble();
  std::vector<std::string> workerArgv(StringRef ptxPath) const;
  void addCountedCopy(std::vector<std::string> &argv);

  const Task &task;
  const SubmissionOptions &options;
  raw_ostream &out;
  raw_ostream &progress;
  std::chrono::steady_clock::time_point mark;

  run::SubmissionRun result;
  std::vector<Workload> workloads;
  bool haveGpu = false;
  std::string arch;
  Compiled compiled;
  TempFile tritonBuildFile, cubinFile, countedFile, countedCubinFile;
  run::CountedCopy counted;
  uint64_t seed = 0;
};

void Runner::phase(StringRef name) {
  auto now = std::chrono::steady_clock::now();
  result.result.phases.push_back(
      {name.str(),
       std::chrono::duration<double, std::milli>(now - mark).count()});
  mark = now;
}

// The target: the option's, else the GPU's, else sm_90a (nothing runs then).
Error Runner::chooseArch() {
  std::string deviceArch;
  haveGpu = probeGpu(result.why, nullptr, &deviceArch);
  arch = !options.arch.empty() ? options.arch
         : haveGpu             ? deviceArch
                               : std::string("sm_90a");
  if (Error e = toolchain::checkTargetName(arch))
    return createStringError("--arch: " + toString(std::move(e)));
  // sm_90 code runs on an sm_90a device; sm_100a code does not.
  if (haveGpu &&
      StringRef(arch).rtrim("af") != StringRef(deviceArch).rtrim("af"))
    return createStringError("--arch is " + arch + " but the GPU is " +
                             deviceArch + "; leave --arch out to use the GPU's");
  result.result.arch = arch;
  return Error::success();
}

Error Runner::compileTriton(StringRef source) {
  const std::string &path = options.solutionPath;
  if (!options.compiledPtx.empty() && !options.tritonBuild.empty()) {
    // Compiled before (a static stage, or --save-compiled elsewhere): the
    // PTX and the metadata the plan is lowered with.
    Expected<std::string> ptx = readFile(options.compiledPtx);
    if (!ptx)
      return ptx.takeError();
    Expected<std::string> build = readFile(options.tritonBuild);
    if (!build)
      return build.takeError();
    compiled.ptx = std::move(*ptx);
    compiled.tritonBuild = std::move(*build);
    compiled.reused = true;
    compiled.tritonPlan.emplace(
        submissionPlan(source, path, task, options.tritonBuild));
    if (options.verbose && *compiled.tritonPlan)
      out << "the Triton kernel is launched as:\n"
          << normalizedPlan(**compiled.tritonPlan);
    phase("compile (reused Triton's PTX)");
    return Error::success();
  }
  toolchain::TritonLimits limits;
  limits.helper = options.helper;
  limits.seconds = options.compileTimeoutSeconds;
  TritonBuild build = buildTriton(source, path, arch, task, limits);
  ++result.compiles;
  phase("compile (Triton)");
  const toolchain::CompiledTriton &c = build.compiled;
  result.result.compileSandbox = c.sandbox;
  if (!build.planError.empty())
    compiled.tritonPlan.emplace(createStringError(build.planError));
  else if (build.lowered) {
    if (options.verbose)
      out << "the Triton kernel is launched as:\n"
          << normalizedPlan(*build.lowered);
    compiled.tritonPlan.emplace(std::move(*build.lowered));
  }
  if (c.ok) {
    compiled.ptx = c.ptx;
    compiled.tritonBuild = formatv("{0}", toolchain::toJSON(c.build)).str();
    return Error::success();
  }
  if (!build.planError.empty()) {
    // Nothing compiled, for the plan's reasons: the plan check says so.
    compiled.failed = toolchain::CompiledSource();
    return Error::success();
  }
  toolchain::CompiledSource f;
  f.timedOut = c.timedOut;
  for (const toolchain::CompilerMessage &m : c.messages)
    f.log += m.location() + ": error: " + m.text + "\n";
  if (c.stage == toolchain::TritonStage::Gate ||
      c.stage == toolchain::TritonStage::Refused)
    f.log = "refused (" + tritonStageName(c.stage).str() +
            "): a Triton answer is @triton.jit kernels only, run by "
            "nothing but the harness:\n" +
            f.log;
  if (c.messages.empty() || c.stage == toolchain::TritonStage::Compile)
    f.log += c.log;
  compiled.log = StringRef(f.log).rtrim().str();
  compiled.failed = std::move(f);
  return Error::success();
}

void Runner::compileCUDA(StringRef source) {
  toolchain::CompileLimits limits;
  limits.helper = options.helper;
  limits.seconds = options.compileTimeoutSeconds;
  toolchain::CompiledSource c = toolchain::compileCUDA(
      source, sys::path::filename(options.solutionPath), arch, limits);
  ++result.compiles;
  compiled.log = StringRef(c.log).rtrim(StringRef("\0\n", 2)).str();
  result.result.compileSandbox = c.sandbox;
  phase("compile (NVRTC)");
  if (c.ok)
    compiled.ptx = std::move(c.ptx);
  else
    compiled.failed = std::move(c);
}

// Compile once, here, under the compile limits (NVRTC and Triton need no
// GPU); the plan check, the worker and the feature counts use this PTX.
Error Runner::compile(StringRef source) {
  const std::string &path = options.solutionPath;
  if (isTritonSource(path))
    return compileTriton(source);
  if (sys::path::extension(path) == ".ptx") {
    compiled.ptx = source.str();
    return Error::success();
  }
  if (options.compiledPtx.empty()) {
    compileCUDA(source);
    return Error::success();
  }
  Expected<std::string> ptx = readFile(options.compiledPtx);
  if (!ptx)
    return ptx.takeError();
  compiled.ptx = std::move(*ptx);
  compiled.reused = true;
  phase("compile (reused the static stage's PTX)");
  return Error::success();
}

// What was compiled, kept for a run elsewhere (a GPU host without NVRTC or
// Triton).
Error Runner::saveCompiled() const {
  if (options.saveCompiledPrefix.empty() || compiled.failed ||
      sys::path::extension(options.solutionPath) == ".ptx")
    return Error::success();
  std::vector<std::pair<std::string, StringRef>> files = {
      {options.saveCompiledPrefix + ".ptx", compiled.ptx}};
  if (!compiled.tritonBuild.empty())
    files.push_back(
        {options.saveCompiledPrefix + ".triton.json", compiled.tritonBuild});
  for (const auto &[path, text] : files) {
    std::error_code ec;
    raw_fd_ostream os(path, ec);
    if (!ec) {
      os << text;
      os.close();
    }
    if (ec || os.has_error()) {
      std::string why = ec ? ec.message() : std::string("write error");
      os.clear_error();
      return createStringError("cannot write " + path + ": " + why);
    }
  }
  return Error::success();
}

void Runner::endAll(Status status, StringRef message) {
  for (WorkloadResult &r : result.result.workloads) {
    r.status = status;
    r.message = message.str();
    r.compileLog = compiled.log;
  }
}

// Assemble once, here, as a whole program under the compile limit: the code
// the driver's JIT would make, loaded afresh for every launch.
Expected<bool> Runner::assemble() {
  std::optional<toolchain::AssembledModule> assembled =
      toolchain::assembleWholeProgram(
          compiled.ptx, arch, unsigned(options.compileTimeoutSeconds));
  if (!assembled)
    return true; // no ptxas here: the worker's driver JIT assembles it
  ++result.assemblies;
  phase("assemble (ptxas)");
  if (!assembled->ok) {
    endAll(assembled->timedOut ? Status::CompileTimeout : Status::CompileError,
           assembled->timedOut
               ? formatv("ptxas did not finish assembling the PTX for {0} "
                         "within {1} s",
                         arch, options.compileTimeoutSeconds)
                     .str()
               : "ptxas (" + arch + ") rejected the PTX:\n" +
                     assembled->errorLog);
    return false;
  }
  // The device runtime is refused here already (the worker checks the cubin
  // again): no GPU is needed to see it.
  StringRef cubin(assembled->cubin.data(), assembled->cubin.size());
  auto refused = refusedDeviceCalls(cubin);
  if (!refused || !refused->empty()) {
    endAll(Status::CompileError, refused ? refusedDeviceCallsMessage(*refused)
                                         : toString(refused.takeError()));
    return false;
  }
  auto file = TempFile::write("submission", "cubin", cubin);
  if (!file)
    return file.takeError();
  cubinFile = std::move(*file);
  return true;
}

std::vector<std::string> Runner::workerArgv(StringRef ptxPath) const {
  std::vector<std::string> argv = {options.helper,
                                   "run",
                                   "--worker",
                                   "--task=" + options.taskPath,
                                   "--solution=" + options.solutionPath,
                                   "--shapes=" + options.shapes,
                                   "--seed=" + std::to_string(seed)};
  if (!options.gpuLock.empty())
    argv.push_back("--gpu-lock=" + options.gpuLock);
  // References are reused only for a seed the caller chose: a fresh seed
  // never repeats.
  if ((options.cacheReferences || options.reuseBaseline) && options.seed) {
    SmallString<256> taskFile(options.taskPath);
    if (sys::fs::is_directory(taskFile))
      sys::path::append(taskFile, "task.json");
    if (auto text = MemoryBuffer::getFile(taskFile)) {
      argv.push_back(options.cacheReferences ? "--cache-references"
                                             : "--reuse-baseline");
      // A Python reference's module is part of what the reference is.
      std::string module;
      if (task.python)
        if (auto m = MemoryBuffer::getFile(task.python->module))
          module = (*m)->getBuffer().str();
      argv.push_back("--task-key=" + cacheKey({(*text)->getBuffer(), module}));
    }
  }
  if (!options.baseline)
    argv.push_back("--no-baseline");
  if (options.remeasurePeaks)
    argv.push_back("--remeasure-peaks");
  if (!ptxPath.empty())
    argv.push_back("--ptx=" + ptxPath.str());
  if (cubinFile)
    argv.push_back("--cubin=" + cubinFile.path());
  // The Triton kernel's metadata: written here, or the caller's.
  if (tritonBuildFile)
    argv.push_back("--triton-build=" + tritonBuildFile.path());
  else if (compiled.reused && !compiled.tritonBuild.empty())
    argv.push_back("--triton-build=" + options.tritonBuild);
  return argv;
}

// The instrumented copy, assembled the same way as the submission; a module
// it cannot assemble gets no run-time credit.
void Runner::addCountedCopy(std::vector<std::string> &argv) {
  counted = run::instrumentSubmission(
      task, compiled.ptx, arch, sys::path::filename(options.solutionPath));
  if (counted.ptx.empty())
    return;
  auto file = TempFile::write("counted", "ptx", counted.ptx);
  if (!file) {
    counted.note = toString(file.takeError());
    return;
  }
  countedFile = std::move(*file);
  if (cubinFile) {
    std::optional<toolchain::AssembledModule> assembled =
        toolchain::assembleWholeProgram(
            counted.ptx, arch, unsigned(options.compileTimeoutSeconds));
    std::optional<Expected<TempFile>> cubin;
    if (assembled && assembled->ok)
      cubin.emplace(TempFile::write(
          "counted", "cubin",
          StringRef(assembled->cubin.data(), assembled->cubin.size())));
    if (!cubin || !*cubin) {
      counted.note =
          "the instrumented PTX does not assemble" +
          (assembled ? ": " + assembled->errorLog : std::string());
      if (cubin)
        consumeError(cubin->takeError());
      countedFile = TempFile();
      return;
    }
    countedCubinFile = std::move(**cubin);
    argv.push_back("--count-cubin=" + countedCubinFile.path());
  }
  argv.push_back("--count-ptx=" + countedFile.path());
  argv.push_back("--count-control=" + counted.control);
  argv.push_back("--count-families=" + join(counted.families, ","));
}

Expected<run::SubmissionRun> Runner::run() {
  RunResult &run = result.result;
  auto selected = selectWorkloads(task, options.shapes);
  if (!selected)
    return selected.takeError();
  workloads = std::move(*selected);
  Expected<std::string> source = readFile(options.solutionPath);
  if (!source)
    return source.takeError();
  run.task = task.name;
  run.solution = options.solutionPath;
  run.baseline = task.baseline;
  if (Error e = chooseArch())
    return std::move(e);
  if (Error e = compile(*source))
    return std::move(e);
  if (Error e = saveCompiled())
    return std::move(e);
  if (!compiled.tritonBuild.empty() && !compiled.reused) {
    auto file = TempFile::write("submission", "json", compiled.tritonBuild);
    if (!file)
      return file.takeError();
    tritonBuildFile = std::move(*file);
  }

  // The plan needs no GPU: every mistake of it, for every workload, its
  // kernels held against the compiled module's.
  std::optional<std::vector<ModuleKernel>> kernels;
  if (!compiled.failed) {
    mlir::MLIRContext context;
    std::string diagnostics;
    if (mlir::OwningOpRef<ptx::ModuleOp> module = run::importSubmission(
            compiled.ptx, sys::path::filename(options.solutionPath), context,
            diagnostics))
      kernels = run::moduleKernels(*module);
  }
  phase("import and plan check");
  Expected<LaunchPlan> plan =
      compiled.tritonPlan ? std::move(*compiled.tritonPlan)
                          : parseLaunchPlan(*source, options.solutionPath);
  if (!checkPlanOffline(task, workloads, std::move(plan), options.solutionPath,
                        kernels
                            ? std::optional<ArrayRef<ModuleKernel>>(*kernels)
                            : std::nullopt,
                        run))
    return std::move(result);
  if (compiled.failed) {
    bool timedOut = compiled.failed->timedOut;
    std::string compiler = isTritonSource(options.solutionPath) ? "Triton"
                                                                : "NVRTC";
    endAll(timedOut ? Status::CompileTimeout : Status::CompileError,
           timedOut ? compiled.log
                    : compiler + " (" + arch + ") failed:\n" + compiled.log);
    return std::move(result);
  }
  Expected<bool> assembled = assemble();
  if (!assembled)
    return assembled.takeError();
  if (!*assembled)
    return std::move(result);

  if (!haveGpu) {
    std::vector<std::string> names;
    for (const ModuleKernel &k :
         kernels ? *kernels : std::vector<ModuleKernel>())
      names.push_back(k.name);
    out << "ptxbench: " << result.why << "\n";
    out << "the launch plan of " << options.solutionPath
        << " checks out against " << task.name << " (" << workloads.size()
        << " workloads"
        << (names.empty()
                ? std::string()
                : (names.size() == 1 ? "; kernel " : "; kernels ") +
                      join(names, ", ") + " found in the module compiled for " +
                      arch)
        << "); nothing was run\n";
    for (WorkloadResult &r : run.workloads) {
      r.status = Status::NoGpu;
      r.message = result.why;
    }
    result.noGpu = true;
    return std::move(result);
  }

  TempFile ptxFile;
  if (sys::path::extension(options.solutionPath) != ".ptx") {
    auto file = TempFile::write("submission", "ptx", compiled.ptx);
    if (!file)
      return file.takeError();
    ptxFile = std::move(*file);
  }
  seed = options.seed;
  if (!seed)
    seed =
        std::random_device{}() ^
        uint64_t(std::chrono::steady_clock::now().time_since_epoch().count());
  SuperviseOptions supervise;
  supervise.argv = workerArgv(ptxFile.path());
  if (options.featureCounts) {
    addCountedCopy(supervise.argv);
    phase("instrument and assemble the counted copy");
  }
  run.countsDisabled = !options.featureCounts;
  supervise.timeoutSeconds = options.timeoutSeconds;
  supervise.compileTimeoutSeconds = options.compileTimeoutSeconds;
  supervise.progress = &progress;
  out << "seed " << seed << " (rerun with --seed=" << seed
      << " to reproduce)\n";
  superviseWorkersOnGpu(workloads, supervise, run, progress);
  if (options.sanitize)
    run::sanitize(task, workloads, supervise.argv,
                  options.sanitizeTimeoutSeconds, run);
  for (WorkloadResult &r : run.workloads) {
    if (r.compileLog.empty())
      r.compileLog = compiled.log;
    for (FeatureCount &f : r.features)
      if (auto it = counted.inCode.find(f.family); it != counted.inCode.end())
        f.inCode = it->second;
    if (r.features.empty() && options.featureCounts && r.featureNote.empty()) {
      if (!counted.note.empty())
        r.featureNote = counted.note;
      else if (r.status != Status::Passed)
        r.featureNote = "not counted (the counted run follows a passing "
                        "timed run)";
    }
  }
  // Credit follows the work; a result faster than the card is suspicious.
  creditWork(run, task);
  judgeSpeedOfLight(run);
  return std::move(result);
}

} // namespace

Expected<run::SubmissionRun>
run::runSubmission(const Task &task, const SubmissionOptions &options,
                   raw_ostream &out, raw_ostream &progress) {
  Expected<SubmissionRun> ran = Runner(task, options, out, progress).run();
  if (ran)
    markSplits(task, ran->result);
  return ran;
}
