// cublaslt-blockscale-layout.cpp - which memory layout cuBLASLt's block
// scales take, measured.
//
//   g++ -O2 -std=c++17 -I/usr/local/cuda/include bench/h200/cublaslt-blockscale-layout.cpp \
//       -L/usr/local/cuda/lib64 -lcublasLt -lcudart -o cublaslt-blockscale-layout
//   ./cublaslt-blockscale-layout
//
// The gemm_fp8_blockscale baseline hands cuBLASLt an activation scale per
// token and 128 k (VEC128_32F) and a weight scale per 128x128 block
// (BLK128x128_32F). The header does not say how those scale tensors are laid
// out in memory, so this runs one small GEMM per candidate layout against an
// fp64 product on the host and prints each candidate's rel-L2 error: the
// right layout gives the bf16 rounding error (about 1e-3), a wrong one O(1).
// Then, with the layout that works, which shapes cuBLASLt takes at all: Ms
// that are not multiples of 4 or 16, K-block counts that are not multiples
// of 4, and the tasks' own shapes (run, not checked: the host product would
// take minutes).

#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#define CHECK(x)                                                               \
  do {                                                                         \
    auto s = (x);                                                              \
    if (s != 0) {                                                              \
      std::printf("  %s failed: %d\n", #x, int(s));                           \
      return -1.0;                                                             \
    }                                                                          \
  } while (0)

namespace {

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
int64_t roundUp(int64_t a, int64_t b) { return ceilDiv(a, b) * b; }

/// Row-major a[M,K] (e4m3) with as[M,Kb], b[N,K] (e4m3) with bs[Nb,Kb]:
/// c = (a*as) (b*bs)^T. `aTokenMajor`: the activation scale laid out
/// [Kb][ldA] (tokens fastest) instead of [M][Kb]; `bKMajor`: the weight
/// scale [Nb][ldB] (k blocks fastest) instead of [Kb][ldB].
double relL2(cublasLtHandle_t lt, int M, int N, int K, bool aTokenMajor,
             bool bKMajor, bool check = true) {
  int64_t Kb = ceilDiv(K, 128), Nb = ceilDiv(N, 128);
  std::mt19937 rng(1);
  std::normal_distribution<float> normal;
  std::uniform_real_distribution<float> uniform(0.25f, 1.0f);
  std::vector<__nv_fp8_e4m3> a(size_t(M) * K), b(size_t(N) * K);
  std::vector<float> as(size_t(M) * Kb), bs(size_t(Nb) * Kb);
  for (auto &x : a)
    x = __nv_fp8_e4m3(normal(rng));
  for (auto &x : b)
    x = __nv_fp8_e4m3(normal(rng));
  for (auto &x : as)
    x = uniform(rng);
  for (auto &x : bs)
    x = uniform(rng);

  // The scale tensors as each candidate lays them out, leading dimensions
  // padded to a multiple of 4 floats (16 bytes).
  int64_t ldA = aTokenMajor ? roundUp(M, 4) : roundUp(Kb, 4);
  std::vector<float> asDev(aTokenMajor ? ldA * Kb : ldA * M, 0.0f);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t kb = 0; kb < Kb; ++kb)
      asDev[aTokenMajor ? kb * ldA + m : m * ldA + kb] = as[m * Kb + kb];
  int64_t ldB = bKMajor ? roundUp(Kb, 4) : roundUp(Nb, 4);
  std::vector<float> bsDev(bKMajor ? ldB * Nb : ldB * Kb, 0.0f);
  for (int64_t nb = 0; nb < Nb; ++nb)
    for (int64_t kb = 0; kb < Kb; ++kb)
      bsDev[bKMajor ? nb * ldB + kb : kb * ldB + nb] = bs[nb * Kb + kb];

  void *da, *db, *dc, *das, *dbs, *ws;
  size_t wsBytes = 64 << 20;
  CHECK(cudaMalloc(&da, a.size()));
  CHECK(cudaMalloc(&db, b.size()));
  CHECK(cudaMalloc(&dc, size_t(M) * N * 2));
  CHECK(cudaMalloc(&das, asDev.size() * 4));
  CHECK(cudaMalloc(&dbs, bsDev.size() * 4));
  CHECK(cudaMalloc(&ws, wsBytes));
  CHECK(cudaMemcpy(da, a.data(), a.size(), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b.data(), b.size(), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(das, asDev.data(), asDev.size() * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dbs, bsDev.data(), bsDev.size() * 4, cudaMemcpyHostToDevice));

  // Column-major: C^T[N,M] = B[N,K] A^T; cuBLAS's A is our b ([K,N], ld K,
  // transposed), its B our a ([K,M], ld K).
  cublasLtMatmulDesc_t op;
  cublasLtMatrixLayout_t la, lb, lc;
  CHECK(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  cublasOperation_t t = CUBLAS_OP_T, n = CUBLAS_OP_N;
  CHECK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof(t)));
  CHECK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &n, sizeof(n)));
  int32_t blk = CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F,
          vec = CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F;
  CHECK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &blk, sizeof(blk)));
  CHECK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, &vec, sizeof(vec)));
  CHECK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &dbs, sizeof(dbs)));
  CHECK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &das, sizeof(das)));
  CHECK(cublasLtMatrixLayoutCreate(&la, CUDA_R_8F_E4M3, K, N, K));
  CHECK(cublasLtMatrixLayoutCreate(&lb, CUDA_R_8F_E4M3, K, M, K));
  CHECK(cublasLtMatrixLayoutCreate(&lc, CUDA_R_16BF, N, M, N));
  cublasLtMatmulPreference_t pref;
  CHECK(cublasLtMatmulPreferenceCreate(&pref));
  CHECK(cublasLtMatmulPreferenceSetAttribute(
      pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &wsBytes, sizeof(wsBytes)));
  cublasLtMatmulHeuristicResult_t heur = {};
  int found = 0;
  CHECK(cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, lc, lc, pref, 1, &heur, &found));
  if (!found) {
    std::printf("  no algorithm\n");
    return -1.0;
  }
  float alpha = 1, beta = 0;
  CHECK(cublasLtMatmul(lt, op, &alpha, db, la, da, lb, &beta, dc, lc, dc, lc,
                       &heur.algo, ws, wsBytes, 0));
  CHECK(cudaDeviceSynchronize());
  std::vector<__nv_bfloat16> c(size_t(M) * N);
  CHECK(cudaMemcpy(c.data(), dc, c.size() * 2, cudaMemcpyDeviceToHost));

  double err = 0, norm = check ? 0 : 1;
  for (int64_t m = 0; check && m < M; ++m)
    for (int64_t j = 0; j < N; ++j) {
      double sum = 0;
      for (int64_t k = 0; k < K; ++k)
        sum += double(float(a[m * K + k])) * as[m * Kb + k / 128] *
               double(float(b[j * K + k])) * bs[(j / 128) * Kb + k / 128];
      double d = double(float(c[m * N + j])) - sum;
      err += d * d;
      norm += sum * sum;
    }
  for (void *p : {da, db, dc, das, dbs, ws})
    cudaFree(p);
  cublasLtMatmulPreferenceDestroy(pref);
  for (auto l : {la, lb, lc})
    cublasLtMatrixLayoutDestroy(l);
  cublasLtMatmulDescDestroy(op);
  return std::sqrt(err / norm);
}

} // namespace

int main() {
  cublasLtHandle_t lt;
  if (cublasLtCreate(&lt) != 0) {
    std::printf("cublasLtCreate failed\n");
    return 1;
  }
  std::printf("cuBLASLt %zu\n", cublasLtGetVersion());
  struct Shape {
    int M, N, K;
  } shapes[] = {{256, 256, 512}, {93, 384, 640}, {128, 256, 1536}};
  for (Shape s : shapes)
    for (bool aTokenMajor : {true, false})
      for (bool bKMajor : {true, false}) {
        double e = relL2(lt, s.M, s.N, s.K, aTokenMajor, bKMajor);
        std::printf("M=%d N=%d K=%d a_scale %s, b_scale %s: rel-L2 %s%.3g\n",
                    s.M, s.N, s.K,
                    aTokenMajor ? "[Kb][M] (tokens fastest)" : "[M][Kb]",
                    bKMajor ? "[Nb][Kb] (k blocks fastest)" : "[Kb][Nb]",
                    e < 0 ? "failed " : "", e < 0 ? 0.0 : e);
      }
  // Which shapes are taken (tokens-fastest a_scale, b_scale as stored).
  struct Taken {
    int M, N, K;
    bool check;
  } taken[] = {{96, 384, 512, true},    {100, 384, 512, true},
               {93, 384, 512, true},    {128, 384, 640, true},
               {128, 384, 768, true},   {128, 7168, 2048, false},
               {93, 7168, 2048, false}, {901, 7168, 2048, false},
               {4096, 7168, 2048, false}, {128, 24576, 1536, false}};
  for (Taken s : taken) {
    double e = relL2(lt, s.M, s.N, s.K, true, true, s.check);
    std::printf("M=%d N=%d K=%d: %s", s.M, s.N, s.K,
                e < 0 ? "not taken\n" : s.check ? "rel-L2 " : "ran\n");
    if (e >= 0 && s.check)
      std::printf("%.3g\n", e);
  }
  cublasLtDestroy(lt);
  return 0;
}
