//===- WorkloadRunner.cpp - Check, time and count one workload ------------===//
//
// The order of a workload's runs: the checked trials (each on its own
// input set, into poisoned outputs), the timing loop with every launch
// checked, the check of the last timed launch and of the input hashes,
// then (untimed) the counted run and the knockouts of the instrumented
// variant, and last the library baseline on the same path. Every launch of
// the submission is prepared the same way (prepareLaunch): nothing an
// earlier launch wrote survives where the submission can reach it. Launching
// the plan (arguments, tensor maps, clusters, per-launch zeroing) is here
// too.
//
//===----------------------------------------------------------------------===//

#include "WorkloadRunner.h"

#include "ptxbench/ISA/WorkCounters.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include "ptxbench/Runtime/HarnessCache.h"

#include <cstring>

using namespace llvm;
using namespace ptxbench::runtime;

std::string ptxbench::runtime::allowDynamicSmem(Gpu &gpu, CUfunction fn,
                                                unsigned smem) {
  int staticBytes = 0;
  gpu.d.cuFuncGetAttribute(&staticBytes, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
                           fn);
  if (smem == 0 || staticBytes + smem <= 48 * 1024)
    return "";
  if (CUresult r = gpu.d.cuFuncSetAttribute(
          fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem))
    return "needs " + std::to_string(staticBytes) + " bytes of static and " +
           std::to_string(smem) +
           " of dynamic shared memory, more than the device allows a block (" +
           gpu.d.describe(r) + ")";
  return "";
}

WorkloadRunner::~WorkloadRunner() {
  current.unload();
  if (lost)
    return; // freeing in a lost context only produces more errors
  for (unsigned t = 0; t < bufs.tensors.buffers.size(); ++t)
    if (task.tensors[t].role == Role::Output)
      gpu.free(bufs.tensors.buffers[t]);
  for (InputSet &set : sets) {
    for (DeviceBuffer &b : set.inputs)
      gpu.free(b);
    for (DeviceBuffer &b : set.reference)
      gpu.free(b);
  }
  for (DeviceBuffer &b : bufs.workspaces)
    gpu.free(b);
  if (op)
    op->release();
}

MaybeFail WorkloadRunner::launchWith(ArrayRef<CUfunction> fns) {
  if (fns.size() != plan.kernels.size())
    return Failure{Status::HarnessError,
                   "no module of the submission is loaded for this launch"};
  for (const ResolvedWorkspace &w : plan.workspaces)
    if (w.zero == ZeroFill::EveryLaunch) {
      unsigned i = &w - plan.workspaces.data();
      TRY(gpu.check(
          d.cuMemsetD8Async(bufs.workspaces[i].ptr, 0, w.bytes, gpu.stream),
          Status::HarnessError, "zeroing workspace '" + w.name + "'"));
    }
  for (unsigned k = 0; k < plan.kernels.size(); ++k) {
    const ResolvedKernel &rk = plan.kernels[k];
    // Storage for each argument, kept alive across the launch.
    std::vector<std::array<uint64_t, 2>> scalars(rk.args.size());
    std::vector<void *> params;
    for (unsigned i = 0; i < rk.args.size(); ++i) {
      const ResolvedArg &arg = rk.args[i];
      switch (arg.kind) {
      case ResolvedArg::Kind::Tensor:
        scalars[i][0] = bufs.tensors.buffers[arg.index].ptr;
        params.push_back(scalars[i].data());
        break;
      case ResolvedArg::Kind::Workspace:
        scalars[i][0] = bufs.workspaces[arg.index].ptr;
        params.push_back(scalars[i].data());
        break;
      case ResolvedArg::Kind::TensorMap:
        params.push_back(&sets[active].maps[arg.index]);
        break;
      case ResolvedArg::Kind::Scalar:
        if (scalarTypeSize(arg.type) == 4) {
          uint32_t v = uint32_t(arg.value);
          std::memcpy(scalars[i].data(), &v, 4);
        } else {
          std::memcpy(scalars[i].data(), &arg.value, 8);
        }
        params.push_back(scalars[i].data());
        break;
      }
    }
    CUlaunchConfig config = {};
    config.gridDimX = rk.grid[0];
    config.gridDimY = rk.grid[1];
    config.gridDimZ = rk.grid[2];
    config.blockDimX = rk.block[0];
    config.blockDimY = rk.block[1];
    config.blockDimZ = rk.block[2];
    config.sharedMemBytes = rk.smem;
    config.hStream = gpu.stream;
    CUlaunchAttribute attr = {};
    if (rk.hasCluster) {
      attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
      attr.value.clusterDim.x = rk.cluster[0];
      attr.value.clusterDim.y = rk.cluster[1];
      attr.value.clusterDim.z = rk.cluster[2];
      config.attrs = &attr;
      config.numAttrs = 1;
    }
    TRY(gpu.check(d.cuLaunchKernelEx(&config, fns[k], params.data(), nullptr),
                  Status::LaunchError, "launching kernel '" + rk.name + "'"));
  }
  return std::nullopt;
}

MaybeFail WorkloadRunner::time(std::function<MaybeFail()> launch,
                               TimingStats &out) {
  return timeLaunches(gpu, task.timing, launch, out);
}

/// Times the library baseline on the same path, then checks its outputs
/// against the same reference (a sanity check of both); a failure is
/// reported in the message, never in the submission's status.
/// How long a baseline's time is reused (with the reference cache): the
/// card's clock and the library's choices drift slowly, so a sweep re-times
/// the library every ten minutes.
constexpr std::chrono::minutes baselineReuse(10);

void WorkloadRunner::runBaseline(WorkloadResult &result) {
  // A baseline timed recently on the same card, task, workload and seed is
  // reused with its checks.
  std::string cached;
  if (!baselineCacheKey.empty()) {
    cached = "baseline-" +
             cacheKey({cacheName(baselineCacheKey, 0), task.baseline,
                       gpu.haveLt && gpu.lt.cublasLtGetVersion
                           ? std::to_string(gpu.lt.cublasLtGetVersion())
                           : std::string()}) +
             ".json";
    if (std::optional<std::string> text = readCached(cached)) {
      auto v = json::parse(*text);
      if (!v)
        consumeError(v.takeError());
      const json::Object *o = v ? v->getAsObject() : nullptr;
      int64_t written = o ? o->getInteger("written").value_or(0) : 0;
      int64_t now = std::chrono::duration_cast<std::chrono::seconds>(
                        std::chrono::system_clock::now().time_since_epoch())
                        .count();
      WorkloadResult kept;
      if (o && now - written >= 0 &&
          now - written <
              std::chrono::duration_cast<std::chrono::seconds>(baselineReuse)
                  .count() &&
          o->get("result") && fromJSON(*o->get("result"), kept) &&
          kept.baselineTime) {
        result.baselineTime = kept.baselineTime;
        result.baselineChecks = kept.baselineChecks;
        result.baselineVersion = kept.baselineVersion;
        return;
      }
    }
  }
  std::function<MaybeFail()> launch;
  TimingStats bt;
  MaybeFail f = op->makeBaseline(launch);
  if (!f)
    f = time(launch, bt);
  if (!f)
    f = compareWithReference(op->baselineOutputs(), result.baselineChecks);
  if (f) {
    result.message = "baseline: " + f->message;
    lost |= f->contextLost;
    return;
  }
  result.baselineTime = bt;
  result.baselineVersion = op->baselineVersion();
  if (cached.empty())
    return;
  WorkloadResult kept;
  kept.baselineTime = bt;
  kept.baselineChecks = result.baselineChecks;
  kept.baselineVersion = result.baselineVersion;
  int64_t now = std::chrono::duration_cast<std::chrono::seconds>(
                    std::chrono::system_clock::now().time_since_epoch())
                    .count();
  writeCached(cached,
              formatv("{0}", json::Value(json::Object{{"written", now},
                                                      {"result",
                                                       toJSON(kept)}}))
                  .str());
}

std::string WorkloadRunner::faultNote() const {
  std::vector<std::string> names;
  for (unsigned t = 0; t < task.tensors.size(); ++t)
    names.push_back("'" + task.tensors[t].name + "' (" +
                    std::to_string(bufs.tensors.buffers[t].bytes) + " bytes)");
  for (const ResolvedWorkspace &w : plan.workspaces)
    names.push_back("workspace '" + w.name + "' (" + std::to_string(w.bytes) +
                    " bytes)");
  return "\nEvery tensor and workspace lies between unmapped guard pages and "
         "ends where its mapping ends, the inputs are read-only and the "
         "harness's own memory is sealed while the submission runs, so this "
         "is most likely a read or write outside one of them, or a write to "
         "an input: " +
         join(names, ", ") +
         ". The driver does not say which address; `ptxbench run "
         "--sanitize` runs compute-sanitizer to find the access.";
}

MaybeFail WorkloadRunner::prepareLaunch(
    unsigned s, const CompiledModule &module,
    const std::array<uint64_t, isa::numControlWords> *control) {
  TRY(gpu.check(d.cuStreamSynchronize(gpu.stream), Status::RuntimeError,
                "finishing the harness's work before a launch"));
  activate(s);
  lastSet = s;
  TRY(poisonOutputs());
  TRY(poisonScratch());
  TRY(gpu.scrubSharedMemory());
  TRY(current.load(gpu, module, control));
  TRY(gpu.check(d.cuStreamSynchronize(gpu.stream), Status::RuntimeError,
                "preparing a launch"));
  return gpu.seal(true);
}

MaybeFail WorkloadRunner::finishLaunch(StringRef what) {
  MaybeFail f = gpu.check(d.cuStreamSynchronize(gpu.stream),
                          Status::RuntimeError, what);
  if (f && f->contextLost) {
    lost = true;
    return f;
  }
  if (MaybeFail g = gpu.seal(false))
    return f ? f : g;
  current.unload();
  return f;
}

std::chrono::steady_clock::time_point
WorkloadRunner::addPhase(StringRef name,
                         std::chrono::steady_clock::time_point since) {
  auto now = std::chrono::steady_clock::now();
  double ms = std::chrono::duration<double, std::milli>(now - since).count();
  auto it = llvm::find_if(phases, [&](const Phase &p) { return p.name == name; });
  if (it == phases.end())
    phases.push_back({name.str(), ms});
  else
    it->ms += ms;
  return now;
}

void WorkloadRunner::run(WorkloadResult &result, bool baseline,
                         bool checkOnly) {
  llvm::scope_exit keepPhases([&] { result.phases = phases; });
  auto mark = std::chrono::steady_clock::now();
  auto fail = [&](const Failure &f) {
    result.status = f.status;
    result.message = f.message;
    if (f.contextLost && StringRef(f.message).contains("ILLEGAL_ADDRESS"))
      result.message += faultNote();
    lost |= f.contextLost;
  };
  trialsOnly = checkOnly;
  if (MaybeFail f = allocate())
    return fail(*f);
  collectIntegrityChecks();
  mark = std::chrono::steady_clock::now();
  // Correctness: several trials, each on its own input set, into poisoned
  // outputs.
  for (unsigned trial = 0; trial < task.trials; ++trial) {
    MaybeFail f = prepareLaunch(trial % sets.size(), submission.plain);
    if (!f)
      f = launchSubmission();
    if (MaybeFail g = finishLaunch("running the submission"); !f)
      f = g;
    if (!f)
      f = checkIntegrity(("in trial " + Twine(trial + 1)).str());
    if (f)
      return fail(*f);
    if (MaybeFail f2 = checkOutputs(result, ("in trial " + Twine(trial + 1) +
                                             " of " + Twine(task.trials))
                                                .str()))
      return fail(*f2);
  }
  mark = addPhase("checked trials", mark);
  if (checkOnly) {
    result.status = Status::Passed;
    return;
  }
  // Timing with every launch checked, then the last launch's output
  // checked in full on the host.
  TimingStats t;
  MaybeFail timed = timeSubmission(result, t);
  mark = addPhase("timing loop", mark);
  if (timed)
    return fail(*timed);
  result.time = t;
  phases.push_back({"timed launches (kernel time)", t.meanMs * t.samples});
  if (MaybeFail f = checkOutputs(result, "of the last timed launch"))
    return fail(*f);
  // Inputs untouched through all of it (they are read-only as well).
  for (unsigned s = 0; s < sets.size(); ++s) {
    std::vector<uint64_t> now;
    if (MaybeFail f = hashInputs(s, now))
      return fail(*f);
    for (unsigned t = 0; t < now.size(); ++t)
      if (now[t] != sets[s].hashes[t])
        return fail(Failure{Status::Incorrect,
                            "input '" + task.tensors[t].name + "' (input set " +
                                std::to_string(s + 1) +
                                ") was modified by the submission during the "
                                "timed runs"});
  }
  result.status = Status::Passed;
  // The work: counted on a checked run, then the knockouts. A failure of
  // the counted run is the workload's.
  mark = addPhase("final checks", mark);
  if (submission.instrumented) {
    MaybeFail counted = countWork(result);
    mark = addPhase("counted run", mark);
    if (counted)
      return fail(*counted);
    runKnockouts(result);
    mark = addPhase("knockout runs", mark);
    if (lost)
      return; // a knockout faulted: no baseline in this context
  }
  if (!baseline || task.baseline == "none")
    return;
  runBaseline(result);
  addPhase("baseline", mark);
}
