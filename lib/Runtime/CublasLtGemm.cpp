//===- CublasLtGemm.cpp - The cuBLASLt GEMM baseline ----------------------===//
//
// Row-major C[M,N] = A[M,K] B[K,N] is column-major C^T = B^T A^T, so
// cuBLAS's first operand is our B. The descriptors are created once per
// workload and kept alive by the launch closure.
//
//===----------------------------------------------------------------------===//

#include "CublasLtGemm.h"

#include <memory>

using namespace llvm;
using namespace ptxbench::runtime;

namespace {

cudaDataType_t cudaType(DType t) {
  switch (t) {
  case DType::BF16:
    return CUDA_R_16BF;
  case DType::F16:
    return CUDA_R_16F;
  case DType::E4M3:
    return CUDA_R_8F_E4M3;
  case DType::F32:
    return CUDA_R_32F;
  case DType::I32:
    return CUDA_R_32I;
  }
  return CUDA_R_32F;
}

/// The descriptors of one GEMM, released with it.
struct LtGemm {
  cuda::CublasLt *lt = nullptr;
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t la = nullptr, lb = nullptr, lc = nullptr;
  cublasLtMatmulPreference_t pref = nullptr;
  cublasLtMatmulHeuristicResult_t heur = {};
  ~LtGemm() {
    if (pref)
      lt->cublasLtMatmulPreferenceDestroy(pref);
    for (cublasLtMatrixLayout_t l : {la, lb, lc})
      if (l)
        lt->cublasLtMatrixLayoutDestroy(l);
    if (op)
      lt->cublasLtMatmulDescDestroy(op);
  }
};

} // namespace

MaybeFail
ptxbench::runtime::makeCublasLtGemm(Gpu &gpu, const GemmOperands &g,
                                    std::function<MaybeFail()> &launch) {
  if (!gpu.haveLt)
    return Failure{Status::HarnessError, "cuBLASLt: " + gpu.ltError};
  bool fp8 = g.typeA == DType::E4M3 || g.typeB == DType::E4M3;
  if (fp8 && (g.typeA != g.typeB || !g.transB))
    return Failure{Status::HarnessError,
                   "cuBLASLt's fp8 GEMM needs e4m3 A and B, both K-major "
                   "(b_layout \"nk\")"};
  cuda::CublasLt &lt = gpu.lt;
  if (!gpu.ltHandle) {
    if (lt.cublasLtCreate(&gpu.ltHandle) != CUBLAS_STATUS_SUCCESS)
      return Failure{Status::HarnessError, "cublasLtCreate failed"};
    TRY(gpu.alloc(gpu.ltWorkspace, 64 << 20));
  }
  auto m = std::make_shared<LtGemm>();
  m->lt = &lt;
  // cuBLAS's first operand is B, seen column-major as [N, K] (ld N), not
  // transposed; with B stored [N, K] it is [K, N] (ld K), transposed: the
  // "TN" GEMM, the only layout cuBLASLt's fp8 kernels take.
  cublasOperation_t opN = CUBLAS_OP_N;
  cublasOperation_t opB = g.transB ? CUBLAS_OP_T : CUBLAS_OP_N;
  int64_t M = g.M, N = g.N, K = g.K;
  bool ok =
      lt.cublasLtMatmulDescCreate(&m->op, CUBLAS_COMPUTE_32F, CUDA_R_32F) ==
          0 &&
      lt.cublasLtMatmulDescSetAttribute(m->op, CUBLASLT_MATMUL_DESC_TRANSA,
                                        &opB, sizeof(opB)) == 0 &&
      lt.cublasLtMatmulDescSetAttribute(m->op, CUBLASLT_MATMUL_DESC_TRANSB,
                                        &opN, sizeof(opN)) == 0 &&
      (g.transB
           ? lt.cublasLtMatrixLayoutCreate(&m->la, cudaType(g.typeB), K, N, K)
           : lt.cublasLtMatrixLayoutCreate(&m->la, cudaType(g.typeB), N, K,
                                           N)) == 0 &&
      lt.cublasLtMatrixLayoutCreate(&m->lb, cudaType(g.typeA), K, M, K) == 0 &&
      lt.cublasLtMatrixLayoutCreate(&m->lc, CUDA_R_16BF, N, M, N) == 0 &&
      lt.cublasLtMatmulPreferenceCreate(&m->pref) == 0;
  // The per-tensor scales multiply cuBLAS's A (our B) and B (our A).
  for (auto [attr, ptr] :
       {std::pair{CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, g.scaleB},
        std::pair{CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, g.scaleA}}) {
    void *p = reinterpret_cast<void *>(ptr);
    if (ok && ptr)
      ok = lt.cublasLtMatmulDescSetAttribute(m->op, attr, &p, sizeof(p)) == 0;
  }
  if (!fp8 && (g.scaleA || g.scaleB))
    return Failure{Status::HarnessError,
                   "per-tensor scales are only supported for fp8 GEMMs"};
  size_t wsBytes = gpu.ltWorkspace.bytes;
  ok = ok && lt.cublasLtMatmulPreferenceSetAttribute(
                 m->pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &wsBytes,
                 sizeof(wsBytes)) == 0;
  int found = 0;
  ok = ok &&
       lt.cublasLtMatmulAlgoGetHeuristic(gpu.ltHandle, m->op, m->la, m->lb,
                                         m->lc, m->lc, m->pref, 1, &m->heur,
                                         &found) == 0 &&
       found > 0;
  if (!ok)
    return Failure{
        Status::HarnessError,
        ("cuBLASLt found no algorithm for this " + dtypeName(g.typeA) + " GEMM")
            .str()};
  CUdeviceptr ws = gpu.ltWorkspace.ptr, pa = g.a, pb = g.b, pc = g.c;
  Gpu *gp = &gpu;
  launch = [=]() -> MaybeFail {
    static const float alpha = 1, beta = 0;
    cublasStatus_t s = gp->lt.cublasLtMatmul(
        gp->ltHandle, m->op, &alpha, reinterpret_cast<void *>(pb), m->la,
        reinterpret_cast<void *>(pa), m->lb, &beta,
        reinterpret_cast<void *>(pc), m->lc, reinterpret_cast<void *>(pc),
        m->lc, &m->heur.algo, reinterpret_cast<void *>(ws), wsBytes,
        gp->stream);
    if (s != CUBLAS_STATUS_SUCCESS)
      return Failure{Status::HarnessError,
                     "cublasLtMatmul failed with status " +
                         std::to_string(int(s))};
    return std::nullopt;
  };
  return std::nullopt;
}
