//===- CudaLibs.h - The CUDA libraries, loaded at run time ------*- C++ -*-===//
//
// libcuda (driver), libcublasLt and NVML are opened with dlopen (NVRTC too,
// in Toolchain/CudaCompiler.h), so the tools neither link against nor need
// them until a submission is run. Only the toolkit's headers are used at
// build time (for the types and enums);
// this header is included only when they were found
// (PTXBENCH_HAVE_CUDA_HEADERS). Driver entry points are looked up with
// cuGetProcAddress, which returns the version matching these headers.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_LIB_RUNTIME_CUDALIBS_H
#define PTXBENCH_LIB_RUNTIME_CUDALIBS_H

#include <cublasLt.h>
#include <cuda.h>

#include <string>

namespace ptxbench::runtime::cuda {

#define PTXBENCH_DRIVER_FUNCTIONS(X)                                           \
  X(cuInit)                                                                    \
  X(cuDriverGetVersion)                                                        \
  X(cuDeviceGetCount)                                                          \
  X(cuDeviceGet)                                                               \
  X(cuDeviceGetName)                                                           \
  X(cuDeviceGetAttribute)                                                      \
  X(cuDeviceGetPCIBusId)                                                       \
  X(cuDevicePrimaryCtxRetain)                                                  \
  X(cuCtxSetCurrent)                                                           \
  X(cuCtxSynchronize)                                                          \
  X(cuCtxResetPersistingL2Cache)                                               \
  X(cuGetErrorName)                                                            \
  X(cuGetErrorString)                                                          \
  X(cuMemAlloc)                                                                \
  X(cuMemFree)                                                                 \
  X(cuMemGetInfo)                                                              \
  X(cuMemAddressReserve)                                                       \
  X(cuMemAddressFree)                                                          \
  X(cuMemCreate)                                                               \
  X(cuMemRelease)                                                              \
  X(cuMemMap)                                                                  \
  X(cuMemUnmap)                                                                \
  X(cuMemSetAccess)                                                            \
  X(cuMemGetAllocationGranularity)                                             \
  X(cuMemcpyHtoD)                                                              \
  X(cuMemcpyHtoDAsync)                                                         \
  X(cuMemcpyDtoH)                                                              \
  X(cuMemcpyDtoDAsync)                                                         \
  X(cuMemsetD8Async)                                                           \
  X(cuMemsetD16Async)                                                          \
  X(cuMemsetD32Async)                                                          \
  X(cuModuleLoadDataEx)                                                        \
  X(cuModuleLoadData)                                                          \
  X(cuLinkCreate)                                                              \
  X(cuLinkAddData)                                                             \
  X(cuLinkComplete)                                                            \
  X(cuLinkDestroy)                                                             \
  X(cuModuleUnload)                                                            \
  X(cuModuleGetFunction)                                                       \
  X(cuModuleGetGlobal)                                                         \
  X(cuFuncSetAttribute)                                                        \
  X(cuFuncGetAttribute)                                                        \
  X(cuLaunchKernel)                                                            \
  X(cuLaunchKernelEx)                                                          \
  X(cuStreamCreate)                                                            \
  X(cuStreamSynchronize)                                                       \
  X(cuEventCreate)                                                             \
  X(cuEventDestroy)                                                            \
  X(cuEventRecord)                                                             \
  X(cuEventSynchronize)                                                        \
  X(cuEventElapsedTime)                                                        \
  X(cuTensorMapEncodeTiled)

#define PTXBENCH_CUBLASLT_FUNCTIONS(X)                                         \
  X(cublasLtCreate)                                                            \
  X(cublasLtGetVersion)                                                        \
  X(cublasLtMatmulDescCreate)                                                  \
  X(cublasLtMatmulDescSetAttribute)                                            \
  X(cublasLtMatmulDescDestroy)                                                 \
  X(cublasLtMatrixLayoutDestroy)                                               \
  X(cublasLtMatmulPreferenceDestroy)                                           \
  X(cublasLtMatrixLayoutCreate)                                                \
  X(cublasLtMatmulPreferenceCreate)                                            \
  X(cublasLtMatmulPreferenceSetAttribute)                                      \
  X(cublasLtMatmulAlgoGetHeuristic)                                            \
  X(cublasLtMatmul)                                                            \
  X(cublasLtMatrixTransformDescCreate)                                         \
  X(cublasLtMatrixTransformDescSetAttribute)                                   \
  X(cublasLtMatrixTransformDescDestroy)                                        \
  X(cublasLtMatrixTransform)

#define PTXBENCH_DECLARE(name) decltype(&::name) name = nullptr;

struct Driver {
  PTXBENCH_DRIVER_FUNCTIONS(PTXBENCH_DECLARE)
  /// Optional (CUDA 12.4+): checks argument counts and sizes.
  decltype(&::cuFuncGetParamInfo) cuFuncGetParamInfo = nullptr;
  /// Opens libcuda.so.1; on failure `error` says why.
  bool load(std::string &error);
  /// "CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered".
  std::string describe(CUresult result) const;
};

struct CublasLt {
  PTXBENCH_CUBLASLT_FUNCTIONS(PTXBENCH_DECLARE)
  bool load(std::string &error);
};

/// NVML (libnvidia-ml.so.1), for the SM clock and throttle reasons. Its
/// header is not part of the toolkit image, so the few types are declared
/// here (the ABI is stable C).
struct Nvml {
  using Device = struct nvmlDevice_st *;
  static constexpr int clockSM = 1; // NVML_CLOCK_SM
  int (*nvmlInit_v2)() = nullptr;
  int (*nvmlDeviceGetHandleByPciBusId_v2)(const char *, Device *) = nullptr;
  int (*nvmlDeviceGetClockInfo)(Device, int, unsigned *) = nullptr;
  int (*nvmlDeviceGetMaxClockInfo)(Device, int, unsigned *) = nullptr;
  /// nvmlDeviceGetCurrentClocksEventReasons, or the older
  /// ...ClocksThrottleReasons (same signature and bits).
  int (*getReasons)(Device, unsigned long long *) = nullptr;
  int (*nvmlSystemGetDriverVersion)(char *, unsigned) = nullptr;
  bool load(std::string &error);
};

#undef PTXBENCH_DECLARE

} // namespace ptxbench::runtime::cuda

#endif // PTXBENCH_LIB_RUNTIME_CUDALIBS_H
