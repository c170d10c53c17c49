//===- CudaLibs.cpp - dlopen the CUDA driver, cuBLASLt and NVML -----------===//

#include "CudaLibs.h"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <vector>

using namespace ptxbench::runtime::cuda;

/// Opens the first library of `names` that loads, also trying the toolkit
/// folders ($CUDA_HOME/lib64, /usr/local/cuda/lib64).
static void *openFirst(std::initializer_list<const char *> names,
                       std::string &error) {
  std::vector<std::string> candidates;
  for (const char *n : names)
    candidates.push_back(n);
  for (const char *dir : std::initializer_list<const char *>{
           getenv("CUDA_HOME"), getenv("CUDA_PATH"), "/usr/local/cuda"})
    if (dir && *dir)
      for (const char *n : names)
        candidates.push_back(std::string(dir) + "/lib64/" + n);
  std::string tried;
  for (const std::string &c : candidates) {
    if (void *h = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL))
      return h;
    tried += (tried.empty() ? "" : "; ") + std::string(dlerror());
  }
  error = "cannot load " + std::string(*names.begin()) + " (" + tried + ")";
  return nullptr;
}

/// The CUDA version whose entry point matches the prototype in cuda.h.
/// Usually the headers' own version: cuda.h remaps names whose signature
/// changed (cuMemAlloc -> cuMemAlloc_v2). cuCtxSynchronize is the exception:
/// CUDA 13.0 made "cuCtxSynchronize" resolve to cuCtxSynchronize_v2, which
/// takes a CUcontext, while cuda.h still declares the old void version
/// under that name. Asking with 13000 returned the new one, and calling it
/// with no argument crashed inside the driver (seen on the H200, driver 580).
static int versionFor(const char *name) {
  if (std::strcmp(name, "cuCtxSynchronize") == 0)
    return 12000;
  return CUDA_VERSION;
}

bool Driver::load(std::string &error) {
  void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    error = "no CUDA driver (libcuda.so.1: " + std::string(dlerror()) + ")";
    return false;
  }
  using GetProc = CUresult (*)(const char *, void **, int, cuuint64_t,
                               CUdriverProcAddressQueryResult *);
  auto getProc = reinterpret_cast<GetProc>(dlsym(h, "cuGetProcAddress_v2"));
  if (!getProc) {
    error = "the CUDA driver is too old (no cuGetProcAddress_v2); CUDA 12 or "
            "newer is needed";
    return false;
  }
#define PTXBENCH_LOAD(fn)                                                      \
  {                                                                            \
    void *p = nullptr;                                                         \
    CUdriverProcAddressQueryResult q;                                          \
    if (getProc(#fn, &p, versionFor(#fn), CU_GET_PROC_ADDRESS_DEFAULT, &q) !=  \
            CUDA_SUCCESS ||                                                    \
        !p) {                                                                  \
      error = "the CUDA driver lacks " #fn " (driver older than the "          \
              "toolkit ptxbench was built with?)";                             \
      return false;                                                            \
    }                                                                          \
    fn = reinterpret_cast<decltype(fn)>(p);                                    \
  }
  PTXBENCH_DRIVER_FUNCTIONS(PTXBENCH_LOAD)
#undef PTXBENCH_LOAD
  {
    void *p = nullptr;
    CUdriverProcAddressQueryResult q;
    if (getProc("cuFuncGetParamInfo", &p, CUDA_VERSION,
                CU_GET_PROC_ADDRESS_DEFAULT, &q) == CUDA_SUCCESS)
      cuFuncGetParamInfo = reinterpret_cast<decltype(cuFuncGetParamInfo)>(p);
  }
  return true;
}

std::string Driver::describe(CUresult result) const {
  const char *name = nullptr, *text = nullptr;
  if (cuGetErrorName)
    cuGetErrorName(result, &name);
  if (cuGetErrorString)
    cuGetErrorString(result, &text);
  std::string s = name ? name : "CUDA error " + std::to_string(int(result));
  if (text)
    s += std::string(": ") + text;
  return s;
}

#define PTXBENCH_DLSYM(fn)                                                     \
  fn = reinterpret_cast<decltype(fn)>(dlsym(h, #fn));                          \
  if (!fn) {                                                                   \
    error = "missing symbol " #fn;                                             \
    return false;                                                              \
  }

bool CublasLt::load(std::string &error) {
  void *h = openFirst(
      {"libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so"}, error);
  if (!h)
    return false;
  PTXBENCH_CUBLASLT_FUNCTIONS(PTXBENCH_DLSYM)
  return true;
}

bool Nvml::load(std::string &error) {
  void *h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    error = "NVML not available (libnvidia-ml.so.1: " + std::string(dlerror()) +
            ")";
    return false;
  }
  auto sym = [&](const char *name, auto &fn) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(
        dlsym(h, name));
    return fn != nullptr;
  };
  if (!sym("nvmlInit_v2", nvmlInit_v2) ||
      !sym("nvmlDeviceGetHandleByPciBusId_v2",
           nvmlDeviceGetHandleByPciBusId_v2) ||
      !sym("nvmlDeviceGetClockInfo", nvmlDeviceGetClockInfo) ||
      !sym("nvmlDeviceGetMaxClockInfo", nvmlDeviceGetMaxClockInfo)) {
    error = "NVML lacks the clock functions";
    return false;
  }
  if (!sym("nvmlDeviceGetCurrentClocksEventReasons", getReasons))
    sym("nvmlDeviceGetCurrentClocksThrottleReasons", getReasons);
  sym("nvmlSystemGetDriverVersion", nvmlSystemGetDriverVersion);
  if (int r = nvmlInit_v2()) {
    error = "nvmlInit failed (NVML error " + std::to_string(r) + ")";
    return false;
  }
  return true;
}
