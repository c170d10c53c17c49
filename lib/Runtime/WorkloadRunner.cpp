//===- WorkloadRunner.cpp - Check, time and count one workload ------------===//
//
// The order of a workload's runs: the checked trials (each on its own
// input set, into poisoned outputs, inputs compared before and after), the
// timing loop with every launch checked, the check of the last timed
// launch, the input hashes and zero=once workspaces after all of it, then
// the library baseline on the same path and, untimed, the instrumented
// variant for the run-time feature and work counts. Launching the plan
// (arguments, tensor maps, clusters, per-launch zeroing) is here too.
//
//===----------------------------------------------------------------------===//

#include "WorkloadRunner.h"

#include "ptxbench/Analysis/WorkCounters.h"

#include "llvm/ADT/StringExtras.h"

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

MaybeFail WorkloadRunner::launchWith(ArrayRef<CUfunction> fns,
                                     CUdeviceptr counters) {
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
    uint64_t countersArg = counters;
    if (counters)
      params.push_back(&countersArg);
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
void WorkloadRunner::runBaseline(WorkloadResult &result) {
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
         "ends where its mapping ends, so this is most likely a read or write "
         "outside one of them: " +
         join(names, ", ") +
         ". The driver does not say which address; `ptxbench run "
         "--sanitize` runs compute-sanitizer to find the access.";
}

void WorkloadRunner::run(WorkloadResult &result, bool baseline,
                         bool checkOnly) {
  auto fail = [&](const Failure &f) {
    if (result.status == Status::Skipped || f.status != Status::Incorrect) {
      result.status = f.status;
      result.message = f.message;
      if (f.contextLost && StringRef(f.message).contains("ILLEGAL_ADDRESS"))
        result.message += faultNote();
    }
    lost |= f.contextLost;
  };
  trialsOnly = checkOnly;
  if (MaybeFail f = allocate())
    return fail(*f);
  // Correctness: several trials, each on its own input set, into poisoned
  // outputs.
  for (unsigned trial = 0; trial < task.trials; ++trial) {
    std::vector<std::vector<char>> snap;
    activate(trial % sets.size());
    MaybeFail f = poisonOutputs();
    if (!f)
      f = poisonScratch();
    if (!f)
      f = gpu.restoreGlobals();
    if (!f)
      f = gpu.check(d.cuStreamSynchronize(gpu.stream), Status::HarnessError,
                    "preparing inputs");
    if (!f)
      f = snapshotInputs(snap);
    if (!f)
      f = launchSubmission();
    if (!f)
      f = gpu.check(d.cuStreamSynchronize(gpu.stream), Status::RuntimeError,
                    "running the submission");
    if (f)
      return fail(*f);
    std::string changed;
    if (MaybeFail f2 = checkInputsUnchanged(snap, changed))
      return fail(*f2);
    if (!changed.empty())
      return fail(Failure{Status::Incorrect, changed});
    if (MaybeFail f2 = checkOutputs(result, ("in trial " + Twine(trial + 1) +
                                             " of " + Twine(task.trials))
                                                .str()))
      return fail(*f2);
  }
  if (checkOnly) {
    result.status = Status::Passed;
    return;
  }
  // Timing with every launch checked, then the last launch's output
  // checked in full on the host.
  TimingStats t;
  if (MaybeFail f = timeSubmission(result, t))
    return fail(*f);
  result.time = t;
  if (MaybeFail f = checkOutputs(result, "of the last timed launch"))
    return fail(*f);
  // Inputs untouched and zero=once workspaces zeroed through all of it.
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
  std::vector<uint64_t> nonZero;
  if (MaybeFail f = nonZeroOnce(nonZero))
    return fail(*f);
  for (unsigned i = 0; i < nonZero.size(); ++i)
    if (nonZero[i])
      return fail(Failure{
          Status::Incorrect,
          "workspace '" + plan.workspaces[i].name + "' (zero=once) holds " +
              std::to_string(nonZero[i]) +
              " non-zero bytes after the timed runs: the kernels must leave "
              "it zeroed"});
  result.status = Status::Passed;
  if (!baseline || task.baseline == "none")
    return;
  runBaseline(result);
}

void WorkloadRunner::countFeatures(WorkloadResult &result,
                                   ArrayRef<std::string> families) {
  if (!gpu.counted) {
    result.featureNote = gpu.countedError;
    return;
  }
  for (unsigned k = 0; k < plan.kernels.size(); ++k)
    allowDynamicSmem(gpu, gpu.countedFunctions[k], plan.kernels[k].smem);
  // The family counters, then the work counters (WorkCounters.h).
  size_t numCounters = families.size() + ptxbench::analysis::numWorkCounters;
  DeviceBuffer counters;
  MaybeFail f = gpu.alloc(counters, 8 * numCounters);
  if (!f)
    f = gpu.check(
        d.cuMemsetD8Async(counters.ptr, 0, counters.bytes, gpu.stream),
        Status::HarnessError, "zeroing the feature counters");
  if (!f)
    f = launchWith(gpu.countedFunctions, counters.ptr);
  if (!f)
    f = gpu.check(d.cuStreamSynchronize(gpu.stream), Status::RuntimeError,
                  "running the instrumented submission");
  std::vector<uint64_t> counts(numCounters);
  if (!f)
    f = gpu.check(d.cuMemcpyDtoH(counts.data(), counters.ptr, counters.bytes),
                  Status::HarnessError, "reading the feature counters");
  if (f) {
    result.featureNote = "the instrumented run failed: " + f->message;
    lost |= f->contextLost;
    if (!lost)
      gpu.free(counters);
    return;
  }
  gpu.free(counters);
  for (unsigned i = 0; i < families.size(); ++i)
    result.features.push_back({families[i], -1, int64_t(counts[i])});
  using ptxbench::analysis::WorkCounter;
  auto work = [&](WorkCounter c) {
    return double(counts[families.size() + unsigned(c)]);
  };
  WorkCounts &w = result.work;
  w.measured = true;
  w.wgmmaFlops = work(WorkCounter::WgmmaFlops);
  w.mmaSyncFlops = work(WorkCounter::MmaSyncFlops);
  w.wmmaFlops = work(WorkCounter::WmmaFlops);
  w.tcgen05Flops = work(WorkCounter::Tcgen05Flops);
  w.asyncBytes = std::max(0.0, work(WorkCounter::TxBytes) -
                                   work(WorkCounter::CompleteTxBytes));
  w.globalLoadBytes = work(WorkCounter::GlobalLoadBytes);
  w.cpAsyncBytes = work(WorkCounter::CpAsyncBytes);
}
