//===- Harness.cpp - Compile, launch, check and time one submission -------===//
//
// The worker's body: the device and its speed of light, the submission
// (and its instrumented copy) as the parent's cubins (or the driver's JIT,
// watched by the parent, without them), each workload's resolved plan checked against the kernels'
// parameters and run by a WorkloadRunner (WorkloadRunner.h), every event
// one JSON line on the pipe; and probeGpu, for the parent. Everything the
// GPU does for a submission goes through the harness's own stream: input
// generation, NaN poisoning of outputs, the submission's kernels (per its
// resolved launch plan), the reference, the L2 flush before each timed
// sample and the baseline library.
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

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <chrono>

#ifdef PTXBENCH_HAVE_CUDA_HEADERS
#include "Gpu.h"
#include "Peaks.h"
#include "SubmissionModule.h"
#include "WorkloadRunner.h"

#include "ptxbench/Runtime/Containment.h"
#include "ptxbench/Runtime/GpuLock.h"

#include <unistd.h>
#endif

using namespace llvm;
using namespace ptxbench::runtime;

std::string ptxbench::runtime::archName(int major, int minor) {
  std::string a = "sm_" + std::to_string(major * 10 + minor);
  if ((major == 9 && minor == 0) || major == 10)
    a += "a";
  return a;
}

#ifndef PTXBENCH_HAVE_CUDA_HEADERS

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
  setPythonReferenceServer(options.referenceServer.get());
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

  // What the worker runs in, for the result; a sandbox it could not apply
  // as required ends it here.
  emit(fd, json::Object{{"event", "sandbox"}, {"sandbox", options.sandbox}});
  if (!options.sandboxError.empty()) {
    reportAll(Status::HarnessError,
              "the GPU worker's sandbox: " + options.sandboxError);
    return 0;
  }

  // Another run on this GPU finishes its GPU part first; meanwhile the
  // watchdog hears from us.
  GpuLock gpuLock;
  if (!options.gpuLock.empty()) {
    std::string error;
    if (!gpuLock.acquire(
            options.gpuLock,
            [&] {
              emit(fd, json::Object{{"event", "progress"},
                                    {"index", int64_t(options.first)}});
            },
            500, error)) {
      reportAll(Status::HarnessError, error);
      return 0;
    }
  }
  auto started = std::chrono::steady_clock::now();
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
                                            : 0)},
           {"setup_ms", std::chrono::duration<double, std::milli>(
                            std::chrono::steady_clock::now() - started)
                            .count()}});

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
  // watches the time between these two events. The cubin it makes is
  // loaded afresh for every launch (SubmissionModule.h).
  Submission submission;
  auto compile = [&](StringRef text, StringRef cubin, CompiledModule &out,
                     std::string &log) {
    emit(fd, json::Object{{"event", "jit"}});
    MaybeFail f = prepareModule(gpu, text, cubin, out, log);
    emit(fd, json::Object{{"event", "jit_done"}});
    for (const KernelDecl &k : plan.kernels)
      out.kernels.push_back(k.name);
    out.smem.assign(plan.kernels.size(), 0);
    return f;
  };
  if (MaybeFail f = compile(ptx, options.cubinPath, submission.plain, jitLog)) {
    reportAll(f->status, f->message, compileLog, jitLog);
    return f->contextLost ? 3 : 0;
  }
  // Every kernel the plan names must be in the module.
  LoadedModule probe;
  unsigned missing = ~0u;
  if (MaybeFail f = probe.load(gpu, submission.plain, nullptr, &missing)) {
    std::string message = f->message;
    if (missing < plan.kernels.size())
      message = plan.kernels[missing].loc.str() + ": error: kernel '" +
                plan.kernels[missing].name +
                "' is not in the compiled module; declare it extern \"C\" "
                "__global__";
    reportAll(f->contextLost ? f->status : Status::LaunchError, message,
              compileLog, jitLog);
    return f->contextLost ? 3 : 0;
  }
  ArrayRef<CUfunction> functions = probe.functions();
  // The instrumented variant, for the counted run and the knockouts.
  std::string countedError;
  if (!options.instrumentedPtxPath.empty()) {
    auto buf = MemoryBuffer::getFile(options.instrumentedPtxPath);
    std::string log;
    CompiledModule counted;
    counted.control = options.controlSymbol;
    if (!buf) {
      countedError =
          "cannot read the instrumented PTX: " + buf.getError().message();
    } else if (MaybeFail f = compile((*buf)->getBuffer(),
                                     options.countCubinPath, counted, log)) {
      countedError = "the instrumented PTX does not compile: " + f->message;
      if (f->contextLost)
        return 3;
    } else {
      submission.instrumented = std::move(counted);
      submission.countFamilies = options.countFamilies;
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
      submission.plain.smem[k] = rk.smem;
      if (submission.instrumented)
        submission.instrumented->smem[k] = rk.smem;
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
      WorkloadRunner runner(gpu, task, *resolved, submission, workloads[i],
                            options.seed + i);
      if (options.cacheReferences)
        runner.referenceCacheKey = options.taskKey;
      if (options.cacheReferences || options.reuseBaseline)
        runner.baselineCacheKey = options.taskKey;
      runner.progress = [&] {
        emit(fd, json::Object{{"event", "progress"}, {"index", int64_t(i)}});
      };
      runner.run(r, options.baseline, options.checkOnly);
      if (!options.instrumentedPtxPath.empty() && !submission.instrumented &&
          r.featureNote.empty())
        r.featureNote = countedError;
      lost = runner.lost;
    }
    report(i, r);
    if (lost)
      return 3; // the context is unusable; the parent restarts a worker
  }
  return 0;
}

#endif // PTXBENCH_HAVE_CUDA_HEADERS
