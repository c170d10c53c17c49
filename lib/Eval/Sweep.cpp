//===- Sweep.cpp - Evaluate a tree of samples into the store --------------===//
//
// Worker threads take samples from a shared index. A run is shared only
// between samples that would run identically: the same reuse key (the
// canonical kernels, the normalized launch plan, the task file, arch,
// shapes and harness settings). The first worker to reach a key owns a
// slot the others wait on (the owner never waits, so this cannot deadlock);
// a result that cannot stand for another sample (reusableRun()) sends each
// waiter to run its own. GPUs are handed out from a pool, one run per GPU
// at a time.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Eval/Sweep.h"

#include "ptxbench/Eval/GpuPool.h"
#include "ptxbench/Eval/GpuRun.h"
#include "ptxbench/Eval/StaticStage.h"
#include "ptxbench/Eval/Summary.h"
#include "ptxbench/ISA/ISA.h"
#include "ptxbench/Runtime/Result.h"
#include "ptxbench/Support/HostPaths.h"
#include "ptxbench/Support/RunTool.h"
#include "ptxbench/Support/Sandbox.h"
#include "ptxbench/Task/LaunchPlan.h"
#include "ptxbench/Task/Task.h"
#include "ptxbench/Toolchain/Assembler.h"
#include "ptxbench/Toolchain/CudaCompiler.h"

#include "llvm/Config/llvm-config.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SHA256.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>
#include <unistd.h>

using namespace ptxbench;
using namespace ptxbench::eval;
using llvm::StringRef;
using Clock = std::chrono::steady_clock;

namespace {

/// A task as the sweep needs it: its folder and requested families, or why
/// it cannot be used.
struct TaskInfo {
  std::string dir;
  std::vector<std::string> requested;
  /// The task requires fp32 accumulation.
  bool f32Accumulate = false;
  /// SHA-256 of task.json, part of every reuse key.
  std::string fileHash;
  /// The task and the workloads of the sweep's shapes, for the launch
  /// plan's check.
  std::optional<runtime::Task> task;
  std::vector<runtime::Workload> workloads;
  std::string error;
};

/// A GPU run that samples with the same canonical code share.
struct Slot {
  std::mutex mutex;
  std::condition_variable cv;
  bool done = false;
  /// The sample that ran, with its results.
  SampleRecord result;
};

/// Slots by key: the first to claim a key runs, the others wait for its
/// result.
class SharedRuns {
public:
  /// The key's slot, and whether the caller owns it (and must publish()).
  std::pair<std::shared_ptr<Slot>, bool> claim(const std::string &key) {
    std::lock_guard<std::mutex> lock(mutex);
    std::shared_ptr<Slot> &entry = slots[key];
    bool owner = !entry;
    if (owner)
      entry = std::make_shared<Slot>();
    return {entry, owner};
  }

  static void publish(Slot &slot, const SampleRecord &result) {
    {
      std::lock_guard<std::mutex> lock(slot.mutex);
      slot.result = result;
      slot.done = true;
    }
    slot.cv.notify_all();
  }

  static const Slot &wait(Slot &slot) {
    std::unique_lock<std::mutex> lock(slot.mutex);
    slot.cv.wait(lock, [&] { return slot.done; });
    return slot;
  }

private:
  std::mutex mutex;
  std::map<std::string, std::shared_ptr<Slot>> slots;
};

/// Counts by status and the time left, on one line.
class Progress {
public:
  Progress(llvm::raw_ostream *os, unsigned total, unsigned skipped)
      : os(os), total(total), skipped(skipped), start(Clock::now()),
        tty(os && llvm::sys::Process::StandardErrIsDisplayed()) {}
  /// A line of its own (after the progress line, when on a terminal).
  void note(const std::string &text) {
    std::lock_guard<std::mutex> lock(mutex);
    llvm::raw_ostream &out = os ? *os : llvm::errs();
    out << (tty && done ? "\n" : "") << text << "\n";
    out.flush();
  }
  void record(StringRef status, bool reused, SweepStats &stats) {
    std::lock_guard<std::mutex> lock(mutex);
    ++stats.evaluated;
    stats.reused += reused;
    ++stats.byStatus[status.str()];
    ++done;
    auto now = Clock::now();
    if (!os || (done < total && now - lastPrint < std::chrono::seconds(1)))
      return;
    lastPrint = now;
    double elapsed = std::chrono::duration<double>(now - start).count();
    double left = done ? elapsed / done * (total - done) : 0;
    std::string counts;
    for (auto &[name, count] : stats.byStatus)
      counts += llvm::formatv("{0}{1} {2}", counts.empty() ? "" : ", ", name,
                              count)
                    .str();
    *os << (tty ? "\r" : "")
        << llvm::formatv("eval: {0}/{1} ({2}; {3} reused, {4} already "
                         "recorded) {5:f1}s, ~{6:f0}s left",
                         done, total, counts, stats.reused, skipped, elapsed,
                         left)
        << (tty && done < total ? "" : "\n");
    os->flush();
  }

private:
  std::mutex mutex;
  llvm::raw_ostream *os;
  unsigned total, skipped, done = 0;
  Clock::time_point start, lastPrint;
  bool tty;
};

std::string hostName() {
  char name[256] = {0};
  gethostname(name, sizeof(name) - 1);
  return name;
}

/// The static stage's fields of `from` (a StaticOutcome's record) onto
/// `record`.
void adoptStaticFields(SampleRecord &record, SampleRecord &from) {
  record.solutionPath = std::move(from.solutionPath);
  record.language = std::move(from.language);
  record.code = std::move(from.code);
  record.canonicalHash = std::move(from.canonicalHash);
  record.status = std::move(from.status);
  record.error = std::move(from.error);
  record.diagnosticsJson = std::move(from.diagnosticsJson);
  record.staticJson = std::move(from.staticJson);
  record.runStatus = std::move(from.runStatus);
  record.runJson = std::move(from.runJson);
}

/// Copies the run of a sample with the same reuse key onto `record`, told
/// of `record`'s own file, as its own run would have been.
void copyRun(SampleRecord &record, const SampleRecord &from) {
  record.runStatus = from.runStatus;
  record.runJson =
      renameInJson(from.runJson, from.sourceName(), record.sourceName());
  record.environmentJson = from.environmentJson;
  record.reusedFrom = from.key.str();
}

std::string sha256Hex(StringRef text) {
  return llvm::toHex(llvm::SHA256::hash(llvm::arrayRefFromStringRef(text)),
                     /*LowerCase=*/true);
}

/// The sweep's environment plus the GPU slot and the device the run named.
std::string environmentWith(llvm::StringRef base, llvm::StringRef gpu,
                            llvm::StringRef runJson) {
  std::optional<llvm::json::Value> env = parseStoredJson(base);
  if (!env || !env->getAsObject())
    return base.str();
  llvm::json::Object &o = *env->getAsObject();
  o["cuda_visible_devices"] = gpu.str();
  // What the run wrote (toJSON(RunResult) writes the device and the peaks'
  // source always, the rest when known).
  if (std::optional<runtime::RunResult> run =
          runtime::parseRunResult(runJson)) {
    o["device"] = run->device;
    o["peak_source"] = run->peakSource;
    if (!run->driver.empty())
      o["driver"] = run->driver;
    if (run->cudaDriverVersion)
      o["cuda_driver_version"] = run->cudaDriverVersion;
    if (run->cublasLtVersion)
      o["cublaslt_version"] = run->cublasLtVersion;
    if (run->peakTflops > 0)
      o["peak_tflops"] = run->peakTflops;
    if (run->peakGBps > 0)
      o["peak_gbps"] = run->peakGBps;
  }
  return llvm::formatv("{0}", llvm::json::Value(std::move(*env))).str();
}

} // namespace

/// Modification time of `file` in Unix milliseconds; 0 when it is missing.
static int64_t modifiedMs(StringRef file) {
  llvm::sys::fs::file_status status;
  if (file.empty() || llvm::sys::fs::status(file, status))
    return 0;
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             status.getLastModificationTime().time_since_epoch())
      .count();
}

bool ptxbench::eval::isCurrent(const SampleRecord &row,
                               const SampleInput &input,
                               const SweepOptions &options) {
  if (row.arch != options.arch || row.shapes != options.shapes)
    return false;
  // No answer then is no verdict now: the answer may have come since.
  if (row.status == status::NoSolution || row.status == status::ExtractError)
    return false;
  // The answer on disk was written after the row.
  for (StringRef file :
       {StringRef(input.solutionPath), StringRef(input.responsePath)})
    if (modifiedMs(file) > row.recordedAtMs)
      return false;
  // A run result is wanted, unless static-only or it never got to run; a
  // run that found no GPU, or failed in the harness, is no result.
  if (options.staticOnly || !row.analyzed())
    return true;
  return row.ran() &&
         !runtime::isStatus(row.runStatus, runtime::Status::NoGpu) &&
         !runtime::isStatus(row.runStatus, runtime::Status::HarnessError);
}

llvm::json::Object ptxbench::eval::toolchainVersions() {
  llvm::json::Object versions{{"llvm", LLVM_VERSION_STRING}};
  if (std::string nvrtc = toolchain::nvrtcVersion(); !nvrtc.empty())
    versions["nvrtc"] = nvrtc;
  std::optional<std::string> ptxas = toolchain::findPtxas();
  if (!ptxas)
    return versions;
  auto out = support::runTool({*ptxas, "--version"}, /*seconds=*/30,
                              support::ToolStreams::StdoutOnly);
  if (!out) {
    llvm::consumeError(out.takeError());
    return versions;
  }
  if (!out->succeeded())
    return versions;
  // "Cuda compilation tools, release 13.0, V13.0.88" (the line before
  // "Build cuda_13.0.r13.0/compiler...").
  llvm::SmallVector<StringRef> lines;
  StringRef(out->text).split(lines, '\n', -1, false);
  for (StringRef line : lines)
    if (line.contains("release"))
      versions["ptxas"] = line.trim().str();
  if (!versions.get("ptxas") && !lines.empty())
    versions["ptxas"] = lines.back().trim().str();
  return versions;
}

std::string ptxbench::eval::reuseKey(StringRef canonicalHash,
                                     StringRef normalizedPlan,
                                     StringRef taskHash,
                                     const SweepOptions &options) {
  return sha256Hex(
      llvm::formatv("ptxbench reuse key 1\nkernels {0}\nplan\n{1}task {2}\n"
                    "arch {3}\nshapes {4}\ntimeout {5}\ncompile-timeout {6}\n",
                    canonicalHash, normalizedPlan, taskHash, options.arch,
                    options.shapes, options.runTimeoutSeconds,
                    options.compileTimeoutSeconds)
          .str());
}

llvm::Expected<SweepStats>
ptxbench::eval::runSweep(ResultsStore &store,
                         const std::vector<SampleInput> &samples,
                         const SweepOptions &options) {
  SweepStats stats;
  auto sweepStart = Clock::now();
  std::atomic<unsigned> gpuRuns{0};
  // The samples' children say nothing to the terminal: what the sandbox
  // lacks on this kernel is said here, once.
  auto sandbox = sandboxModeFromEnvironment();
  if (!sandbox)
    return sandbox.takeError();
  noteSandboxFallbackOnce(*sandbox, llvm::errs());
  // What is recorded of these samples: looked up one by one for a few
  // (`generate` evaluates a turn at a time, and reading a large store whole
  // for each would cost time quadratic in its size), else read whole.
  std::vector<SampleRecord> recorded;
  if (samples.size() <= 16) {
    for (const SampleInput &s : samples) {
      auto r = store.get(s.key);
      if (!r)
        return r.takeError();
      if (*r)
        recorded.push_back(std::move(**r));
    }
  } else {
    auto all = store.all();
    if (!all)
      return all.takeError();
    recorded = std::move(*all);
  }
  std::map<SampleKey, const SampleRecord *> byKey;
  for (const SampleRecord &r : recorded)
    byKey[r.key] = &r;

  // What is left: in the shard, and not recorded as it is on disk now.
  std::vector<const SampleInput *> pending;
  for (const SampleInput &s : samples) {
    if (!inShard(s.key, options.shard))
      continue;
    ++stats.inShard;
    auto it = byKey.find(s.key);
    if (it != byKey.end() && isCurrent(*it->second, s, options)) {
      ++stats.skipped;
      // A row recorded before the store kept usage (or before the answer's
      // generation.json was read) gets it now, without another evaluation.
      SampleRecord row = *it->second;
      if (!row.generation.known() && loadGeneration(s, row))
        if (llvm::Error e = store.put(row))
          return std::move(e);
      continue;
    }
    pending.push_back(&s);
  }

  // Tasks, loaded once.
  llvm::StringMap<TaskInfo> tasks;
  for (const SampleInput *s : pending) {
    if (tasks.count(s->key.task))
      continue;
    TaskInfo &info = tasks[s->key.task];
    llvm::SmallString<256> dir(options.tasksDir);
    llvm::sys::path::append(dir, s->key.task);
    info.dir = std::string(dir);
    llvm::SmallString<256> file(dir);
    llvm::sys::path::append(file, "task.json");
    if (auto buffer = llvm::MemoryBuffer::getFile(file))
      info.fileHash = sha256Hex((*buffer)->getBuffer());
    auto task = runtime::loadTask(dir);
    if (!task) {
      info.error = toString(task.takeError());
      continue;
    }
    auto it = task->features.find(options.arch);
    if (it == task->features.end()) {
      info.error = "task '" + s->key.task + "' requests no features for " +
                   options.arch;
      continue;
    }
    for (const std::string &f : it->second)
      if (!isa::familiesOfRequirement(f))
        info.error = info.dir + "/task.json: unknown feature family '" + f +
                     "' for " + options.arch;
    info.requested = it->second;
    info.f32Accumulate = task->accumulate == "f32";
    auto selected = runtime::selectWorkloads(*task, options.shapes);
    if (!selected) {
      info.error = toString(selected.takeError());
      continue;
    }
    info.workloads = std::move(*selected);
    info.task = std::move(*task);
  }

  std::string environment = llvm::formatv(
      "{0}", llvm::json::Value(llvm::json::Object{
                 {"host", hostName()},
                 {"arch", options.arch},
                 {"tool", options.tool},
                 {"static_only", options.staticOnly},
                 {"sass", options.sass},
                 {"toolchain", toolchainVersions()}}));

  Progress progress(options.progress, pending.size(), stats.skipped);
  GpuPool gpus(options.gpus, options.runsPerGpu);
  std::mutex errorMutex;
  SharedRuns runs;
  std::atomic<size_t> next{0};
  std::optional<llvm::Error> firstError;

  StaticLimits analysisLimits;
  analysisLimits.helper = options.tool;
  analysisLimits.seconds = options.analysisTimeoutSeconds;
  analysisLimits.memoryMB = options.analysisMemoryMB;

  // What the store keeps (and a model may be sent) names no folder of this
  // host: the sample's, the tasks', the tool's, the toolkit's, the working
  // folder, $HOME, temporary files. The writers name files relative to the
  // submission themselves; this is the last pass.
  HostPaths hostPaths = HostPaths::standard();
  hostPaths.addFolder(options.tasksDir, "tasks");
  if (StringRef toolDir = llvm::sys::path::parent_path(options.tool);
      !toolDir.empty())
    hostPaths.addFolder(toolDir);
  for (const std::string &dir : toolchain::toolkitIncludeDirs())
    hostPaths.addFolder(dir);

  auto evaluate = [&](const SampleInput &input) {
    auto start = Clock::now();
    SampleRecord record;
    record.key = input.key;
    record.arch = options.arch;
    record.shapes = options.shapes;
    record.environmentJson = environment;
    loadGeneration(input, record);
    const TaskInfo &task = tasks[input.key.task];
    StaticOptions staticOptions;
    staticOptions.arch = options.arch;
    staticOptions.requested = task.requested;
    staticOptions.f32Accumulate = task.f32Accumulate;
    staticOptions.assemble = options.assemble;
    staticOptions.sass = options.sass;
    staticOptions.compileLimits.helper = options.tool;
    staticOptions.compileLimits.seconds = options.compileTimeoutSeconds;

    auto commit = [&] {
      HostPaths paths = hostPaths;
      paths.addFolder(input.dir);
      record.error = paths(record.error);
      record.diagnosticsJson = paths.applyToJSON(record.diagnosticsJson);
      record.staticJson = paths.applyToJSON(record.staticJson);
      record.runJson = paths.applyToJSON(record.runJson);
      record.staticSeconds =
          std::chrono::duration<double>(Clock::now() - start).count() -
          record.runSeconds;
      if (llvm::Error e = store.put(record)) {
        std::lock_guard<std::mutex> lock(errorMutex);
        if (!firstError)
          firstError = std::move(e);
        else
          llvm::consumeError(std::move(e));
      }
      progress.record(record.ran() ? StringRef(record.runStatus)
                                   : StringRef(record.status),
                      !record.reusedFrom.empty(), stats);
    };

    // Everything that reads the sample runs in a child of its own: a crash
    // there is this sample's status, not the end of the sweep.
    StaticRequest request;
    request.input = input;
    request.taskDir = task.dir;
    request.shapes = options.shapes;
    request.options = staticOptions;
    request.taskError = task.error;
    StaticOutcome outcome = runStaticStageContained(request, analysisLimits);
    adoptStaticFields(record, outcome.record);
    if (record.status == status::Crashed)
      progress.note("eval: " + input.key.str() + ": " + record.error +
                    "; recorded as `crashed`, the sweep goes on");
    if (!record.analyzed() || record.ran() || options.staticOnly)
      return commit();
    // A run is shared only with samples that would run the same way: the
    // same reuse key. Without a plan that parses there is none.
    if (outcome.normalizedPlan)
      record.reuseKey = reuseKey(record.canonicalHash, *outcome.normalizedPlan,
                                 task.fileHash, options);
    std::shared_ptr<Slot> slot;
    if (!record.reuseKey.empty()) {
      auto stored = store.findReusable(record.reuseKey);
      if (!stored)
        llvm::consumeError(stored.takeError());
      if (stored && *stored) {
        copyRun(record, **stored);
        return commit();
      }
      auto [claimed, owner] = runs.claim(record.reuseKey);
      if (!owner) {
        const Slot &done = SharedRuns::wait(*claimed);
        if (reusableRun(done.result.runStatus)) {
          copyRun(record, done.result);
          return commit();
        }
      } else {
        slot = claimed;
      }
    }
    GpuRunOptions run;
    run.tool = options.tool;
    run.taskDir = task.dir;
    run.shapes = options.shapes;
    run.timeoutSeconds = options.runTimeoutSeconds;
    run.compileTimeoutSeconds = options.compileTimeoutSeconds;
    run.seed = options.seed;
    run.compiledPtx = std::move(outcome.ptx);
    run.tritonBuild = std::move(outcome.tritonBuild);
    run.gpu = gpus.acquire();
    runOnGpu(record, run);
    gpus.release(run.gpu);
    ++gpuRuns;
    record.environmentJson =
        environmentWith(environment, run.gpu, record.runJson);
    if (slot)
      SharedRuns::publish(*slot, record);
    commit();
  };

  unsigned jobs = std::max(1u, std::min<unsigned>(options.jobs,
                                                  pending.size()));
  std::vector<std::thread> workers;
  for (unsigned j = 0; j < jobs; ++j)
    workers.emplace_back([&] {
      for (size_t i; (i = next++) < pending.size();) {
        evaluate(*pending[i]);
      }
    });
  for (std::thread &t : workers)
    t.join();
  if (firstError)
    return std::move(*firstError);
  stats.gpuRuns = gpuRuns;
  stats.gpus = options.staticOnly ? 0 : unsigned(options.gpus.size());
  stats.wallSeconds =
      std::chrono::duration<double>(Clock::now() - sweepStart).count();
  return stats;
}
