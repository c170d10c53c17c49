//===- WorkloadWork.cpp - The counted run and the knockouts ---------------===//
//
// How much of a workload's work went through which instructions, measured
// on runs that are checked like the timed ones: the counted run launches
// the instrumented variant once, prepared like every launch (a fresh
// module, poisoned outputs, scrubbed shared memory, sealed harness memory)
// on an input set the last launch did not use, and must pass the task's
// check; a fault or a wrong output there is the workload's failure. Then
// one knockout run per kind of matrix instruction that executed, the same
// variant with that kind switched off: if the outputs still pass, that
// kind's work did not reach them and earns no credit.
//
//===----------------------------------------------------------------------===//

#include "WorkloadRunner.h"

#include "ptxbench/Analysis/WorkCounters.h"

#include <random>

using namespace llvm;
using namespace ptxbench::runtime;
using ptxbench::analysis::KnockoutBit;
using ptxbench::analysis::WorkCounter;

unsigned WorkloadRunner::otherSet(uint64_t salt) const {
  if (sets.size() < 2)
    return 0;
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + salt);
  unsigned next = unsigned(rng() % (sets.size() - 1));
  return next >= lastSet ? next + 1 : next;
}

MaybeFail WorkloadRunner::allocCounters(DeviceBuffer &counters) {
  size_t n = submission.countFamilies.size() + analysis::numWorkCounters;
  TRY(gpu.allocGuarded(counters, 8 * n));
  return gpu.check(
      d.cuMemsetD8Async(counters.ptr, 0, counters.bytes, gpu.stream),
      Status::HarnessError, "zeroing the feature counters");
}

MaybeFail WorkloadRunner::countWork(WorkloadResult &result) {
  const CompiledModule &module = *submission.instrumented;
  const std::vector<std::string> &families = submission.countFamilies;
  DeviceBuffer counters;
  TRY(allocCounters(counters));
  std::array<uint64_t, analysis::numControlWords> control = {counters.ptr, 0};
  MaybeFail f = prepareLaunch(otherSet(1), module, &control);
  if (!f)
    f = launchSubmission();
  if (MaybeFail g = finishLaunch("the counted run"); !f)
    f = g;
  if (!f)
    f = checkIntegrity("of the counted run");
  std::vector<uint64_t> counts(counters.bytes / 8);
  if (!f)
    f = gpu.check(d.cuMemcpyDtoH(counts.data(), counters.ptr, counters.bytes),
                  Status::HarnessError, "reading the feature counters");
  if (!lost)
    gpu.free(counters);
  if (f) {
    f->message = "the counted run (the instrumented kernels, checked like a "
                 "timed launch): " +
                 f->message;
    return f;
  }
  if (MaybeFail g = checkOutputs(result, "of the counted run (the "
                                         "instrumented kernels)"))
    return g;
  for (unsigned i = 0; i < families.size(); ++i)
    result.features.push_back({families[i], -1, int64_t(counts[i])});
  auto work = [&](WorkCounter c) {
    return double(counts[families.size() + unsigned(c)]);
  };
  WorkCounts &w = result.work;
  w.measured = true;
  w.wgmmaFlops = work(WorkCounter::WgmmaFlops);
  w.mmaSyncFlops = work(WorkCounter::MmaSyncFlops);
  w.wmmaFlops = work(WorkCounter::WmmaFlops);
  w.tcgen05Flops = work(WorkCounter::Tcgen05Flops);
  w.scalarFlops = work(WorkCounter::ScalarFlops);
  w.asyncBytes = std::max(0.0, work(WorkCounter::TxBytes) -
                                   work(WorkCounter::CompleteTxBytes));
  w.globalLoadBytes = work(WorkCounter::GlobalLoadBytes);
  w.cpAsyncBytes = work(WorkCounter::CpAsyncBytes);
  w.inputBytes = 0;
  for (unsigned t = 0; t < task.tensors.size(); ++t)
    if (task.tensors[t].role == Role::Input)
      w.inputBytes += double(bufs.tensors.buffers[t].bytes);
  return std::nullopt;
}

void WorkloadRunner::runKnockouts(WorkloadResult &result) {
  WorkCounts &w = result.work;
  struct Kind {
    const char *name;
    KnockoutBit bit;
  };
  const Kind kinds[] = {{"wgmma", KnockoutBit::Wgmma},
                        {"mma_sync", KnockoutBit::MmaSync},
                        {"wmma", KnockoutBit::Wmma},
                        {"tcgen05", KnockoutBit::Tcgen05}};
  for (const Kind &kind : kinds) {
    if (w.flopsOf(kind.name) <= 0)
      continue;
    Knockout k;
    k.kind = kind.name;
    if (lost) {
      k.detail = "not run: an earlier knockout lost the CUDA context";
      w.knockouts.push_back(k);
      continue;
    }
    DeviceBuffer counters;
    MaybeFail f = allocCounters(counters);
    std::array<uint64_t, analysis::numControlWords> control = {
        counters.ptr, analysis::knockoutMask(kind.bit)};
    if (!f)
      f = prepareLaunch(otherSet(2 + unsigned(kind.bit)),
                        *submission.instrumented, &control);
    if (!f)
      f = launchSubmission();
    if (MaybeFail g = finishLaunch("a knockout run"); !f)
      f = g;
    if (!lost)
      gpu.free(counters);
    if (f && !f->contextLost && f->status == Status::HarnessError) {
      k.detail = "not run: " + f->message;
      w.knockouts.push_back(k);
      continue;
    }
    k.ran = true;
    if (f) {
      // Without the kind the kernels faulted: they needed its results.
      k.reached = true;
      k.detail = "the run faulted: " + f->message;
      w.knockouts.push_back(k);
      continue;
    }
    WorkloadResult probe;
    if (MaybeFail g = checkOutputs(probe, "of a knockout run")) {
      k.reached = g->status == Status::Incorrect;
      k.detail = g->status == Status::Incorrect
                     ? "the outputs failed the '" +
                           (probe.check ? probe.check->failedCheck
                                        : std::string("?")) +
                           "' check"
                     : "not judged: " + g->message;
      k.ran = g->status == Status::Incorrect;
    } else {
      k.detail = "the outputs still passed their check";
    }
    w.knockouts.push_back(k);
  }
}
