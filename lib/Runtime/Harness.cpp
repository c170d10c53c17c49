//===- Harness.cpp - Compile, launch, check and time one submission -------===//
//
// The worker's body. Everything the GPU does for a submission goes through
// the harness's own stream: input generation, NaN poisoning of outputs, the
// submission's kernels (per its resolved launch plan), the reference, the
// L2 flush before each timed sample and the baseline library.
//
// Nothing a kernel remembers between launches may help it: the inputs come
// in several sets (each with its own addresses, contents, tensor maps and
// reference), prepared untimed; every launch of the timing loop gets a set
// other than the previous launch's, outputs poisoned and scratch
// workspaces poisoned, and its outputs are checked on the device against
// that set's reference, all outside the timed interval. Every tensor and
// workspace sits between unmapped guard pages, so an access past its ends
// faults.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Runtime/Harness.h"

#include "ptxbench/Analysis/WorkCounters.h"

#include "ptxbench/Toolchain/CudaCompiler.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#ifdef PTXBENCH_HAVE_CUDA_HEADERS
#include "Gpu.h"
#include "Operator.h"
#include "Peaks.h"

#include "ptxbench/Runtime/Containment.h"

#include <chrono>
#include <random>

#include <cstring>
#include <unistd.h>
#endif

using namespace llvm;
using namespace ptxbench::runtime;

#ifndef PTXBENCH_HAVE_CUDA_HEADERS

std::string ptxbench::runtime::archName(int major, int minor) {
  std::string a = "sm_" + std::to_string(major * 10 + minor);
  if ((major == 9 && minor == 0) || major == 10)
    a += "a";
  return a;
}

bool ptxbench::runtime::probeGpu(std::string &why, std::string *,
                                 std::string *) {
  why = "no CUDA driver/GPU available: ptxbench was built without the CUDA "
        "toolkit headers, so it cannot run kernels";
  return false;
}

int ptxbench::runtime::runWorker(const Task &, const LaunchPlan &, StringRef,
                                 ArrayRef<Workload>, const WorkerOptions &) {
  return 2;
}

#else

using namespace ptxbench::runtime::cuda;

std::string ptxbench::runtime::archName(int major, int minor) {
  std::string a = "sm_" + std::to_string(major * 10 + minor);
  if ((major == 9 && minor == 0) || major == 10)
    a += "a";
  return a;
}

bool ptxbench::runtime::probeGpu(std::string &why, std::string *deviceName,
                                 std::string *arch) {
  Driver d;
  std::string error;
  if (!d.load(error)) {
    why = "no CUDA driver/GPU available: " + error;
    return false;
  }
  if (CUresult r = d.cuInit(0)) {
    why = "no CUDA driver/GPU available: cuInit failed: " + d.describe(r);
    return false;
  }
  int count = 0;
  if (CUresult r = d.cuDeviceGetCount(&count); r || count == 0) {
    why = "no CUDA driver/GPU available: the driver reports no device";
    return false;
  }
  CUdevice dev;
  if (d.cuDeviceGet(&dev, 0) == CUDA_SUCCESS) {
    char name[256] = {};
    if (deviceName && !d.cuDeviceGetName(name, sizeof(name), dev))
      *deviceName = name;
    int major = 0, minor = 0;
    d.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                           dev);
    d.cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                           dev);
    if (arch)
      *arch = archName(major, minor);
  }
  return true;
}

namespace {

/// Lets `fn` launch with `smem` bytes of dynamic shared memory: above 48 KiB
/// of static plus dynamic shared memory a kernel must opt in (a submission
/// cannot: the harness owns the host side). Returns why it cannot, or "".
std::string allowDynamicSmem(Gpu &gpu, CUfunction fn, unsigned smem) {
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

/// Everything allocated for one workload. The input entries of
/// `tensors.buffers` point at the active input set's buffers (the
/// operator reads them there); the output entries own theirs.
struct WorkloadBuffers {
  WorkloadTensors tensors;
  std::vector<DeviceBuffer> workspaces;
};

/// One set of inputs: the task's input tensors at their own addresses,
/// the tensor maps over them, the fp32 reference outputs computed from
/// them (as the operator's referenceOutputs()) and each input's hash after
/// preparation.
struct InputSet {
  std::vector<DeviceBuffer> inputs; // by task tensor; empty for outputs
  std::vector<CUtensorMap> maps;
  std::vector<DeviceBuffer> reference;
  std::vector<uint64_t> hashes;
};

/// The bytes of the task's input sets at most take (or a quarter of the free
/// device memory, if less), and their most: more sets cost memory and
/// untimed reference runs; two already keep every timed launch from seeing
/// the previous launch's inputs.
constexpr uint64_t inputSetBudget = uint64_t(4) << 30;
constexpr unsigned maxInputSets = 4;
/// Preparing one input set (inputs and reference) longer than this limits
/// a workload to two sets.
constexpr std::chrono::milliseconds slowInputSet(500);

class WorkloadRunner {
public:
  WorkloadRunner(Gpu &gpu, const Task &task, const ResolvedPlan &plan,
                 ArrayRef<CUfunction> functions, const Workload &wl,
                 uint64_t seed)
      : gpu(gpu), d(gpu.d), task(task), plan(plan), functions(functions),
        wl(wl), seed(seed) {}
  ~WorkloadRunner() {
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

  /// Runs the checks and the timing; fills `result`. With `checkOnly`,
  /// the checked trials alone.
  void run(WorkloadResult &result, bool baseline, bool checkOnly = false);
  /// Runs the instrumented variant once (untimed) and adds the executed
  /// counts of `families` to `result`.
  void countFeatures(WorkloadResult &result, ArrayRef<std::string> families);
  bool lost = false;
  /// Called while the input sets are prepared (each can take seconds), so
  /// the parent's watchdog sees progress.
  std::function<void()> progress;

private:
  Gpu &gpu;
  Driver &d;
  const Task &task;
  const ResolvedPlan &plan;
  ArrayRef<CUfunction> functions;
  const Workload &wl;
  uint64_t seed;
  WorkloadBuffers bufs;
  std::unique_ptr<Operator> op;
  std::vector<InputSet> sets;
  unsigned active = 0;
  /// Only the checked trials will run: no more input sets than trials.
  bool trialsOnly = false;

  MaybeFail allocate();
  /// Allocates, fills and hashes input set `s` and computes its reference.
  MaybeFail prepareInputSet(unsigned s);
  MaybeFail encodeTensorMaps(InputSet &set);
  /// Makes set `s` the one the submission, reference and baseline read.
  void activate(unsigned s);
  MaybeFail generateInputs(unsigned trial);
  MaybeFail poisonOutputs();
  /// Fills the plan's scratch workspaces (neither `zero` nor `zero=once`)
  /// with 0xFF bytes, so nothing left by an earlier launch is there.
  MaybeFail poisonScratch();
  /// The input hashes of set `s` now.
  MaybeFail hashInputs(unsigned s, std::vector<uint64_t> &hashes);
  /// Non-zero bytes in each zero=once workspace now.
  MaybeFail nonZeroOnce(std::vector<uint64_t> &counts);
  /// The timing loop with input rotation and device-side checks of every
  /// launch; an INCORRECT failure names the first launch whose output was
  /// wrong.
  MaybeFail timeSubmission(WorkloadResult &result, TimingStats &t);
  /// The message for a fault: which tensors could have been involved.
  std::string faultNote() const;
  MaybeFail launchSubmission() { return launchWith(functions, 0); }
  /// Launches the plan with `fns`; a non-zero `counters` is passed as one
  /// more (last) argument to every kernel (the instrumented variant).
  MaybeFail launchWith(ArrayRef<CUfunction> fns, CUdeviceptr counters);
  /// Checks the submission's outputs against the reference: every output's
  /// comparison and the worst one go into `result`; INCORRECT when one fails.
  MaybeFail checkOutputs(WorkloadResult &result, StringRef when);
  /// Compares `outputs` with the active input set's reference values into
  /// `checks`; an output without values of its own is read from the task
  /// tensor (the submission's), otherwise from its values (the baseline's).
  MaybeFail compareWithReference(ArrayRef<CheckedOutput> outputs,
                                 std::vector<NamedCheck> &checks);
  MaybeFail snapshotInputs(std::vector<std::vector<char>> &snap);
  MaybeFail checkInputsUnchanged(const std::vector<std::vector<char>> &snap,
                                 std::string &changed);
  MaybeFail time(std::function<MaybeFail()> launch, TimingStats &out);
  void runBaseline(WorkloadResult &result);
};

MaybeFail WorkloadRunner::allocate() {
  uint64_t inputBytes = 0;
  for (unsigned t = 0; t < task.tensors.size(); ++t) {
    auto shape = task.shapeOf(t, wl.params);
    if (!shape)
      return Failure{Status::HarnessError, toString(shape.takeError())};
    size_t n = 1;
    for (int64_t s : *shape)
      n *= size_t(s);
    bufs.tensors.shapes.push_back(*shape);
    bufs.tensors.buffers.emplace_back();
    size_t bytes = n * dtypeSize(task.tensors[t].dtype);
    if (task.tensors[t].role == Role::Input) {
      // Allocated per input set; the size is kept for the operator.
      bufs.tensors.buffers.back().bytes = bytes;
      inputBytes += bytes;
      continue;
    }
    TRY(gpu.allocGuarded(bufs.tensors.buffers.back(), bytes));
  }
  for (const ResolvedWorkspace &w : plan.workspaces) {
    bufs.workspaces.emplace_back();
    TRY(gpu.allocGuarded(bufs.workspaces.back(), w.bytes));
    // zero=once: here, untimed; the kernels keep it zeroed from then on.
    if (w.zero == ZeroFill::Once)
      TRY(gpu.check(
          d.cuMemsetD8Async(bufs.workspaces.back().ptr, 0, w.bytes, gpu.stream),
          Status::HarnessError, "zeroing workspace '" + w.name + "'"));
  }
  op = makeOperator(gpu, task, bufs.tensors, wl.params);
  TRY(op->setup());
  // As many input sets as the budget holds, at least two.
  uint64_t referenceBytes = 0;
  for (const CheckedOutput &r : op->referenceOutputs())
    referenceBytes += r.values.bytes;
  size_t freeBytes = 0, totalBytes = 0;
  uint64_t budget = inputSetBudget;
  if (d.cuMemGetInfo(&freeBytes, &totalBytes) == CUDA_SUCCESS)
    budget = std::min<uint64_t>(budget, freeBytes / 4);
  unsigned count = inputSetCount(inputBytes + referenceBytes, budget,
                                 trialsOnly ? task.trials : maxInputSets);
  sets.resize(count);
  for (unsigned s = 0; s < sets.size(); ++s) {
    auto start = std::chrono::steady_clock::now();
    TRY(prepareInputSet(s));
    if (progress)
      progress();
    // A reference that takes long (the fp32 attention references take
    // seconds at the large workloads) buys two sets, not more.
    if (s == 0 && sets.size() > 2 &&
        std::chrono::steady_clock::now() - start > slowInputSet)
      sets.resize(2);
  }
  return std::nullopt;
}

MaybeFail WorkloadRunner::encodeTensorMaps(InputSet &set) {
  for (const ResolvedTensorMap &m : plan.tensorMaps) {
    const TensorSpec &spec = task.tensors[m.tensor];
    const std::vector<int64_t> &shape = bufs.tensors.shapes[m.tensor];
    unsigned rank = shape.size();
    cuuint64_t dims[5], strides[4];
    cuuint32_t box[5], elemStrides[5];
    uint64_t stride = dtypeSize(spec.dtype);
    for (unsigned i = 0; i < rank; ++i) {
      // cuTensorMapEncodeTiled lists dimensions innermost first.
      dims[i] = shape[rank - 1 - i];
      box[i] = m.box[rank - 1 - i];
      elemStrides[i] = 1;
      if (i + 1 < rank) {
        stride *= dims[i];
        strides[i] = stride;
      }
    }
    CUtensorMapDataType type =
        spec.dtype == DType::BF16   ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
        : spec.dtype == DType::F16  ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
        : spec.dtype == DType::F32  ? CU_TENSOR_MAP_DATA_TYPE_FLOAT32
        : spec.dtype == DType::E4M3 ? CU_TENSOR_MAP_DATA_TYPE_UINT8
                                    : CU_TENSOR_MAP_DATA_TYPE_INT32;
    CUtensorMapSwizzle swizzle[] = {
        CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_SWIZZLE_32B,
        CU_TENSOR_MAP_SWIZZLE_64B, CU_TENSOR_MAP_SWIZZLE_128B};
    CUtensorMapInterleave interleave[] = {CU_TENSOR_MAP_INTERLEAVE_NONE,
                                          CU_TENSOR_MAP_INTERLEAVE_16B,
                                          CU_TENSOR_MAP_INTERLEAVE_32B};
    CUtensorMapL2promotion l2[] = {
        CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_64B,
        CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B};
    CUtensorMap map;
    CUresult r = d.cuTensorMapEncodeTiled(
        &map, type, rank,
        reinterpret_cast<void *>(bufs.tensors.buffers[m.tensor].ptr), dims,
        strides, box, elemStrides, interleave[int(m.interleave)],
        swizzle[int(m.swizzle)], l2[int(m.l2)],
        m.oob == OobFill::Zero
            ? CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE
            : CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA);
    if (r != CUDA_SUCCESS)
      return Failure{Status::PlanError,
                     "cuTensorMapEncodeTiled rejected tensor map '" + m.name +
                         "' over '" + spec.name + "' for " + wl.name + ": " +
                         d.describe(r) +
                         " (global strides must be multiples of 16 bytes)"};
    set.maps.push_back(map);
  }
  return std::nullopt;
}

void WorkloadRunner::activate(unsigned s) {
  active = s;
  for (unsigned t = 0; t < task.tensors.size(); ++t)
    if (task.tensors[t].role == Role::Input)
      bufs.tensors.buffers[t] = sets[s].inputs[t];
}

MaybeFail WorkloadRunner::prepareInputSet(unsigned s) {
  InputSet &set = sets[s];
  set.inputs.resize(task.tensors.size());
  for (unsigned t = 0; t < task.tensors.size(); ++t)
    if (task.tensors[t].role == Role::Input)
      TRY(gpu.allocGuarded(set.inputs[t], bufs.tensors.buffers[t].bytes));
  activate(s);
  TRY(encodeTensorMaps(set));
  // Set s draws what trial s drew before sets existed.
  TRY(generateInputs(s));
  TRY(op->runReference());
  for (const CheckedOutput &r : op->referenceOutputs()) {
    set.reference.emplace_back();
    TRY(gpu.alloc(set.reference.back(), r.values.bytes));
    TRY(gpu.check(d.cuMemcpyDtoDAsync(set.reference.back().ptr, r.values.ptr,
                                      r.values.bytes, gpu.stream),
                  Status::HarnessError, "keeping the reference outputs"));
  }
  return hashInputs(s, set.hashes);
}

MaybeFail WorkloadRunner::hashInputs(unsigned s,
                                     std::vector<uint64_t> &hashes) {
  CUfunction fn;
  TRY(gpu.builtin("ptxbench_hash", fn));
  DeviceBuffer out;
  TRY(gpu.alloc(out, 8 * task.tensors.size()));
  MaybeFail f = gpu.check(d.cuMemsetD8Async(out.ptr, 0, out.bytes, gpu.stream),
                          Status::HarnessError, "hashing inputs");
  for (unsigned t = 0; t < task.tensors.size() && !f; ++t) {
    if (task.tensors[t].role != Role::Input)
      continue;
    CUdeviceptr p = sets[s].inputs[t].ptr, o = out.ptr + 8 * t;
    uint64_t n = sets[s].inputs[t].bytes;
    void *args[] = {&p, &n, &o};
    unsigned grid[3] = {unsigned(std::min<uint64_t>((n / 4 + 255) / 256 + 1,
                                                    uint64_t(gpu.smCount) * 8)),
                        1, 1};
    unsigned block[3] = {256, 1, 1};
    f = launchBuiltin(gpu, fn, grid, block, 0, args, "hashing inputs");
  }
  hashes.assign(task.tensors.size(), 0);
  if (!f)
    f = gpu.check(d.cuStreamSynchronize(gpu.stream), Status::RuntimeError,
                  "hashing inputs");
  if (!f)
    f = gpu.check(d.cuMemcpyDtoH(hashes.data(), out.ptr, out.bytes),
                  Status::RuntimeError, "reading input hashes");
  if (!f || !f->contextLost)
    gpu.free(out);
  return f;
}

MaybeFail WorkloadRunner::nonZeroOnce(std::vector<uint64_t> &counts) {
  counts.assign(plan.workspaces.size(), 0);
  bool any = llvm::any_of(plan.workspaces, [](const ResolvedWorkspace &w) {
    return w.zero == ZeroFill::Once;
  });
  if (!any)
    return std::nullopt;
  CUfunction fn;
  TRY(gpu.builtin("ptxbench_nonzero", fn));
  DeviceBuffer out;
  TRY(gpu.alloc(out, 8 * counts.size()));
  MaybeFail f = gpu.check(d.cuMemsetD8Async(out.ptr, 0, out.bytes, gpu.stream),
                          Status::HarnessError, "reading zero=once workspaces");
  for (unsigned i = 0; i < plan.workspaces.size() && !f; ++i) {
    if (plan.workspaces[i].zero != ZeroFill::Once)
      continue;
    CUdeviceptr p = bufs.workspaces[i].ptr, o = out.ptr + 8 * i;
    uint64_t n = plan.workspaces[i].bytes;
    void *args[] = {&p, &n, &o};
    unsigned grid[3] = {unsigned(std::min<uint64_t>((n + 255) / 256 + 1,
                                                    uint64_t(gpu.smCount) * 8)),
                        1, 1};
    unsigned block[3] = {256, 1, 1};
    f = launchBuiltin(gpu, fn, grid, block, 0, args,
                      "reading zero=once workspaces");
  }
  if (!f)
    f = gpu.check(d.cuStreamSynchronize(gpu.stream), Status::RuntimeError,
                  "reading zero=once workspaces");
  if (!f)
    f = gpu.check(d.cuMemcpyDtoH(counts.data(), out.ptr, out.bytes),
                  Status::RuntimeError, "reading zero=once workspaces");
  if (!f || !f->contextLost)
    gpu.free(out);
  return f;
}

MaybeFail WorkloadRunner::generateInputs(unsigned trial) {
  for (unsigned t = 0; t < task.tensors.size(); ++t) {
    const TensorSpec &spec = task.tensors[t];
    if (spec.role != Role::Input ||
        spec.dist.kind == Distribution::Kind::Derived)
      continue;
    uint64_t n = bufs.tensors.buffers[t].bytes / dtypeSize(spec.dtype);
    int dtype = int(spec.dtype), dist = int(spec.dist.kind);
    const Distribution &ds = spec.dist;
    bool isNormal = ds.kind == Distribution::Kind::Normal ||
                    ds.kind == Distribution::Kind::Spiky;
    float pa = isNormal ? ds.mean : ds.low, pb = isNormal ? ds.std : ds.high;
    float prob = ds.spikeProb, scale = ds.spikeScale;
    uint64_t s = seed * 0x9E3779B97F4A7C15ull + trial * 0x100000001B3ull + t;
    void *ptr = reinterpret_cast<void *>(bufs.tensors.buffers[t].ptr);
    void *args[] = {&ptr, &n, &dtype, &dist, &pa, &pb, &prob, &scale, &s};
    unsigned grid[3] = {unsigned(std::min<uint64_t>(
                            (n + 255) / 256, uint64_t(gpu.smCount) * 16)),
                        1, 1};
    unsigned block[3] = {256, 1, 1};
    CUfunction init;
    TRY(gpu.builtin("ptxbench_init", init));
    TRY(launchBuiltin(gpu, init, grid, block, 0, args, "generating inputs"));
  }
  return op->deriveInputs();
}

MaybeFail WorkloadRunner::poisonOutputs() {
  for (unsigned t = 0; t < task.tensors.size(); ++t) {
    const TensorSpec &spec = task.tensors[t];
    if (spec.role != Role::Output)
      continue;
    const DeviceBuffer &buf = bufs.tensors.buffers[t];
    CUresult r;
    if (spec.dtype == DType::BF16)
      r = d.cuMemsetD16Async(buf.ptr, unwrittenBF16Bits, buf.bytes / 2,
                             gpu.stream);
    else if (spec.dtype == DType::F32)
      r = d.cuMemsetD32Async(buf.ptr, unwrittenF32Bits, buf.bytes / 4,
                             gpu.stream);
    else
      return Failure{Status::HarnessError,
                     "outputs of dtype " + dtypeName(spec.dtype).str() +
                         " are not supported yet (bf16, f32 are)"};
    TRY(gpu.check(r, Status::HarnessError, "poisoning outputs"));
  }
  return std::nullopt;
}

MaybeFail WorkloadRunner::poisonScratch() {
  for (unsigned i = 0; i < plan.workspaces.size(); ++i)
    if (plan.workspaces[i].zero == ZeroFill::None)
      TRY(gpu.check(d.cuMemsetD8Async(bufs.workspaces[i].ptr, 0xFF,
                                      plan.workspaces[i].bytes, gpu.stream),
                    Status::HarnessError,
                    "poisoning workspace '" + plan.workspaces[i].name + "'"));
  return std::nullopt;
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

MaybeFail WorkloadRunner::snapshotInputs(std::vector<std::vector<char>> &snap) {
  snap.assign(task.tensors.size(), {});
  for (unsigned t = 0; t < task.tensors.size(); ++t) {
    if (task.tensors[t].role != Role::Input)
      continue;
    const DeviceBuffer &buf = bufs.tensors.buffers[t];
    snap[t].resize(buf.bytes);
    TRY(gpu.check(d.cuMemcpyDtoH(snap[t].data(), buf.ptr, snap[t].size()),
                  Status::RuntimeError, "reading inputs"));
  }
  return std::nullopt;
}

MaybeFail
WorkloadRunner::checkInputsUnchanged(const std::vector<std::vector<char>> &snap,
                                     std::string &changed) {
  std::vector<std::vector<char>> now;
  TRY(snapshotInputs(now));
  for (unsigned t = 0; t < snap.size(); ++t)
    if (snap[t] != now[t]) {
      size_t i = 0;
      while (snap[t][i] == now[t][i])
        ++i;
      changed = "input '" + task.tensors[t].name +
                "' was modified by the submission (first changed byte " +
                std::to_string(i) + ")";
      return std::nullopt;
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
    activate(next);
    setOf.push_back(next);
    TRY(poisonOutputs());
    TRY(gpu.restoreGlobals());
    return poisonScratch();
  };
  hooks.after = [&](unsigned launch) -> MaybeFail {
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
  result.inputSets = sets.size();
  result.timedLaunchesChecked = launches;
  for (unsigned l = 0; l < launches; ++l)
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
      std::string when =
          l < task.timing.warmup
              ? "warm-up launch " + std::to_string(l + 1)
              : "timed launch " + std::to_string(l - task.timing.warmup + 1);
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
  return std::nullopt;
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

void emit(int fd, json::Value v) {
  std::string line;
  raw_string_ostream os(line);
  os << v << "\n";
  os.flush();
  const char *p = line.data();
  size_t left = line.size();
  while (left) {
    ssize_t n = ::write(fd, p, left);
    if (n <= 0)
      return;
    p += n;
    left -= n;
  }
}

} // namespace

int ptxbench::runtime::runWorker(const Task &task, const LaunchPlan &plan,
                                 StringRef source, ArrayRef<Workload> workloads,
                                 const WorkerOptions &options) {
  int fd = options.resultFd;
  auto report = [&](unsigned i, WorkloadResult r) {
    r.workload = workloads[i].name;
    r.params = workloads[i].params;
    if (auto f = task.flops.evaluate(workloads[i].params))
      r.flops = double(*f);
    else
      consumeError(f.takeError());
    if (auto b = task.bytes.evaluate(workloads[i].params))
      r.bytes = double(*b);
    else
      consumeError(b.takeError());
    emit(fd, json::Object{{"event", "result"},
                          {"index", int64_t(i)},
                          {"result", toJSON(r)}});
  };
  auto reportAll = [&](Status s, const std::string &message,
                       const std::string &compileLog = "",
                       const std::string &jitLog = "") {
    for (unsigned i = options.first; i < workloads.size(); ++i) {
      WorkloadResult r;
      r.status = s;
      r.message = message;
      r.compileLog = compileLog;
      r.jitLog = jitLog;
      report(i, r);
    }
  };

  Gpu gpu;
  if (MaybeFail f = gpu.init()) {
    reportAll(f->status, f->message);
    return 0;
  }
  Peaks peaks = measurePeaks(gpu, options.remeasurePeaks);
  HardwarePeaks hw = hardwarePeaks(gpu);
  // The tensor-core rate of the task's input type is its speed of light:
  // fp8 inputs run at the fp8 rate, f32-only inputs at most at tf32's.
  bool fp8 = llvm::any_of(task.tensors, [](const TensorSpec &t) {
    return t.role == Role::Input && t.dtype == DType::E4M3;
  });
  bool f32 = llvm::all_of(task.tensors, [](const TensorSpec &t) {
    return t.role != Role::Input || t.dtype == DType::F32;
  });
  double matrix = fp8 ? hw.fp8Tflops : f32 ? hw.tf32Tflops : hw.bf16Tflops;
  emit(fd,
       json::Object{
           {"event", "device"},
           {"device", gpu.name + " (" + gpu.arch() + ")"},
           {"arch", gpu.arch()},
           {"peak_tflops", matrix},
           {"peak_matrix_type", fp8   ? "fp8 e4m3"
                                : f32 ? "tf32"
                                      : "bf16"},
           {"peak_gbps", hw.dramGBps},
           {"peak_fp32_tflops", hw.fp32Tflops},
           {"peak_how", hw.how},
           {"library_tflops", fp8 ? peaks.fp8Tflops : peaks.tflops},
           {"copy_gbps", peaks.gbps},
           {"peak_source", peaks.source},
           {"driver", gpu.driverVersion},
           {"cuda_driver_version", int64_t(gpu.cudaVersion)},
           {"cublaslt_version", int64_t(gpu.haveLt && gpu.lt.cublasLtGetVersion
                                            ? gpu.lt.cublasLtGetVersion()
                                            : 0)}});

  // The parent compiled the submission once, under the compile limits.
  std::string ptx, compileLog, jitLog;
  if (!options.ptxPath.empty()) {
    auto buf = MemoryBuffer::getFile(options.ptxPath);
    if (!buf) {
      reportAll(Status::HarnessError, "cannot read the compiled PTX " +
                                          options.ptxPath + ": " +
                                          buf.getError().message());
      return 0;
    }
    ptx = (*buf)->getBuffer().str();
  } else if (sys::path::extension(options.solutionPath) == ".ptx") {
    ptx = source.str();
  } else if (MaybeFail f = gpu.compileCuda(
                 source, sys::path::filename(options.solutionPath), ptx,
                 compileLog)) {
    reportAll(f->status, f->message, compileLog);
    return 0;
  }
  // The driver's JIT (ptxas) runs under the compile limit: the parent
  // watches the time between these two events.
  emit(fd, json::Object{{"event", "jit"}});
  CUmodule module;
  MaybeFail loaded = gpu.loadModule(ptx, module, jitLog);
  emit(fd, json::Object{{"event", "jit_done"}});
  if (MaybeFail f = loaded) {
    reportAll(f->status, f->message, compileLog, jitLog);
    return f->contextLost ? 3 : 0;
  }
  std::vector<CUfunction> functions;
  for (const KernelDecl &k : plan.kernels) {
    CUfunction fn;
    if (CUresult r = gpu.d.cuModuleGetFunction(&fn, module, k.name.c_str())) {
      reportAll(Status::LaunchError,
                k.loc.str() + ": error: kernel '" + k.name +
                    "' is not in the compiled module (" + gpu.d.describe(r) +
                    "); declare it extern \"C\" __global__",
                compileLog, jitLog);
      return 0;
    }
    functions.push_back(fn);
  }
  if (MaybeFail f = gpu.captureGlobals(module, moduleGlobals(ptx))) {
    reportAll(f->status, f->message, compileLog, jitLog);
    return f->contextLost ? 3 : 0;
  }
  // The instrumented variant, for the run-time feature counts.
  if (!options.instrumentedPtxPath.empty()) {
    auto buf = MemoryBuffer::getFile(options.instrumentedPtxPath);
    std::string log;
    if (!buf) {
      gpu.countedError =
          "cannot read the instrumented PTX: " + buf.getError().message();
    } else if (MaybeFail f = [&] {
                 emit(fd, json::Object{{"event", "jit"}});
                 MaybeFail f =
                     gpu.loadModule((*buf)->getBuffer(), gpu.counted, log);
                 emit(fd, json::Object{{"event", "jit_done"}});
                 return f;
               }()) {
      gpu.counted = nullptr;
      gpu.countedError = "the instrumented PTX does not load: " + f->message;
      if (f->contextLost)
        return 3;
    } else {
      for (const KernelDecl &k : plan.kernels) {
        CUfunction fn = nullptr;
        if (gpu.d.cuModuleGetFunction(&fn, gpu.counted, k.name.c_str())) {
          gpu.counted = nullptr;
          gpu.countedError =
              "kernel '" + k.name + "' is not in the instrumented module";
          break;
        }
        gpu.countedFunctions.push_back(fn);
      }
    }
  }

  for (unsigned i = options.first; i < workloads.size(); ++i) {
    emit(fd, json::Object{{"event", "start"}, {"index", int64_t(i)}});
    WorkloadResult r;
    r.compileLog = compileLog;
    r.jitLog = jitLog;
    auto resolved = resolveLaunchPlan(plan, task, workloads[i].params);
    if (!resolved) {
      r.status = Status::PlanError;
      r.message = toString(resolved.takeError());
      report(i, r);
      continue;
    }
    // Check argument counts and sizes against the kernels, and raise the
    // dynamic shared memory limit where the kernel needs more than 48 KiB.
    bool planOk = true;
    for (unsigned k = 0; k < plan.kernels.size() && planOk; ++k) {
      const ResolvedKernel &rk = resolved->kernels[k];
      if (std::string why = allowDynamicSmem(gpu, functions[k], rk.smem);
          !why.empty()) {
        r.status = Status::LaunchError;
        r.message = plan.kernels[k].loc.str() + ": error: kernel '" + rk.name +
                    "' " + why;
        planOk = false;
        break;
      }
      if (!gpu.d.cuFuncGetParamInfo)
        continue;
      size_t count = 0, offset, size;
      while (gpu.d.cuFuncGetParamInfo(functions[k], count, &offset, &size) ==
             CUDA_SUCCESS) {
        if (count < rk.args.size()) {
          const ResolvedArg &arg = rk.args[count];
          size_t want = arg.kind == ResolvedArg::Kind::TensorMap ? 128
                        : arg.kind == ResolvedArg::Kind::Scalar
                            ? scalarTypeSize(arg.type)
                            : 8;
          if (want != size) {
            r.status = Status::PlanError;
            r.message = plan.kernels[k].args[count].loc.str() +
                        ": error: argument " + std::to_string(count + 1) +
                        " of kernel '" + rk.name + "' is " +
                        std::to_string(size) + " bytes in the kernel, but " +
                        "the plan passes " + std::to_string(want);
            planOk = false;
            break;
          }
        }
        ++count;
      }
      if (planOk && count != rk.args.size()) {
        r.status = Status::PlanError;
        r.message = plan.kernels[k].loc.str() + ": error: kernel '" + rk.name +
                    "' takes " + std::to_string(count) +
                    " parameters but the plan passes " +
                    std::to_string(rk.args.size());
        planOk = false;
      }
    }
    if (!planOk) {
      report(i, r);
      continue;
    }
    bool lost;
    {
      WorkloadRunner runner(gpu, task, *resolved, functions, workloads[i],
                            options.seed + i);
      runner.progress = [&] {
        emit(fd, json::Object{{"event", "progress"}, {"index", int64_t(i)}});
      };
      runner.run(r, options.baseline, options.checkOnly);
      if (!runner.lost && !options.instrumentedPtxPath.empty() &&
          (r.status == Status::Passed || r.status == Status::Incorrect))
        runner.countFeatures(r, options.countFamilies);
      lost = runner.lost;
    }
    report(i, r);
    if (lost)
      return 3; // the context is unusable; the parent restarts a worker
  }
  return 0;
}

#endif // PTXBENCH_HAVE_CUDA_HEADERS
