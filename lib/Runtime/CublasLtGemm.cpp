//===- CublasLtGemm.cpp - The cuBLASLt GEMM baseline ----------------------===//
//
// Row-major C[M,N] = A[M,K] B[K,N] is column-major C^T = B^T A^T, so
// cuBLAS's first operand is our B. The descriptors are created once per
// workload and kept alive by the launch closure. Block scales are handed to
// cuBLASLt as it lays them out (measured on the H200 with
// bench/h200/cublaslt-blockscale-layout.cpp): the 1x128 scales of the
// activations k-block-major with the rows fastest, the 128x128 scales of the
// weight as the task stores them; each with its leading dimension a
// multiple of 4 floats.
//
//===----------------------------------------------------------------------===//

#include "CublasLtGemm.h"

#include <memory>
#include <vector>

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

/// A scale tensor laid out again for cuBLASLt on each launch: `in`, a
/// row-major f32 [rows, cols] matrix, copied into `out` transposed (or not)
/// with each row of the result padded to a multiple of 4 floats.
struct Relayout {
  CUdeviceptr in = 0;
  DeviceBuffer out;
  cublasLtMatrixTransformDesc_t desc = nullptr;
  cublasLtMatrixLayout_t from = nullptr, to = nullptr;
};

/// The descriptors of one GEMM, released with it.
struct LtGemm {
  Gpu *gpu = nullptr;
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t la = nullptr, lb = nullptr, lc = nullptr;
  cublasLtMatmulPreference_t pref = nullptr;
  cublasLtMatmulHeuristicResult_t heur = {};
  std::vector<Relayout> relayouts;
  ~LtGemm() {
    cuda::CublasLt &lt = gpu->lt;
    for (Relayout &r : relayouts) {
      for (cublasLtMatrixLayout_t l : {r.from, r.to})
        if (l)
          lt.cublasLtMatrixLayoutDestroy(l);
      if (r.desc)
        lt.cublasLtMatrixTransformDescDestroy(r.desc);
      gpu->free(r.out);
    }
    if (pref)
      lt.cublasLtMatmulPreferenceDestroy(pref);
    for (cublasLtMatrixLayout_t l : {la, lb, lc})
      if (l)
        lt.cublasLtMatrixLayoutDestroy(l);
    if (op)
      lt.cublasLtMatmulDescDestroy(op);
  }
};

int64_t roundUp4(int64_t n) { return (n + 3) / 4 * 4; }

/// Adds a relayout of `in` ([rows, cols] row-major f32) to `m` and returns
/// where the result is, 0 on failure. Column-major, `in` is cols x rows with
/// leading dimension cols; the result is rows x cols (transposed) or cols x
/// rows, its leading dimension padded.
CUdeviceptr addRelayout(LtGemm &m, CUdeviceptr in, int64_t rows, int64_t cols,
                        bool transpose) {
  cuda::CublasLt &lt = m.gpu->lt;
  Relayout &r = m.relayouts.emplace_back();
  r.in = in;
  int64_t outRows = transpose ? rows : cols, outCols = transpose ? cols : rows;
  int64_t ld = roundUp4(outRows);
  cublasOperation_t op = transpose ? CUBLAS_OP_T : CUBLAS_OP_N;
  cudaDataType_t f32 = CUDA_R_32F;
  bool ok =
      lt.cublasLtMatrixTransformDescCreate(&r.desc, CUDA_R_32F) == 0 &&
      lt.cublasLtMatrixTransformDescSetAttribute(
          r.desc, CUBLASLT_MATRIX_TRANSFORM_DESC_SCALE_TYPE, &f32,
          sizeof(f32)) == 0 &&
      lt.cublasLtMatrixTransformDescSetAttribute(
          r.desc, CUBLASLT_MATRIX_TRANSFORM_DESC_TRANSA, &op, sizeof(op)) ==
          0 &&
      lt.cublasLtMatrixLayoutCreate(&r.from, CUDA_R_32F, cols, rows, cols) ==
          0 &&
      lt.cublasLtMatrixLayoutCreate(&r.to, CUDA_R_32F, outRows, outCols, ld) ==
          0;
  // The padding is never written by the copy; zero it once so it is the
  // same on every run.
  size_t bytes = size_t(ld * outCols) * 4;
  if (!ok || m.gpu->alloc(r.out, bytes) ||
      m.gpu->d.cuMemsetD8Async(r.out.ptr, 0, bytes, m.gpu->stream) !=
          CUDA_SUCCESS)
    return 0;
  return r.out.ptr;
}

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
  if (g.blockScales && (!fp8 || !g.scaleA || !g.scaleB))
    return Failure{Status::HarnessError,
                   "block scales are only supported for fp8 GEMMs with both "
                   "scale tensors"};
  if (!fp8 && (g.scaleA || g.scaleB))
    return Failure{Status::HarnessError,
                   "per-tensor scales are only supported for fp8 GEMMs"};
  cuda::CublasLt &lt = gpu.lt;
  if (!gpu.ltHandle) {
    if (lt.cublasLtCreate(&gpu.ltHandle) != CUBLAS_STATUS_SUCCESS)
      return Failure{Status::HarnessError, "cublasLtCreate failed"};
    TRY(gpu.alloc(gpu.ltWorkspace, 64 << 20));
  }
  auto m = std::make_shared<LtGemm>();
  m->gpu = &gpu;
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
  // The scales multiply cuBLAS's A (our B) and B (our A).
  CUdeviceptr scaleA = g.scaleA, scaleB = g.scaleB;
  if (ok && g.blockScales) {
    int64_t kBlocks = (K + 127) / 128, nBlocks = (N + 127) / 128;
    int32_t blockMode = CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F,
            rowMode = CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F;
    scaleA = addRelayout(*m, g.scaleA, M, kBlocks, /*transpose=*/true);
    if (kBlocks % 4)
      scaleB = addRelayout(*m, g.scaleB, nBlocks, kBlocks, /*transpose=*/false);
    ok = scaleA && scaleB &&
         lt.cublasLtMatmulDescSetAttribute(
             m->op, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &blockMode,
             sizeof(blockMode)) == 0 &&
         lt.cublasLtMatmulDescSetAttribute(
             m->op, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, &rowMode,
             sizeof(rowMode)) == 0;
  }
  for (auto [attr, ptr] :
       {std::pair{CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, scaleB},
        std::pair{CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, scaleA}}) {
    void *p = reinterpret_cast<void *>(ptr);
    if (ok && ptr)
      ok = lt.cublasLtMatmulDescSetAttribute(m->op, attr, &p, sizeof(p)) == 0;
  }
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
        ("cuBLASLt found no algorithm for this " + dtypeName(g.typeA) +
         (g.blockScales ? " GEMM with block scales (Hopper only)" : " GEMM") +
         " at M=" + Twine(M) + ", N=" + Twine(N) + ", K=" + Twine(K))
            .str()};
  CUdeviceptr ws = gpu.ltWorkspace.ptr, pa = g.a, pb = g.b, pc = g.c;
  Gpu *gp = &gpu;
  launch = [=]() -> MaybeFail {
    static const float alpha = 1, beta = 0;
    for (const Relayout &r : m->relayouts) {
      void *out = reinterpret_cast<void *>(r.out.ptr);
      cublasStatus_t s = gp->lt.cublasLtMatrixTransform(
          gp->ltHandle, r.desc, &alpha, reinterpret_cast<void *>(r.in), r.from,
          &beta, nullptr, nullptr, out, r.to, gp->stream);
      if (s != CUBLAS_STATUS_SUCCESS)
        return Failure{Status::HarnessError,
                       "cublasLtMatrixTransform (the block scales' layout) "
                       "failed with status " +
                           std::to_string(int(s))};
    }
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
