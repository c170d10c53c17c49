//===- WorkloadChecks.cpp - Checks of every trial and timed launch --------===//
//
// How the harness decides that a submission did the job: after each
// checked trial its outputs are copied to the host and compared with the
// active input set's reference (every output, the worst one named); in the
// timing loop every launch (warm-ups included) gets another input set and
// freshly poisoned outputs, and a device-side check of its outputs runs
// behind the timed interval, so the first wrong launch is named. After
// every launch the slack around each output and workspace must still hold
// its pattern (a write there is an out-of-bounds write that did not fault)
// and every zero=once workspace must be zero again.
//
//===----------------------------------------------------------------------===//

#include "WorkloadRunner.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FormatVariadic.h"

#include <cstring>
#include <random>

using namespace llvm;
using namespace ptxbench::runtime;

/// Copies a device tensor of `dtype` to host floats.
static MaybeFail toHostFloats(Gpu &gpu, const DeviceBuffer &buf, DType dtype,
                              std::vector<float> &out) {
  size_t n = buf.bytes / dtypeSize(dtype);
  out.resize(n);
  if (dtype == DType::F32)
    return gpu.check(gpu.d.cuMemcpyDtoH(out.data(), buf.ptr, buf.bytes),
                     Status::RuntimeError, "copying the output");
  if (dtype != DType::BF16)
    return Failure{Status::HarnessError,
                   "outputs of dtype " + dtypeName(dtype).str() +
                       " are not supported yet (bf16, f32 are)"};
  std::vector<uint16_t> raw(n);
  TRY(gpu.check(gpu.d.cuMemcpyDtoH(raw.data(), buf.ptr, buf.bytes),
                Status::RuntimeError, "copying the output"));
  for (size_t i = 0; i < n; ++i)
    out[i] = bf16ToFloat(raw[i]);
  return std::nullopt;
}

/// "[i, j, ...]": the flat index `flat` in a row-major tensor of `shape`.
static std::string formatIndex(int64_t flat, ArrayRef<int64_t> shape) {
  if (flat < 0)
    return "[?]";
  SmallVector<int64_t, 4> idx(shape.size());
  for (unsigned i = shape.size(); i-- > 0;) {
    idx[i] = flat % shape[i];
    flat /= shape[i];
  }
  std::string s = "[";
  for (unsigned i = 0; i < idx.size(); ++i)
    s += (i ? ", " : "") + std::to_string(idx[i]);
  return s + "]";
}

MaybeFail
WorkloadRunner::compareWithReference(ArrayRef<CheckedOutput> outputs,
                                     std::vector<NamedCheck> &checks) {
  checks.clear();
  for (const CheckedOutput &o : outputs) {
    const TensorSpec &spec = task.tensors[o.tensor];
    // The submission's output is the task tensor itself.
    const DeviceBuffer &values =
        o.values.ptr ? o.values : bufs.tensors.buffers[o.tensor];
    CUdeviceptr refPtr = 0;
    const std::vector<CheckedOutput> &refs = op->referenceOutputs();
    for (unsigned i = 0; i < refs.size(); ++i)
      if (refs[i].tensor == o.tensor)
        refPtr = sets[active].reference[i].ptr;
    std::vector<float> out, ref;
    TRY(toHostFloats(gpu, values, spec.dtype, out));
    TRY(toHostFloats(gpu, {refPtr, out.size() * 4}, DType::F32, ref));
    std::optional<Tolerance> tol;
    auto it = task.tolerances.find(spec.dtype);
    if (it != task.tolerances.end())
      tol = it->second;
    checks.push_back({spec.name, compareOutputs(out, ref, tol, task.relL2)});
  }
  return std::nullopt;
}

MaybeFail WorkloadRunner::checkOutputs(WorkloadResult &result, StringRef when) {
  // The submission's outputs: the reference's list, read from the tensors.
  std::vector<CheckedOutput> outputs;
  for (const CheckedOutput &r : op->referenceOutputs())
    outputs.push_back({r.tensor, {}});
  TRY(compareWithReference(outputs, result.outputChecks));
  // The result's headline check: the first failing output, else the one
  // closest to its rel-L2 bound.
  const NamedCheck *worst = nullptr;
  for (const NamedCheck &c : result.outputChecks)
    if (!worst || (!c.stats.passed && worst->stats.passed) ||
        (c.stats.passed == worst->stats.passed &&
         c.stats.relL2 > worst->stats.relL2 && worst->stats.passed))
      worst = &c;
  result.checkedTensor = worst->tensor;
  result.check = worst->stats;
  if (worst->stats.passed)
    return std::nullopt;
  int t = task.tensorIndex(worst->tensor);
  result.status = Status::Incorrect;
  result.message =
      ("output '" + worst->tensor + "' " + when + " failed the '" +
       worst->stats.failedCheck + "' check; worst element " +
       formatIndex(worst->stats.worstIndex, bufs.tensors.shapes[t]))
          .str();
  return Failure{Status::Incorrect, result.message};
}

void WorkloadRunner::collectIntegrityChecks() {
  integrity.clear();
  auto slack = [&](const DeviceBuffer &b, const std::string &name) {
    if (!b.mapped)
      return;
    if (b.ptr > b.mapped)
      integrity.push_back({b.mapped, b.ptr - b.mapped, slackByte,
                           "before the start of " + name});
    CUdeviceptr end = b.ptr + b.bytes, mappedEnd = b.mapped + b.mappedBytes;
    if (mappedEnd > end)
      integrity.push_back(
          {end, mappedEnd - end, slackByte, "past the end of " + name});
  };
  for (unsigned t = 0; t < task.tensors.size(); ++t)
    if (task.tensors[t].role == Role::Output)
      slack(bufs.tensors.buffers[t], "'" + task.tensors[t].name + "'");
  for (unsigned i = 0; i < plan.workspaces.size(); ++i) {
    const ResolvedWorkspace &w = plan.workspaces[i];
    slack(bufs.workspaces[i], "workspace '" + w.name + "'");
    if (w.zero == ZeroFill::Once)
      integrity.push_back({bufs.workspaces[i].ptr, w.bytes, 0,
                           "workspace '" + w.name + "' (zero=once)", true});
  }
}

MaybeFail WorkloadRunner::queueIntegrityChecks(CUdeviceptr records) {
  if (integrity.empty())
    return std::nullopt;
  CUfunction fn;
  TRY(gpu.builtin("ptxbench_count_ne", fn));
  for (unsigned i = 0; i < integrity.size(); ++i) {
    const IntegrityCheck &c = integrity[i];
    CUdeviceptr p = c.ptr, out = records + 8 * i;
    uint64_t n = c.bytes;
    uint32_t expected = c.expected;
    void *args[] = {&p, &n, &expected, &out};
    unsigned grid[3] = {unsigned(std::min<uint64_t>((n + 255) / 256 + 1,
                                                    uint64_t(gpu.smCount) * 8)),
                        1, 1};
    unsigned block[3] = {256, 1, 1};
    TRY(launchBuiltin(gpu, fn, grid, block, 0, args,
                      "checking the memory around the outputs"));
  }
  return std::nullopt;
}

std::optional<Failure>
WorkloadRunner::judgeIntegrity(ArrayRef<uint64_t> counts,
                               StringRef when) const {
  for (unsigned i = 0; i < integrity.size() && i < counts.size(); ++i) {
    if (!counts[i])
      continue;
    const IntegrityCheck &c = integrity[i];
    if (c.zeroOnce)
      return Failure{Status::Incorrect,
                     (c.what + " holds " + Twine(counts[i]) +
                      " non-zero bytes after the launch " + when +
                      ": the kernels must leave it zeroed at the end of "
                      "every launch")
                         .str()};
    return Failure{
        Status::RuntimeError,
        (Twine("the launch ") + when + " wrote " + Twine(counts[i]) +
         " bytes " + c.what +
         " (inside its mapped page, so it did not fault): an "
         "out-of-bounds write")
            .str()};
  }
  return std::nullopt;
}

MaybeFail WorkloadRunner::checkIntegrity(StringRef when) {
  if (integrity.empty())
    return std::nullopt;
  DeviceBuffer records;
  TRY(gpu.alloc(records, 8 * integrity.size()));
  std::vector<uint64_t> counts(integrity.size());
  MaybeFail f = gpu.check(
      d.cuMemsetD8Async(records.ptr, 0, records.bytes, gpu.stream),
      Status::HarnessError, "checking the memory around the outputs");
  if (!f)
    f = queueIntegrityChecks(records.ptr);
  if (!f)
    f = gpu.check(d.cuStreamSynchronize(gpu.stream), Status::RuntimeError,
                  "checking the memory around the outputs");
  if (!f)
    f = gpu.check(d.cuMemcpyDtoH(counts.data(), records.ptr, records.bytes),
                  Status::RuntimeError,
                  "checking the memory around the outputs");
  if (!f || !f->contextLost)
    gpu.free(records);
  if (f)
    return f;
  return judgeIntegrity(counts, when);
}

MaybeFail WorkloadRunner::timeSubmission(WorkloadResult &result,
                                         TimingStats &t) {
  const std::vector<CheckedOutput> &refs = op->referenceOutputs();
  unsigned outputs = refs.size();
  unsigned maxLaunches = task.timing.warmup + 2 * task.timing.maxSamples + 1;
  constexpr unsigned words = 6; // per check, as ptxbench_check writes them
  DeviceBuffer stats;
  TRY(gpu.alloc(stats, size_t(8) * words * outputs * maxLaunches));
  llvm::scope_exit freeStats([&] {
    if (!lost)
      gpu.free(stats);
  });
  TRY(gpu.check(d.cuMemsetD8Async(stats.ptr, 0, stats.bytes, gpu.stream),
                Status::HarnessError, "clearing the check records"));
  // One count per integrity check and launch.
  DeviceBuffer integrityRecords;
  TRY(gpu.alloc(integrityRecords,
                std::max<size_t>(8, size_t(8) * integrity.size() * maxLaunches)));
  llvm::scope_exit freeIntegrity([&] {
    if (!lost)
      gpu.free(integrityRecords);
  });
  TRY(gpu.check(d.cuMemsetD8Async(integrityRecords.ptr, 0,
                                  integrityRecords.bytes, gpu.stream),
                Status::HarnessError, "clearing the check records"));
  CUfunction check;
  TRY(gpu.builtin("ptxbench_check", check));
  // A random set for each launch, never the previous launch's.
  std::mt19937_64 rng(seed * 0x2545F4914F6CDD1Dull + 0x1234567);
  std::vector<unsigned> setOf;
  TimedHooks hooks;
  hooks.before = [&](unsigned launch) -> MaybeFail {
    if (launch >= maxLaunches)
      return Failure{Status::HarnessError, "more timed launches than planned"};
    unsigned next = active;
    if (sets.size() > 1) {
      next = unsigned(rng() % (sets.size() - 1));
      if (next >= active)
        ++next;
    }
    setOf.push_back(next);
    return prepareLaunch(next, submission.plain);
  };
  hooks.after = [&](unsigned launch) -> MaybeFail {
    TRY(finishLaunch("a timed run"));
    TRY(queueIntegrityChecks(integrityRecords.ptr +
                             8 * integrity.size() * launch));
    for (unsigned o = 0; o < outputs; ++o) {
      const TensorSpec &spec = task.tensors[refs[o].tensor];
      CUdeviceptr out = bufs.tensors.buffers[refs[o].tensor].ptr;
      CUdeviceptr ref = sets[active].reference[o].ptr;
      CUdeviceptr rec = stats.ptr + 8 * words * (launch * outputs + o);
      uint64_t n =
          bufs.tensors.buffers[refs[o].tensor].bytes / dtypeSize(spec.dtype);
      int dtype = int(spec.dtype), useTol = 0;
      float atol = 0, rtol = 0;
      if (auto it = task.tolerances.find(spec.dtype);
          it != task.tolerances.end()) {
        useTol = 1;
        atol = it->second.atol;
        rtol = it->second.rtol;
      }
      void *args[] = {&out, &ref, &n, &dtype, &atol, &rtol, &useTol, &rec};
      unsigned grid[3] = {unsigned(std::min<uint64_t>(
                              (n + 255) / 256, uint64_t(gpu.smCount) * 8)),
                          1, 1};
      unsigned block[3] = {256, 1, 1};
      TRY(launchBuiltin(gpu, check, grid, block, 0, args,
                        "checking a timed output"));
    }
    return std::nullopt;
  };
  unsigned launches = 0;
  MaybeFail f = timeLaunches(
      gpu, task.timing, [&] { return launchSubmission(); }, t, &hooks,
      &launches);
  if (!f)
    f = gpu.check(d.cuStreamSynchronize(gpu.stream), Status::RuntimeError,
                  "checking the timed outputs");
  if (f) {
    lost |= f->contextLost;
    return f;
  }
  std::vector<uint64_t> records(stats.bytes / 8);
  TRY(gpu.check(d.cuMemcpyDtoH(records.data(), stats.ptr, stats.bytes),
                Status::HarnessError, "reading the check records"));
  std::vector<uint64_t> integrityCounts(integrityRecords.bytes / 8);
  TRY(gpu.check(d.cuMemcpyDtoH(integrityCounts.data(), integrityRecords.ptr,
                               integrityRecords.bytes),
                Status::HarnessError, "reading the check records"));
  result.inputSets = sets.size();
  result.timedLaunchesChecked = launches;
  auto launchName = [&](unsigned l) {
    return l < task.timing.warmup
               ? "warm-up launch " + std::to_string(l + 1)
               : "timed launch " + std::to_string(l - task.timing.warmup + 1);
  };
  for (unsigned l = 0; l < launches; ++l) {
    ArrayRef<uint64_t> counts(integrityCounts);
    if (std::optional<Failure> bad = judgeIntegrity(
            counts.slice(std::min<size_t>(counts.size(),
                                          size_t(l) * integrity.size())),
            launchName(l))) {
      result.status = bad->status;
      result.message = bad->message;
      return bad;
    }
    for (unsigned o = 0; o < outputs; ++o) {
      const uint64_t *r = &records[words * (l * outputs + o)];
      const TensorSpec &spec = task.tensors[refs[o].tensor];
      CheckSums sums;
      sums.count =
          bufs.tensors.buffers[refs[o].tensor].bytes / dtypeSize(spec.dtype);
      sums.unwritten = r[0];
      sums.nonFinite = r[1];
      sums.outOfTolerance = r[2];
      float maxErr;
      uint32_t bits = uint32_t(r[3]);
      std::memcpy(&maxErr, &bits, 4);
      sums.maxAbsErr = maxErr;
      std::memcpy(&sums.errSq, &r[4], 8);
      std::memcpy(&sums.refSq, &r[5], 8);
      std::optional<Tolerance> tol;
      if (auto it = task.tolerances.find(spec.dtype);
          it != task.tolerances.end())
        tol = it->second;
      CompareStats c = judgeSums(sums, tol, task.relL2);
      if (c.passed)
        continue;
      result.checkedTensor = spec.name;
      result.check = c;
      std::string when = launchName(l);
      result.message =
          formatv("the output '{0}' of {1} (input set {2} of {3}) "
                  "does not match its reference: the '{4}' check "
                  "failed ({5} unwritten, {6} non-finite, {7} "
                  "out of tolerance of {8}; rel_l2 {9:e2}). A "
                  "kernel must do the whole job on every launch: "
                  "each launch gets inputs the previous one did "
                  "not see, into freshly poisoned outputs",
                  spec.name, when, setOf[l] + 1, sets.size(), c.failedCheck,
                  c.unwritten, c.nonFinite, c.outOfTolerance, c.count, c.relL2)
              .str();
      result.status = Status::Incorrect;
      return Failure{Status::Incorrect, result.message};
    }
  }
  return std::nullopt;
}
