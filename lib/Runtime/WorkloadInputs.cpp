//===- WorkloadInputs.cpp - Input sets, poisoned outputs, workspaces ------===//
//
// What a submission's launches read and write, prepared by the harness:
// the input sets (each with its own addresses, contents, tensor maps,
// reference outputs and hashes, prepared untimed, then read-only), the
// switch between them, the guarded output and workspace buffers, and the
// poison written into outputs and scratch workspaces before each launch.
// The hashes let the runner see afterwards that no input changed.
//
//===----------------------------------------------------------------------===//

#include "WorkloadRunner.h"

#include "ptxbench/Runtime/Containment.h"
#include "ptxbench/Runtime/HarnessCache.h"

#include <cstring>

#include <chrono>

using namespace llvm;
using namespace ptxbench::runtime;

namespace {

/// The bytes of the task's input sets at most take (or a quarter of the free
/// device memory, if less), and their most: more sets cost memory and
/// untimed reference runs; two already keep every timed launch from seeing
/// the previous launch's inputs.
constexpr uint64_t inputSetBudget = uint64_t(4) << 30;
constexpr unsigned maxInputSets = 4;
/// Preparing one input set (inputs and reference) longer than this limits
/// a workload to two sets.
constexpr std::chrono::milliseconds slowInputSet(500);

} // namespace

MaybeFail WorkloadRunner::allocate() {
  auto mark = std::chrono::steady_clock::now();
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
    // What the plan asks for and the device cannot give is the plan's.
    if (MaybeFail f = gpu.allocGuarded(bufs.workspaces.back(), w.bytes)) {
      if (f->contextLost)
        return f;
      size_t freeBytes = 0, totalBytes = 0;
      d.cuMemGetInfo(&freeBytes, &totalBytes);
      return Failure{Status::PlanError,
                     "workspace '" + w.name + "' of " +
                         std::to_string(w.bytes) +
                         " bytes cannot be allocated beside the task's "
                         "tensors (" +
                         std::to_string(freeBytes >> 20) + " MiB of " +
                         std::to_string(totalBytes >> 20) +
                         " MiB free): " + f->message};
    }
    // zero=once: here, untimed; the kernels keep it zeroed from then on.
    if (w.zero == ZeroFill::Once)
      TRY(gpu.check(
          d.cuMemsetD8Async(bufs.workspaces.back().ptr, 0, w.bytes, gpu.stream),
          Status::HarnessError, "zeroing workspace '" + w.name + "'"));
  }
  op = makeOperator(gpu, task, bufs.tensors, wl.params);
  TRY(op->setup());
  addPhase("buffers", mark);
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
  // From here on no launch can write an input, of any set: a write faults.
  TRY(gpu.check(d.cuStreamSynchronize(gpu.stream), Status::HarnessError,
                "preparing the input sets"));
  for (InputSet &set : sets)
    for (const DeviceBuffer &b : set.inputs)
      if (b.mapped)
        TRY(gpu.setReadOnly(b, true));
  return std::nullopt;
}

MaybeFail WorkloadRunner::encodeTensorMap(const ResolvedTensorMap &m,
                                          CUdeviceptr base, CUtensorMap &map) {
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
  CUresult r = d.cuTensorMapEncodeTiled(
      &map, type, rank, reinterpret_cast<void *>(base), dims, strides, box,
      elemStrides, interleave[int(m.interleave)], swizzle[int(m.swizzle)],
      l2[int(m.l2)],
      m.oob == OobFill::Zero
          ? CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE
          : CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA);
  if (r != CUDA_SUCCESS)
    return Failure{Status::PlanError,
                   "cuTensorMapEncodeTiled rejected tensor map '" + m.name +
                       "' over '" + spec.name + "' for " + wl.name + ": " +
                       d.describe(r) +
                       " (global strides must be multiples of 16 bytes)"};
  return std::nullopt;
}

MaybeFail WorkloadRunner::encodeTensorMaps(InputSet &set) {
  for (const ResolvedTensorMap &m : plan.tensorMaps) {
    CUtensorMap map;
    TRY(encodeTensorMap(m, bufs.tensors.buffers[m.tensor].ptr, map));
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
  auto mark = std::chrono::steady_clock::now();
  TRY(generateInputs(s, /*derive=*/false));
  TRY(gpu.check(d.cuStreamSynchronize(gpu.stream), Status::HarnessError,
                "generating inputs"));
  mark = addPhase("input sets", mark);
  if (referenceCacheKey.empty() || !loadCachedReference(s)) {
    TRY(op->deriveInputs());
    TRY(op->runReference());
    if (!referenceCacheKey.empty())
      storeCachedReference(s);
  }
  mark = addPhase("references", mark);
  for (const CheckedOutput &r : op->referenceOutputs()) {
    set.reference.emplace_back();
    TRY(gpu.allocSealed(set.reference.back(), r.values.bytes));
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

MaybeFail WorkloadRunner::generateInputs(unsigned trial, bool derive) {
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
  return derive ? op->deriveInputs() : std::nullopt;
}

// The reference cache. A file holds, for one input set, the derived inputs
// and the reference outputs, each as (u32 tensor, u8 kind, u64 bytes,
// bytes), then the hashes of all the set's inputs as they were: on reuse
// the freshly drawn inputs with the kept derived ones must hash the same,
// else the entry is not used.
namespace {
constexpr char referenceMagic[8] = {'P', 'T', 'X', 'B', 'R', 'E', 'F', '1'};
template <typename T> void put(std::string &out, T v) {
  out.append(reinterpret_cast<const char *>(&v), sizeof(v));
}
template <typename T> bool take(StringRef &in, T &v) {
  if (in.size() < sizeof(T))
    return false;
  std::memcpy(&v, in.data(), sizeof(T));
  in = in.drop_front(sizeof(T));
  return true;
}
} // namespace

std::string WorkloadRunner::cacheName(StringRef key, unsigned s) const {
  std::string params;
  for (const auto &[name, value] : wl.params)
    params += (name + "=" + Twine(value) + ";").str();
  return "reference-" +
         cacheKey({key, wl.name, params, std::to_string(seed),
                   std::to_string(s), gpu.name, gpu.driverVersion,
                   std::to_string(CUDA_VERSION)}) +
         ".bin";
}

std::string WorkloadRunner::referenceCacheName(unsigned s) const {
  return cacheName(referenceCacheKey, s);
}

void WorkloadRunner::storeCachedReference(unsigned s) {
  std::string out(referenceMagic, sizeof(referenceMagic));
  auto blob = [&](unsigned tensor, uint8_t kind, const DeviceBuffer &b) {
    std::string bytes(b.bytes, '\0');
    if (d.cuMemcpyDtoH(bytes.data(), b.ptr, b.bytes) != CUDA_SUCCESS)
      return false;
    put<uint32_t>(out, tensor);
    put<uint8_t>(out, kind);
    put<uint64_t>(out, b.bytes);
    out += bytes;
    return true;
  };
  if (d.cuStreamSynchronize(gpu.stream) != CUDA_SUCCESS)
    return;
  for (unsigned t = 0; t < task.tensors.size(); ++t)
    if (task.tensors[t].role == Role::Input &&
        task.tensors[t].dist.kind == Distribution::Kind::Derived &&
        !blob(t, 0, sets[s].inputs[t]))
      return;
  for (const CheckedOutput &r : op->referenceOutputs())
    if (!blob(r.tensor, 1, r.values))
      return;
  std::vector<uint64_t> hashes;
  if (hashInputs(s, hashes))
    return;
  put<uint32_t>(out, hashes.size());
  for (uint64_t h : hashes)
    put<uint64_t>(out, h);
  writeCached(referenceCacheName(s), out);
}

bool WorkloadRunner::loadCachedReference(unsigned s) {
  std::optional<std::string> file = readCached(referenceCacheName(s));
  if (!file || !StringRef(*file).starts_with(
                   StringRef(referenceMagic, sizeof(referenceMagic))))
    return false;
  StringRef in = StringRef(*file).drop_front(sizeof(referenceMagic));
  const std::vector<CheckedOutput> &refs = op->referenceOutputs();
  unsigned derived = 0, outputs = 0;
  for (unsigned t = 0; t < task.tensors.size(); ++t)
    derived += task.tensors[t].role == Role::Input &&
               task.tensors[t].dist.kind == Distribution::Kind::Derived;
  for (unsigned i = 0; i < derived + refs.size(); ++i) {
    uint32_t tensor;
    uint8_t kind;
    uint64_t bytes;
    if (!take(in, tensor) || !take(in, kind) || !take(in, bytes) ||
        in.size() < bytes || tensor >= task.tensors.size())
      return false;
    const DeviceBuffer *target = nullptr;
    if (kind == 0 && task.tensors[tensor].role == Role::Input)
      target = &sets[s].inputs[tensor];
    for (const CheckedOutput &r : refs)
      if (kind == 1 && r.tensor == int(tensor))
        target = &r.values;
    if (!target || target->bytes != bytes ||
        d.cuMemcpyHtoD(target->ptr, in.data(), bytes) != CUDA_SUCCESS)
      return false;
    outputs += kind == 1;
    in = in.drop_front(bytes);
  }
  uint32_t count;
  std::vector<uint64_t> now;
  if (outputs != refs.size() || !take(in, count) ||
      count != task.tensors.size() || hashInputs(s, now))
    return false;
  for (unsigned t = 0; t < count; ++t) {
    uint64_t h;
    if (!take(in, h) || h != now[t])
      return false; // other inputs than when it was kept
  }
  return true;
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
