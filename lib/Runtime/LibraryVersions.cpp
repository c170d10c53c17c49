//===- LibraryVersions.cpp - The GPU libraries a run would load -----------===//
//
// What `ptxbench --version` reports of the libraries opened at run time: the
// CUDA driver (cuDriverGetVersion), cuBLASLt (cublasLtGetVersion) and cuDNN
// (the SDPA baseline's loader), each opened the way a run opens it, or why
// it does not load.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Runtime/Harness.h"

#include "CudnnSdpa.h"

#include "llvm/Support/FormatVariadic.h"

#ifdef PTXBENCH_HAVE_CUDA_HEADERS
#include "CudaLibs.h"
#endif

using namespace ptxbench::runtime;

/// "13.0" from CUDA's integer form (13000).
static std::string cudaVersionText(int v) {
  return llvm::formatv("{0}.{1}", v / 1000, v % 1000 / 10).str();
}

std::vector<std::pair<std::string, std::string>>
ptxbench::runtime::libraryVersions() {
  std::vector<std::pair<std::string, std::string>> out;
#ifdef PTXBENCH_HAVE_CUDA_HEADERS
  std::string why;
  cuda::Driver driver;
  int v = 0;
  if (!driver.load(why))
    out.push_back({"CUDA driver", "not loaded: " + why});
  else if (driver.cuDriverGetVersion(&v) != CUDA_SUCCESS)
    out.push_back({"CUDA driver", "loaded, but it reports no version"});
  else
    out.push_back({"CUDA driver", cudaVersionText(v)});
  cuda::CublasLt lt;
  why.clear();
  if (!lt.load(why)) {
    out.push_back({"cuBLASLt", "not loaded: " + why});
  } else {
    // cublasLtGetVersion: major*10000 + minor*100 + patch.
    size_t lv = lt.cublasLtGetVersion();
    out.push_back({"cuBLASLt", llvm::formatv("{0}.{1}.{2}", lv / 10000,
                                             lv % 10000 / 100, lv % 100)
                                   .str()});
  }
#else
  out.push_back({"CUDA driver", "not used: built without the CUDA headers"});
  out.push_back({"cuBLASLt", "not used: built without the CUDA headers"});
#endif
  if (llvm::Error e = CudnnSdpa::load())
    out.push_back({"cuDNN", "not loaded: " + llvm::toString(std::move(e))});
  else
    out.push_back({"cuDNN", CudnnSdpa::version()});
  return out;
}
