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
// kind's work did not reach them and earns no credit. The counted run's
// copy log (one record per TMA load and bulk copy from global memory) is
// traced back to the input tensors here: a TMA load by its tensor map (the
// hash of its 128 bytes) and its box coordinates, in bounds only; a bulk
// copy by its source address.
//
//===----------------------------------------------------------------------===//

#include "WorkloadRunner.h"

#include "ptxbench/ISA/WorkCounters.h"

#include <cstring>
#include <map>
#include <random>

using namespace llvm;
using namespace ptxbench::runtime;
using ptxbench::isa::KnockoutBit;
using ptxbench::isa::WorkCounter;

unsigned WorkloadRunner::otherSet(uint64_t salt) const {
  if (sets.size() < 2)
    return 0;
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + salt);
  unsigned next = unsigned(rng() % (sets.size() - 1));
  return next >= lastSet ? next + 1 : next;
}

MaybeFail WorkloadRunner::allocCounters(DeviceBuffer &counters) {
  size_t n = submission.countFamilies.size() + isa::numWorkCounters +
             isa::maxRangeTensors;
  TRY(gpu.allocGuarded(counters, 8 * n));
  return gpu.check(
      d.cuMemsetD8Async(counters.ptr, 0, counters.bytes, gpu.stream),
      Status::HarnessError, "zeroing the feature counters");
}

namespace {
/// Records the copy log holds at most: 128 MiB.
constexpr uint64_t copyLogCapacity = uint64_t(1) << 22;
} // namespace

std::vector<int> WorkloadRunner::rangeTensors() const {
  std::vector<int> tensors;
  for (unsigned t = 0; t < task.tensors.size(); ++t)
    if (task.tensors[t].role == Role::Input &&
        tensors.size() < isa::maxRangeTensors)
      tensors.push_back(t);
  return tensors;
}

void WorkloadRunner::fillRanges(
    std::array<uint64_t, isa::numControlWords> &control,
    unsigned s) const {
  std::vector<int> tensors = rangeTensors();
  for (unsigned k = 0; k < tensors.size(); ++k) {
    const DeviceBuffer &b = sets[s].inputs[tensors[k]];
    unsigned word = unsigned(isa::ControlWord::Ranges) + 2 * k;
    control[word] = b.ptr;
    control[word + 1] = b.ptr + b.bytes;
  }
}

void WorkloadRunner::attributeCopies(
    llvm::ArrayRef<isa::CopyRecord> records, uint64_t logged,
    llvm::ArrayRef<uint64_t> loadedPerRange, WorkCounts &w) const {
  const InputSet &set = sets[lastSet];
  std::map<uint64_t, unsigned> mapByHash;
  for (unsigned m = 0; m < set.maps.size(); ++m) {
    uint64_t words[16];
    std::memcpy(words, &set.maps[m], sizeof(words));
    mapByHash[isa::copyLogHash(words)] = m;
  }
  std::vector<double> read(task.tensors.size(), 0);
  uint64_t unattributed = logged - records.size();
  for (const isa::CopyRecord &r : records) {
    if (r.rank == 0) { // a bulk copy: its source range
      bool found = false;
      for (unsigned t = 0; t < task.tensors.size() && !found; ++t) {
        const DeviceBuffer &b = set.inputs.size() > t ? set.inputs[t]
                                                      : DeviceBuffer();
        if (task.tensors[t].role != Role::Input || !b.ptr || r.key < b.ptr ||
            r.key >= b.ptr + b.bytes)
          continue;
        read[t] += std::min<double>(uint32_t(r.coords[0]),
                                    double(b.ptr + b.bytes - r.key));
        found = true;
      }
      unattributed += !found;
      continue;
    }
    auto it = mapByHash.find(r.key);
    unsigned rank = r.rank & 0xff;
    if ((r.rank & isa::copyLogOtherMode) || it == mapByHash.end()) {
      ++unattributed;
      continue;
    }
    const ResolvedTensorMap &m = plan.tensorMaps[it->second];
    const std::vector<int64_t> &shape = bufs.tensors.shapes[m.tensor];
    if (task.tensors[m.tensor].role != Role::Input || rank != shape.size() ||
        rank > 5) {
      unattributed += task.tensors[m.tensor].role == Role::Input;
      continue;
    }
    // The box's overlap with the tensor, coordinates innermost first.
    double bytes = dtypeSize(task.tensors[m.tensor].dtype);
    for (unsigned i = 0; i < rank && bytes > 0; ++i) {
      int64_t dim = shape[rank - 1 - i], box = m.box[rank - 1 - i];
      int64_t lo = std::max<int64_t>(r.coords[i], 0);
      int64_t hi = std::min<int64_t>(int64_t(r.coords[i]) + box, dim);
      bytes *= hi > lo ? double(hi - lo) : 0;
    }
    read[m.tensor] += bytes;
  }
  // What ld.global and cp.async brought of each input cannot be the copies'
  // too: a tensor loaded both ways counts only what the copies add.
  std::vector<double> other(task.tensors.size(), 0);
  std::vector<int> ranges = rangeTensors();
  for (unsigned k = 0; k < ranges.size() && k < loadedPerRange.size(); ++k)
    other[ranges[k]] = double(loadedPerRange[k]);
  w.asyncInputBytes = w.otherInputBytes = 0;
  for (unsigned t = 0; t < task.tensors.size(); ++t) {
    if (task.tensors[t].role != Role::Input)
      continue;
    double size = double(bufs.tensors.buffers[t].bytes);
    double byCopies = std::min(read[t], size), byLoads = std::min(other[t], size);
    w.asyncInputBytes += std::max(0.0, byCopies - byLoads);
    w.otherInputBytes += byLoads;
  }
  w.copyRecords = logged;
  w.copyRecordsUnattributed = unattributed;
}

MaybeFail WorkloadRunner::countWork(WorkloadResult &result) {
  const CompiledModule &module = *submission.instrumented;
  const std::vector<std::string> &families = submission.countFamilies;
  DeviceBuffer counters, log, logCount;
  TRY(allocCounters(counters));
  MaybeFail f = gpu.allocGuarded(log, copyLogCapacity *
                                          sizeof(isa::CopyRecord));
  if (!f)
    f = gpu.allocGuarded(logCount, 8);
  if (!f)
    f = gpu.check(d.cuMemsetD8Async(logCount.ptr, 0, 8, gpu.stream),
                  Status::HarnessError, "zeroing the copy log");
  auto freeLog = [&] {
    if (lost)
      return;
    gpu.free(counters);
    gpu.free(log);
    gpu.free(logCount);
  };
  if (f) {
    freeLog();
    return f;
  }
  std::array<uint64_t, isa::numControlWords> control = {
      counters.ptr, 0, log.ptr, copyLogCapacity, logCount.ptr};
  unsigned set = otherSet(1);
  fillRanges(control, set);
  f = prepareLaunch(set, module, &control);
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
  uint64_t logged = 0;
  std::vector<isa::CopyRecord> records;
  if (!f)
    f = gpu.check(d.cuMemcpyDtoH(&logged, logCount.ptr, 8),
                  Status::HarnessError, "reading the copy log");
  if (!f) {
    records.resize(std::min(logged, copyLogCapacity));
    if (!records.empty())
      f = gpu.check(d.cuMemcpyDtoH(records.data(), log.ptr,
                                   records.size() * sizeof(records[0])),
                    Status::HarnessError, "reading the copy log");
  }
  freeLog();
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
  attributeCopies(records, logged,
                  ArrayRef<uint64_t>(counts).drop_front(
                      families.size() + isa::numWorkCounters),
                  w);
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
    // The counters and the copy log's count, to write somewhere (a
    // capacity of 0 keeps no record).
    DeviceBuffer counters;
    MaybeFail f = allocCounters(counters);
    std::array<uint64_t, isa::numControlWords> control = {
        counters.ptr, isa::knockoutMask(kind.bit), counters.ptr, 0,
        counters.ptr};
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
