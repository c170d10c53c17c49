//===- SubmissionModule.cpp - Compile once, load fresh per launch ---------===//
//
// The parent's cubin, or the driver's linker (cuLink*) on the PTX when
// there is none, is checked for device-runtime calls, and every launch
// loads the module afresh (SubmissionModule.h).
//
//===----------------------------------------------------------------------===//

#include "SubmissionModule.h"

#include "WorkloadRunner.h"

#include "ptxbench/Runtime/Containment.h"

#include "llvm/Support/MemoryBuffer.h"

using namespace llvm;
using namespace ptxbench::runtime;

/// Links `ptx` with the driver into a (relocatable) cubin: what the
/// device-runtime check reads when the parent had no ptxas.
static MaybeFail linkWithDriver(Gpu &gpu, StringRef ptx, std::string &cubinOut,
                                std::string &log) {
  cuda::Driver &d = gpu.d;
  std::string text = ptx.str(); // NUL-terminated
  JitLogs logs;
  CUlinkState link = nullptr;
  CUresult r = d.cuLinkCreate(JitLogs::count, logs.options, logs.values, &link);
  if (r == CUDA_SUCCESS)
    r = d.cuLinkAddData(link, CU_JIT_INPUT_PTX, text.data(), text.size() + 1,
                        "submission.ptx", 0, nullptr, nullptr);
  void *cubin = nullptr;
  size_t size = 0;
  if (r == CUDA_SUCCESS)
    r = d.cuLinkComplete(link, &cubin, &size);
  if (r == CUDA_SUCCESS)
    cubinOut.assign(static_cast<const char *>(cubin), size);
  log = logs.text();
  std::string errLog = logs.errors();
  if (link)
    d.cuLinkDestroy(link);
  if (r != CUDA_SUCCESS)
    return Failure{isStickyError(r) ? Status::RuntimeError
                                    : Status::CompileError,
                   "compiling the PTX (driver JIT) failed: " + d.describe(r) +
                       (errLog.empty() ? "" : "\n" + errLog),
                   isStickyError(r)};
  return std::nullopt;
}

MaybeFail ptxbench::runtime::prepareModule(Gpu &gpu, StringRef ptx,
                                           StringRef cubinPath,
                                           CompiledModule &out,
                                           std::string &log) {
  std::string checked;
  if (!cubinPath.empty()) {
    auto buf = MemoryBuffer::getFile(cubinPath);
    if (!buf)
      return Failure{Status::HarnessError, "cannot read the cubin " +
                                               cubinPath.str() + ": " +
                                               buf.getError().message()};
    out.cubin = (*buf)->getBuffer().str();
    checked = out.cubin;
  } else {
    out.ptx = ptx.str();
    TRY(linkWithDriver(gpu, ptx, checked, log));
  }
  auto refused = refusedDeviceCalls(checked);
  if (!refused)
    return Failure{Status::HarnessError, toString(refused.takeError())};
  if (!refused->empty())
    return Failure{Status::CompileError, refusedDeviceCallsMessage(*refused)};
  return std::nullopt;
}

MaybeFail LoadedModule::load(
    Gpu &g, const CompiledModule &compiled,
    const std::array<uint64_t, isa::numControlWords> *control,
    unsigned *missing) {
  unload();
  gpu = &g;
  cuda::Driver &d = g.d;
  if (!compiled.cubin.empty()) {
    TRY(g.check(d.cuModuleLoadData(&module, compiled.cubin.data()),
                Status::HarnessError, "loading the compiled submission"));
  } else {
    std::string log;
    TRY(g.loadModule(compiled.ptx, module, log));
  }
  for (unsigned k = 0; k < compiled.kernels.size(); ++k) {
    CUfunction fn = nullptr;
    if (MaybeFail f = g.check(
            d.cuModuleGetFunction(&fn, module, compiled.kernels[k].c_str()),
            Status::LaunchError,
            "kernel '" + compiled.kernels[k] + "' of the compiled module")) {
      if (missing)
        *missing = k;
      return f;
    }
    if (std::string why = allowDynamicSmem(g, fn, compiled.smem[k]);
        !why.empty())
      return Failure{Status::LaunchError,
                     "kernel '" + compiled.kernels[k] + "' " + why};
    fns.push_back(fn);
  }
  if (!control)
    return std::nullopt;
  CUdeviceptr block = 0;
  size_t bytes = 0;
  TRY(g.check(d.cuModuleGetGlobal(&block, &bytes, module,
                                  compiled.control.c_str()),
              Status::HarnessError, "the instrumented module's control block"));
  if (bytes != sizeof(*control))
    return Failure{Status::HarnessError,
                   "the instrumented module's control block has " +
                       std::to_string(bytes) + " bytes, not " +
                       std::to_string(sizeof(*control))};
  return g.check(d.cuMemcpyHtoD(block, control->data(), bytes),
                 Status::HarnessError, "filling the control block");
}

void LoadedModule::unload() {
  if (module && gpu)
    gpu->d.cuModuleUnload(module);
  module = nullptr;
  fns.clear();
}
